"""Module names of a repository's Python files, and the files of module names.

Pure. A repository has several import roots: its top level, `src/`, and any
folder that is not itself a package but holds packages or scripts (Django's
`tests/`, which its test runner puts on `sys.path`). A file can therefore be
importable under more than one name; every name is indexed, and a lookup
prefers the file nearest the importer. Folders without `__init__.py` are
namespace packages, so a module name is just the path.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache

STDLIB = frozenset(sys.stdlib_module_names) | {"__future__", "__main__", "typing_extensions"}


#: Folders of test data (inputs a test reads as text: black's 309 formatter cases under tests/data/): any folder under
#: one of these names, and `data` under a tests folder. The `test_data` key of the configuration replaces them.
DEFAULT_TEST_DATA = ("fixtures", "testdata", "test_data", "test-data", "tests/**/data", "test/**/data", "testing/**/data")


def is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def importable_spelling(path: str) -> bool:
    """Is the path spelt as an import statement can name it? Python NFKC-normalises the names in the
    source (`import café` typed with a combining accent is `café`), while the file system compares
    bytes: a file whose name is not in NFKC form (café.py decomposed, as macOS writes it) is never
    the file an import finds. It keeps its own module name, which no resolved import can reach."""
    if path.isascii():
        return True
    import unicodedata  # only for a name that is not ASCII

    return unicodedata.is_normalized("NFKC", path)


def _strip_suffix(path: str) -> str:
    return path[: -len(".pyi")] if path.endswith(".pyi") else path[: -len(".py")]


@dataclass
class ModuleMap:
    paths: AbstractSet[str]
    roots: tuple[str, ...]  # "" is the repository's top level; deepest first
    by_name: Mapping[str, list[str]] = field(default_factory=dict)  # name -> its files, in path order
    primary: Mapping[str, str] = field(default_factory=dict)  # path -> its module name from its deepest root
    top_names: AbstractSet[str] = frozenset()
    prefixes: AbstractSet[str] = frozenset()  # every package name, namespace folders included
    test_data: tuple[str, ...] = DEFAULT_TEST_DATA  # the folders of test data the roots were derived without

    @classmethod
    def build(cls, paths: Iterable[str], test_data: tuple[str, ...] = DEFAULT_TEST_DATA) -> ModuleMap:
        """`test_data`: the folders of test data (the configuration's), which are no import roots."""
        paths = frozenset(p for p in paths if is_python(p))
        layout = Layout.of(paths, test_data)
        roots = frozenset(layout.roots)
        by_name: dict[str, list[str]] = {}
        primary: dict[str, str] = {}
        for path in sorted(paths):
            for name in names_of(path, roots):
                by_name.setdefault(name, []).append(path)
                primary.setdefault(path, name)
        tops = frozenset(n.split(".", 1)[0] for n in by_name)
        prefixes = frozenset(n.rsplit(".", i)[0] for n in by_name for i in range(1, n.count(".") + 1))
        return cls(paths, layout.roots, by_name, primary, tops, prefixes, test_data)

    def with_changes(self, added: AbstractSet[str], removed: AbstractSet[str]) -> ModuleMap:
        """The map of the same files with some added and some removed."""
        return ModuleMap.build((set(self.paths) - removed) | added, self.test_data)

    def module_of(self, path: str) -> str:
        return self.primary[path]

    def is_package(self, path: str) -> bool:
        return posixpath.basename(path) in _INIT

    def find(self, name: str, near: str = "") -> str | None:
        """The file of module `name`, preferring the one sharing the longest path with `near`."""
        found = self.by_name.get(name)
        if not found:
            return None
        if len(found) == 1 or not near:
            return found[0]
        # Prefer .py over .pyi at the same place, then proximity to the importer.
        return max(found, key=lambda p: (len(posixpath.commonpath([p, near])) if "/" in p and "/" in near else 0, p.endswith(".py")))

    def nearest(self, name: str, near: str = "") -> list[str]:
        """The files of module `name` nearest `near`, one per module: several when modules of that name in
        other folders are equally near (which one runs depends on `sys.path`: a one-of, never merged).
        A stub beside its source is the same module: the source stands for both."""
        found = self.by_name.get(name)
        if not found or len(found) == 1:
            return list(found or ())

        def closeness(p: str) -> int:
            return len(posixpath.commonpath([p, near])) if "/" in p and "/" in near else 0

        best = max(map(closeness, found))
        modules: dict[str, str] = {}
        for p in sorted(found, key=lambda p: not p.endswith(".py")):  # the source before its stub
            if closeness(p) == best:
                modules.setdefault(_strip_suffix(p), p)
        return sorted(modules.values())

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


_INIT = ("__init__.py", "__init__.pyi")


def names_of(path: str, roots: AbstractSet[str]) -> list[str]:
    """Every module name of a Python file, from the deepest import root above it to the top level."""
    stem = _strip_suffix(path)
    if posixpath.basename(stem) == "__init__":
        stem = posixpath.dirname(stem)
    # The roots above this file, deepest first: walk its folders, not all roots.
    parts = path.split("/")[:-1]
    above = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
    out = []
    for root in [r for r in above if r in roots] + [""]:
        rel = stem[len(root) + 1 :] if root else stem
        if not rel:
            if root:
                continue
            # A top-level __init__.py: the repository is itself a package whose name git does not
            # know; with the top level on sys.path it imports as `__init__`.
            rel = "__init__"
        out.append(rel.replace("/", "."))
    return out


#: The graph's meta key under which an indexer may keep the snapshot's `Layout.to_json()` (kept with
#: `Layout.changed` as files come and go): the check then reads no path it does not ask about.
LAYOUT_KEY = "module_layout2"  # 2: folders of test data are no roots (a layout stored before had them)
#: ... and the commit that layout describes: a layout is read only when it names the graph's head.
LAYOUT_HEAD_KEY = "module_layout_head"


@dataclass(frozen=True)
class Layout:
    """What a file's module names depend on besides its own path: the import roots; and the folders
    and packages they are derived from (counted, so that added and removed files update them)."""

    roots: tuple[str, ...]  # deepest first
    dirs: Mapping[str, int]  # folder -> its Python files (directly in it)
    packages: Mapping[str, int]  # package folder -> its __init__.py / __init__.pyi files
    dotted: frozenset[str]  # files with a dot in their path before the suffix (a name does not tell their path)
    test_data: tuple[str, ...] = DEFAULT_TEST_DATA  # folders of test data: never roots

    @classmethod
    def of(cls, paths: Iterable[str], test_data: tuple[str, ...] = DEFAULT_TEST_DATA) -> Layout:
        dirs, packages, dotted = _count(paths)
        return cls(_roots(dirs.keys(), packages.keys(), test_data), dirs, packages, dotted, test_data)

    def to_json(self) -> str:
        return json.dumps({"roots": list(self.roots), "dirs": self.dirs, "packages": self.packages, "dotted": sorted(self.dotted),
                           "test_data": list(self.test_data)}, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> Layout | None:
        """A layout stored beside a snapshot (meta LAYOUT_KEY); None when there is none or it does not read."""
        if not text:
            return None
        try:
            d = json.loads(text)
            # A layout kept before the setting existed was derived with the default.
            test_data = tuple(d.get("test_data", DEFAULT_TEST_DATA))
            return cls(tuple(d["roots"]), Counter(d["dirs"]), Counter(d["packages"]), frozenset(d["dotted"]), test_data)
        except (ValueError, KeyError, TypeError):
            return None

    def changed(self, added: Iterable[str], removed: Iterable[str]) -> Layout:
        """The layout with files added and removed; the roots are derived again only when a folder or a package came or went."""
        dirs, packages = Counter(self.dirs), Counter(self.packages)
        new_dirs, new_packages, new_dotted = _count(added)
        gone_dirs, gone_packages, gone_dotted = _count(removed)
        dirs.update(new_dirs)
        dirs.subtract(gone_dirs)
        packages.update(new_packages)
        packages.subtract(gone_packages)
        dirs, packages = +dirs, +packages  # drop what fell to zero
        same = dirs.keys() == self.dirs.keys() and packages.keys() == self.packages.keys()
        roots = self.roots if same else _roots(dirs.keys(), packages.keys(), self.test_data)
        return Layout(roots, dirs, packages, (self.dotted - gone_dotted) | new_dotted, self.test_data)


def _count(paths: Iterable[str]) -> tuple[Counter[str], Counter[str], frozenset[str]]:
    """Python files per folder, __init__ files per package folder, and the files with a dot before their suffix.

    Over every path of a snapshot on each check (100,000 on a large repository): C-level string
    methods only, no call of ours per path.
    """
    # Only Python's files: the other languages' (indexed beside them) hold no modules and make no roots.
    paths = [p for p in paths if p.endswith((".py", ".pyi"))]
    dirs = Counter(p.rpartition("/")[0] for p in paths)
    packages = Counter(p.rpartition("/")[0] for p in paths if p.endswith(_INIT_ENDINGS) and p.rpartition("/")[2] in _INIT)
    dotted = frozenset(p for p in paths if p.count(".") > 1)  # a Python file's path has one dot: its suffix's
    return dirs, packages, dotted


_INIT_ENDINGS = ("__init__.py", "__init__.pyi")


@cache
def _test_data_pattern(folders: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for folder patterns matched at any depth (`**` spans folders, `*` and `?` stay in one), searched in
    a folder's path with a slash after it."""
    if not folders:
        return None
    bodies = []
    for folder in folders:
        parts = []
        for seg in folder.strip("/").split("/"):
            if seg == "**":
                parts.append("(?:[^/]+/)*")
            else:
                parts.append(re.escape(seg).replace(r"\*", "[^/]*").replace(r"\?", "[^/]") + "/")
        bodies.append("".join(parts))
    return re.compile("(?:^|/)(?:" + "|".join(bodies) + ")")


def is_test_data(path: str, folders: tuple[str, ...] = DEFAULT_TEST_DATA) -> bool:
    """Whether a file or folder lies in a folder of test data: one matching any of `folders` (DEFAULT_TEST_DATA,
    or the configuration's `test_data`)."""
    pattern = _test_data_pattern(folders)
    if pattern is None:
        return False
    folder = path.rpartition("/")[0] if is_python(path) else path
    return bool(folder) and pattern.search(folder + "/") is not None


def _roots(dirs: AbstractSet[str], packages: AbstractSet[str], test_data: tuple[str, ...]) -> tuple[str, ...]:
    """The import roots. A folder of test data is never one: its files are read by tests, not imported under their
    bare names, and as roots they made `collections.py`, `abc.py` among black's cases the stdlib's modules. They keep
    their dotted names from the roots above (`tests.data.cases.collections`)."""
    roots = {""}
    for d in dirs:
        # A folder is a root when it is not a package itself but holds code: scripts,
        # or packages (then the folder is what a runner puts on sys.path).
        if d not in packages and d != "" and not is_test_data(d, test_data):
            parent = posixpath.dirname(d)
            if parent not in packages:
                roots.add(d)
    for d in packages:
        parent = posixpath.dirname(d)
        if parent not in packages and not is_test_data(parent, test_data):
            roots.add(parent)
    # Folders above a root may be namespace packages under the real sys.path entry
    # (src/company/product/__init__.py is `company.product`): their roots count too.
    for r in sorted(roots):  # a copy: the loop adds to roots
        while r:
            r = posixpath.dirname(r)
            if r in packages:
                break
            roots.add(r)
    return tuple(sorted(roots, key=lambda r: (-r.count("/") - (r != ""), r)))


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
