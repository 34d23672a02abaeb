"""The graph on disk: two SQLite files inside the repository's git directory.

- `<git-common-dir>/graphguard/blobs.sqlite3`: facts by blob SHA, shared by all
  worktrees (content-addressed, so any writer may add to it at any time).
- `<git-dir>/graphguard/graph.sqlite3`: this worktree's snapshot of its HEAD:
  files, symbols, sites (calls, references, imports, inheritance) and
  file-to-file edges, indexed for the reverse lookups.

Both are schema-versioned with `PRAGMA user_version`; a file of another
version, or one that is not a database at all, is rebuilt with a one-line
warning. Writers hold an advisory lock with a timeout; readers never wait
(WAL). Every update of the snapshot is one transaction, so a killed process
leaves the previous graph as it was.

Damage heals: each blob-cache row carries a CRC-32 of its key and facts, and a
row that fails it is dropped and parsed again; `Store.damage` runs SQLite's own
page checks. A store that cannot be written is opened read-only and still
answers queries. Storage errors are one line naming the cause (read-only, full
disk, file size limit, a directory where a file should be), no symbolic link at
a store path is ever followed, and no file of the store is opened unless it is a
regular file (graphguard.files): a FIFO, socket or device at a database, lock or
log is removed with a warning and the file made again, so nothing waits on one.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

from graphguard.errors import GraphguardError
from graphguard.files import ensure_dir
from graphguard.store.blobs import BlobCache
from graphguard.store.db import _is_file, _remove, _unlink_foreign, _writable, is_damage, open_db, storage_error, stored_version, transaction
from graphguard.store.lock import Lock
from graphguard.store.schema import BLOB_SCHEMA, BLOB_SCHEMA_VERSION, GRAPH_SCHEMA, GRAPH_VERSION, head
from graphguard.store.snapshots import Snapshots, _folder_size, _remove_tree


class Store(Snapshots, BlobCache):
    def __init__(self, git_dir: str, common_dir: str):
        self.dir = os.path.join(git_dir, "graphguard")
        self.common = os.path.join(common_dir, "graphguard")
        self.graph_path = os.path.join(self.dir, "graph.sqlite3")
        self.blobs_path = os.path.join(self.common, "blobs.sqlite3")
        self._graph: sqlite3.Connection | None = None
        self._blobs: sqlite3.Connection | None = None
        self._blobs_readonly = False
        # Made by this process: a first build that fails removes them (drop_unbuilt).
        self._graph_created = self._blobs_created = False

    graph_version = GRAPH_VERSION  # the old name (schema.GRAPH_VERSION)

    @property
    def graph(self) -> sqlite3.Connection:
        if self._graph is None:
            self._graph_created = self._graph_created or not _is_file(self.graph_path)
            self._graph = open_db(self.graph_path, GRAPH_SCHEMA, GRAPH_VERSION, "graph")
        return self._graph

    @property
    def blobs(self) -> sqlite3.Connection:
        if self._blobs is None:
            self._blobs_readonly = os.path.isdir(self.common) and not _writable(self.blobs_path)
            self._blobs_created = self._blobs_created or not _is_file(self.blobs_path)
            self._blobs = open_db(self.blobs_path, BLOB_SCHEMA, BLOB_SCHEMA_VERSION, "blob cache")
        return self._blobs

    def discard(self) -> None:
        """Remove both databases (they are caches of what git has) so the next use rebuilds them."""
        self.close()
        _remove(self.graph_path)
        _remove(self.blobs_path)

    def drop_unbuilt(self, lock_timeout: float = 1.0) -> None:
        """After a build that failed (a full disk, say): a graph that no build ever completed holds nothing, yet
        its -wal and -shm can take the last free megabytes, and then the next `git add` failed too. So it is
        removed when this process created it, with the blob cache if it created that too; a graph that was built keeps its content and
        gives back the -wal a rolled-back write grew. Under the write lock: another process's build in progress
        is never touched (when it holds the lock, nothing is done). Never raises: the build's error is the news."""
        try:
            with self.write_lock(lock_timeout):
                if self._built():
                    with contextlib.suppress(sqlite3.Error):
                        self.graph.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    return
                if not self._graph_created:
                    return  # another process's: it may be building it now
                self.close()
                _remove(self.graph_path)
                if self._blobs_created:  # only with a first graph: a long-lived server's blob cache is other worktrees' too
                    _remove(self.blobs_path)
                self._graph_created = self._blobs_created = False
        except (GraphguardError, sqlite3.Error, OSError):
            pass

    def _built(self) -> bool:
        """Whether a build of the graph ever completed (it names its commit); opens the graph only when it is there."""
        if self._graph is None and stored_version(self.graph_path) != GRAPH_VERSION:
            return False
        try:
            return head(self) is not None
        except (GraphguardError, sqlite3.Error):
            return False

    def close(self) -> None:
        for conn in (self._graph, self._blobs):
            if conn is not None:
                conn.close()
        self._graph = self._blobs = None

    def damage(self, *, thorough: bool = False) -> str | None:
        """Damage SQLite does not notice until it reads the broken page: None when both files are intact,
        else what is wrong. `PRAGMA quick_check` reads every page once (87 ms on Django's graph);
        `thorough` runs integrity_check, which also matches every index to its table (265 ms) and so
        catches most changed rows too. bench/corruption_trials.py measures cost and catch."""
        pragma = "integrity_check(3)" if thorough else "quick_check(3)"
        for what, conn in (("graph", self.graph), ("blob cache", self.blobs)):
            try:
                problems = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}")]
            except sqlite3.DatabaseError as e:
                if not is_damage(e):
                    raise
                problems = [str(e)]
            if problems != ["ok"]:
                text = " ".join("; ".join(problems).split())  # integrity_check's messages span lines
                return f"{what}: {text[:200]}"
        return None

    @contextlib.contextmanager
    def write_lock(self, timeout: float = 10.0) -> Iterator[None]:
        ensure_dir(self.dir)
        lock = Lock(os.path.join(self.dir, "write.lock"))
        _unlink_foreign(lock.path)
        try:
            lock.acquire(timeout)
        except OSError as e:
            # Not contention (that is LockTimeout): the lock file cannot be made or opened.
            raise storage_error(e, "the write lock", lock.path) from None
        try:
            yield
        finally:
            lock.release()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with transaction(self.graph) as conn:
            yield conn

    # snapshots: copies of the graph at recent commits, so that going back to one costs a copy, not a resolution

    def size(self) -> int:
        """Bytes of this worktree's store folder (and of the shared one, in a linked worktree)."""
        return sum(_folder_size(d) for d in dict.fromkeys((self.dir, self.common)))

    def remove(self, lock_timeout: float = 10.0) -> list[str]:
        """Delete the store (`graphguard clean`): every file of it, under the write lock so that no update is under
        way; the folders removed. A linked worktree's shared blob cache stays (other worktrees use it)."""
        if not os.path.isdir(self.dir):
            return []
        with self.write_lock(lock_timeout):
            self.close()
            for name in sorted(os.listdir(self.dir)):
                if name != "write.lock":
                    _remove_tree(os.path.join(self.dir, name))
        _remove_tree(self.dir)
        return [self.dir]

    # meta

    def meta(self, key: str) -> str | None:
        row = self.graph.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None
