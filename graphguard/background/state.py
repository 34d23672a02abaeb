"""The refresher's files in `<git-dir>/graphguard/`: its lock (whether one is alive) and refresh.json (who
started it and when), written by the launcher and the refresher, read by a command that waits."""

from __future__ import annotations

import contextlib
import os

from graphguard import files
from graphguard.errors import LockTimeout

# graphguard.store (sqlite3, urllib) is imported where it is used: the hook's launcher needs none of it.

LOCK_NAME = "refresh.lock"
STATE_NAME = "refresh.json"
LOG_NAME = "refresh.log"


# --- is one alive ---------------------------------------------------------------------------------


def running(store_dir: str) -> bool:
    """Whether a refresher holds the lock now. A probe that takes the lock for a few microseconds:
    the launcher and the refresher try twice before they conclude that another holds it."""
    return held(os.path.join(store_dir, LOCK_NAME))


def held(path: str) -> bool:
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


# --- who it is ------------------------------------------------------------------------------------


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

