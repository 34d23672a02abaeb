"""Renderers: `--format` name -> pure function of a CheckResult to text.

Every renderer takes `verbose` (list the callers that still bind, which text and
markdown count instead) and `runner` (the repository's test runner, for the command
under "tests to run"); the formats that list everything anyway (JSON, SARIF, GitHub
annotations, Code Quality) ignore both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from graphguard.report import codequality, github, json_report, markdown, sarif, text
from graphguard.report.printable import one_line, printable
from graphguard.report.runner import TestRunner
from graphguard.result import CheckResult


class Renderer(Protocol):
    def __call__(self, result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None) -> str: ...


def _complete(render: Callable[[CheckResult], str]) -> Renderer:
    """A renderer of a format that lists everything: nothing to shorten, no command to print."""
    def complete(result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None) -> str:
        return render(result)

    return complete


def _printable(render: Renderer, *, lines: bool = False) -> Renderer:
    """`render` whose output is valid UTF-8 (and, for a line-based format, keeps one record per line)."""
    def safe(result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None) -> str:
        if lines:  # the runner's evidence is a file name too
            result, runner = one_line(result), one_line(runner)
        return printable(render(result, verbose=verbose, runner=runner))

    return safe


#: The formats whose output names test files (the step summary of `github` is markdown): only
#: for these is the repository's runner looked up.
PRINTS_TESTS = frozenset({"text", "markdown", "github"})

# JSON formats escape a line break themselves; the GitHub format escapes it as its commands require.
RENDERERS: dict[str, Renderer] = {
    "text": _printable(text.render, lines=True),
    "json": _printable(_complete(json_report.render)),
    "markdown": _printable(markdown.render, lines=True),
    "sarif": _printable(_complete(sarif.render)),
    "github": _printable(_complete(github.render)),
    "codequality": _printable(_complete(codequality.render)),
}
