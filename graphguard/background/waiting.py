"""The commands' side: waiting while the refresher makes progress (a progress line on a TTY), and leaving a
refresher that made none for the stall limit, so that the command does the work itself."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Mapping

from graphguard.background.state import LOG_NAME, STATE_NAME, Refresher, held, running
from graphguard.errors import GraphguardError, StillRefreshing

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


def wait(store_dir: str, done: Callable[[], bool], *, limit: float | None = None, tty: bool | None = None,
         stall: float | None = None, also: tuple[str, ...] = (), patience: float | None = None) -> bool:
    """Wait while a refresher is alive, makes progress and `done()` is false; False when none was running (then
    this cost one lock probe). On a TTY a progress line on stderr, overwritten in place and erased at the end;
    elsewhere one line afterwards when the wait was long enough to notice. GraphguardError past `limit`. A
    refresher without a sign of progress for `stall` seconds is left: a warning names it, and the caller does the
    work; GraphguardError when the graph's write lock stays held without progress for one more period (that work
    would wait for the lock too).
    `also`: more files whose change is progress (the blob cache's -wal, in the common git dir). `patience`: seconds
    after which a refresher still working raises StillRefreshing (None: wait as above)."""
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
            if patience is not None and now - t0 > patience:
                raise StillRefreshing(f"the graph refresh started by {who.hook} is still running ({now - t0:.1f} s waited)")
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
    return held(os.path.join(store_dir, "write.lock"))


def _too_long(store_dir: str, who: Refresher, waited: float) -> str:
    stop = f"; to stop it: kill {who.pid}" if who.pid is not None else ""
    return (f"the graph refresh started by {who.hook} is still running after {waited:.0f} s of waiting"
            f" (its log: {os.path.join(store_dir, LOG_NAME)}{stop}); try again when it has finished")
