"""The graph as the expansion sees it: file-to-file edges with their kinds, read from the store.

Edges come from two tables: `file_edges` (imports with the number of distinct
symbols used, and test-of) and `sites` joined to `symbols` (which file each
call, base class or reference lands in). Re-exports need no walking here: the
resolver already points a use through `__init__` barrels to the defining file.
An import edge out of an `__init__.py` that carries no call, base or reference
is a re-export.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.retrieval.expand import Edge
from graphguard.retrieval.kinds import Direction, Link
from graphguard.store import edges as stored_edges
from graphguard.store import paths as stored_paths
from graphguard.store import symbols as stored_symbols
from graphguard.store.db import chunked
from graphguard.store.reads import SymbolRow

#: At most this many symbols are kept per edge (the most used first).
EDGE_SYMBOLS = 6


class FileRow(NamedTuple):
    id: int
    path: str
    blob: str
    module: str
    is_test: int


class Files:
    """Rows of the files table, read when first asked for and kept: a query touches a few hundred files, and
    reading all of them would make every query cost what the repository holds (100,000 rows in a monorepo)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._by_path: dict[str, FileRow | None] = {}
        self._by_id: dict[int, FileRow | None] = {}

    def _read(self, column: str, keys: Sequence[object]) -> None:
        for chunk in chunked(keys):
            for r in stored_paths.file_rows(self.db, column, chunk):
                row = FileRow._make(r)
                self._by_path[row.path] = self._by_id[row.id] = row

    def load(self, paths: Iterable[str]) -> None:
        """Read the rows of these paths in a few queries (one each would cost more)."""
        todo = [p for p in dict.fromkeys(paths) if p not in self._by_path]
        self._read("path", todo)
        for p in todo:
            self._by_path.setdefault(p, None)

    def load_ids(self, ids: Iterable[int]) -> None:
        todo = [i for i in dict.fromkeys(ids) if i not in self._by_id]
        self._read("id", todo)
        for i in todo:
            self._by_id.setdefault(i, None)

    def get(self, path: str) -> FileRow | None:
        if path not in self._by_path:
            self.load([path])
        return self._by_path[path]

    def by_id(self, fid: int) -> FileRow | None:
        if fid not in self._by_id:
            self.load_ids([fid])
        return self._by_id[fid]

    def __contains__(self, path: str) -> bool:
        return self.get(path) is not None

    def module(self, path: str) -> str:
        row = self.get(path)
        if row is None:
            raise KeyError(path)
        return row.module

    def path_of_module(self, module: str) -> str | None:
        return stored_paths.path_of_module(self.db, module)

    def tests_containing(self, words: Iterable[str], under: str = "", most: int = -1) -> list[str]:
        """Test files under the folder `under` ("" for all) whose file name holds one of `words`, at most `most`
        (-1: all). SQLite filters, over the index of paths (the table's rows are wide): Python never sees the
        other rows."""
        words = sorted(set(words))
        if not words:
            return []
        return stored_paths.tests_containing(self.db, words, under, most)

    def ids(self, paths: Iterable[str]) -> list[int]:
        paths = list(paths)
        self.load(paths)
        return [row.id for row in map(self._by_path.get, paths) if row is not None]

    def is_test(self, path: str) -> bool:
        row = self.get(path)
        return bool(row and row.is_test)


@dataclass
class _EdgeFacts:
    """What the edges between one file and another (in one direction) add up to."""

    kinds: set[Link] = field(default_factory=set)
    n_symbols: int = 0
    symbol_counts: dict[str, int] = field(default_factory=dict)


def _is_init(path: str) -> bool:
    return path.endswith(("/__init__.py", "/__init__.pyi")) or path in ("__init__.py", "__init__.pyi")


def edges_of(db: sqlite3.Connection, files: Files, paths: Sequence[str],
             focus: Mapping[str, Sequence[str]] | None = None) -> list[Edge]:
    """Forward and reverse edges of each file. With `focus` (path -> qualnames of symbols in it), that file's
    edges are those of these symbols only: the calls inside them, and the uses of them."""
    focus = focus or {}
    ids = files.ids(paths)
    if not ids:
        return []
    acc: dict[tuple[int, int, Direction], _EdgeFacts] = {}  # (node, other, direction) -> what its edges add up to
    found: list[tuple[int, int, Direction, Link | None, int, str | None]] = []

    def add(node: int, other: int, direction: Direction, kind: Link | None, n: int = 0, symbol: str | None = None) -> None:
        found.append((node, other, direction, kind, n, symbol))

    def tally(node: int, other: int, direction: Direction, kind: Link | None, n: int, symbol: str | None) -> None:
        if node == other or files.by_id(other) is None:
            return
        entry = acc.setdefault((node, other, direction), _EdgeFacts())
        if kind:
            entry.kinds.add(kind)
        entry.n_symbols = max(entry.n_symbols, n)
        if symbol:
            entry.symbol_counts[symbol] = entry.symbol_counts.get(symbol, 0) + 1

    plain = [i for i in ids if _row(files, i).path not in focus]
    if plain:
        for src, dst, kind, n in stored_edges.file_edges_from(db, plain):
            add(src, dst, Direction.FORWARD, Link.IMPORT if kind == "import" else None, n)
        for src, dst, kind, n in stored_edges.file_edges_into(db, plain):
            add(dst, src, Direction.REVERSE, Link.TEST if kind == "test-of" else Link.IMPORT, n)
        for node, other, kind, target in stored_edges.uses_made_in(db, plain):
            add(node, other, Direction.FORWARD, Link(kind), 0, target)
        for node, other, kind, scope in stored_edges.uses_made_of(db, plain):
            add(node, other, Direction.REVERSE, Link(kind), 0, scope)
    for node, other, test_fn in fixture_users(db, files, [_row(files, i).path for i in plain]):
        add(node, other, Direction.REVERSE, Link.FIXTURE, 0, test_fn)
    for path, qualnames in focus.items():
        row = files.get(path)
        if row is None or not qualnames:
            continue
        names = list(dict.fromkeys(qualnames))
        # Calls made inside the symbols (or in what they nest), and uses of them (or of their members).
        for other, kind, target in stored_edges.uses_made_in_symbols(db, row.id, names):
            add(row.id, other, Direction.FORWARD, Link(kind), 0, target)
        for other, kind, scope in stored_edges.uses_made_of_symbols(db, row.id, names):
            add(row.id, other, Direction.REVERSE, Link(kind), 0, scope)
    files.load_ids(other for _, other, *_ in found)
    for edge in found:
        tally(*edge)
    out = []
    for (node, other, direction), facts in acc.items():
        node_row, other_row = _row(files, node), _row(files, other)
        node_path, other_path = node_row.path, other_row.path
        kinds, counts = set(facts.kinds), facts.symbol_counts
        if direction is Direction.REVERSE and other_row.is_test:
            kinds.add(Link.TEST)
        if kinds <= {Link.IMPORT}:
            importer = node_path if direction is Direction.FORWARD else other_path
            if _is_init(importer):
                kinds = {Link.REEXPORT}
        symbols = tuple(s for s, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:EDGE_SYMBOLS])
        out.append(Edge(node_path, other_path, direction, frozenset(kinds), max(facts.n_symbols, len(counts)), symbols))
    return out


_PARAMS = re.compile(r"\(([^)]*)")


def parameters(signature: str) -> list[str]:
    """Parameter names of a `def` header: `def test_x(client, tmp_path: Path, n=1)` -> client, tmp_path, n."""
    m = _PARAMS.search(signature)
    if not m:
        return []
    out = []
    for part in m.group(1).split(","):
        name = part.split(":", 1)[0].split("=", 1)[0].strip().lstrip("*")
        if name.isidentifier():
            out.append(name)
    return out


def fixture_users(db: sqlite3.Connection, files: Files, paths: Sequence[str]) -> list[tuple[int, int, str]]:
    """(conftest id, test file id, test function) for each test under a conftest.py of `paths` that asks for one of
    its fixtures (a top-level function of the conftest, pytest hooks aside) by parameter name."""
    out = []
    for path in paths:
        if posixpath.basename(path) != "conftest.py":
            continue
        conf = files.get(path)
        if conf is None:
            continue
        fixtures = {
            name for (name, qualname) in stored_edges.functions_of_file(db, conf.id)
            if qualname == f"{conf.module}.{name}" and not name.startswith("pytest_")
        }
        if not fixtures:
            continue
        for fid, qualname, signature in stored_edges.tests_under(db, posixpath.dirname(path)):
            if fid != conf.id and fixtures.intersection(parameters(signature)):
                out.append((conf.id, fid, qualname))
    return out


def _row(files: Files, fid: int) -> FileRow:
    """The row of a file id the caller knows is in the table (it came from it)."""
    row = files.by_id(fid)
    assert row is not None, fid
    return row


def degree_of(db: sqlite3.Connection, files: Files, paths: Sequence[str]) -> dict[str, int]:
    """Distinct import neighbours of each file, forward plus reverse."""
    ids = files.ids(paths)
    if not ids:
        return {}
    deg: dict[int, int] = {}
    out, into = stored_edges.import_degrees(db, ids)
    for fid, n in out + into:
        deg[fid] = deg.get(fid, 0) + n
    return {_row(files, i).path: n for i, n in deg.items()}


Symbol = SymbolRow  # one record for a row of `symbols`, here and in graph.py


def symbols_in(db: sqlite3.Connection, files: Files, path: str) -> list[Symbol]:
    row = files.get(path)
    if row is None:
        return []
    return [Symbol(q, k, path, a, b, s) for q, k, a, b, s in stored_symbols.definitions_of(db, row.id)]


def symbols_named(db: sqlite3.Connection, files: Files, qualnames: Sequence[str]) -> dict[str, Symbol]:
    out: dict[str, Symbol] = {}
    qualnames = list(dict.fromkeys(qualnames))
    rows = []
    for chunk in chunked(qualnames):
        rows += stored_symbols.definitions_named(db, chunk)
    files.load_ids(r[2] for r in rows)
    for q, k, fid, a, b, s in rows:
        f = files.by_id(fid)
        if f is not None and q not in out:
            out[q] = Symbol(q, k, f.path, a, b, s)
    return out


#: Symbols whose name a compound of the task's words matches: at most this many documents are read.
NAME_HITS = 200


def name_matches(db: sqlite3.Connection, compounds: Sequence[str], *, limit: int = NAME_HITS) -> list[tuple[str, str, str, int, int]]:
    """(path, qualname, kind, line, end_line) of the definitions whose name (the text index's `name` column) holds one
    of the compound tokens: a few rare tokens, so the lookup costs little whatever the repository's size."""
    if not compounds:
        return []
    expression = "name : (" + " OR ".join(f'"{t}"' for t in compounds) + ")"
    return db.execute(
        "SELECT d.path, d.qualname, d.kind, d.line, d.end_line FROM"
        " (SELECT rowid FROM text_fts WHERE text_fts MATCH ? LIMIT ?) m JOIN text_docs d ON d.id = m.rowid",
        (expression, limit),
    ).fetchall()


#: Classes named after one class, read at most.
FAMILY_LIMIT = 40


def classes_named_after(db: sqlite3.Connection, files: Files, name: str, *, limit: int = FAMILY_LIMIT) -> list[tuple[str, str, str, int, int]]:
    """(path, qualname, kind, line, end_line) of the classes whose name is `name` and a capitalised suffix
    (`ModuleTypeSerializer`, `ModuleTypeFilterSet` for `ModuleType`): a range of the index of names."""
    rows = stored_symbols.classes_named_after(db, name, limit)
    files.load_ids(r[0] for r in rows)
    out = []
    for fid, qualname, kind, line, end, full in rows:
        row = files.by_id(fid)
        if row is not None and full[len(name) : len(name) + 1].isupper():
            out.append((row.path, qualname, kind, line, end))
    return out


def classes_named(db: sqlite3.Connection, files: Files, names: Sequence[str], *, limit: int = FAMILY_LIMIT) -> list[tuple[str, str, str, int, int]]:
    """(path, qualname, kind, line, end_line) of the classes with one of these names."""
    if not names:
        return []
    rows = stored_symbols.classes_named(db, names, limit)
    files.load_ids(r[0] for r in rows)
    return [(row.path, q, k, a, b) for fid, q, k, a, b in rows if (row := files.by_id(fid)) is not None]


#: Definitions read at most for the names a task writes.
WRITTEN_HITS = 200


def definitions_called(db: sqlite3.Connection, files: Files, names: Sequence[str], *, limit: int = WRITTEN_HITS) -> list[Symbol]:
    """The definitions whose own name (the last part of the qualname) is one of `names`."""
    if not names:
        return []
    rows = stored_symbols.definitions_called(db, list(dict.fromkeys(names)), limit)
    files.load_ids(r[2] for r in rows)
    return [Symbol(q, k, f.path, a, b, s) for q, k, fid, a, b, s in rows if (f := files.by_id(fid)) is not None]


def files_ending(db: sqlite3.Connection, files: Files, name: str) -> list[str]:
    """The files of the graph whose path is `name` or ends with `/name`."""
    return [p for p in stored_paths.paths_ending(db, name) if p in files]


def imported(db: sqlite3.Connection, files: Files, paths: Sequence[str]) -> set[str]:
    """Those of `paths` that some file imports."""
    ids = files.ids(paths)
    found: set[str] = set()
    for chunk in chunked(ids):
        found.update(_row(files, dst).path for _, dst, kind, _ in stored_edges.file_edges_into(db, chunk) if kind == "import")
    return found


def tested_files(db: sqlite3.Connection, files: Files, tests: Sequence[str]) -> dict[str, dict[str, int]]:
    """test file -> the files it tests (`test-of`: the non-test files it uses) with the symbols it uses of each."""
    ids = files.ids(tests)
    out: dict[str, dict[str, int]] = {}
    rows = [r for chunk in chunked(ids) for r in stored_edges.file_edges_from(db, chunk) if r[2] == "test-of"]
    files.load_ids(dst for _, dst, _, _ in rows)
    for src, dst, _, n in rows:
        row = files.by_id(dst)
        if row is not None:
            out.setdefault(_row(files, src).path, {})[row.path] = n
    return out
