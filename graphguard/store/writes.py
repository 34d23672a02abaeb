"""The rows of an update, written in one transaction: the rows of removed files go, changed files get their
row and symbols, every resolved file its sites, imports and outgoing edges."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from graphguard.languages.python.modules import LAYOUT_HEAD_KEY, LAYOUT_KEY, Layout
from graphguard.store.db import transaction

#: One phase of an update, timed (index.progress.Phases): `phase(name)` is a context manager.
Phase = Callable[[str], AbstractContextManager[Any]]


def write(
    db: sqlite3.Connection, transaction: Callable[[], AbstractContextManager[Any]], head: str, config: str, sources: list[_Rows | tuple[str, int]],
    gone: list[int], changed_ids: list[int], resolved_ids: list[int], warnings: list[tuple[str, str]] | None, *, rebuild: bool,
    roots: tuple[str, ...] | None, layout: Layout | None, phase: Phase,
) -> None:
    """One transaction: the rows of removed files go, changed files get their row and symbols, and every
    resolved file gets its sites, imports and outgoing edges. `rebuild` means every file is changed and
    resolved: then every table is emptied and the indexes are built once at the end instead of kept up
    row by row. Otherwise the indexes stay, and only the rows of the files concerned are deleted, set-wise.
    Workers' scratch databases are attached (never inside a transaction) and copied from in SQL. `config`:
    the digest of the configuration the graph is built under."""
    aliases: dict[str, str] = {}
    try:
        for source in sources:
            if isinstance(source, tuple) and source[0] not in aliases:
                aliases[source[0]] = f"w{len(aliases)}"
                db.execute("ATTACH DATABASE ? AS " + aliases[source[0]], (source[0],))
        with transaction():
            indexes = _drop_indexes(db) if rebuild else []
            if rebuild:
                for table in GRAPH_TABLES:
                    db.execute(f"DELETE FROM {table}")
                _delete_where_in(db, ["DELETE FROM files WHERE id IN ({})"], gone)
            else:
                _delete_where_in(db, [
                    "DELETE FROM file_edges WHERE dst IN ({})", "DELETE FROM symbols WHERE file_id IN ({})",
                    "DELETE FROM files WHERE id IN ({})",
                ], gone)
                _delete_where_in(db, ["DELETE FROM symbols WHERE file_id IN ({})"], changed_ids)
                _delete_where_in(db, [
                    "DELETE FROM sites WHERE file_id IN ({})", "DELETE FROM imports WHERE file_id IN ({})",
                    "DELETE FROM file_edges WHERE src IN ({})",
                ], gone + resolved_ids)
            for table, insert in _INSERTS.items():
                for source in sources:
                    if isinstance(source, _Rows):
                        db.executemany(insert.format("VALUES (" + ",".join("?" * _WIDTH[table]) + ")"), getattr(source, table))
                    else:
                        db.execute(insert.format(f"SELECT * FROM {aliases[source[0]]}.{table}_{source[1]}"))
            with phase("create indexes"):  # within the line of the write
                for _, sql in indexes:
                    db.execute(sql)
            _write_layout(db, head, layout)  # before the head moves: it reads the head the graph had
            db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)", (config,))
            if warnings is not None:  # the tree's own warnings (links, names): the same after a delta
                db.execute("INSERT OR REPLACE INTO meta VALUES ('snapshot_warnings', ?)", (json.dumps(warnings),))
            if roots is not None:  # what a delta's module map is built on
                db.execute("INSERT OR REPLACE INTO meta VALUES ('module_roots2', ?)", (json.dumps(roots),))
    finally:
        for alias in aliases.values():
            with contextlib.suppress(sqlite3.Error):
                db.execute(f"DETACH DATABASE {alias}")


def _write_layout(db: sqlite3.Connection, head: str, layout: Layout | None) -> None:
    """Keep the module layout of the paths (what the check's module map would derive from every path) with
    the commit it describes. An update that adds and removes no file keeps it when it described the commit the
    graph was at; a graph last written by a version that kept none has a head that no layout names."""
    if layout is not None:
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(LAYOUT_KEY, layout.to_json()), (LAYOUT_HEAD_KEY, head)])
        return
    stored = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('head', ?)", (LAYOUT_HEAD_KEY,)).fetchall())
    if stored.get("head") is not None and stored.get(LAYOUT_HEAD_KEY) == stored["head"]:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LAYOUT_HEAD_KEY, head))



#: How each table's rows go in (`{}`: VALUES of a row, or a SELECT from a scratch table), in this order.
_INSERTS = {
    "files": "INSERT OR REPLACE INTO files(id, path, blob, module, is_test, iface, parsed, warnings) {}",
    "symbols": "INSERT INTO symbols(file_id, qualname, name, kind, line, end_line, signature, bases) {}",
    "sites": "INSERT INTO sites {}",
    "imports": "INSERT INTO imports {}",
    "edges": "INSERT OR REPLACE INTO file_edges {}",
}
_WIDTH = {"files": 8, "symbols": 8, "sites": 16, "imports": 10, "edges": 4}


@dataclass
class _Rows:
    """Rows for the graph's tables, in the order they are written."""

    files: list[tuple[object, ...]] = field(default_factory=list)
    symbols: list[tuple[object, ...]] = field(default_factory=list)
    sites: list[tuple[object, ...]] = field(default_factory=list)
    imports: list[tuple[object, ...]] = field(default_factory=list)
    edges: list[tuple[object, ...]] = field(default_factory=list)

    def save(self, conn: sqlite3.Connection, chunk: int) -> None:
        """Into a scratch database, as tables `<table>_<chunk>`."""
        with transaction(conn):
            for table in _INSERTS:
                width = _WIDTH[table]
                conn.execute(f"CREATE TABLE {table}_{chunk}({', '.join(f'c{i}' for i in range(width))})")
                conn.executemany(f"INSERT INTO {table}_{chunk} VALUES ({','.join('?' * width)})", getattr(self, table))


def write_empty(db: sqlite3.Connection) -> None:
    """The graph of a repository without a commit (inside the caller's transaction): no rows, the head ''."""
    for table in ("files", "symbols", "sites", "file_edges", "imports"):
        db.execute(f"DELETE FROM {table}")
    db.execute("INSERT OR REPLACE INTO meta VALUES ('head', '')")


#: The tables of rows per file (besides `files`): what a rebuild empties and re-indexes.
GRAPH_TABLES = ("symbols", "sites", "imports", "file_edges")
#: Ids per `IN (...)`: well under SQLite's limit of bound parameters (999 before 3.32).
ID_BATCH = 500


def _delete_where_in(db: sqlite3.Connection, statements: list[str], ids: list[int]) -> None:
    """Run each `DELETE ... WHERE col IN ({})` over `ids` in batches: one indexed lookup per id, never a scan per id."""
    for i in range(0, len(ids), ID_BATCH):
        batch = ids[i : i + ID_BATCH]
        marks = ",".join("?" * len(batch))
        for statement in statements:
            db.execute(statement.format(marks), batch)


def _drop_indexes(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """Drop the graph's indexes (a rebuild writes every row: indexing once at the end is faster); return them to recreate."""
    indexes: list[tuple[str, str]] = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (?, ?, ?, ?)",
        GRAPH_TABLES,).fetchall()
    for name, _ in indexes:
        db.execute(f"DROP INDEX {name}")
    return indexes
