"""`graphguard conflicts`: each other branch merged with HEAD (graphguard.check.conflicts) -> report -> exit code."""

from __future__ import annotations

import time
from collections.abc import Sequence

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.repo import open_repo
from graphguard.result import ConflictsResult

#: The formats of `check` that render a check report: the branches' breaks as one (check.conflicts.as_check).
CHECK_FORMATS = frozenset({"markdown", "sarif", "github", "codequality"})


def conflicts(repo_path: str, against: Sequence[str] = (), *, fmt: str = "text") -> int:
    """0: no merge would break anything of its own (textual conflicts are git's to report); 1: one would."""
    from graphguard.check import conflicts as semantic

    t0 = time.perf_counter()
    repo = open_repo(repo_path)
    result = semantic.run(repo, against)
    result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
    output.write(_render(result, fmt))
    if fmt == "github":  # as `check --format github`: the step summary too
        from graphguard.report.github import append_step_summary

        try:
            append_step_summary(semantic.as_check(result))
        except GraphguardError as e:
            output.warn(f"step summary not written: {e}")
    return 1 if result.blocks else 0


def _render(result: ConflictsResult, fmt: str) -> str:
    from graphguard.report import RENDERERS, compact
    from graphguard.report import conflicts as report
    from graphguard.report.printable import printable

    if fmt in CHECK_FORMATS:
        from graphguard.check.conflicts import as_check

        return RENDERERS[fmt](as_check(result))
    if fmt == "compact":
        return printable(compact.dumps(report.to_dict(result)) + "\n")
    if fmt == "json":
        return printable(report.render_json(result))
    return printable(report.render_text(result))
