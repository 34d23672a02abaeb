"""`graphguard clean`: remove the graph's store (`<git-dir>/graphguard`); the next command or hook builds it again."""

from __future__ import annotations

from graphguard import output
from graphguard.errors import GraphguardError, LockTimeout

LOCK_WAIT = 2.0  # seconds clean waits for a command that is writing the graph


def clean(repo_path: str) -> int:
    from graphguard.background import state
    from graphguard.repo import open_repo

    repo = open_repo(repo_path)
    store = repo.store
    if state.running(store.dir):
        raise GraphguardError("a background refresh is updating the graph now; run graphguard clean when it has finished")
    size = store.size()
    try:
        removed = store.remove(lock_timeout=LOCK_WAIT)
    except LockTimeout:
        raise GraphguardError("another graphguard process holds the graph's write lock; try again when it has finished") from None
    if not removed:
        output.write(f"graphguard: nothing to remove ({store.dir} does not exist)")
        return 0
    output.write(f"graphguard: removed {store.dir} ({megabytes(size)}); the next command or commit builds the graph again")
    if store.common != store.dir:
        output.write(f"graphguard: kept the blob cache shared by the worktrees ({store.common})")
    return 0


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"
