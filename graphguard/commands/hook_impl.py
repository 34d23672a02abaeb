"""`graphguard hook-impl --hook-type T -- ARGS`: what the native hook scripts run.

pre-commit, pre-merge-commit and pre-applypatch (`git am`) check the staged changes (a merge against
each parent: check finds MERGE_HEAD); the post-* hooks check what a cherry-pick, revert or rebase
committed without a pre-commit hook (graphguard.unhooked), refresh the graph, and never fail the git
operation that ran them; pre-push (opt-in: `install --pre-push`) refuses to push a broken head.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def hook_impl(repo_path: str, hook_type: str, args: Sequence[str]) -> int:
    if hook_type == "pre-applypatch" and _am_of_a_rebase(repo_path):
        return 0  # `git rebase --apply` replays through `git am`: its post-rewrite checks the rebase once
    if hook_type in ("pre-commit", "pre-merge-commit", "pre-applypatch"):
        import os

        from graphguard.commands.check import check

        # A cold index inside the hook shows its progress on any stderr (graphguard.index.update reads it).
        os.environ["GRAPHGUARD_HOOK"] = hook_type
        return check(repo_path, staged=True)
    reads_stdin = hook_type in ("post-rewrite", "pre-push")
    stdin = "" if not reads_stdin or sys.stdin is None or sys.stdin.isatty() else sys.stdin.read(1 << 24)
    if hook_type == "pre-push":
        import os

        from graphguard import git
        from graphguard.commands.unhooked import pre_push

        return pre_push(git.repo_paths(repo_path).root, stdin, os.environ, args[0] if args else "origin")
    from graphguard.commands.refresh import refresh

    return refresh(repo_path, hook_type=hook_type, args=list(args), stdin=stdin)


def _am_of_a_rebase(repo_path: str) -> bool:
    from graphguard import git, gitstate

    return gitstate.operation(git.repo_paths(repo_path).git_dir).rebasing
