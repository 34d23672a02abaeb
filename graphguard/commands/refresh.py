"""`graphguard refresh`: bring the graph to HEAD after git moved it. Never fails a git operation.

Knows when HEAD did not move (a file checkout, a squash merge) from the native
hook's arguments or the pre-commit framework's PRE_COMMIT_* variables, and
returns at once. Run by a hook (native, or the framework: PRE_COMMIT=1), it
starts a detached refresher (`serve`, see graphguard.background) and returns
without waiting for it; GRAPHGUARD_REFRESH=foreground, or a run by hand,
refreshes here: the stored snapshot is compared with HEAD, which is cheap when
nothing changed. Errors go to `<git-dir>/graphguard/hook.log` and one warning
line; the refresher's output to `<git-dir>/graphguard/refresh.log`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphguard.errors import GraphguardError, LockTimeout

if TYPE_CHECKING:
    from graphguard.repo import Repo

LOCK_WAIT = 2.0  # seconds a refresh waits for another one before leaving it the work
#: The background refresher waits this long for the write lock (a command may be updating the graph).
SERVE_LOCK_WAIT = 600.0
#: Updates one refresher makes before it leaves (HEAD moving on and on: a long rebase, a script).
SERVE_ROUNDS = 20
#: The framework's variables that tell its stage, for the waiting message.
FRAMEWORK_STAGES = (("PRE_COMMIT_CHECKOUT_TYPE", "post-checkout"), ("PRE_COMMIT_IS_SQUASH_MERGE", "post-merge"),
                    ("PRE_COMMIT_REWRITE_COMMAND", "post-rewrite"))


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
    hook = hook_name(hook_type, env)
    status = 0
    try:
        if hook is not None:
            from graphguard.background import launcher

            root, git_dir = _hook_paths(repo_path, env)
            # The pre-commit framework shows a hook's output only when it fails; git ignores the exit status of
            # post-commit and post-rewrite, so there a 1 fails nothing and makes the warning seen.
            stage, stage_args = _stage(hook_type, args, env)
            if stage in ("post-commit", "post-rewrite"):
                from graphguard import gitstate
                from graphguard.commands.unhooked import after_hook

                # Before the refresh: what a cherry-pick, revert or rebase committed with no pre-commit hook, checked
                # in this process (its warning must reach the terminal; the refresher's output goes to a log).
                op = gitstate.operation(git_dir)
                status = 1 if after_hook(root, stage, stage_args, stdin, op) and hook_type is None else 0
                if stage == "post-commit" and op.rebasing:
                    return status  # its post-rewrite refreshes once at the end (300 replayed commits: 300 launches before)
            if launcher.mode(env) is launcher.Mode.BACKGROUND:
                launcher.launch(os.path.join(git_dir, "graphguard"), root, hook, env)
                return status
        from graphguard.repo import ensure_current, open_repo

        repo = open_repo(repo_path)
        git_dir = repo.paths.git_dir
        ensure_current(repo, progress=False, lock_timeout=LOCK_WAIT)
    except LockTimeout:
        print("graphguard: another process is updating the graph; this refresh leaves it to that one", file=sys.stderr)
    except (GraphguardError, Exception) as e:  # noqa: BLE001 - a post-* hook must never fail git
        log = _log(git_dir, e)
        print(f"graphguard: warning: graph not refreshed: {e}" + (f" (details: {log})" if log else ""), file=sys.stderr)
    return status


def _stage(hook_type: str | None, args: Sequence[str], env: dict[str, str]) -> tuple[str | None, Sequence[str]]:
    """The git hook running, and its arguments: under the pre-commit framework its variables tell the stage
    (post-rewrite's command among them), and none for post-commit."""
    if hook_type is not None:
        return hook_type, args
    if "PRE_COMMIT_REWRITE_COMMAND" in env:
        return "post-rewrite", [env["PRE_COMMIT_REWRITE_COMMAND"]]
    return (None if any(name in env for name, _ in FRAMEWORK_STAGES) else "post-commit"), args


def _log(git_dir: str | None, error: BaseException) -> str | None:
    """Append the traceback to `<git-dir>/graphguard/hook.log`; its path, or None when it could not be written."""
    if git_dir is None:
        return None
    import datetime
    import traceback

    from graphguard.files import write_log

    text = f"--- {datetime.datetime.now().isoformat(timespec='seconds')}\n"
    text += "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return write_log(git_dir, "hook.log", text, append=True, mode=0o644)


def _hook_paths(repo_path: str, env: dict[str, str]) -> tuple[str, str]:
    """(work tree, git dir) for the launcher. git runs hooks at the top of the work tree, so in the usual
    case (a `.git` folder there, no GIT_* variable that moves it) this starts no git and does not even import
    subprocess (together some 35 ms on a loaded 2-core machine). Otherwise git says."""
    dot_git = os.path.join(repo_path, ".git")
    if not any(name in env for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")) and os.path.isdir(dot_git) \
            and not os.path.islink(dot_git) and os.path.isfile(os.path.join(dot_git, "HEAD")):
        return repo_path, dot_git
    from graphguard import git

    paths = git.repo_paths(repo_path)
    return paths.root, paths.git_dir


def hook_name(hook_type: str | None, env: dict[str, str]) -> str | None:
    """The hook this refresh runs in (the native hook's type; the framework's stage as far as it tells),
    None when it was run by hand."""
    if hook_type is not None:
        return hook_type
    if not env.get("PRE_COMMIT"):
        return None
    return next((stage for name, stage in FRAMEWORK_STAGES if name in env), "a git hook")


# --- the background refresher ---------------------------------------------------------------------


def serve(repo_path: str, hook: str, lock_fd: int) -> int:
    """The detached refresher (graphguard.background.launcher.launch runs it): holds the refresh lock, inherited
    on `lock_fd`, and brings the graph to HEAD until HEAD stops moving. Its stdout and stderr are the log."""
    from graphguard import output

    output.escape_what_cannot_be_encoded()  # the log takes the locale's encoding, which may lack a file name's letters
    started = time.time()
    print(f"--- {_now()} pid {os.getpid()}, started by {hook}", flush=True)
    try:
        from graphguard.background import launcher, state
        from graphguard.repo import open_repo

        repo = open_repo(repo_path)
        try:
            lock = launcher.adopt_lock(repo.store.dir, lock_fd)
        except LockTimeout:
            print("another refresher is running; it picks up this HEAD", flush=True)
            return 0
        for _ in range(SERVE_ROUNDS):
            try:
                state.write_state(repo.store.dir, hook, started, pid=os.getpid())
                if not _refresh_rounds(repo, started):
                    return 0
            except (GraphguardError, Exception) as e:  # noqa: BLE001 - said while the lock is held: a waiter reads the log after
                return _failed(e)
            finally:
                lock.release()
            # A hook that found the lock held just before it was let go left its HEAD to this process.
            if is_current(repo):
                # After the refresh lock is let go: a command waiting for the refresher does not wait for this.
                _refit_if_due(repo)
                return 0
            try:
                lock = launcher.adopt_lock(repo.store.dir, -1)
            except LockTimeout:
                return 0  # another refresher took it over
        return 0
    except (GraphguardError, Exception) as e:  # noqa: BLE001 - nobody sees this process fail: the log says why
        return _failed(e)


def _failed(e: BaseException) -> int:
    """The refresher's failure, in its log (its stdout), with the traceback."""
    import traceback

    print(f"graph not refreshed: {e}", flush=True)
    traceback.print_exception(e, file=sys.stdout)
    return 1


def _refit_if_due(repo: Repo) -> None:
    """The retrieval profile fitted again when enough commits arrived (retrieval/fitting.REFIT_AFTER), here in
    the detached refresher, after it let go of the refresh lock: nobody waits for it; bounded in time, logged."""
    from graphguard.answers.records import graph_head
    from graphguard.config import load as load_config
    from graphguard.retrieval import fitting

    head = graph_head(repo)
    if head is None or not fitting.due(repo.store.graph):
        return
    config = load_config(repo.root)
    if not config.retrieval_fit:
        print(f"{_now()} fit: off (retrieval_fit = false)", flush=True)
        return
    try:
        fitting.refit(repo.store, repo.root, head, config, log=lambda m: print(f"{_now()} {m}", flush=True))
    except GraphguardError as e:
        print(f"{_now()} fit: not fitted ({e})", flush=True)


def _refresh_rounds(repo: Repo, started: float) -> bool:
    """Update until the graph describes HEAD; False when HEAD kept moving for SERVE_ROUNDS updates."""
    from graphguard.repo import ensure_current

    for _ in range(SERVE_ROUNDS):
        t0 = time.monotonic()
        r = ensure_current(repo, progress=False, lock_timeout=SERVE_LOCK_WAIT, wait=False)
        if r.noop:
            from graphguard.retrieval.maintain import catch_up

            if catch_up(repo.store, repo.root, r.head, lock_timeout=SERVE_LOCK_WAIT):  # the check moved the graph
                print(f"{_now()} text index and history brought to {r.head}", flush=True)
            print(f"{_now()} graph at {r.head or 'no commit'} ({time.time() - started:.1f} s since start)", flush=True)
            return True
        print(f"{_now()} updated to {r.head}: {r.files} files, {r.parsed} parsed, {r.resolved} resolved,"
              f" {len(r.warnings)} warnings in {time.monotonic() - t0:.1f} s", flush=True)
    print(f"HEAD moved {SERVE_ROUNDS} times during this refresh; leaving the rest to the next command", flush=True)
    return False


def is_current(repo: Repo) -> bool:
    from graphguard import git
    from graphguard.config import load as load_config
    from graphguard.store.schema import describes

    head = git.head(repo.root)
    return describes(repo.store, head or "", load_config(repo.root).digest())


def _now() -> str:
    import datetime

    return datetime.datetime.now().isoformat(timespec="seconds")
