"""The stored snapshot's paths and their blobs, asked path by path."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from graphguard.store.db import chunked, marks


class StoredPaths:
    """The stored snapshot's paths, asked by index lookups (modules.PathProbe), and their blobs.

    Nothing here reads the whole `files` table but `all()` and `layout()`: the check costs
    what the change touches. The paths are read through the index of paths, which holds
    nothing else (a row of `files` carries the file's interface).
    """

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._blobs: dict[str, str | None] = {}

    def existing(self, paths: Collection[str]) -> set[str]:
        wanted = sorted(p for p in paths if _storable(p))
        out: set[str] = set()
        for chunk in chunked(wanted):
            out.update(p for (p,) in self.db.execute(f"SELECT path FROM files WHERE path IN ({marks(chunk)})", chunk))
        return out

    def under(self, folders: Collection[str], limit: int) -> list[str]:
        ranges = [(f + "/", f + "0") for f in folders if _storable(f)]  # "0" follows "/": the range of `folder/...`
        if not ranges:
            return []
        where = " OR ".join(["(path >= ? AND path < ?)"] * len(ranges))
        return [p for (p,) in self.db.execute(f"SELECT path FROM files WHERE {where} LIMIT ?", (*(b for r in ranges for b in r), limit))]

    def all(self) -> list[str]:
        return [p for (p,) in self.db.execute("SELECT path FROM files ORDER BY path")]

    def blob(self, path: str) -> str | None:
        if not _storable(path):
            return None
        if path not in self._blobs:
            row = self.db.execute("SELECT blob FROM files WHERE path = ?", (path,)).fetchone()
            self._blobs[path] = row[0] if row else None
        return self._blobs[path]


def _storable(path: str) -> bool:
    """A name git gave that is not UTF-8 (surrogate escapes) is never stored, and SQLite cannot take it."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
