"""`graphguard check`: flags -> the check's pipeline (graphguard.check) -> report -> exit code."""

from __future__ import annotations

import time

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.repo import open_repo
from graphguard.result import CheckResult, Verdict


def check(
    repo_path: str,
    *,
    staged: bool = False,
    worktree: bool = False,
    base: str | None = None,
    head: str | None = None,
    fmt: str = "text",
) -> int:
    from graphguard.check import run

    t0 = time.perf_counter()
    repo = open_repo(repo_path)
    result = run(repo, staged=staged, worktree=worktree, base=base, head=head)
    return _finish(result, fmt, t0)


def _finish(result: CheckResult, fmt: str, t0: float) -> int:
    from graphguard.report import RENDERERS

    result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
    output.write(RENDERERS[fmt](result))
    if fmt == "github":  # GitHub sets GITHUB_STEP_SUMMARY in every step: only this format writes it
        from graphguard.report.github import append_step_summary

        try:
            append_step_summary(result)
        except GraphguardError as e:
            output.warn(f"step summary not written: {e}")
    return 1 if result.verdict is Verdict.BLOCK else 0
