"""The checks of commits no pre-commit hook saw (graphguard.unhooked says which), run by the hooks.

After a cherry-pick, a revert or a rebase (post-commit, post-rewrite) the commit is made: the check
cannot stop it, so it says loudly on stderr what is now broken and the command that shows it again,
and never fails the git operation. pre-push (opt-in) blocks pushing a broken head.
Nothing heavy is imported until a range is to be checked: an ordinary commit's post-commit only
reads a few files of the git dir.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from graphguard import unhooked
from graphguard.errors import GraphguardError

if TYPE_CHECKING:
    from graphguard.gitstate import Operation
    from graphguard.result import CheckResult


def after_hook(root: str, hook: str, args: Sequence[str], stdin: str, op: Operation) -> bool:
    """post-commit / post-rewrite: check what a cherry-pick, revert or rebase committed (`op`: what git is in
    the middle of); warn if it broke a caller (True then)."""
    todo = unhooked.after_rewrite(args[0] if args else "", op, stdin) if hook == "post-rewrite" else unhooked.after_commit(op)
    if todo is None:
        return False
    try:
        from graphguard import git

        head = git.resolve_commit(root, todo.head)
        base = todo.base if todo.base is not None else f"{head}^"
        result = _check(root, base, head)
    except (GraphguardError, Exception) as e:  # noqa: BLE001 - a post-* hook must never fail git
        print(f"graphguard: warning: the {todo.what} was not checked: {e}", file=sys.stderr)
        return False
    if not _blocks(result):
        return False
    why = f"git runs no pre-commit hook for a {todo.what}"
    print(f"graphguard: WARNING: the {todo.what} committed a change that leaves callers broken ({why}):\n", file=sys.stderr)
    _report(result)
    print(f"graphguard: the {todo.what} is committed; fix the callers and commit again."
          f" Shown again by: graphguard check --base {_shown(base)} --head {head[:12]}", file=sys.stderr)
    return True


def pre_push(root: str, stdin: str, env: Mapping[str, str], remote: str) -> int:
    """1 when a pushed ref's head leaves a caller broken (the push is refused), else 0. A range that cannot
    be checked (a remote commit this clone lacks, no known default branch for a new branch) is a warning."""
    from graphguard import git

    refs, rest = unhooked.bounded(unhooked.pushed(stdin, env))
    blocked = 0
    for ref in refs:
        base = ref.base
        if base is not None and not git.has_commit(root, base):
            print(f"graphguard: warning: {ref.ref}: the remote's {base[:12]} is not in this clone (fetch it); not checked",
                  file=sys.stderr)
            continue
        if base is None:  # a new branch: what it adds to the remote's default branch
            base = git.remote_default(root, env.get("PRE_COMMIT_REMOTE_NAME") or remote or "origin")
            if base is None:
                print(f"graphguard: warning: {ref.ref}: a new branch and no default branch of the remote is known"
                      f" (`git remote set-head {remote or 'origin'} --auto`); not checked", file=sys.stderr)
                continue
        try:
            result = _check(root, base, ref.head)
        except GraphguardError as e:
            print(f"graphguard: warning: {ref.ref}: not checked: {e}", file=sys.stderr)
            continue
        if _blocks(result):
            blocked += 1
            _report(result)
            print(f"graphguard: push refused: {ref.ref} leaves callers broken. Shown again by:"
                  f" graphguard check --base {base[:12]} --head {ref.head[:12]}; `git push --no-verify` pushes anyway",
                  file=sys.stderr)
    if rest:
        print(f"graphguard: warning: {len(rest)} more refs pushed at once were not checked (at most"
              f" {unhooked.MAX_PUSHED_REFS}): {', '.join(r.ref for r in rest[:5])}", file=sys.stderr)
    return 1 if blocked else 0


def _check(root: str, base: str, head: str) -> CheckResult:
    from graphguard.check import run
    from graphguard.repo import open_repo

    return run(open_repo(root), base=base, head=head)


def _blocks(result: CheckResult) -> bool:
    from graphguard.result import Verdict

    return result.verdict is Verdict.BLOCK


def _report(result: CheckResult) -> None:
    from graphguard.report import RENDERERS

    print(RENDERERS["text"](result), file=sys.stderr)


def _shown(base: str) -> str:
    """A base for the command line: a full sha shortened; `<sha>^` kept (a root commit's parent is no commit)."""
    return base[:12] + ("^" if base.endswith("^") else "") if len(base) >= 40 else base
