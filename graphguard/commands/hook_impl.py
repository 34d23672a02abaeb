"""`graphguard hook-impl --hook-type T -- ARGS`: what the native hook scripts run.

pre-commit and pre-merge-commit check the staged changes (a merge against each
parent: check finds MERGE_HEAD); the post-* hooks refresh the graph and
never fail the git operation that ran them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def hook_impl(repo_path: str, hook_type: str, args: Sequence[str]) -> int:
    if hook_type in ("pre-commit", "pre-merge-commit"):
        from graphguard.commands.check import check

        return check(repo_path, staged=True)
    from graphguard.commands.refresh import refresh

    stdin = "" if hook_type != "post-rewrite" or sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    return refresh(repo_path, hook_type=hook_type, args=list(args), stdin=stdin)
