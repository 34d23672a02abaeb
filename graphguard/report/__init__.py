"""Renderers: `--format` name -> pure function of a CheckResult to text."""

from __future__ import annotations

from collections.abc import Callable

from graphguard.report import codequality, github, json_report, markdown, sarif, text
from graphguard.report.printable import one_line, printable
from graphguard.result import CheckResult


def _printable(render: Callable[[CheckResult], str], *, lines: bool = False) -> Callable[[CheckResult], str]:
    """`render` whose output is valid UTF-8 (and, for a line-based format, keeps one record per line)."""
    def safe(result: CheckResult) -> str:
        return printable(render(one_line(result) if lines else result))

    return safe


# JSON formats escape a line break themselves; the GitHub format escapes it as its commands require.
RENDERERS: dict[str, Callable[[CheckResult], str]] = {
    "text": _printable(text.render, lines=True),
    "json": _printable(json_report.render),
    "markdown": _printable(markdown.render, lines=True),
    "sarif": _printable(sarif.render),
    "github": _printable(github.render),
    "codequality": _printable(codequality.render),
}
