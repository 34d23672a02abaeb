"""The stored snapshot's paths and their blobs, asked path by path."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

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


# --- file rows, asked by what a query touches (retrieval) -------------------------------------------------------

#: The columns of a file row (retrieval.graphdata.FileRow).
FILE_ROW = "id, path, blob, module, is_test"


def file_rows(db: sqlite3.Connection, column: str, keys: Sequence[object]) -> list[tuple[int, str, str, str, int]]:
    """The rows (FILE_ROW) whose `column` ("id" or "path") is one of `keys` (at most db.CHUNK)."""
    assert column in ("id", "path"), column
    return db.execute(f"SELECT {FILE_ROW} FROM files WHERE {column} IN ({marks(keys)})", keys).fetchall()


def path_of_module(db: sqlite3.Connection, module: str) -> str | None:
    """The file of this module name (of two, the one stored last)."""
    row = db.execute("SELECT path FROM files WHERE module = ? ORDER BY id DESC LIMIT 1", (module,)).fetchone()
    return row[0] if row else None


def tests_containing(db: sqlite3.Connection, words: Sequence[str], under: str = "", most: int = -1) -> list[str]:
    """Test files under the folder `under` ("" for all) whose file name holds one of `words` (not empty), at most
    `most` (-1: all), in stored order. SQLite filters, over the index of paths (the table's rows are wide)."""
    base = "replace(path, rtrim(path, replace(path, '/', '')), '')"  # the file name: what follows the last /
    # The cheap test on the whole path first: the file name is cut out only for the few rows that pass it.
    match = " OR ".join([f"(instr(path, ?) > 0 AND instr({base}, ?) > 0)"] * len(words))
    where, args = f"({match})", [w for w in words for _ in (0, 1)]
    if under:
        where += " AND path >= ? AND path < ?"  # a range of the index: the folder's files only
        args += [under + "/", under + "0"]  # "0" is the character after "/"
    return [r[0] for r in db.execute(
        f"SELECT path FROM files WHERE id IN (SELECT id FROM files WHERE {where}) AND is_test ORDER BY id LIMIT ?",
        [*args, most])]


def file_count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM files").fetchone()[0])


def module_rows(db: sqlite3.Connection) -> dict[str, tuple[int, str, str]]:
    """path -> (id, blob, module) of every stored file."""
    return {path: (fid, blob, module) for fid, path, blob, module in db.execute("SELECT id, path, blob, module FROM files")}


def paths_ending(db: sqlite3.Connection, name: str, most: int = 10) -> list[str]:
    """At most `most` paths that are `name` or end with `/name` (a scan of the paths: asked only for the file names
    a task writes)."""
    tail = "/" + name
    return [r[0] for r in db.execute("SELECT path FROM files WHERE path = ? OR substr(path, -?) = ? ORDER BY path LIMIT ?",
                                     (name, len(tail), tail, most))]
