"""The hook's side: how it refreshes (the mode), and the detached refresher it launches holding the refresh
lock; and the refresher's side: the lock it inherits (or takes)."""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from graphguard import files
from graphguard.background.state import LOCK_NAME, LOG_NAME, write_state
from graphguard.errors import GraphguardError

if TYPE_CHECKING:
    from graphguard.store.lock import Lock

# graphguard.store (sqlite3, urllib) is imported where it is used: the hook's launcher needs none of it.

#: Past this size the log is moved to refresh.log.1 (one generation kept) before a refresher writes to it.
LOG_LIMIT = 256 * 1024
#: The fd the refresher finds its (already held) lock on.
INHERITED_FD = 3
MODE_VARIABLE = "GRAPHGUARD_REFRESH"

# The refresher's interpreter: never `python -m` (it would put the working directory, the analysed
# repository, first on sys.path); with -c, sys.path[0] is '' and is dropped before any import, as in
# resources/hook-tmpl. -E, as there: an empty or `.` entry of PYTHONPATH names the repository too.
SERVE = """import sys
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]
from graphguard.commands.refresh import serve
sys.exit(serve(sys.argv[2], sys.argv[3], int(sys.argv[4])))"""


class Mode(enum.Enum):
    BACKGROUND = "background"
    FOREGROUND = "foreground"


def mode(env: Mapping[str, str]) -> Mode:
    """How a hook refreshes: GRAPHGUARD_REFRESH=foreground keeps the old behaviour (the hook waits)."""
    value = env.get(MODE_VARIABLE, "").strip().lower()
    if not value:
        return Mode.BACKGROUND
    try:
        return Mode(value)
    except ValueError:
        choices = ", ".join(m.value for m in Mode)
        print(f"graphguard: warning: {MODE_VARIABLE}={value!r} is not one of {choices}; refreshing in the background",
              file=sys.stderr)
        return Mode.BACKGROUND


# --- launching ------------------------------------------------------------------------------------


def launch(store_dir: str, root: str, hook: str, env: Mapping[str, str]) -> bool:
    """Start a detached refresher for the repository at `root`; False when one is running already
    (it picks up the new HEAD). Returns once the refresher's interpreter has been exec'd: it holds
    the lock from then on. Raises OSError or GraphguardError when it cannot be started."""
    if os.path.islink(store_dir) or not os.path.isdir(store_dir):
        from graphguard.files import ensure_dir

        ensure_dir(store_dir)  # creates it, or says why it cannot
    fd = _take_lock(os.path.join(store_dir, LOCK_NAME))
    if fd is None:
        return False
    try:
        write_state(store_dir, hook, time.time(), pid=None)  # the refresher adds its pid once it runs
        log = _open_log(store_dir)
        try:
            # The first argument only names the process (in ps, and to tests that trap imports).
            argv = [sys.executable, "-E", "-c", SERVE, "graphguard-refresher", root, hook, str(INHERITED_FD)]
            _spawn_detached(argv, root, env, log, fd)
        finally:
            os.close(log)
    finally:
        os.close(fd)  # the refresher holds its own copy of the lock now
    return True


def _take_lock(path: str) -> int | None:
    """The refresh lock's descriptor, locked; None when a refresher holds it. Not a store.Lock:
    that one is closed in forked children, and here the child must inherit it."""
    if os.path.islink(path):
        raise GraphguardError(f"{path} is a symbolic link, which graphguard never follows: remove it")
    fd = files.open_own(path, os.O_RDWR | os.O_CREAT)
    for attempt in range(3):
        try:
            _flock(fd)
            return fd
        except OSError:
            # A command probing (running()) holds it for microseconds; a refresher for seconds.
            if attempt < 2:
                time.sleep(0.003)
    os.close(fd)
    return None


def _open_log(store_dir: str) -> int:
    path = os.path.join(store_dir, LOG_NAME)
    with contextlib.suppress(OSError):
        if not os.path.islink(path) and os.path.getsize(path) > LOG_LIMIT:
            os.replace(path, path + ".1")
    return files.open_own(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)


def _spawn_detached(argv: list[str], cwd: str, env: Mapping[str, str], log: int, lock: int) -> None:
    """Run argv in a new session (no terminal: closing it, or ^C in it, does not reach the refresher),
    stdin from /dev/null, stdout and stderr to the log: nothing of the hook's own descriptors, since
    git, IDEs and the pre-commit framework wait until every copy of the hook's pipes is closed. The
    lock goes along as fd 3. Double fork: the refresher is nobody's child here, so it never lingers as
    a zombie of a long-lived caller, and the intermediate process is reaped at once."""
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: no fork, no flock to inherit
        _spawn_windows(argv, cwd, env, log)
        return
    import fcntl

    errors_r, errors_w = os.pipe()  # close-on-exec: EOF once the refresher is exec'd, an errno if it was not
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked children, which coverage does not follow
        try:
            os.close(errors_r)
            os.setsid()
            if os.fork() == 0:
                high_log = fcntl.fcntl(log, fcntl.F_DUPFD, 10)  # above 0-3, whatever the descriptors were
                high_lock = fcntl.fcntl(lock, fcntl.F_DUPFD, 10)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(high_log, 1)
                os.dup2(high_log, 2)
                os.dup2(high_lock, INHERITED_FD)
                os.set_inheritable(INHERITED_FD, True)
                os.chdir(cwd)
                os.execve(argv[0], argv, dict(env))
        except OSError as e:
            with contextlib.suppress(OSError):
                os.write(errors_w, str(e.errno or 1).encode())
        finally:
            os._exit(0)
    os.close(errors_w)
    try:
        os.waitpid(pid, 0)
        failure = os.read(errors_r, 32)
    finally:
        os.close(errors_r)
    if failure:
        code = int(failure)
        raise OSError(code, f"cannot start {argv[0]}: {os.strerror(code)}")


def _spawn_windows(argv: list[str], cwd: str, env: Mapping[str, str], log: int) -> None:  # pragma: no cover
    import subprocess

    flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW  # type: ignore[attr-defined]
    # The refresher takes the lock itself there (a short window where it is starting but not visible).
    argv = [*argv[:-1], "-1"]
    subprocess.Popen(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=True,
                     creationflags=flags)


def _flock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


# --- the refresher's side -------------------------------------------------------------------------


def adopt_lock(store_dir: str, fd: int) -> Lock:
    """The refresher's lock: inherited held on `fd` from the launcher, or (fd < 0, or not inherited)
    taken here; LockTimeout when another refresher has it."""
    from graphguard.files import ensure_dir
    from graphguard.store.lock import Lock

    path = os.path.join(store_dir, LOCK_NAME)
    if fd >= 0 and _is_lock_file(fd, path):
        os.set_inheritable(fd, False)  # git and other children never get it
        return Lock.adopt(path, fd)
    ensure_dir(store_dir)
    lock = Lock(path)
    lock.acquire(0.1)
    return lock


def _is_lock_file(fd: int, path: str) -> bool:
    """Whether `fd` is open on the lock file (a refresher started by hand has no fd 3, or another one)."""
    try:
        mine, theirs = os.fstat(fd), os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)

