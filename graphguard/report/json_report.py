"""`--format json`: the contract's graphguard.check/1 document."""

from __future__ import annotations

from typing import Any

from graphguard.freshness import with_freshness
from graphguard.report import indented
from graphguard.result import CheckResult

SCHEMA = "graphguard.check/1"


def to_dict(result: CheckResult) -> dict[str, Any]:
    return with_freshness(_body(result), result.freshness)


def _body(result: CheckResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "base": result.base,
        "head": result.head,
        "compared": result.compared.value,
        "verdict": result.verdict.value,
        "changes": [
            {
                "symbol": c.symbol,
                "path": c.path,
                "line": c.line,
                "change": c.change.value,
                "breaking": list(c.breaking),
                "ignored": list(c.ignored),
                "before": c.before,
                "after": c.after,
                "callers": [
                    {"path": k.path, "line": k.line, "end_line": k.end_line, "caller": k.caller, "status": k.status.value,
                     "reason": k.reason, "kind": k.kind.value, "resolution": k.resolution.value,
                     "suppressed": k.suppressed.value if k.suppressed is not None else None}
                    for k in c.callers
                ],
                "tests": [{"path": t.path, "line": t.line, "direct": t.direct, "name": t.name, "distance": t.distance} for t in c.tests],
                "tests_omitted": c.tests_omitted,
            }
            for c in result.changes
        ],
        "warnings": [{"path": w.path, "message": w.message} for w in result.warnings],
        "notes": result.notes,
        "stats": {"files_changed": result.files_changed, "elapsed_ms": result.elapsed_ms},
    }


def render(result: CheckResult) -> str:
    return indented.dumps(to_dict(result))
