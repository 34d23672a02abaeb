"""A fresh build to compare with, and the generated repositories the differential tests and bench walk.

The incremental graph of a commit must equal a from-scratch index of the same commit: `fresh_dump`
indexes HEAD into a graph of its own (in a scratch git dir), never touching the repository's graph.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

from graphguard import git
from graphguard.config import load as load_config
from graphguard.index.update import Indexer
from graphguard.repo import IndexResult, open_repo
from graphguard.store import Store
from tests.graphdump import dump

Dump = dict[str, list[tuple[object, ...]]]


def incremental_dump(root: str | Path, timings: list[float] | None = None, results: list[IndexResult] | None = None) -> Dump:
    """Bring the repository's own graph to HEAD (as `graphguard index` does) and dump it; the update's
    seconds are appended to `timings`, its result to `results`."""
    repo = open_repo(str(root))
    t = time.perf_counter()
    try:
        result = Indexer(repo.paths, repo.store, config=load_config(repo.root)).update()
    finally:
        repo.store.close()
    if timings is not None:
        timings.append(time.perf_counter() - t)
    if results is not None:
        results.append(result)
    return dump(repo.store.graph_path)


def fresh_dump(root: str | Path, *, share_blobs: bool = True, timings: list[float] | None = None) -> Dump:
    """Index HEAD from scratch into a scratch graph and dump it.

    With `share_blobs` the scratch graph reads parsed facts from the repository's blob cache (they are
    keyed by content, so this skips re-parsing, not resolution or writing); without it, it parses too.
    """
    paths = git.repo_paths(str(root))
    with tempfile.TemporaryDirectory(prefix="gg-fresh-") as scratch:
        common = paths.common_dir if share_blobs else os.path.join(scratch, "common")
        os.makedirs(os.path.join(scratch, "git"))
        os.makedirs(common, exist_ok=True)
        store = Store(os.path.join(scratch, "git"), common)
        t = time.perf_counter()
        try:
            Indexer(paths, store, config=load_config(paths.root)).update()
        finally:
            store.close()
        if timings is not None:
            timings.append(time.perf_counter() - t)
        return dump(store.graph_path)


# --- the reviewer's scenario: a hub function used from most files, and a wide branch ------------------

HUB = "core/hub.py"
HUB_SOURCE = "def target_fn(a):\n    return a\n"
HUB_BROKEN = "def target_fn(a, b):\n    return a\n"


def hub_files(n_files: int) -> dict[str, str]:
    """`n_files` modules in packages of 100, each calling `core.hub.target_fn` once."""
    files = {"core/__init__.py": "", HUB: HUB_SOURCE}
    for i in range(n_files):
        pkg = f"pkg{i // 100}"
        files.setdefault(f"{pkg}/__init__.py", "")
        files[f"{pkg}/m{i}.py"] = f"from core.hub import target_fn\n\n\ndef f{i}(x):\n    return target_fn(x)\n"
    return files


def widened(files: dict[str, str], n_changed: int) -> dict[str, str]:
    """The first `n_changed` modules with a body-only change (a new function; their calls stay)."""
    out = {}
    for path in sorted(p for p in files if "/m" in p)[:n_changed]:
        out[path] = files[path] + "\n\ndef extra():\n    return 1\n"
    return out


# --- a generated history: small modules that import, re-export, subclass and call each other -----------
#
# Every module is drawn from one fixed universe of paths and one small pool of names, so that names
# come and go under the same importers: an import that resolves in one commit may not in the next,
# which is what the incremental update must notice.

DIRS = ("", "app", "app/core", "app/util", "lib", "lib/deep", "src/proj", "src/proj/sub", "tests")
STEMS = ("a", "b", "c", "d")
FUNCS = ("f", "g", "h")
CLASSES = ("K", "L")
NAMES = FUNCS + CLASSES
IMPORTABLE = (*NAMES, "obj")  # `obj = K()` at module level: imported, its methods called
BULK_DIR = "gen"


def universe() -> list[str]:
    """Every path a generated module may have (packages gain and lose their `__init__.py`)."""
    paths = [f"{d}/{s}.py" if d else f"{s}.py" for d in DIRS for s in STEMS]
    paths += [f"{d}/__init__.py" for d in DIRS if d]
    return [p.replace("tests/", "tests/test_") if p.startswith("tests/") and not p.endswith("__init__.py") else p for p in paths]


def module_names(paths: list[str]) -> list[str]:
    from graphguard.languages.python.modules import ModuleMap

    return sorted(ModuleMap.build(paths).by_name)


class Source:
    """Draws the text of one module, given the module names it may import (present or not)."""

    def __init__(self, rng: random.Random, modules: list[str]):
        self.rng = rng
        self.modules = modules
        self.bound: list[str] = []  # names bound by the imports drawn so far (callables, maybe)
        self.mods: list[str] = []  # names bound to modules

    def imports(self) -> list[str]:
        rng, lines = self.rng, []
        for i in range(rng.randint(1, 4)):
            mod, name = rng.choice(self.modules), rng.choice(IMPORTABLE)
            form = rng.randrange(7)
            if form == 0:
                lines.append(f"from {mod} import {name}")
                self.bound.append(name)
            elif form == 1:
                lines.append(f"from {mod} import {name} as {name}{i}")
                self.bound.append(f"{name}{i}")
            elif form == 2:
                lines.append(f"import {mod} as m{i}")
                self.mods.append(f"m{i}")
            elif form == 3:
                lines.append(f"import {mod}")
                self.mods.append(mod)
            elif form == 4:
                lines.append(f"from {mod} import *")
                self.bound.extend(NAMES)
            elif form == 5:
                stem = rng.choice(STEMS)
                lines.append(f"from .{stem} import {name}" if rng.random() < 0.7 else f"from . import {stem}")
                self.bound.append(name) if "import " + stem not in lines[-1] else self.mods.append(stem)
            else:
                lines.append(f"from ..{rng.choice(STEMS)} import {name}")
                self.bound.append(name)
        return lines

    def call(self) -> str:
        rng = self.rng
        args = ", ".join(str(rng.randint(0, 9)) for _ in range(rng.randint(0, 2)))
        choices = [f"{n}({args})" for n in self.bound] + [f"{m}.{rng.choice(NAMES)}({args})" for m in self.mods]
        choices += [f"{rng.choice(self.bound or ['K'])}().{rng.choice(('m', 'n'))}({args})"]
        choices += [f"{n}.{rng.choice(('m', 'n'))}({args})" for n in self.bound[:2]]  # `obj.m()` on an imported value
        return rng.choice(choices)

    def text(self) -> str:
        rng = self.rng
        lines = self.imports()
        if rng.random() < 0.3:
            lines.append(f"{rng.choice(CLASSES + FUNCS)}2 = {self.call()}")  # a module-level name derived from an import
        if rng.random() < 0.2:
            lines.append(f"__all__ = {sorted(rng.sample(NAMES, 2))!r}")
        for name in rng.sample(FUNCS, rng.randint(0, 3)):
            params = rng.choice(("", "a", "a, b=1", "a, *, k", "*args, **kw"))
            returns = f" -> {rng.choice(CLASSES + tuple(self.bound[:2]))}" if rng.random() < 0.3 else ""
            lines += ["", "", f"def {name}({params}){returns}:", f"    return {self.call()}"]
        for name in rng.sample(CLASSES, rng.randint(0, 2)):
            bases = rng.choice(["", *self.bound[:3], *(f"{m}.{rng.choice(CLASSES)}" for m in self.mods[:2])])
            lines += ["", ""] + (["@dataclass"] if rng.random() < 0.15 else [])
            lines += [f"class {name}({bases}):" if bases else f"class {name}:"]
            for method in rng.sample(("m", "n", "__init__"), rng.randint(1, 2)):
                body = rng.choice((self.call(), "self.m(1)", "super().m(1)", "self.n()"))
                lines += [f"    def {method}(self, x=0):", f"        return {body}"]
        if rng.random() < 0.5:
            lines += ["", "", f"obj = {rng.choice(CLASSES + tuple(self.bound[:2]))}()", f"obj.{rng.choice(('m', 'n'))}(1)"]
        if rng.random() < 0.5:
            lines += ["", "", self.call()]
        return "\n".join(lines) + "\n"


def draw_module(rng: random.Random, modules: list[str]) -> str:
    return Source(rng, modules).text()


def bulk_module(rng: random.Random, modules: list[str], i: int) -> str:
    """A module of the bulk folder: one import of the universe and one call."""
    mod, name = rng.choice(modules), rng.choice(NAMES)
    return f"from {mod} import {name}\n\n\ndef b{i}():\n    return {name}({rng.randint(0, 3)})\n"
