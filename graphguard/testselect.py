"""The tests that matter for one changed definition, by name (pytest node ids), nearest first. Pure over the graph.

    callers of the changed definition (the check's uses)             distance 1
      -> reverse call edges: sites whose target is the node, and, for a method,
         unresolved `x.name(...)` calls of its name (fixtures and helpers are rarely typed)
      -> a nested function reaches its enclosing function
      -> a fixture (a top-level function of a test file or conftest.py) reaches every test
         and fixture that names it as a parameter, in its file or under its conftest's folder
      -> a use at import time (module level, class body, an import of a removed name)
         reaches every test of the test files that import that module (a conftest: its folder)
    stop at test functions (`test*`, `Class.test*` in `test*.py` / `*_test.py`).

A node is a definition's qualified name, as the graph stores sites' scopes. The walk is
breadth-first and bounded (depth, nodes): a test found at distance d calls the changed
definition through d - 1 functions. The list is capped: when it is longer, the files with
the most tests become one entry each (`tests/test_x.py` runs them all), and what is still
too much is cut, farthest first, and counted.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from graphguard.config import Config
from graphguard.result import CallerImpact, Status, TestHit
from graphguard.store import edges
from graphguard.store.db import chunked
from graphguard.store.reads import BUILTIN_METHODS, CodeGraph
from graphguard.testcollect import enclosing_test, is_script_test, is_test_module, node_id, parameter_names

#: Entries in one change's list; beyond it whole files, then a cut (counted in `Selection.omitted`).
MAX_TESTS = 60
#: Call edges walked up from a caller; a test farther than this is not named.
MAX_DEPTH = 16
#: Definitions visited per change: bounds the walk on a large repository (names like `run` reach far;
#: about half a millisecond each on Django, and the walk runs inside the commit hook).
MAX_NODES = 1000
#: Reverse import hops from a module that fails at import time to the test files importing it.
MAX_IMPORT_HOPS = 6


@dataclass(frozen=True)
class Selection:
    hits: tuple[TestHit, ...]
    omitted: int = 0  # tests (or files) reached but left out by the cap


@dataclass(frozen=True)
class _Node:
    path: str
    qualname: str  # full dotted name; the module itself for import-time code


@dataclass
class _Walk:
    graph: CodeGraph
    config: Config
    modules: dict[str, str] = field(default_factory=dict)  # path -> module
    classes: dict[str, bool] = field(default_factory=dict)  # qualname -> is a class (its body runs at import)
    # (fixture name, folder or file it is looked for in) -> (path, qualname) of test-file functions taking it
    test_params: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    dead_ends: list[tuple[_Node, int, bool]] = field(default_factory=list)  # (node, distance, is a method): nothing calls it by name
    bases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # class -> (base class, its path), from the inherit sites
    importing_tests: dict[str, list[str]] = field(default_factory=dict)  # path -> test files importing it (_import_time)
    file_hits: dict[str, int] = field(default_factory=dict)  # test file -> distance (the whole file)
    test_hits: dict[tuple[str, str], int] = field(default_factory=dict)  # (path, local test qualname) -> distance
    limit: int = MAX_TESTS
    stopped: bool = False  # the walk ended with definitions left to visit (a bound, or enough test files)

    def module(self, path: str) -> str:
        if path not in self.modules:
            self.modules[path] = edges.module_of(self.graph.db, path) or ""
        return self.modules[path]

    def prefetch(self, nodes: Iterable[_Node]) -> None:
        """The modules and class-ness of a level's nodes, asked in a few statements rather than two per node."""
        nodes = list(nodes)
        self.prefetch_modules(n.path for n in nodes)
        names = sorted({n.qualname for n in nodes if n.qualname not in self.classes})
        for chunk in chunked(names):
            self.classes.update(dict.fromkeys(chunk, False))
            self.classes.update((q, True) for q in edges.classes_among(self.graph.db, chunk))

    def prefetch_modules(self, paths: Iterable[str]) -> None:
        wanted = sorted({p for p in paths if p not in self.modules})
        for chunk in chunked(wanted):
            self.modules.update(dict.fromkeys(chunk, ""))
            self.modules.update(edges.modules_of(self.graph.db, chunk))

    def is_class(self, qualname: str) -> bool:
        if qualname not in self.classes:
            self.classes[qualname] = edges.is_class(self.graph.db, qualname)
        return self.classes[qualname]

    def bases_of(self, cls: str) -> list[tuple[str, str]]:
        """(base, path of its definition) of each inherit site written in `cls` (a class's bases), in the stored order.

        The sites are looked for in the files that define `cls` or something under it (the
        scope of a site is a name of its file): an index lookup each, never all inherit sites.
        """
        if cls not in self.bases:
            self.bases[cls] = edges.bases_of(self.graph.db, cls)
        return self.bases[cls]

    def local(self, node: _Node) -> str:
        module = self.module(node.path)
        # A module named by its path (TypeScript/JavaScript) holds `path#qualname`.
        return node.qualname[len(module) + 1:] if module and node.qualname.startswith((module + ".", module + "#")) else node.qualname


def select_tests(graph: CodeGraph, config: Config, callers: Iterable[CallerImpact], changed_symbol: str,
                 *, changed_path: str | None = None, limit: int = MAX_TESTS) -> Selection:
    """The tests that reach `changed_symbol` through its callers, nearest first, at most `limit` entries."""
    walk = _Walk(graph, config, limit=limit)
    frontier: list[tuple[_Node, bool]] = []  # (node, runs at import time)
    if changed_path is not None and config.is_test(changed_path):
        frontier.append((_Node(changed_path, changed_symbol), False))  # a changed fixture or helper: its own users
    for c in callers:
        if config.is_generated(c.path) and not config.is_test(c.path):
            continue
        # An import of a removed name, or a broken base class, fails when the module is imported;
        # one that still works runs nothing: a subclass runs the change when it is instantiated.
        broken = c.status is Status.BROKEN
        if c.kind == "import" and not broken:
            continue
        if c.kind == "inherit" and not broken:
            frontier.append((_Node(c.path, c.caller + ".__init__"), False))
            continue
        frontier.append((_Node(c.path, c.caller), broken and c.kind in ("import", "inherit")))
    _bfs(walk, frontier)
    _guess_at_dead_ends(walk)
    return _ranked(walk, limit)


def _bfs(walk: _Walk, start: list[tuple[_Node, bool]]) -> None:
    seen: set[_Node] = set()
    frontier = start
    distance = 1
    while frontier and distance <= MAX_DEPTH and len(seen) < MAX_NODES:
        nxt: list[tuple[_Node, bool]] = []
        walk.prefetch(node for node, _ in frontier if node not in seen)
        for node, at_import in frontier:
            if node in seen or len(seen) >= MAX_NODES:
                continue
            seen.add(node)
            if is_script_test(node.path):  # its tests are calls (`it("adds", ...)`), not functions: the file is the test
                walk.file_hits[node.path] = min(walk.file_hits.get(node.path, distance), distance)
                continue
            local = walk.local(node)
            # Module-level code and a class body (not one inside a function) run when the module is imported.
            if at_import or node.qualname == walk.module(node.path) or ".<locals>." not in local and walk.is_class(node.qualname):
                _import_time(walk, node.path, distance)
                continue
            test = enclosing_test(local) if is_test_module(node.path) else None
            if test is not None:
                key = (node.path, test)
                walk.test_hits[key] = min(walk.test_hits.get(key, distance), distance)
                continue
            if ".<locals>." in local:  # a nested function is defined, and usually run, by its enclosing one
                outer = node.qualname.rsplit(".<locals>.", 1)[0]
                # Same distance: appended to the level being walked (the loop reaches it).
                frontier.append((_Node(node.path, outer), False))
                continue
            # Same distance: the definitions a call reaches this one through (appended to the level being walked).
            dispatched = _dispatched_from(walk, node, local)
            frontier.extend((n, False) for n in dispatched)
            up = _callers_of(walk, node, local)
            if walk.config.is_test(node.path) and "." not in local:
                up += _fixture_users(walk, node, local)
            if not up and not dispatched and not walk.config.is_test(node.path):
                walk.dead_ends.append((node, distance, "." in local))
            nxt.extend((n, False) for n in up)
        frontier = nxt
        distance += 1
        # Nearest first: once a level has reached as many test files as the list may hold, the farther
        # levels could only be cut (each file is at most one entry after merging).
        if frontier and len({p for p, _ in walk.test_hits} | set(walk.file_hits)) >= walk.limit:
            break
    walk.stopped = bool(frontier)


def _guess_at_dead_ends(walk: _Walk) -> None:
    """A method nothing calls by name is called some other way (a property, a callback, generated code);
    so is any definition when the walk found no test at all. The test files that import its file (and
    have no test named already) are the best guess left: one entry each, one call farther."""
    named = {p for p, _ in walk.test_hits} | set(walk.file_hits)  # a file whose tests the walk names is not guessed at
    guessed: dict[str, int] = {}
    for node, distance, method in walk.dead_ends:
        if method or not named:
            for test_path in walk.graph.tests_of(node.path):
                if is_test_module(test_path) and test_path not in named:
                    guessed[test_path] = min(guessed.get(test_path, distance + 1), distance + 1)
    walk.file_hits.update(guessed)


def _dispatched_from(walk: _Walk, node: _Node, local: str) -> list[_Node]:
    """Where calls that run this method are aimed: the methods it overrides (`self.convert()` in a base class
    runs `Path.convert`), for a dunder the class itself (`with x:`, `x()` and `for` call no name), for a
    visitor method the visitor's `visit`."""
    if "." not in local or ".<locals>." in local:
        return []
    cls, name = node.qualname.rsplit(".", 1)
    out = []
    if name.startswith("__") and name.endswith("__") and name != "__init__":
        out.append(_Node(node.path, cls + ".__init__"))  # its instantiations: `_callers_of` takes sites that target the class
    # A visitor's `visit_Name` runs from `visit` (ast.NodeVisitor, jinja2's compiler) through getattr.
    visit = ("visit", "generic_visit") if name.startswith("visit_") else ()
    out += [_Node(node.path, f"{cls}.{v}") for v in visit]
    seen, todo = {cls}, [cls]
    for _ in range(32):  # inheritance depth
        nxt = []
        for c in todo:
            for base, path in walk.bases_of(c):
                if base not in seen:
                    seen.add(base)
                    nxt.append(base)
                    out.append(_Node(path, f"{base}.{name}"))
                    out += [_Node(path, f"{base}.{v}") for v in visit]
        todo = nxt
        if not todo:
            break
    return out


def _callers_of(walk: _Walk, node: _Node, local: str) -> list[_Node]:
    """Scopes of the sites that call or name `node`: by target, and for a method by its name on an unknown receiver."""
    db = walk.graph.db
    rows = edges.callers_by_target(db, node.qualname)
    name = local.rsplit(".", 1)[-1]
    method = "." in local and ".<locals>." not in local and local.rsplit(".", 1)[0] + "." + name == local
    if method and not (name.startswith("__") and name.endswith("__")) and name not in BUILTIN_METHODS:
        rows += edges.unresolved_method_calls(db, name)
    if name == "__init__":  # `Class(...)` runs it: sites that target the class
        rows += edges.calls_of(db, node.qualname.rsplit(".", 1)[0])
    return [_Node(p, scope) for p, scope in rows]


def _fixture_users(walk: _Walk, node: _Node, name: str) -> list[_Node]:
    """Tests and fixtures that take `name` as a parameter where pytest would find this fixture."""
    folder = posixpath.dirname(node.path)
    conftest = posixpath.basename(node.path) == "conftest.py"
    # Where pytest finds it: its own file, or under a conftest's folder. Only those files' signatures
    # that mention the name are parsed (a large test suite has tens of thousands).
    key = (name, folder + "/" if conftest else node.path)
    if key not in walk.test_params:
        found = edges.test_functions_mentioning(walk.graph.db, name, path=None if conftest else node.path,
                                                bounds=under(folder) if conftest and folder else None)
        walk.test_params[key] = [(path, qualname) for path, qualname, signature in found
                                 if ".<locals>." not in qualname and name in parameter_names(signature)]
    return [_Node(path, qualname) for path, qualname in walk.test_params[key]]


def under(folder: str) -> tuple[str, str]:
    """The bounds of the paths under `folder` (not empty), for a range over the index of paths: `folder/` <= path < `folder0`."""
    return folder + "/", folder + "0"  # "0" follows "/" in byte order


def _import_time(walk: _Walk, path: str, distance: int) -> None:
    """`path` fails (or runs the change) when imported: every test file importing it, directly or not."""
    if path not in walk.importing_tests:
        walk.importing_tests[path] = _importing_tests(walk.graph.db, path)
    for p in walk.importing_tests[path]:
        walk.file_hits[p] = min(walk.file_hits.get(p, distance), distance)


def _importing_tests(db: sqlite3.Connection, path: str) -> list[str]:
    """The test files that import `path` within MAX_IMPORT_HOPS (a conftest: every test file under its folder).

    A hop is one statement over the whole level (the importers of the level's files), not one per file.
    """
    out: list[str] = []
    first = edges.file_id(db, path)
    seen_ids = {first} if first is not None else set()
    level: list[tuple[int | None, str]] = [(first, path)]
    for _ in range(MAX_IMPORT_HOPS + 1):
        for _id, p in level:
            if is_test_module(p):
                out.append(p)
            elif posixpath.basename(p) == "conftest.py":
                folder = posixpath.dirname(p)
                out += [q for q in edges.test_paths(db, under(folder) if folder else None) if is_test_module(q)]
        ids = [i for i, _ in level if i is not None]
        nxt: list[tuple[int | None, str]] = []
        for chunk in chunked(ids):
            in_function = _imported_in_functions_only(db, chunk)
            for src, dst, src_path in edges.import_edges_into(db, chunk):
                if src not in seen_ids and (src, dst) not in in_function:
                    seen_ids.add(src)
                    nxt.append((src, src_path))
        level = nxt
        if not level:
            break
    return out


def _imported_in_functions_only(db: sqlite3.Connection, dsts: list[int]) -> set[tuple[int, int]]:
    """(importer, imported) whose every import statement sits in a function: importing the importer runs none
    of them (pydantic's `__init__.__getattr__` imports its modules when asked). Other edges (a name used
    through a module attribute, say) are followed as they are."""
    scopes: dict[tuple[int, int], list[bool]] = {}
    for src, dst, scope, in_function in edges.scoped_imports_into(db, dsts):
        scopes.setdefault((src, dst), []).append(bool(in_function) or ".<locals>." in scope)
    module_level = edges.module_level_imports_into(db, dsts)
    return {k for k, fns in scopes.items() if all(fns) and k not in module_level}


def _ranked(walk: _Walk, limit: int) -> Selection:
    lines = _def_lines(walk, {p for p, _ in walk.test_hits})
    files = dict(walk.file_hits)
    tests = {}
    for k, d in walk.test_hits.items():
        if k[0] in files:  # the whole file is listed: at its nearest test's distance, never farther
            files[k[0]] = min(files[k[0]], d)
        else:
            tests[k] = d
    # Over the cap: the files with the most tests become one entry each (running a file costs no more than listing its tests).
    per_file: dict[str, list[tuple[str, str]]] = {}
    for k in tests:
        per_file.setdefault(k[0], []).append(k)
    # Taking a file changes no other file's count: the largest first (then the last path), until under the cap.
    for path, keys in sorted(per_file.items(), key=lambda kv: (len(kv[1]), kv[0]), reverse=True):
        if len(files) + len(tests) <= limit or len(keys) < 2:
            break
        files[path] = min(tests.pop(k) for k in keys)
    # (distance, path, line, name): sorted as plain tuples, and only those kept become TestHits (a change
    # imported everywhere reaches most test files).
    entries = [(d, p, 1, node_id(p, None)) for p, d in files.items()]
    entries += [(d, p, lines.get((p, t), 1), node_id(p, t)) for (p, t), d in tests.items()]
    entries.sort()
    hits = tuple(TestHit(p, line, d <= 1, name=name, distance=d) for d, p, line, name in entries[:limit])
    # Stopped with more to visit: at least one more test reaches it (the count is of those reached).
    return Selection(hits, max(int(walk.stopped), len(entries) - limit))


def _def_lines(walk: _Walk, paths: set[str]) -> dict[tuple[str, str], int]:
    """(path, local qualname) -> line of the definition, for the test files hit."""
    out: dict[tuple[str, str], int] = {}
    wanted = sorted(paths)
    walk.prefetch_modules(wanted)
    for chunk in chunked(wanted):
        for path, qualname, line in edges.definition_lines(walk.graph.db, chunk):
            module = walk.module(path)
            local = qualname[len(module) + 1:] if module and qualname.startswith(module + ".") else qualname
            out[(path, local)] = line
    return out
