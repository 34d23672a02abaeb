"""Renderers: `--format` name -> pure function of a CheckResult to text.

Every renderer takes `verbose` (list the callers that still bind, which text and
markdown count instead) and `runner` (the repository's test runner, for the command
under "tests to run"); the formats that list everything anyway (JSON, SARIF, GitHub
annotations, Code Quality) ignore both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from graphguard.report.printable import one_line, printable
from graphguard.result import CheckResult

if TYPE_CHECKING:
    from graphguard.report.runner import TestRunner


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
# Each format's module is imported when it is asked for: a check writes one format, and the others
# (html, hashlib, shlex...) would cost its process several milliseconds of imports.
def _text(result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None) -> str:
    from graphguard.report import text

    return text.render(result, verbose=verbose, runner=runner)


def _markdown(result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None) -> str:
    from graphguard.report import markdown

    return markdown.render(result, verbose=verbose, runner=runner)


def _json(result: CheckResult) -> str:
    from graphguard.report import json_report

    return json_report.render(result)


def _compact(result: CheckResult) -> str:
    from graphguard.report import compact, json_report

    return compact.dumps(json_report.to_dict(result))


def _sarif(result: CheckResult) -> str:
    from graphguard.report import sarif

    return sarif.render(result)


def _github(result: CheckResult) -> str:
    from graphguard.report import github

    return github.render(result)


def _codequality(result: CheckResult) -> str:
    from graphguard.report import codequality

    return codequality.render(result)


RENDERERS: dict[str, Renderer] = {
    "text": _printable(_text, lines=True),
    "json": _printable(_complete(_json)),
    "compact": _printable(_complete(_compact)),  # `--format json --compact`
    "markdown": _printable(_markdown, lines=True),
    "sarif": _printable(_complete(_sarif)),
    "github": _printable(_complete(_github)),
    "codequality": _printable(_complete(_codequality)),
}
