"""A seeded synthetic Python monorepo, written as a git repository, for scaling benchmarks.

    python bench/monorepo.py DIR [--files 10000] [--seed 1]

Writes DIR (which must not exist or be empty) as a git repository of exactly --files
Python files in one commit, and prints a JSON description (the designated function,
a symbol, a module to edit, a task for `context`). Same seed and size, same files and
the same commit SHA (dates and author are fixed).

Shape, chosen to look like a large company repository rather than to be easy:

    mono/__init__.py
    mono/core/{util,log,errors,config,events,cache,registry}.py   hubs: imported by very many
    mono/dNNN/__init__.py, shared.py                              a domain of up to 25 packages
    mono/dNNN/pNNN/__init__.py, mNN.py (15 modules)               a package
    mono/dNNN/pNNN/tests/__init__.py, test_mNN.py                 tests beside the code

Every module imports a few earlier modules of its package (`from . import m02`,
`from mono.d0.p1.m01 import Cls as Base`), its domain's shared module, a few hubs
(`import mono.core.log as log`, `from mono.core import util`), now and then a module
of another package or domain; its functions call those with the right number of
arguments, its classes call their own methods through `self` and construct others.
`mono.core.registry.register_handler` has exactly 1,000 call sites (one each in 1,000
distinct functions), for the "signature change with 1,000 callers" figure. The code
is valid Python (`ast.parse`) and consistent: a check of the unchanged repository
finds no broken call. Standard library only; the files go to git through one
`git fast-import` stream, then one `git reset --hard` writes the work tree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

TARGET_MODULE = "mono.core.registry"
TARGET_FUNCTION = "register_handler"
TARGET_CALLERS = 1000
MODULES_PER_PACKAGE = 15
MODULES_PER_TEST = 5  # one test file per five modules
PACKAGES_PER_DOMAIN = 25

VERBS = ["load", "save", "build", "parse", "render", "apply", "merge", "check", "fetch", "store", "compute",
         "resolve", "format", "split", "collect", "refresh", "encode", "decode", "validate", "publish",
         "schedule", "cancel", "archive", "restore", "export", "import", "sync", "prune", "rank", "score"]
NOUNS = ["order", "invoice", "user", "account", "session", "report", "ledger", "payment", "shipment", "cart",
         "price", "tax", "coupon", "review", "rating", "message", "thread", "ticket", "asset", "device",
         "tenant", "quota", "policy", "token", "profile", "address", "catalog", "stock", "refund", "batch"]
SUFFIXES = ["Service", "Repository", "Builder", "Manager", "Client", "Handler", "Store", "View", "Policy", "Job"]
METHOD_VERBS = ["run", "prepare", "finish", "lookup", "update", "summarize", "emit", "reset", "attach", "flush"]

# The hubs: name -> [(function, number of positional parameters)]. register_handler is
# called only where the generator plants its 1,000 calls.
HUBS: dict[str, list[tuple[str, int]]] = {
    "util": [("coerce", 1), ("clamp", 3), ("first", 1), ("chunked", 2), ("slugify", 1), ("merge_dicts", 2),
             ("flatten", 1), ("retry", 2), ("stable_hash", 1), ("ensure_list", 1)],
    "log": [("debug", 2), ("info", 2), ("warning", 2), ("error", 2), ("timed", 1)],
    "errors": [("raise_invalid", 1), ("wrap_error", 2), ("is_retryable", 1)],
    "config": [("get_setting", 2), ("feature_enabled", 1), ("environment", 0)],
    "events": [("emit", 2), ("subscribe", 2), ("drain", 0)],
    "cache": [("cache_get", 1), ("cache_set", 2), ("invalidate", 1)],
    "registry": [(TARGET_FUNCTION, 2), ("lookup_handler", 1), ("handler_names", 0)],
}
# How often a module imports each hub (registry only where a planted call needs it).
HUB_RATE = {"util": 0.7, "log": 0.8, "errors": 0.3, "config": 0.3, "events": 0.25, "cache": 0.2}
ARGS = ["a", "b", "c"]


@dataclass
class Func:
    name: str
    arity: int
    registers: bool = False  # holds one of the planted register_handler calls


@dataclass
class Cls:
    name: str
    init_arity: int  # positional parameters after self
    methods: list[str]  # each method takes (self, value)


@dataclass
class Module:
    path: str  # mono/d000/p000/m00.py
    name: str  # mono.d000.p000.m00
    index: int  # its index in the package
    funcs: list[Func] = field(default_factory=list)
    classes: list[Cls] = field(default_factory=list)


@dataclass
class Package:
    name: str
    path: str
    modules: list[Module]
    tests: int  # number of test files


@dataclass
class Plan:
    domains: list[list[Package]]
    pad: int  # extra modules in mono/core (to hit the file count exactly)


def plan_layout(files: int) -> Plan:
    """Split `files` into domains and packages, each package 2 + modules + tests (+1 tests/__init__)."""
    core = 2 + len(HUBS)  # mono/__init__.py, mono/core/__init__.py, hubs
    left = files - core
    if left < 0:
        raise SystemExit(f"--files must be at least {core}")
    domains: list[list[Package]] = []
    while True:
        if not domains or len(domains[-1]) == PACKAGES_PER_DOMAIN:
            if left < 2 + 5:  # a domain's __init__ and shared.py, and room for a package
                break
            domains.append([])
            left -= 2
        d = len(domains) - 1
        full = 1 + MODULES_PER_PACKAGE + 1 + -(-MODULES_PER_PACKAGE // MODULES_PER_TEST)
        if left >= full:
            m = MODULES_PER_PACKAGE
        else:
            m = max(0, left - 3)  # 1 __init__, tests/__init__, one test file
            while m > 0 and 2 + m + -(-m // MODULES_PER_TEST) > left:
                m -= 1
            if m == 0:
                break
        t = -(-m // MODULES_PER_TEST)
        p = len(domains[-1])
        pkg_path = f"mono/d{d:03d}/p{p:03d}"
        mods = [Module(f"{pkg_path}/m{i:02d}.py", f"{pkg_path.replace('/', '.')}.m{i:02d}", i) for i in range(m)]
        domains[-1].append(Package(pkg_path.replace("/", "."), pkg_path, mods, t))
        left -= 2 + m + t
    if domains and not domains[-1]:
        domains.pop()
        left += 2
    return Plan(domains, left)


def fill_definitions(plan: Plan, rng: random.Random) -> None:
    """Give every module its functions and classes (names, arities): what callers must match."""
    for pkgs in plan.domains:
        for pkg in pkgs:
            for mod in pkg.modules:
                names = rng.sample([f"{v}_{n}" for v in VERBS for n in NOUNS], rng.randint(4, 7))
                mod.funcs = [Func(n, rng.randint(1, 3)) for n in names]
                nouns = rng.sample(NOUNS, rng.randint(1, 2))
                mod.classes = [Cls(f"{n.capitalize()}{rng.choice(SUFFIXES)}", rng.randint(0, 2),
                                   rng.sample(METHOD_VERBS, rng.randint(3, 5))) for n in nouns]


def plant_target_calls(plan: Plan, rng: random.Random) -> None:
    slots = [f for pkgs in plan.domains for pkg in pkgs for mod in pkg.modules for f in mod.funcs]
    if len(slots) < TARGET_CALLERS:
        raise SystemExit(f"too few functions ({len(slots)}) for {TARGET_CALLERS} callers: use more --files")
    for f in rng.sample(slots, TARGET_CALLERS):
        f.registers = True


def args_for(arity: int, pool: list[str]) -> str:
    return ", ".join(pool[i % len(pool)] for i in range(arity))


class ModuleWriter:
    """The text of one module, given what it may import."""

    def __init__(self, rng: random.Random, mod: Module, pkg: Package, domain: int,
                 others: list[tuple[Module, str]]) -> None:
        self.rng = rng
        self.mod = mod
        self.pkg = pkg
        self.domain = domain
        self.others = others  # (module, how it is imported) from other packages
        self.lines: list[str] = []
        self.callables: list[tuple[str, int]] = []  # expression prefix -> arity, callable from bodies
        self.constructors: list[tuple[str, Cls]] = []
        self.registry = ""  # how register_handler is reached: "alias" or "" (imported by name)
        self.taken = {f.name for f in mod.funcs}  # names bound at module level

    def imports(self) -> None:
        rng, mod = self.rng, self.mod
        out = self.lines
        hubs = [h for h, rate in HUB_RATE.items() if rng.random() < rate]
        if any(f.registers for f in mod.funcs):
            hubs.append("registry")
        for h in hubs:
            style = rng.random()
            if h == "log":
                out.append("import mono.core.log as log")
                alias = "log"
            elif style < 0.5:
                out.append(f"from mono.core import {h}")
                alias = h
            elif style < 0.8:
                alias = f"core_{h}"
                out.append(f"import mono.core.{h} as {alias}")
            else:
                fns = rng.sample(HUBS[h], min(2, len(HUBS[h])))
                if h == "registry":
                    fns = [f for f in HUBS[h] if f[0] == TARGET_FUNCTION]
                out.append(f"from mono.core.{h} import {', '.join(f for f, _ in fns)}")
                self.callables += [(f, a) for f, a in fns if f != TARGET_FUNCTION]
                continue
            self.callables += [(f"{alias}.{f}", a) for f, a in HUBS[h] if f != TARGET_FUNCTION]
            if h == "registry":
                self.registry = alias
        out.append(f"from mono.d{self.domain:03d} import shared")
        self.callables += [("shared.combine", 2), ("shared.normalize", 1)]
        earlier = self.pkg.modules[: mod.index]
        for dep in rng.sample(earlier, min(len(earlier), rng.randint(2, 4))):
            style = rng.random()
            short = dep.name.rsplit(".", 1)[1]
            if style < 0.4:
                out.append(f"from . import {short}")
                self.callables += [(f"{short}.{f.name}", f.arity) for f in dep.funcs]
                self.constructors += [(f"{short}.{c.name}", c) for c in dep.classes]
            elif style < 0.7 and not {f.name for f in dep.funcs} <= self.taken:
                f = rng.choice([f for f in dep.funcs if f.name not in self.taken])
                self.taken.add(f.name)
                c = rng.choice(dep.classes)
                out.append(f"from {dep.name} import {f.name}, {c.name} as {c.name}{short.upper()}")
                self.callables.append((f.name, f.arity))
                self.constructors.append((f"{c.name}{short.upper()}", c))
            else:
                alias = f"{short}_mod"
                out.append(f"import {dep.name} as {alias}")
                self.callables += [(f"{alias}.{f.name}", f.arity) for f in dep.funcs]
                self.constructors += [(f"{alias}.{c.name}", c) for c in dep.classes]
        for other, alias in self.others:
            pkg_name, short = other.name.rsplit(".", 1)
            out.append(f"from {pkg_name} import {short} as {alias}")
            self.callables += [(f"{alias}.{f.name}", f.arity) for f in other.funcs]
            self.constructors += [(f"{alias}.{c.name}", c) for c in other.classes]

    def call(self, pool: list[str]) -> str:
        callee, arity = self.rng.choice(self.callables)
        return f"{callee}({args_for(arity, pool)})"

    def function(self, f: Func, local: list[Func]) -> None:
        rng, out = self.rng, self.lines
        params = ARGS[: f.arity]
        noun = f.name.split("_", 1)[1]
        out += ["", "", f"def {f.name}({', '.join(params)}):",
                f'    """{f.name.replace("_", " ").capitalize()}: the {noun} step of {self.pkg.name}."""']
        body = []
        for i in range(rng.randint(1, 3)):
            if local and rng.random() < 0.4:
                g = rng.choice(local)
                body.append(f"    r{i} = {g.name}({args_for(g.arity, params)})")
            else:
                body.append(f"    r{i} = {self.call(params)}")
        if self.constructors and rng.random() < 0.5:
            expr, c = rng.choice(self.constructors)
            body.append(f"    obj = {expr}({args_for(c.init_arity, params)})")
            body.append(f"    obj.{rng.choice(c.methods)}(r0)")
        if f.registers:
            prefix = f"{self.registry}." if self.registry else ""
            body.append(f'    {prefix}{TARGET_FUNCTION}("{self.mod.name}.{f.name}", {f.name})')
        body.append(f"    return r{rng.randint(0, len([b for b in body if b.startswith('    r')]) - 1)}")
        out += body

    def klass(self, c: Cls) -> None:
        rng, out = self.rng, self.lines
        params = ARGS[: c.init_arity]
        out += ["", "", f"class {c.name}:", f'    """{c.name} of {self.pkg.name}."""', "",
                f"    def __init__(self{''.join(', ' + p for p in params)}):"]
        out += [f"        self.{p} = {p}" for p in params] or ["        self.state = {}"]
        for i, m in enumerate(c.methods):
            out += ["", f"    def {m}(self, value):"]
            if i + 1 < len(c.methods):
                out.append(f"        value = self.{c.methods[i + 1]}(value)")
            if self.callables and rng.random() < 0.6:
                out.append(f"        extra = {self.call(['value'])}")
                out.append("        return extra if value is None else value")
            else:
                out.append("        return value")

    def text(self) -> str:
        self.lines = [f'"""{self.mod.name.rsplit(".", 1)[1]}: '
                      f'{", ".join(f.name.replace("_", " ") for f in self.mod.funcs[:3])}."""',
                      "", "from __future__ import annotations", ""]
        self.imports()
        self.lines += ["", f"LIMIT = {self.rng.randint(2, 99)}"]
        done: list[Func] = []
        for f in self.mod.funcs:
            self.function(f, done)
            done.append(f)
        for c in self.mod.classes:
            self.klass(c)
        return "\n".join(self.lines) + "\n"


def test_text(rng: random.Random, pkg: Package, mods: list[Module]) -> str:
    lines = [f'"""Tests of {pkg.name}: {", ".join(m.name.rsplit(".", 1)[1] for m in mods)}."""', ""]
    body: list[str] = []
    taken: set[str] = set()
    for m in mods:
        short = m.name.rsplit(".", 1)[1]
        names = [f.name for f in m.funcs] + [c.name for c in m.classes]
        if rng.random() < 0.5 or taken & set(names):
            lines.append(f"from {pkg.name} import {short} as sut_{short}")
            prefix = f"sut_{short}."
        else:
            taken.update(names)
            lines.append(f"from {m.name} import {', '.join(names)}")
            prefix = ""
        for f in rng.sample(m.funcs, min(3, len(m.funcs))):
            body += ["", "", f"def test_{short}_{f.name}():",
                     f"    assert {prefix}{f.name}({args_for(f.arity, ['1', '2', '3'])}) is not None"]
        for c in m.classes:
            meth = rng.choice(c.methods)
            body += ["", "", f"def test_{short}_{c.name.lower()}_{meth}():",
                     f"    obj = {prefix}{c.name}({args_for(c.init_arity, ['1', '2'])})",
                     f"    assert obj.{meth}(0) == 0"]
    return "\n".join(lines + body) + "\n"


def hub_text(name: str) -> str:
    lines = [f'"""mono.core.{name}: shared helpers imported across the monorepo."""', "",
             "from __future__ import annotations", ""]
    for fn, arity in HUBS[name]:
        params = [f"arg{i}" for i in range(arity)]
        lines += ["", f"def {fn}({', '.join(params)}):", f'    """{fn.replace("_", " ").capitalize()}."""',
                  f"    return {params[0] if params else 'None'}", ""]
    return "\n".join(lines)


SHARED = '''"""Helpers shared by the packages of one domain."""

from __future__ import annotations

from mono.core import util


def combine(left, right):
    """Combine two partial results."""
    return util.merge_dicts(normalize(left), normalize(right))


def normalize(value):
    """Normalize one result."""
    return util.coerce(value)
'''


def files(plan: Plan, seed: int) -> Iterator[tuple[str, str]]:
    """Yield (path, text) for every file, deterministically."""
    rng = random.Random(seed)
    fill_definitions(plan, rng)
    plant_target_calls(plan, rng)
    yield "mono/__init__.py", '"""The synthetic monorepo."""\n'
    yield "mono/core/__init__.py", '"""Hub modules."""\n'
    for h in HUBS:
        yield f"mono/core/{h}.py", hub_text(h)
    for i in range(plan.pad):
        yield f"mono/core/extra{i:02d}.py", f'"""Padding module {i}."""\n\nVALUE = {i}\n'
    all_pkgs = [(d, p) for d, pkgs in enumerate(plan.domains) for p in pkgs]
    for d, pkgs in enumerate(plan.domains):
        yield f"mono/d{d:03d}/__init__.py", f'"""Domain {d}."""\n'
        yield f"mono/d{d:03d}/shared.py", SHARED
        for pkg in pkgs:
            yield f"{pkg.path}/__init__.py", f'"""Package {pkg.name}."""\n'
            for mod in pkg.modules:
                others: list[tuple[Module, str]] = []
                r = rng.random()
                if r < 0.25 and len(pkgs) > 1:  # another package of the domain
                    o = rng.choice([p for p in pkgs if p is not pkg])
                    others.append((rng.choice(o.modules), "peer"))
                if rng.random() < 0.08 and len(all_pkgs) > len(pkgs):  # another domain
                    od, op = rng.choice(all_pkgs)
                    if od != d:
                        others.append((rng.choice(op.modules), "remote"))
                yield mod.path, ModuleWriter(rng, mod, pkg, d, others).text()
            yield f"{pkg.path}/tests/__init__.py", ""
            for t in range(pkg.tests):
                chunk = pkg.modules[t * MODULES_PER_TEST:(t + 1) * MODULES_PER_TEST]
                yield f"{pkg.path}/tests/test_m{chunk[0].index:02d}.py", test_text(rng, pkg, chunk)


@dataclass
class Info:
    directory: str
    files: int
    seed: int
    commit: str
    target: str  # the function with exactly 1,000 callers
    target_path: str
    symbol: str  # an ordinary function, a few callers
    edit_path: str  # a module whose first function's body a one-file commit edits
    edit_function: str
    task: str  # a task in words, for `context`
    method: str = ""  # a method (called through instances and `self`)


def generate(directory: str, n_files: int, seed: int = 1) -> Info:
    os.makedirs(directory, exist_ok=True)
    if os.listdir(directory):
        raise SystemExit(f"{directory} is not empty")
    git = ["git", "-C", directory]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    plan = plan_layout(n_files)
    count = 0
    fast = subprocess.Popen([*git, "fast-import", "--quiet", "--done"], stdin=subprocess.PIPE)
    assert fast.stdin is not None
    out = fast.stdin
    out.write(b"commit refs/heads/main\n"
              b"author Bench <bench@example.com> 1700000000 +0000\n"
              b"committer Bench <bench@example.com> 1700000000 +0000\n")
    msg = f"synthetic monorepo: {n_files} files, seed {seed}\n".encode()
    out.write(b"data %d\n%s\n" % (len(msg), msg))
    for path, text in files(plan, seed):
        data = text.encode()
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        count += 1
    out.write(b"\ndone\n")
    out.close()
    if fast.wait() != 0:
        raise SystemExit("git fast-import failed")
    assert count == n_files, (count, n_files)
    subprocess.run([*git, "reset", "-q", "--hard", "main"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    first = plan.domains[0][0].modules[0]
    mid_pkg = plan.domains[len(plan.domains) // 2][0]
    mid = mid_pkg.modules[len(mid_pkg.modules) // 2]
    fn = mid.funcs[0]
    return Info(directory, n_files, seed, commit, f"{TARGET_MODULE}.{TARGET_FUNCTION}",
                TARGET_MODULE.replace(".", "/") + ".py", f"{first.name}.{first.funcs[0].name}",
                mid.path, fn.name, f"the {fn.name.split('_', 1)[1]} step fails to {fn.name.split('_')[0]}"
                f" when the {mid.classes[0].name} is empty",
                f"{first.name}.{first.classes[0].name}.{first.classes[0].methods[-1]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory")
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    info = generate(args.directory, args.files, args.seed)
    json.dump(info.__dict__, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
