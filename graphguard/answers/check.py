"""The answer of `check`: graphguard.check/1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphguard.result import CheckResult


def check_document(result: CheckResult) -> dict[str, Any]:
    """graphguard.check/1 of a check's result."""
    from graphguard.report.json_report import to_dict

    return to_dict(result)
