"""Snapshots of the graph at recent commits, so that going back to one costs a copy, not a resolution."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from typing import TYPE_CHECKING

from graphguard import files
from graphguard.errors import GraphguardError
from graphguard.files import ensure_dir
from graphguard.store.db import _connect_readonly, _remove, _warn, is_damage, marks, rollback
from graphguard.store.schema import GRAPH_VERSION

#: Snapshots of the graph (`<git-dir>/graphguard/snapshots/<head>.sqlite3`): at most this many, none unused for
#: longer than MAX_SNAPSHOT_AGE, together within this size (docs/contract.md, "The store on disk"). On ansible three
#: snapshots made the store 199 MB; a copy only saves the time of an update, so the newest alone is kept past the size.
SNAPSHOTS = "snapshots"
MAX_SNAPSHOTS = 3
MAX_SNAPSHOT_BYTES = 128 << 20
MAX_SNAPSHOT_AGE = 14 * 86400.0


class Snapshots:
    """The snapshot half of `Store` (a mixin: the store's directory and graph are `Store`'s)."""

    if TYPE_CHECKING:
        dir: str

        @property
        def graph(self) -> sqlite3.Connection: ...


    def snapshot_path(self, head: str) -> str:
        return os.path.join(self.dir, SNAPSHOTS, f"{head}.sqlite3")

    def snapshots(self) -> list[str]:
        """The heads of the saved snapshots, most recently saved or used first."""
        directory = os.path.join(self.dir, SNAPSHOTS)
        try:
            names = [n for n in os.listdir(directory) if n.endswith(".sqlite3") and files.foreign(os.path.join(directory, n)) is None]
        except OSError:
            return []
        found = []
        for name in names:
            with contextlib.suppress(OSError):
                found.append((os.stat(os.path.join(directory, name)).st_mtime, name[: -len(".sqlite3")]))
        return [head for _, head in sorted(found, reverse=True)]

    def save_snapshot(self, head: str) -> None:
        """Copy the graph as it is now (it describes `head`) to snapshots/<head>.sqlite3: SQLite's backup API, into
        a file renamed into place once complete. Then only the newest few are kept, within a total size. A copy
        that cannot be made is a warning: snapshots only save time."""
        directory = os.path.join(self.dir, SNAPSHOTS)
        path = self.snapshot_path(head)
        partial = f"{path}.{os.getpid()}.partial"
        try:
            ensure_dir(directory)
            _remove(partial)
            dest = sqlite3.connect(partial, isolation_level=None)
            try:
                self.graph.backup(dest)
                dest.execute("PRAGMA journal_mode=DELETE")  # a file on its own: no -wal or -shm beside it
            finally:
                dest.close()
            os.replace(partial, path)
        except (sqlite3.Error, OSError, GraphguardError) as e:
            _remove(partial)
            _warn(f"could not save a snapshot of the graph at {path}: {e}")
            return
        self.prune_snapshots()

    def prune_snapshots(self) -> None:
        """Drop the snapshots past the bounds: count, age since last saved or used, total size (the newest kept)."""
        total = 0
        oldest = time.time() - MAX_SNAPSHOT_AGE
        for i, head in enumerate(self.snapshots()):
            path = self.snapshot_path(head)
            with contextlib.suppress(OSError):
                st = os.stat(path)
                total += st.st_size
                if i >= MAX_SNAPSHOTS or (i and total > MAX_SNAPSHOT_BYTES) or st.st_mtime < oldest:
                    _remove(path)

    def snapshot_meta(self, head: str, keys: tuple[str, ...]) -> dict[str, str] | None:
        """Meta values of the snapshot of `head`; None when there is none or it is not readable at this version."""
        path = self.snapshot_path(head)
        if os.path.islink(path) or not os.path.isfile(path):
            return None
        try:
            conn = _connect_readonly(path)
            try:
                if conn.execute("PRAGMA user_version").fetchone()[0] != GRAPH_VERSION:
                    _remove(path)  # of another version: never of use again
                    return None
                return dict(conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks(keys)})", keys).fetchall())
            finally:
                conn.close()
        except sqlite3.Error as e:
            if is_damage(e):
                _warn(f"the snapshot of the graph at {path} is damaged ({' '.join(str(e).split())[:120]}); dropping it")
                _remove(path)
            return None

    def restore_snapshot(self, head: str) -> bool:
        """Make the graph the snapshot of `head`, checked first like the graph itself (SQLite's page check and the
        schema version): a damaged one is dropped with a warning, never used. The copy goes into the open graph
        through the backup API, as one write transaction: a reader keeps the graph it had until it ends its own.
        The caller holds the write lock."""
        path = self.snapshot_path(head)
        try:
            src = _connect_readonly(path)
        except sqlite3.Error:
            return False
        try:
            problems = [str(r[0]) for r in src.execute("PRAGMA quick_check(3)")]
            version = src.execute("PRAGMA user_version").fetchone()[0]
            row = src.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
            if problems != ["ok"] or version != GRAPH_VERSION or row is None or row[0] != head:
                raise sqlite3.DatabaseError("; ".join(problems) if problems != ["ok"] else f"version {version}, head {row}")
            src.backup(self.graph)
        except sqlite3.Error as e:
            src.close()
            if self.graph.in_transaction:
                rollback(self.graph)
            _warn(f"the snapshot of the graph at {path} is damaged ({' '.join(str(e).split())[:120]}); dropping it")
            _remove(path)
            return False
        src.close()
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept longest
        return True

    # the whole store


def _folder_size(path: str) -> int:
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def _remove_tree(path: str) -> None:
    """A file, symlink or folder of the store removed; never followed through a symlink."""
    import shutil

    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
