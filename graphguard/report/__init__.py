"""Renderers: `--format` name -> pure function of a CheckResult to text."""

from __future__ import annotations

from collections.abc import Callable

from graphguard.report import codequality, github, json_report, markdown, sarif, text
from graphguard.result import CheckResult

RENDERERS: dict[str, Callable[[CheckResult], str]] = {
    "text": text.render,
    "json": json_report.render,
    "markdown": markdown.render,
    "sarif": sarif.render,
    "github": github.render,
    "codequality": codequality.render,
}
