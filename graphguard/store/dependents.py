"""Which files depend on a file, and how: the questions an update asks to find what it must re-resolve (index.dirty)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

from graphguard.store.db import marks

#: A stored file row as the dirty set reads it: (path, id, blob, module, interface digests as JSON).
Importer = tuple[str, int, str, str, str]


def importers(db: sqlite3.Connection, fid: int) -> list[Importer]:
    """The files with an import edge into file `fid`."""
    return db.execute(
        "SELECT f.path, f.id, f.blob, f.module, f.iface FROM file_edges e JOIN files f ON f.id = e.src WHERE e.dst = ? AND e.kind = 'import'",
        (fid,),
    ).fetchall()


def every_import(db: sqlite3.Connection) -> list[tuple[str, int, str, str | None, str]]:
    """(path, line, module, name, status) of every stored import row."""
    return db.execute("SELECT f.path, i.line, i.module, i.name, i.status FROM imports i JOIN files f ON f.id = i.file_id").fetchall()


def names_imported(db: sqlite3.Connection, fid: int, modules: Sequence[str], names: Collection[str]) -> set[str]:
    """The names among `names` (or '*') that file `fid` imports from one of `modules`."""
    return {name for (name,) in db.execute(
        f"SELECT i.name FROM imports i WHERE i.file_id = ? AND i.module IN ({marks(modules)}) AND (i.name IN ({marks(names)}) OR i.name = '*')",
        (fid, *modules, *names),
    )}


def has_site_naming(db: sqlite3.Connection, fid: int, last: Collection[str], targets: Sequence[str]) -> bool:
    """Does file `fid` have a site named one of `last`, or resolved to one of `targets` or a member of one?"""
    like = " OR ".join("target = ? OR target LIKE ?" for _ in targets)
    args: list[object] = [fid, *last]
    for t in targets:
        args += [t, t + ".%"]
    return db.execute(f"SELECT 1 FROM sites WHERE file_id = ? AND (name IN ({marks(last)}) OR {like}) LIMIT 1", args).fetchone() is not None


def imports_module(db: sqlite3.Connection, fid: int, modules: Sequence[str]) -> bool:
    """Does file `fid` import one of `modules` itself (`import pkg.mod`, `from pkg import mod`)?"""
    mods = marks(modules)
    return db.execute(f"SELECT 1 FROM imports WHERE file_id = ? AND (name IS NULL AND module IN ({mods})"
                      f" OR name IS NOT NULL AND module || '.' || name IN ({mods})) LIMIT 1", (fid, *modules, *modules)).fetchone() is not None


def inherits_from_module(db: sqlite3.Connection, fid: int, module: str) -> bool:
    """Does a class of file `fid` inherit from a class of `module`?"""
    return db.execute("SELECT 1 FROM sites WHERE file_id = ? AND kind = 'inherit' AND target LIKE ? LIMIT 1",
                      (fid, module + ".%")).fetchone() is not None


def module_level_imports_from(db: sqlite3.Connection, fid: int, modules: Sequence[str]) -> set[tuple[int, str | None]]:
    """(line, imported name) of file `fid`'s module-level imports from one of `modules`."""
    return set(db.execute(
        f"SELECT line, name FROM imports WHERE file_id = ? AND scope = '' AND module IN ({marks(modules)})", (fid, *modules)
    ))
