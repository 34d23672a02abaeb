"""Definitions of the stored graph, asked by file, by qualname or by name (retrieval's lookups)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from graphguard.store.db import marks


def definitions_of(db: sqlite3.Connection, fid: int) -> list[tuple[str, str, int, int, str]]:
    """(qualname, kind, line, end_line, signature) of the definitions in file `fid`, by line."""
    return db.execute("SELECT qualname, kind, line, end_line, signature FROM symbols WHERE file_id = ? ORDER BY line", (fid,)).fetchall()


def spans_of(db: sqlite3.Connection, fid: int) -> list[tuple[str, str, int, int]]:
    """(qualname, kind, line, end_line) of the definitions in file `fid`, by line."""
    return db.execute("SELECT qualname, kind, line, end_line FROM symbols WHERE file_id = ? ORDER BY line", (fid,)).fetchall()


def definitions_named(db: sqlite3.Connection, qualnames: Sequence[str]) -> list[tuple[str, str, int, int, int, str]]:
    """(qualname, kind, file id, line, end_line, signature) of the definitions of `qualnames` (at most db.CHUNK)."""
    return db.execute(
        f"SELECT qualname, kind, file_id, line, end_line, signature FROM symbols WHERE qualname IN ({marks(qualnames)})", qualnames
    ).fetchall()


def classes_named_after(db: sqlite3.Connection, name: str, limit: int) -> list[tuple[int, str, str, int, int, str]]:
    """(file id, qualname, kind, line, end_line, name) of at most `limit` classes whose name starts with `name` and is
    longer: a range of the index of names."""
    return db.execute(
        "SELECT file_id, qualname, kind, line, end_line, name FROM symbols WHERE name > ? AND name < ? AND kind = 'class'"
        " LIMIT ?",
        (name, name + "\uffff", limit),
    ).fetchall()


def classes_named(db: sqlite3.Connection, names: Sequence[str], limit: int) -> list[tuple[int, str, str, int, int]]:
    """(file id, qualname, kind, line, end_line) of at most `limit` classes with one of these names."""
    return db.execute(
        f"SELECT file_id, qualname, kind, line, end_line FROM symbols WHERE name IN ({marks(names)}) AND kind = 'class'"
        " LIMIT ?",
        (*names, limit),
    ).fetchall()


def definitions_called(db: sqlite3.Connection, names: Sequence[str], limit: int) -> list[tuple[str, str, int, int, int, str]]:
    """(qualname, kind, file id, line, end_line, signature) of at most `limit` definitions named one of `names` (their
    last component), over the index of names."""
    return db.execute(
        f"SELECT qualname, kind, file_id, line, end_line, signature FROM symbols WHERE name IN ({marks(names)}) LIMIT ?",
        (*names, limit),
    ).fetchall()
