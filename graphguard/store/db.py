"""Opening a store database: damage and storage errors named in one line, read-only fallback, no symbolic link followed."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import sys
import urllib.parse
from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

from graphguard import files
from graphguard.errors import GraphguardError
from graphguard.files import ensure_dir

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

T = TypeVar("T")

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




def open_memory(schema: str, version: int) -> sqlite3.Connection:
    """A database in memory holding `schema` at `version`, as open_db makes a new file (the in-memory graph of tests)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    with transaction(conn):
        for statement in schema.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={version}")
    return conn


def open_scratch(path: str) -> sqlite3.Connection:
    """A resolution worker's scratch database: its own file, read once by the parent's write, so nothing is synced."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, *, join: bool = False) -> Iterator[sqlite3.Connection]:
    """One write transaction (BEGIN IMMEDIATE: the write lock first, so no reader's snapshot blocks the commit),
    rolled back on any exception. `join`: when one is open already, run inside it (its owner commits)."""
    if join and conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        rollback(conn)
        raise
    conn.execute("COMMIT")


@contextlib.contextmanager
def read_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A read transaction: the first read fixes the view of the database until the block ends (rolled back:
    nothing was written)."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        rollback(conn)


#: Bound parameters per statement (SQLite allows at least 999).
CHUNK = 500


def chunked(seq: Iterable[T], n: int = CHUNK) -> Iterator[list[T]]:
    """`seq` in lists of at most `n`, in order (none when it is empty)."""
    items = list(seq)
    for i in range(0, len(items), n):
        yield items[i : i + n]


def marks(n: int | Sized) -> str:
    """The placeholders of an `IN (...)` of n values (or of as many as `n` holds)."""
    return ",".join("?" * (n if isinstance(n, int) else len(n)))


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is still open: after a full disk or an I/O error SQLite may have done it already,
    and a second error would hide the first."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


_rollback = rollback  # the old name


def file_of(conn: sqlite3.Connection) -> str:
    """The path of the file the connection's main database reads ('' for one in memory)."""
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2] or "") if row else ""
