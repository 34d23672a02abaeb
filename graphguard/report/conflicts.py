"""`graphguard conflicts`: the text report and the graphguard.conflicts/1 document (the CI formats render
the branches' breaks as one check report: check.conflicts.as_check). Pure."""

from __future__ import annotations

from typing import Any

from graphguard.report import indented, json_report
from graphguard.result import BranchConflicts, BranchVerdict, ConflictsResult, Status

SCHEMA = "graphguard.conflicts/1"


def to_dict(result: ConflictsResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "head": result.head,
        "branches": [_branch(b) for b in result.branches],
        "notes": result.notes,
        "stats": {"elapsed_ms": result.elapsed_ms},
    }


def _branch(b: BranchConflicts) -> dict[str, Any]:
    check = json_report.to_dict(b.check)
    return {
        "ref": b.ref,
        "tip": b.tip,
        "merge_base": b.merge_base,
        "merged_tree": b.check.head,
        "verdict": b.verdict.value,
        "conflicted": list(b.conflicted),
        "changes": check["changes"],
        "warnings": check["warnings"],
        "notes": b.check.notes,
    }


def render_json(result: ConflictsResult) -> str:
    return indented.dumps(to_dict(result))


_TAGS = {BranchVerdict.BLOCK: "BLOCK", BranchVerdict.PASS: "pass", BranchVerdict.CONFLICT: "conflict"}


def render_text(result: ConflictsResult) -> str:
    lines = []
    for b in result.branches:
        lines.append(f"{b.ref} (merge base {b.merge_base[:12]}): {_TAGS[b.verdict]}: {branch_summary(b)}")
        for ch in b.check.changes:
            lines.append(f"  {ch.path}:{ch.line}: {ch.symbol} {ch.change.value}" + (f" [{', '.join(ch.breaking)}]" if ch.breaking else ""))
            for k in ch.callers:
                tag = "broken " if k.status is Status.BROKEN else "unknown"
                lines.append(f"    {tag} {k.path}:{k.line}: {k.caller}: {k.reason}")
        lines += [f"  warning: {w.path}: {w.message}" for w in b.check.warnings]
    lines += [f"note: {n}" for n in result.notes]
    blocked = [b.ref for b in result.branches if b.verdict is BranchVerdict.BLOCK]
    n = len(result.branches)
    checked = f"HEAD {result.head[:12]} against {n} branch{'' if n == 1 else 'es'}"
    if blocked:
        lines.append(f"graphguard: BLOCK: merging {', '.join(blocked)} would break what neither side breaks alone ({checked})")
    else:
        lines.append(f"graphguard: pass: no merge breaks anything of its own ({checked})")
    return "\n".join(lines) + "\n"


def branch_summary(b: BranchConflicts) -> str:
    """One line: what merging the branch would do."""
    if b.conflicted:
        n = len(b.conflicted)
        return f"textual conflicts in {n} file{'' if n == 1 else 's'} ({', '.join(b.conflicted[:3])}{', ...' if n > 3 else ''}): not checked"
    broken = sum(len(ch.broken) for ch in b.check.changes)
    unknown = sum(len(ch.unknown) for ch in b.check.changes)
    if not broken and not unknown:
        return "breaks nothing that neither side breaks alone"
    parts = [f"{n} {what}" for n, what in ((broken, "broken"), (unknown, "undecidable")) if n]
    return f"{' and '.join(parts)} site{'s' if broken + unknown != 1 else ''} only the merge has"
