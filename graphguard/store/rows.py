"""The stored rows of files as an update reads them: (id, blob, module, interface digests) by path or id."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from graphguard.store.db import chunked, marks

#: A file's row as the update plans with it: (id, blob, module, interface digests as JSON).
FileRow = tuple[int, str, str, str]


def rows_of(db: sqlite3.Connection, paths: Sequence[str]) -> dict[str, FileRow]:
    """The rows of the stored files among `paths`, asked in chunks."""
    out: dict[str, FileRow] = {}
    for chunk in chunked(paths):
        out.update((path, (fid, blob, module, iface)) for fid, path, blob, module, iface in db.execute(
            f"SELECT id, path, blob, module, iface FROM files WHERE path IN ({marks(chunk)})", chunk))
    return out


def every_row(db: sqlite3.Connection) -> dict[str, FileRow]:
    """The rows of every stored file."""
    return {path: (fid, blob, module, iface) for fid, path, blob, module, iface in db.execute("SELECT id, path, blob, module, iface FROM files")}


def every_path(db: sqlite3.Connection) -> list[str]:
    """Every stored path, in no particular order (read through the index of paths)."""
    return [str(p) for (p,) in db.execute("SELECT path FROM files")]


def blob_of_id(db: sqlite3.Connection, fid: int) -> str | None:
    row = db.execute("SELECT blob FROM files WHERE id = ?", (fid,)).fetchone()
    return row[0] if row else None


def blob_and_id(db: sqlite3.Connection, path: str) -> tuple[str, int] | None:
    row = db.execute("SELECT blob, id FROM files WHERE path = ?", (path,)).fetchone()
    return (row[0], row[1]) if row else None


def module_at(db: sqlite3.Connection, path: str) -> str | None:
    """The module name stored for the file at `path`."""
    row = db.execute("SELECT module FROM files WHERE path = ?", (path,)).fetchone()
    return str(row[0]) if row else None


def warnings_by_path(db: sqlite3.Connection) -> list[tuple[str, str | None]]:
    """(path, its parse warnings as JSON or None) of every stored file, by path."""
    return db.execute("SELECT path, warnings FROM files ORDER BY path").fetchall()
