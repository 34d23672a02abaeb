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
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            for r in self.db.execute(
                f"SELECT id, path, blob, module, is_test FROM files WHERE {column} IN ({_marks(len(chunk))})", chunk
            ):
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
        row = self.db.execute("SELECT path FROM files WHERE module = ? ORDER BY id DESC LIMIT 1", (module,)).fetchone()
        return row[0] if row else None

    def tests_containing(self, words: Iterable[str], under: str = "", most: int = -1) -> list[str]:
        """Test files under the folder `under` ("" for all) whose file name holds one of `words`, at most `most`
        (-1: all). SQLite filters, over the index of paths (the table's rows are wide): Python never sees the
        other rows."""
        words = sorted(set(words))
        if not words:
            return []
        base = "replace(path, rtrim(path, replace(path, '/', '')), '')"  # the file name: what follows the last /
        # The cheap test on the whole path first: the file name is cut out only for the few rows that pass it.
        match = " OR ".join([f"(instr(path, ?) > 0 AND instr({base}, ?) > 0)"] * len(words))
        where, args = f"({match})", [w for w in words for _ in (0, 1)]
        if under:
            where += " AND path >= ? AND path < ?"  # a range of the index: the folder's files only
            args += [under + "/", under + "0"]  # "0" is the character after "/"
        return [r[0] for r in self.db.execute(
            f"SELECT path FROM files WHERE id IN (SELECT id FROM files WHERE {where}) AND is_test ORDER BY id LIMIT ?",
            [*args, most])]

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

    kinds: set[str] = field(default_factory=set)
    n_symbols: int = 0
    symbol_counts: dict[str, int] = field(default_factory=dict)


def _marks(n: int) -> str:
    return ",".join("?" * n)


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
    acc: dict[tuple[int, int, str], _EdgeFacts] = {}  # (node, other, direction) -> what its edges add up to
    found: list[tuple[int, int, str, str | None, int, str | None]] = []

    def add(node: int, other: int, direction: str, kind: str | None, n: int = 0, symbol: str | None = None) -> None:
        found.append((node, other, direction, kind, n, symbol))

    def tally(node: int, other: int, direction: str, kind: str | None, n: int, symbol: str | None) -> None:
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
        m = _marks(len(plain))
        for src, dst, kind, n in db.execute(f"SELECT src, dst, kind, n_symbols FROM file_edges WHERE src IN ({m})", plain):
            add(src, dst, "forward", "import" if kind == "import" else None, n)
        for src, dst, kind, n in db.execute(f"SELECT src, dst, kind, n_symbols FROM file_edges WHERE dst IN ({m})", plain):
            add(dst, src, "reverse", "test" if kind == "test-of" else "import", n)
        for node, other, kind, target in db.execute(
            "SELECT s.file_id, t.file_id, s.kind, s.target FROM sites s JOIN symbols t ON t.qualname = s.target"
            f" WHERE s.file_id IN ({m}) AND s.target IS NOT NULL",
            plain,
        ):
            add(node, other, "forward", kind, 0, target)
        for node, other, kind, scope in db.execute(
            "SELECT t.file_id, s.file_id, s.kind, s.scope FROM symbols t JOIN sites s ON s.target = t.qualname"
            f" WHERE t.file_id IN ({m})",
            plain,
        ):
            add(node, other, "reverse", kind, 0, scope)
    for node, other, test_fn in fixture_users(db, files, [_row(files, i).path for i in plain]):
        add(node, other, "reverse", "fixture", 0, test_fn)
    for path, qualnames in focus.items():
        row = files.get(path)
        if row is None or not qualnames:
            continue
        names = list(dict.fromkeys(qualnames))
        m = _marks(len(names))
        # Calls made inside the symbols (or in what they nest), and uses of them (or of their members).
        scope_match = " OR ".join(["s.scope IN (" + m + ")"] + ["s.scope LIKE ? ESCAPE '\\'"] * len(names))
        target_match = " OR ".join(["t.qualname IN (" + m + ")"] + ["t.qualname LIKE ? ESCAPE '\\'"] * len(names))
        likes = [_like_prefix(q) for q in names]
        for other, kind, target in db.execute(
            "SELECT t.file_id, s.kind, s.target FROM sites s JOIN symbols t ON t.qualname = s.target"
            f" WHERE s.file_id = ? AND s.target IS NOT NULL AND ({scope_match})",
            (row.id, *names, *likes),
        ):
            add(row.id, other, "forward", kind, 0, target)
        for other, kind, scope in db.execute(
            "SELECT s.file_id, s.kind, s.scope FROM symbols t JOIN sites s ON s.target = t.qualname"
            f" WHERE t.file_id = ? AND ({target_match})",
            (row.id, *names, *likes),
        ):
            add(row.id, other, "reverse", kind, 0, scope)
    files.load_ids(other for _, other, *_ in found)
    for edge in found:
        tally(*edge)
    out = []
    for (node, other, direction), facts in acc.items():
        node_row, other_row = _row(files, node), _row(files, other)
        node_path, other_path = node_row.path, other_row.path
        kinds, counts = set(facts.kinds), facts.symbol_counts
        if direction == "reverse" and other_row.is_test:
            kinds.add("test")
        if kinds <= {"import"}:
            importer = node_path if direction == "forward" else other_path
            if _is_init(importer):
                kinds = {"reexport"}
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
            name for (name, qualname) in db.execute(
                "SELECT name, qualname FROM symbols WHERE file_id = ? AND kind = 'function'", (conf.id,))
            if qualname == f"{conf.module}.{name}" and not name.startswith("pytest_")
        }
        if not fixtures:
            continue
        folder = posixpath.dirname(path)
        like = (folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%") if folder else "%"
        for fid, qualname, signature in db.execute(
            "SELECT f.id, s.qualname, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE f.is_test AND f.path LIKE ? ESCAPE '\\' AND s.name LIKE 'test%' AND s.kind IN ('function', 'method')",
            (like,),
        ):
            if fid != conf.id and fixtures.intersection(parameters(signature)):
                out.append((conf.id, fid, qualname))
    return out


def _row(files: Files, fid: int) -> FileRow:
    """The row of a file id the caller knows is in the table (it came from it)."""
    row = files.by_id(fid)
    assert row is not None, fid
    return row


def _like_prefix(qualname: str) -> str:
    return qualname.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"


def degree_of(db: sqlite3.Connection, files: Files, paths: Sequence[str]) -> dict[str, int]:
    """Distinct import neighbours of each file, forward plus reverse."""
    ids = files.ids(paths)
    if not ids:
        return {}
    m = _marks(len(ids))
    deg: dict[int, int] = {}
    for fid, n in db.execute(f"SELECT src, count(*) FROM file_edges WHERE kind = 'import' AND src IN ({m}) GROUP BY src", ids):
        deg[fid] = deg.get(fid, 0) + n
    for fid, n in db.execute(f"SELECT dst, count(*) FROM file_edges WHERE kind = 'import' AND dst IN ({m}) GROUP BY dst", ids):
        deg[fid] = deg.get(fid, 0) + n
    return {_row(files, i).path: n for i, n in deg.items()}


Symbol = SymbolRow  # one record for a row of `symbols`, here and in graph.py


def symbols_in(db: sqlite3.Connection, files: Files, path: str) -> list[Symbol]:
    row = files.get(path)
    if row is None:
        return []
    return [Symbol(q, k, path, a, b, s) for q, k, a, b, s in
            db.execute("SELECT qualname, kind, line, end_line, signature FROM symbols WHERE file_id = ? ORDER BY line", (row.id,))]


def symbols_named(db: sqlite3.Connection, files: Files, qualnames: Sequence[str]) -> dict[str, Symbol]:
    out: dict[str, Symbol] = {}
    qualnames = list(dict.fromkeys(qualnames))
    rows = []
    for i in range(0, len(qualnames), 500):
        chunk = qualnames[i : i + 500]
        rows += db.execute(
            f"SELECT qualname, kind, file_id, line, end_line, signature FROM symbols WHERE qualname IN ({_marks(len(chunk))})", chunk
        ).fetchall()
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
    rows = db.execute(
        "SELECT file_id, qualname, kind, line, end_line, name FROM symbols WHERE name > ? AND name < ? AND kind = 'class'"
        " LIMIT ?",
        (name, name + "\uffff", limit),
    ).fetchall()
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
    rows = db.execute(
        f"SELECT file_id, qualname, kind, line, end_line FROM symbols WHERE name IN ({_marks(len(names))}) AND kind = 'class'"
        " LIMIT ?",
        (*names, limit),
    ).fetchall()
    files.load_ids(r[0] for r in rows)
    return [(row.path, q, k, a, b) for fid, q, k, a, b in rows if (row := files.by_id(fid)) is not None]
