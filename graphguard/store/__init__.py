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
import errno
import os
import sqlite3
import sys
import time
import urllib.parse
import zlib
from collections.abc import Iterable, Iterator
from typing import ClassVar

from graphguard import files
from graphguard.errors import GraphguardError, LockTimeout
from graphguard.files import ensure_dir
from graphguard.versions import BLOB_VERSION, FACTS_VERSION, SCHEMA_VERSION

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

BLOB_SCHEMA_VERSION = BLOB_VERSION * 100 + FACTS_VERSION  # cached facts of another parser are re-parsed

TEXT_SCHEMA = """
-- Retrieval's text index (graphguard/retrieval/textindex.py): token text per blob, BM25 over symbols.
CREATE TABLE text_blobs(blob TEXT PRIMARY KEY, docs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE text_files(path TEXT PRIMARY KEY, blob TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE text_docs(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
    line INTEGER NOT NULL, end_line INTEGER NOT NULL
);
CREATE INDEX text_docs_path ON text_docs(path);
CREATE VIRTUAL TABLE text_fts USING fts5(name, prose, body, path, content='', tokenize='unicode61');
CREATE VIRTUAL TABLE text_vocab USING fts5vocab(text_fts, 'row');
"""

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
CREATE INDEX sites_limited_name ON sites(name) WHERE resolution IN ('too-deep', 'too-long');
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
""" + TEXT_SCHEMA + """
-- Retrieval's git history (graphguard/retrieval/history.py).
CREATE TABLE history_commits(id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, time INTEGER NOT NULL, n_files INTEGER NOT NULL);
CREATE TABLE history_paths(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE history_touches(path_id INTEGER NOT NULL, commit_id INTEGER NOT NULL, PRIMARY KEY(path_id, commit_id)) WITHOUT ROWID;
CREATE INDEX history_touches_commit ON history_touches(commit_id);
"""

BLOB_SCHEMA = """
CREATE TABLE blobs(sha TEXT PRIMARY KEY, facts BLOB NOT NULL, crc INTEGER NOT NULL) WITHOUT ROWID;
"""

#: Snapshots of the graph (`<git-dir>/graphguard/snapshots/<head>.sqlite3`): at most this many, none unused for
#: longer than MAX_SNAPSHOT_AGE, together within this size (docs/contract.md, "The store on disk"). On ansible three
#: snapshots made the store 199 MB; a copy only saves the time of an update, so the newest alone is kept past the size.
SNAPSHOTS = "snapshots"
MAX_SNAPSHOTS = 3
MAX_SNAPSHOT_BYTES = 128 << 20
MAX_SNAPSHOT_AGE = 14 * 86400.0

# SQLite's primary result codes (the low byte of an extended one) that tell what went wrong.
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


def _warn(message: str) -> None:
    print(f"graphguard: warning: {message}", file=sys.stderr)


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)
    # A super-journal (`-mj` and 9 hex digits: of a transaction over attached scratch databases) that a failed
    # write left behind, for a database that is gone.
    directory, name = os.path.split(path)
    with contextlib.suppress(OSError):
        for other in os.listdir(directory or "."):
            if other.startswith(name + "-mj"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(directory, other))


def is_damage(e: sqlite3.Error) -> bool:
    """True when SQLite says the file's content is broken (not: busy, read-only, full)."""
    code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
    if code in (_CORRUPT, _NOTADB):
        return True
    # Python's own decoding of a stored text: a flipped bit made it invalid UTF-8.
    # "no such table": the schema version is right but a table is gone.
    return type(e) is sqlite3.DatabaseError or str(e).startswith(("Could not decode to UTF-8", "no such table"))


def _space_cause(directory: str) -> str:
    """Why a write that SQLite calls full or an I/O error failed: the file size limit or a full disk, if either."""
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE) if resource else (-1, -1)
    if soft != getattr(resource, "RLIM_INFINITY", -1):
        return f"the file size limit (ulimit -f) of {soft} bytes was reached"
    with contextlib.suppress(OSError):
        st = os.statvfs(directory)
        if st.f_bavail * st.f_frsize < 1 << 20:
            return "the disk is full"
    return ""


def storage_error(e: sqlite3.Error | OSError, what: str, path: str) -> GraphguardError:
    """One line that names the real cause of a failed read or write of the store."""
    if isinstance(e, OSError):
        reasons = {errno.EFBIG: _space_cause(os.path.dirname(path)) or "file too large", errno.ENOSPC: "the disk is full",
                   errno.EROFS: "read-only file system", errno.ELOOP: "it is a symbolic link, which graphguard never follows"}
        reason = str(e) if isinstance(e, files.NotRegularFile) else reasons.get(e.errno or 0) or e.strerror or str(e)
        if e.errno in (errno.EACCES, errno.EPERM):
            reason += f" ({_readonly_cause(path)})"
        return GraphguardError(f"cannot write {what} at {path}: {reason}")
    code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
    if code in (_BUSY, _LOCKED):
        return GraphguardError(f"{what} at {path} is busy ({e}); try again")
    if code == _READONLY or not _writable(path):
        return GraphguardError(f"cannot write {what} at {path}: {_readonly_cause(path)} ({e})")
    if code in (_FULL, _IOERR):
        cause = _space_cause(os.path.dirname(path))
        return GraphguardError(f"cannot write {what} at {path}: {cause or e}" + (f" ({e})" if cause else ""))
    if os.path.isdir(path):
        return GraphguardError(f"cannot open {what}: {path} is a directory; remove it and graphguard rebuilds the graph")
    return GraphguardError(f"cannot open {what} at {path}: {e}")


def _is_file(path: str) -> bool:
    """A regular file is there (not a link to one: that is replaced, so the file is made anew)."""
    return os.path.isfile(path) and not os.path.islink(path)


def _writable(path: str) -> bool:
    """Whether SQLite can write the database at `path` (its directory takes the -wal and -shm files)."""
    directory = os.path.dirname(path)
    return os.access(directory, os.W_OK) and (not os.path.exists(path) or os.access(path, os.W_OK))


def _readonly_cause(path: str) -> str:
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        return f"{directory} does not exist"
    if not os.access(directory, os.W_OK):
        return f"its directory {directory} is read-only"
    return "the file is read-only"


def _unlink_foreign(path: str) -> None:
    """A symbolic link at a store path is not ours (SQLite would write through it): remove the link itself.
    A FIFO, socket or device is not ours either (SQLite's open would wait on it, or fail for ever): damage,
    removed like a damaged database, and the file is made again. A directory is named, never removed."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        found = files.foreign(path + suffix)
        if found is None or (found == "a directory" and not suffix):
            continue
        try:
            if found == "a symbolic link":
                _warn(f"{path + suffix} is a symbolic link, which graphguard never follows; removing the link")
                os.remove(path + suffix)
            elif found == "a directory":
                raise GraphguardError(f"{path + suffix} is a directory; remove it so that graphguard can use {path}")
            else:
                files.remove_foreign(path + suffix, found)
        except OSError as e:
            raise storage_error(e, "the " + ("link" if found == "a symbolic link" else "file"), path + suffix) from None


def _connect_readonly(path: str) -> sqlite3.Connection:
    found = files.foreign(path)
    if found not in (None, "a directory"):  # SQLite's read-only open of a FIFO would wait for a writer for ever
        raise sqlite3.DatabaseError(f"{path} is {found}, not a regular file")
    # Read-only: no -wal or -shm can be made in a read-only directory, and without them SQLite needs
    # to be told that nobody writes the file (nobody can) to read it at all.
    immutable = not os.access(os.path.dirname(path), os.W_OK) and not os.path.exists(path + "-wal")
    uri = "file:" + urllib.parse.quote(path) + "?mode=ro" + ("&immutable=1" if immutable else "")
    return sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)


def open_db(path: str, schema: str, version: int, what: str) -> sqlite3.Connection:
    """Open (creating or rebuilding) a database of the given schema version; read-only when it cannot be written."""
    ensure_dir(os.path.dirname(path))
    _unlink_foreign(path)
    if os.path.isdir(path):
        raise GraphguardError(f"cannot open {what}: {path} is a directory; remove it and graphguard rebuilds the graph")
    if not _writable(path):
        return _open_readonly(path, version, what)
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
        except sqlite3.DatabaseError as e:
            with contextlib.suppress(Exception):
                conn.close()
            if not is_damage(e):
                # Locked or busy past the timeout is contention, not damage: never delete for it.
                raise storage_error(e, what, path) from None
            if attempt:
                raise GraphguardError(f"cannot open {what} at {path}: {e}") from None
            _warn(f"{what} at {path} is unreadable ({e}); rebuilding it")
        _remove(path)
    raise GraphguardError(f"cannot create {what} at {path}")


def stored_version(path: str) -> int | None:
    """The schema version of the database at `path`, None when there is none or it is unreadable.
    A read that creates nothing and follows no symbolic link."""
    if os.path.islink(path) or os.path.islink(os.path.dirname(path)) or not os.path.isfile(path):
        return None
    try:
        conn = _connect_readonly(path)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def _open_readonly(path: str, version: int, what: str) -> sqlite3.Connection:
    """A store nobody may write still answers queries from the graph it holds; it cannot be built or rebuilt."""
    if not os.path.exists(path):
        raise GraphguardError(f"cannot create {what} at {path}: {_readonly_cause(path)}")
    try:
        conn = _connect_readonly(path)
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        raise GraphguardError(f"cannot read {what} at {path} ({e}), nor rebuild it: {_readonly_cause(path)}") from None
    if found != version:
        conn.close()
        raise GraphguardError(f"{what} at {path} has schema version {found}, expected {version}, "
                              f"and cannot be rebuilt: {_readonly_cause(path)}")
    return conn


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
        fd = files.open_own(self.path, os.O_RDWR | os.O_CREAT)
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

    @classmethod
    def adopt(cls, path: str, fd: int) -> Lock:
        """The lock on `path` already held on descriptor `fd`, inherited from the process that started this
        one (background.launch): released like any other, and closed in forked children like any other."""
        lock = cls(path)
        lock._fd = fd
        cls._held.add(fd)
        return lock


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
        self._blobs_readonly = False
        # Made by this process: a first build that fails removes them (drop_unbuilt).
        self._graph_created = self._blobs_created = False

    #: Facts of another parser version mean a graph resolved from them: rebuild it too.
    graph_version = SCHEMA_VERSION * 1000 + FACTS_VERSION

    @property
    def graph(self) -> sqlite3.Connection:
        if self._graph is None:
            self._graph_created = self._graph_created or not _is_file(self.graph_path)
            self._graph = open_db(self.graph_path, GRAPH_SCHEMA, self.graph_version, "graph")
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
        if self._graph is None and stored_version(self.graph_path) != self.graph_version:
            return False
        try:
            return self.meta("head") is not None
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
        conn = self.graph
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            _rollback(conn)
            raise
        conn.execute("COMMIT")

    # snapshots: copies of the graph at recent commits, so that going back to one costs a copy, not a resolution

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
                if conn.execute("PRAGMA user_version").fetchone()[0] != self.graph_version:
                    _remove(path)  # of another version: never of use again
                    return None
                marks = ",".join("?" * len(keys))
                return dict(conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", keys).fetchall())
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
            if problems != ["ok"] or version != self.graph_version or row is None or row[0] != head:
                raise sqlite3.DatabaseError("; ".join(problems) if problems != ["ok"] else f"version {version}, head {row}")
            src.backup(self.graph)
        except sqlite3.Error as e:
            src.close()
            if self.graph.in_transaction:
                _rollback(self.graph)
            _warn(f"the snapshot of the graph at {path} is damaged ({' '.join(str(e).split())[:120]}); dropping it")
            _remove(path)
            return False
        src.close()
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept longest
        return True

    # the whole store

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
        """The cached facts of a blob; None when there are none, or when the row is damaged (it is
        dropped with a warning, so the caller parses the blob again)."""
        # CAST: SQLite hands back bytes whatever a damaged row claims to hold, and Python decodes them here.
        row = self.blobs.execute("SELECT CAST(facts AS BLOB), CAST(crc AS INTEGER) FROM blobs WHERE sha = ?", (sha,)).fetchone()
        if row is None:
            return None
        data, crc = row
        try:
            if not isinstance(data, bytes) or _checksum(sha, data) != crc:
                raise ValueError("checksum mismatch")
            return str(data.decode("utf-8"))
        except ValueError as e:  # UnicodeDecodeError included
            _warn(f"blob cache at {self.blobs_path}: the facts of blob {sha[:12]} are damaged ({e.__class__.__name__}:"
                  f" {str(e)[:60]}); parsing the blob again")
            if not self._blobs_readonly:
                self.blobs.execute("DELETE FROM blobs WHERE sha = ?", (sha,))
            return None

    def save_facts(self, rows: Iterable[tuple[str, str]]) -> None:
        conn = self.blobs
        if self._blobs_readonly:
            return  # a cache: what cannot be kept is parsed again next time
        encoded = [(sha, raw.encode("utf-8")) for sha, raw in rows]
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR REPLACE INTO blobs(sha, facts, crc) VALUES (?, ?, ?)",
                             ((sha, data, _checksum(sha, data)) for sha, data in encoded))
        except BaseException:
            _rollback(conn)
            raise
        conn.execute("COMMIT")


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


def _checksum(sha: str, data: bytes) -> int:
    """CRC-32 of a row's key and facts: a flipped bit in either fails it (a few µs per row)."""
    return zlib.crc32(data, zlib.crc32(sha.encode("ascii", "replace")))


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is still open: after a full disk or an I/O error SQLite may have done it already,
    and a second error would hide the first."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
