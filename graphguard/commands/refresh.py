"""`graphguard refresh`: bring the graph to HEAD after git moved it. Never fails a git operation.

Knows when HEAD did not move (a file checkout, a squash merge) from the native
hook's arguments or the pre-commit framework's PRE_COMMIT_* variables, and
returns at once; otherwise the stored snapshot is compared with HEAD, which is
cheap when nothing changed. Errors go to `<git-dir>/graphguard/hook.log` and
one warning line.
"""

from __future__ import annotations

import datetime
import os
import sys
import traceback
from collections.abc import Sequence

from graphguard.errors import GraphguardError, LockTimeout

LOCK_WAIT = 2.0  # seconds a refresh waits for another one before leaving it the work


def head_moved(hook_type: str | None, args: Sequence[str], env: dict[str, str]) -> bool:
    """False when the hook says HEAD stayed where it was."""
    if env.get("_PRE_COMMIT_SKIP_POST_CHECKOUT"):
        return False  # pre-commit's own stash juggling
    if hook_type == "post-checkout" or "PRE_COMMIT_CHECKOUT_TYPE" in env:
        flag = env.get("PRE_COMMIT_CHECKOUT_TYPE") or (args[2] if len(args) >= 3 else "1")
        from_ref = env.get("PRE_COMMIT_FROM_REF") or (args[0] if args else "")
        to_ref = env.get("PRE_COMMIT_TO_REF") or (args[1] if len(args) >= 2 else "")
        return flag != "0" and not (from_ref and from_ref == to_ref)
    if hook_type == "post-merge" or "PRE_COMMIT_IS_SQUASH_MERGE" in env:
        squash = env.get("PRE_COMMIT_IS_SQUASH_MERGE") or (args[0] if args else "0")
        return squash != "1"
    return True


def refresh(repo_path: str, *, hook_type: str | None = None, args: Sequence[str] = (), stdin: str = "") -> int:
    env = dict(os.environ)
    if not head_moved(hook_type, args, env):
        return 0
    git_dir = None
    try:
        from graphguard.repo import ensure_current, open_repo

        repo = open_repo(repo_path)
        git_dir = repo.paths.git_dir
        ensure_current(repo, progress=False, lock_timeout=LOCK_WAIT)
    except LockTimeout:
        print("graphguard: another process is updating the graph; this refresh leaves it to that one", file=sys.stderr)
    except (GraphguardError, Exception) as e:  # noqa: BLE001 - a post-* hook must never fail git
        log = _log(git_dir, e)
        print(f"graphguard: warning: graph not refreshed: {e}" + (f" (details: {log})" if log else ""), file=sys.stderr)
    return 0


def _log(git_dir: str | None, error: BaseException) -> str | None:
    """Append the traceback to `<git-dir>/graphguard/hook.log`; its path, or None when it could not be written."""
    if git_dir is None:
        return None
    from graphguard.store import write_log

    text = f"--- {datetime.datetime.now().isoformat(timespec='seconds')}\n"
    text += "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return write_log(git_dir, "hook.log", text, append=True, mode=0o644)
