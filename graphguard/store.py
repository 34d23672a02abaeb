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
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator
from typing import ClassVar

from graphguard.errors import GraphguardError, LockTimeout
from graphguard.versions import FACTS_VERSION, SCHEMA_VERSION

BLOB_SCHEMA_VERSION = 100 + FACTS_VERSION  # cached facts of another parser are re-parsed

GRAPH_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, blob TEXT NOT NULL, module TEXT NOT NULL,
    is_test INTEGER NOT NULL, iface TEXT, parsed INTEGER NOT NULL, warnings TEXT
);
CREATE TABLE symbols(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, qualname TEXT NOT NULL, name TEXT NOT NULL,
    kind TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature TEXT NOT NULL,
    bases TEXT
);
CREATE INDEX symbols_qualname ON symbols(qualname);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX symbols_file ON symbols(file_id);
-- One row per use of a name: kind is call | reference | inherit | import.
CREATE TABLE sites(
    file_id INTEGER NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL, text TEXT NOT NULL,
    name TEXT NOT NULL, resolution TEXT NOT NULL, target TEXT, init_target TEXT,
    line INTEGER NOT NULL, end_line INTEGER NOT NULL, col INTEGER NOT NULL, end_col INTEGER NOT NULL,
    n_positional INTEGER NOT NULL, keywords TEXT NOT NULL, has_star INTEGER NOT NULL, has_starstar INTEGER NOT NULL
);
CREATE INDEX sites_target ON sites(target) WHERE target IS NOT NULL;
CREATE INDEX sites_init ON sites(init_target) WHERE init_target IS NOT NULL;
CREATE INDEX sites_unresolved_name ON sites(name) WHERE resolution = 'unresolved';
CREATE INDEX sites_file ON sites(file_id);
-- File to file: kind import (n_symbols distinct symbols used) or test-of.
CREATE TABLE file_edges(
    src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL, n_symbols INTEGER NOT NULL,
    PRIMARY KEY(src, dst, kind)
) WITHOUT ROWID;
CREATE INDEX file_edges_dst ON file_edges(dst, kind);
CREATE TABLE imports(
    file_id INTEGER NOT NULL, line INTEGER NOT NULL, module TEXT NOT NULL, name TEXT,
    status TEXT NOT NULL, target_file INTEGER, scope TEXT NOT NULL, type_checking INTEGER NOT NULL
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_module ON imports(module);
-- Retrieval (graphguard/retrieval): token text per blob, BM25 over symbols, git history.
CREATE TABLE text_blobs(blob TEXT PRIMARY KEY, docs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE text_files(path TEXT PRIMARY KEY, blob TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE text_docs(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
    line INTEGER NOT NULL, end_line INTEGER NOT NULL
);
CREATE INDEX text_docs_path ON text_docs(path);
CREATE VIRTUAL TABLE text_fts USING fts5(name, prose, body, path, content='', tokenize='unicode61');
CREATE VIRTUAL TABLE text_vocab USING fts5vocab(text_fts, 'row');
CREATE TABLE history_commits(id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, time INTEGER NOT NULL, n_files INTEGER NOT NULL);
CREATE TABLE history_paths(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE history_touches(path_id INTEGER NOT NULL, commit_id INTEGER NOT NULL, PRIMARY KEY(path_id, commit_id)) WITHOUT ROWID;
CREATE INDEX history_touches_commit ON history_touches(commit_id);
"""

BLOB_SCHEMA = """
CREATE TABLE blobs(sha TEXT PRIMARY KEY, facts TEXT NOT NULL) WITHOUT ROWID;
"""


def _warn(message: str) -> None:
    print(f"graphguard: warning: {message}", file=sys.stderr)


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)


def open_db(path: str, schema: str, version: int, what: str) -> sqlite3.Connection:
    """Open (creating or rebuilding) a database of the given schema version."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for attempt in range(2):
        try:
            conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            found = conn.execute("PRAGMA user_version").fetchone()[0]
            if found == version:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return conn
            if found == 0:
                # Two first runs at once: the write lock of BEGIN IMMEDIATE orders them, and
                # the second finds the schema the first created instead of damage.
                conn.execute("BEGIN IMMEDIATE")
                if conn.execute("PRAGMA user_version").fetchone()[0] == version:
                    conn.execute("COMMIT")
                    return conn
                if not conn.execute("SELECT 1 FROM sqlite_master").fetchone():
                    for statement in schema.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute(f"PRAGMA user_version={version}")
                    conn.execute("COMMIT")
                    return conn
                conn.execute("ROLLBACK")
                found = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.close()
            _warn(f"{what} at {path} has schema version {found}, expected {version}; rebuilding it")
        except sqlite3.OperationalError as e:
            # Locked or busy past the timeout is contention, not damage: never delete for it.
            raise GraphguardError(f"{what} at {path} is busy ({e}); try again") from None
        except sqlite3.DatabaseError as e:
            if attempt:
                raise GraphguardError(f"cannot open {what} at {path}: {e}") from None
            _warn(f"{what} at {path} is unreadable ({e}); rebuilding it")
            with contextlib.suppress(Exception):
                conn.close()
        _remove(path)
    raise GraphguardError(f"cannot create {what} at {path}")


class Lock:
    """An advisory file lock with a timeout (fcntl; msvcrt on Windows).

    The lock belongs to the open file description, which a forked child shares:
    a parse worker that outlived a killed parent would hold it forever. So every
    forked child closes its copies at once (see `_forget_in_child`; exec'd children
    never get one: os.open makes it non-inheritable, PEP 446), and a lock whose
    holder died is free: the kernel drops it with the last descriptor.
    """

    _held: ClassVar[set[int]] = set()  # descriptors this process holds locked

    def __init__(self, path: str):
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + timeout
        while True:
            try:
                _lock(fd)
                self._fd = fd
                Lock._held.add(fd)
                return
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeout(
                        "another graphguard process is updating the graph (lock held); try again in a moment"
                    ) from None
                time.sleep(0.05)

    def release(self) -> None:
        if self._fd in Lock._held:  # not in a forked child: its copy is closed, the parent's lock is not its to drop
            Lock._held.discard(self._fd)
            _unlock(self._fd)
            os.close(self._fd)
        self._fd = None

    @staticmethod
    def _forget_in_child() -> None:
        """In a forked child: close the inherited lock descriptors without unlocking (that would free the parent's lock)."""
        for fd in Lock._held:
            with contextlib.suppress(OSError):
                os.close(fd)
        Lock._held = set()


if hasattr(os, "register_at_fork"):  # runs in the child before fork() returns there, before any of its own code
    os.register_at_fork(after_in_child=Lock._forget_in_child)


if sys.platform == "win32":  # pragma: no cover
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class Store:
    def __init__(self, git_dir: str, common_dir: str):
        self.dir = os.path.join(git_dir, "graphguard")
        self.common = os.path.join(common_dir, "graphguard")
        self.graph_path = os.path.join(self.dir, "graph.sqlite3")
        self.blobs_path = os.path.join(self.common, "blobs.sqlite3")
        self._graph: sqlite3.Connection | None = None
        self._blobs: sqlite3.Connection | None = None

    @property
    def graph(self) -> sqlite3.Connection:
        if self._graph is None:
            # Facts of another parser version mean a graph resolved from them: rebuild it too.
            self._graph = open_db(self.graph_path, GRAPH_SCHEMA, SCHEMA_VERSION * 1000 + FACTS_VERSION, "graph")
        return self._graph

    @property
    def blobs(self) -> sqlite3.Connection:
        if self._blobs is None:
            self._blobs = open_db(self.blobs_path, BLOB_SCHEMA, BLOB_SCHEMA_VERSION, "blob cache")
        return self._blobs

    def discard(self) -> None:
        """Remove both databases (they are caches of what git has) so the next use rebuilds them."""
        self.close()
        _remove(self.graph_path)
        _remove(self.blobs_path)

    def close(self) -> None:
        for conn in (self._graph, self._blobs):
            if conn is not None:
                conn.close()
        self._graph = self._blobs = None

    @contextlib.contextmanager
    def write_lock(self, timeout: float = 10.0) -> Iterator[None]:
        os.makedirs(self.dir, exist_ok=True)
        lock = Lock(os.path.join(self.dir, "write.lock"))
        lock.acquire(timeout)
        try:
            yield
        finally:
            lock.release()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self.graph
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # meta

    def meta(self, key: str) -> str | None:
        row = self.graph.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # blob cache

    def known_blobs(self, shas: Iterable[str]) -> set[str]:
        shas = list(shas)
        found: set[str] = set()
        for i in range(0, len(shas), 500):
            chunk = shas[i : i + 500]
            q = f"SELECT sha FROM blobs WHERE sha IN ({','.join('?' * len(chunk))})"
            found.update(r[0] for r in self.blobs.execute(q, chunk))
        return found

    def load_facts(self, sha: str) -> str | None:
        row = self.blobs.execute("SELECT facts FROM blobs WHERE sha = ?", (sha,)).fetchone()
        return row[0] if row else None

    def save_facts(self, rows: Iterable[tuple[str, str]]) -> None:
        conn = self.blobs
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR REPLACE INTO blobs(sha, facts) VALUES (?, ?)", rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
