"""The graph refresh a post-* hook hands to a detached process, and the commands that wait for it.

A checkout can change thousands of files: refreshing the graph inside post-checkout held
`git checkout` for a minute with no output. So the hook only launches a refresher and
returns; the next command that needs the graph waits for it, or finishes the work itself
when no refresher is alive. Three files in `<git-dir>/graphguard/`:

- `refresh.lock`: an advisory lock (flock) held by the one live refresher for its whole
  life. It is the only proof that a refresher is alive: the kernel drops it with the
  process (kill -9, a crash, a reboot), so nothing a dead refresher leaves can block.
  The launcher takes it before it starts the refresher, which inherits it: there is no
  moment after the hook returned when a refresher is starting but not yet visible.
- `refresh.json`: who started the refresher and when, for the waiting message. Read only
  while the lock is held, and never trusted beyond that message.
- `refresh.log`: the refresher's output (stdout and stderr), kept under LOG_LIMIT bytes.

A command waits only while the refresher makes progress: its log, its state, the store's
databases and their -wal, the workers' scratch files or its (and its workers') CPU time move.
Past STALL_LIMIT without any of that (kill -STOP, a wait that never ends) it names the process
and does the work itself, under the write lock as every update is, so a stopped refresher
that goes on later finds the graph current; when the stuck one holds the write lock, the
command says so at once instead of waiting for it.

A hook that finds a refresher already running leaves: HEAD itself is the request, and the
refresher looks at HEAD again after every update and once more after letting go of the
lock (commands/refresh.serve), so a checkout that lands while it is busy is not lost.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from graphguard import files
from graphguard.errors import GraphguardError, LockTimeout

if TYPE_CHECKING:
    from graphguard.store.lock import Lock

# graphguard.store (sqlite3, urllib) is imported where it is used: the hook's launcher needs none of it.

LOCK_NAME = "refresh.lock"
STATE_NAME = "refresh.json"
LOG_NAME = "refresh.log"
#: Past this size the log is moved to refresh.log.1 (one generation kept) before a refresher writes to it.
LOG_LIMIT = 256 * 1024
#: How long a command waits for a refresher before giving up with a message (a cold index of a
#: very large repository can take minutes; past this something is wrong).
WAIT_LIMIT = 600.0
POLL = 0.1
#: Seconds between two waiting lines where stderr is no terminal.
PLAIN_EVERY = 5.0
#: Seconds without any sign of progress (see `_progress`) after which a waiting command takes the refresher for
#: stuck and does the work itself. Long enough for a slow phase of a cold index on a loaded machine to show a sign
#: (its workers' CPU time counts), short beside the 600 s a stopped refresher held every command.
STALL_LIMIT = 15.0
#: Overrides STALL_LIMIT (seconds; tests use a short one).
STALL_VARIABLE = "GRAPHGUARD_REFRESH_STALL"
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


# --- is one alive ---------------------------------------------------------------------------------


def running(store_dir: str) -> bool:
    """Whether a refresher holds the lock now. A probe that takes the lock for a few microseconds:
    the launcher and the refresher try twice before they conclude that another holds it."""
    return _held(os.path.join(store_dir, LOCK_NAME))


def _held(path: str) -> bool:
    """Whether another process holds the lock at `path` (probed without waiting)."""
    if not os.path.isfile(path) or os.path.islink(path):
        return False  # never made: nobody ever held it (and a link is not ours to open)
    from graphguard.store.lock import Lock

    probe = Lock(path)
    try:
        probe.acquire(0)
    except LockTimeout:
        return True
    except OSError:
        return False
    probe.release()
    return False


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


def write_state(store_dir: str, hook: str, started: float, *, pid: int | None) -> None:
    """Who runs the refresh, for the message of a command that waits for it; best effort."""
    import json  # here: the hook's launcher writes one small record, and json was a sixth of its imports

    path = os.path.join(store_dir, STATE_NAME)
    text = json.dumps({"pid": pid, "hook": hook, "started": started})
    with contextlib.suppress(OSError):
        fd = files.open_own(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)


# --- the waiting side -----------------------------------------------------------------------------


class Refresher:
    """What refresh.json says about the live refresher, checked against what is plausible."""

    def __init__(self, store_dir: str, now: float):
        self.hook = "a git hook"
        self.started = now
        self.pid: int | None = None
        import json

        try:
            fd = files.open_regular(os.path.join(store_dir, STATE_NAME), os.O_RDONLY)
            with os.fdopen(fd, encoding="utf-8") as f:
                state = json.load(f)
        except (OSError, ValueError):
            return
        if not isinstance(state, dict):
            return
        hook, started, pid = state.get("hook"), state.get("started"), state.get("pid")
        if isinstance(hook, str) and 0 < len(hook) < 40 and all(c.isalpha() or c in "- " for c in hook):
            self.hook = hook
        if isinstance(started, (int, float)) and 0 <= now - started < 86400:
            self.started = float(started)
        if isinstance(pid, int) and pid > 0:
            self.pid = pid

    def line(self, now: float) -> str:
        return f"graphguard: waiting for the graph refresh started by {self.hook} ({now - self.started:.0f} s so far) ..."


def wait(store_dir: str, done: Callable[[], bool], *, limit: float | None = None, tty: bool | None = None,
         stall: float | None = None, also: tuple[str, ...] = ()) -> bool:
    """Wait while a refresher is alive, makes progress and `done()` is false; False when none was running (then
    this cost one lock probe). On a TTY a progress line on stderr, overwritten in place and erased at the end;
    elsewhere one line afterwards when the wait was long enough to notice. GraphguardError past `limit`. A
    refresher without a sign of progress for `stall` seconds is left: a warning names it, and the caller does the
    work; GraphguardError when the graph's write lock stays held without progress for one more period (that work
    would wait for the lock too).
    `also`: more files whose change is progress (the blob cache's -wal, in the common git dir)."""
    if not running(store_dir):
        return False
    limit = WAIT_LIMIT if limit is None else limit
    stall = stall_limit(os.environ) if stall is None else stall
    tty = sys.stderr.isatty() if tty is None else tty
    t0 = time.monotonic()
    who = Refresher(store_dir, time.time())
    signs, moved = _progress(store_dir, who.pid, also), t0
    held_at_stall = False
    shown = ""
    said_at = 1.0  # seconds into the wait of the next plain line
    try:
        while not done() and running(store_dir):
            now = time.monotonic()
            if now - t0 > limit:
                raise GraphguardError(_too_long(store_dir, who, now - t0))
            if who.pid is None:  # the launcher writes the state without one; the refresher adds it when it runs
                who = Refresher(store_dir, time.time())
            latest = _progress(store_dir, who.pid, also)
            if latest != signs:
                signs, moved, held_at_stall = latest, now, False
            elif now - moved > stall * (2 if held_at_stall else 1):
                if not _write_lock_held(store_dir):
                    print(f"graphguard: warning: {_stuck(who, now - moved)}; updating the graph here instead", file=sys.stderr)
                    return True
                if held_at_stall:  # a whole period more: the holder is stuck as well (most likely, it is the refresher)
                    raise GraphguardError(f"{_stuck(who, now - moved)}, and the graph's write lock is held; then try again")
                held_at_stall = True  # another command may have just taken it to do the same work: its writes show
            if tty:
                line = who.line(time.time())
                print("\r" + line.ljust(len(shown)), end="", file=sys.stderr, flush=True)
                shown = line
            elif now - t0 >= said_at:  # no terminal (an IDE, the framework's capture): a line now and then says why
                print(who.line(time.time()), file=sys.stderr, flush=True)
                said_at += PLAIN_EVERY
            time.sleep(POLL)
    finally:
        if shown:
            print("\r" + " " * len(shown) + "\r", end="", file=sys.stderr, flush=True)
    waited = time.monotonic() - t0
    if not tty and waited >= 1.0:
        print(f"graphguard: waited {waited:.0f} s for the graph refresh started by {who.hook}", file=sys.stderr)
    return True


def stall_limit(env: Mapping[str, str]) -> float:
    """STALL_LIMIT, or the seconds GRAPHGUARD_REFRESH_STALL gives."""
    value = env.get(STALL_VARIABLE, "").strip()
    if not value:
        return STALL_LIMIT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < WAIT_LIMIT:  # NaN included
        print(f"graphguard: warning: {STALL_VARIABLE}={value!r} is not a number of seconds below {WAIT_LIMIT:.0f};"
              f" using {STALL_LIMIT:.0f}", file=sys.stderr)
        return STALL_LIMIT
    return seconds


def _progress(store_dir: str, pid: int | None, also: tuple[str, ...]) -> tuple[object, ...]:
    """Everything that moves while a refresher works: size and mtime of its log and state, of the graph and its
    -wal (the write, and its text index), of `also`, of each scratch database of resolution workers; and the CPU
    time of the refresher and its children (the parse workers), where /proc tells it."""
    names = [os.path.join(store_dir, n) for n in (LOG_NAME, STATE_NAME, "graph.sqlite3", "graph.sqlite3-wal")]
    scratch = os.path.join(store_dir, "scratch")
    with contextlib.suppress(OSError):
        for run in os.listdir(scratch):
            with contextlib.suppress(OSError):
                names += [os.path.join(scratch, run, n) for n in os.listdir(os.path.join(scratch, run))]
    signs: list[object] = []
    for path in (*names, *also):
        try:
            st = os.stat(path, follow_symlinks=False)
            signs.append((path, st.st_size, st.st_mtime_ns))
        except OSError:
            signs.append(None)
    if pid is not None:
        signs.append(_cpu(pid))
    return tuple(signs)


def _proc_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first); None without /proc or the process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:  # a kernel file: never a FIFO
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def _cpu(pid: int) -> int | None:
    """Clock ticks of CPU the process and its live children used."""
    total = 0
    pids = [pid]
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                pids += [int(c) for c in f.read().split()]
    for p in pids:
        fields = _proc_stat(p)
        if fields is not None and len(fields) > 12:
            total += int(fields[11]) + int(fields[12])  # utime, stime
        elif p == pid:
            return None
    return total


def _stuck(who: Refresher, quiet: float) -> str:
    """The refresher, named, and what to do about it."""
    if who.pid is None:
        return f"the graph refresh started by {who.hook} has made no progress for {quiet:.0f} s"
    fields = _proc_stat(who.pid)
    if fields is not None and fields[0] in ("T", "t"):
        return (f"the graph refresh started by {who.hook} (pid {who.pid}, stopped) has made no progress for {quiet:.0f} s"
                f" (`kill -CONT {who.pid}` resumes it, `kill {who.pid}` ends it)")
    return f"the graph refresh started by {who.hook} (pid {who.pid}) has made no progress for {quiet:.0f} s (`kill {who.pid}` ends it)"


def _write_lock_held(store_dir: str) -> bool:
    return _held(os.path.join(store_dir, "write.lock"))


def _too_long(store_dir: str, who: Refresher, waited: float) -> str:
    stop = f"; to stop it: kill {who.pid}" if who.pid is not None else ""
    return (f"the graph refresh started by {who.hook} is still running after {waited:.0f} s of waiting"
            f" (its log: {os.path.join(store_dir, LOG_NAME)}{stop}); try again when it has finished")
