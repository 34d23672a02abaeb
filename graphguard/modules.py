"""Module names of a repository's Python files, and the files of module names.

Pure. A repository has several import roots: its top level, `src/`, and any
folder that is not itself a package but holds packages or scripts (Django's
`tests/`, which its test runner puts on `sys.path`). A file can therefore be
importable under more than one name; every name is indexed, and a lookup
prefers the file nearest the importer. Folders without `__init__.py` are
namespace packages, so a module name is just the path.
"""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

STDLIB = frozenset(sys.stdlib_module_names) | {"__future__", "__main__", "typing_extensions"}


def is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _strip_suffix(path: str) -> str:
    return path[: -len(".pyi")] if path.endswith(".pyi") else path[: -len(".py")]


@dataclass
class ModuleMap:
    paths: frozenset[str]
    roots: tuple[str, ...]  # "" is the repository's top level; deepest first
    by_name: dict[str, list[str]] = field(default_factory=dict)
    primary: dict[str, str] = field(default_factory=dict)  # path -> its module name from its deepest root
    top_names: frozenset[str] = frozenset()
    prefixes: frozenset[str] = frozenset()  # every package name, namespace folders included

    @classmethod
    def build(cls, paths: Iterable[str]) -> ModuleMap:
        paths = frozenset(p for p in paths if is_python(p))
        packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) in ("__init__.py", "__init__.pyi")}
        dirs = {posixpath.dirname(p) for p in paths}
        roots = {""}
        for d in dirs:
            # A folder is a root when it is not a package itself but holds code: scripts,
            # or packages (then the folder is what a runner puts on sys.path).
            if d not in packages and d != "":
                parent = posixpath.dirname(d)
                if parent not in packages:
                    roots.add(d)
        for d in packages:
            parent = posixpath.dirname(d)
            if parent not in packages:
                roots.add(parent)
        # Folders above a root may be namespace packages under the real sys.path entry
        # (src/company/product/__init__.py is `company.product`): their roots count too.
        for r in sorted(roots):  # a copy: the loop adds to roots
            while r:
                r = posixpath.dirname(r)
                if r in packages:
                    break
                roots.add(r)
        ordered = tuple(sorted(roots, key=lambda r: (-r.count("/") - (r != ""), r)))
        m = cls(paths=paths, roots=ordered)
        tops: set[str] = set()
        for path in sorted(paths):
            stem = _strip_suffix(path)
            if posixpath.basename(stem) == "__init__":
                stem = posixpath.dirname(stem)
            # The roots above this file, deepest first: walk its folders, not all roots.
            parts = path.split("/")[:-1]
            above = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
            for root in [r for r in above if r in roots] + [""]:
                rel = stem[len(root) + 1 :] if root else stem
                if not rel:
                    if root:
                        continue
                    # A top-level __init__.py: the repository is itself a package whose name git does not
                    # know; with the top level on sys.path it imports as `__init__`.
                    rel = "__init__"
                name = rel.replace("/", ".")
                m.by_name.setdefault(name, []).append(path)
                m.primary.setdefault(path, name)
                tops.add(name.split(".", 1)[0])
        m.top_names = frozenset(tops)
        m.prefixes = frozenset(n.rsplit(".", i)[0] for n in m.by_name for i in range(1, n.count(".") + 1))
        return m

    def module_of(self, path: str) -> str:
        return self.primary[path]

    def is_package(self, path: str) -> bool:
        return posixpath.basename(path) in ("__init__.py", "__init__.pyi")

    def find(self, name: str, near: str = "") -> str | None:
        """The file of module `name`, preferring the one sharing the longest path with `near`."""
        found = self.by_name.get(name)
        if not found:
            return None
        if len(found) == 1 or not near:
            return found[0]
        # Prefer .py over .pyi at the same place, then proximity to the importer.
        return max(found, key=lambda p: (len(posixpath.commonpath([p, near])) if "/" in p and "/" in near else 0, p.endswith(".py")))

    def looks_internal(self, name: str) -> bool:
        return name.split(".", 1)[0] in self.top_names

    def relative_base(self, path: str, level: int) -> str | None:
        """Module that `from .{level}` names in `path`; None when it climbs out of the repository."""
        module = self.primary.get(path)
        if module is None:
            return None
        parts = module.split(".")
        if not self.is_package(path):
            parts = parts[:-1]
        drop = level - 1
        if drop > len(parts):
            return None
        if drop:
            parts = parts[: len(parts) - drop]
        return ".".join(parts)


def is_external(name: str) -> bool:
    return name.split(".", 1)[0] in STDLIB


@cache
def is_installed(top: str) -> bool:
    """Does the running Python have `top` as a module or a regular package (stdlib or installed)?

    Its spec is looked up, never imported: a top-level name's lookup runs no code of the
    module (a dotted one would import its parent). The current folder is left out of the
    search: it is usually the analysed repository, whose code is not what is installed.
    A namespace package (a folder without `__init__.py`) does not count: Python prefers
    any module or regular package of that name.
    """
    if top in STDLIB:
        return True
    if not top.isidentifier():
        return False
    import importlib.machinery

    here = os.getcwd()
    path = [p for p in sys.path if p and os.path.abspath(p) != here]
    try:
        spec = importlib.machinery.PathFinder.find_spec(top, path)
    except (ImportError, ValueError, OSError):
        return False
    return spec is not None and spec.origin is not None and spec.loader is not None
