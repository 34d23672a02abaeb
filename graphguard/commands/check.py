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
    verbose: bool = False,
) -> int:
    from graphguard.check import run

    t0 = time.perf_counter()
    repo = open_repo(repo_path)
    result = run(repo, staged=staged, worktree=worktree, base=base, head=head)
    return _finish(result, fmt, t0, repo.root, verbose)


def _finish(result: CheckResult, fmt: str, t0: float, root: str, verbose: bool) -> int:
    from graphguard.report import PRINTS_TESTS, RENDERERS

    result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
    test_runner = None
    if fmt in PRINTS_TESTS:  # only when tests are printed
        from graphguard.report import runner

        test_runner = runner.find(root, result)
    output.write(RENDERERS[fmt](result, verbose=verbose, runner=test_runner))
    if fmt == "github":  # GitHub sets GITHUB_STEP_SUMMARY in every step: only this format writes it
        from graphguard.report.github import append_step_summary

        try:
            append_step_summary(result, runner=test_runner)
        except GraphguardError as e:
            output.warn(f"step summary not written: {e}")
    return 1 if result.verdict is Verdict.BLOCK else 0
