"""A check's result -> the few lines an agent reads, and the decision documents each editor reads (pure).

The reason names the broken sites first (`partners/api.py:40 missing required argument 'tz'`), at
most MAX_SITES of them and a count of the rest: it lands in the agent's context, so it says what
to fix and no more. The documents are the editors' documented shapes (agents/__init__ names the pages).
"""

from __future__ import annotations

from typing import Any

from graphguard.agents import Editor
from graphguard.result import CheckResult, SymbolImpact

MAX_SITES = 8


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def broken_sites(result: CheckResult) -> list[str]:
    """`path:line reason` of each broken caller of a blocking change, in report order."""
    return [f"{c.path}:{c.line} {c.reason}" for ch in result.changes if result.blocks(ch) for c in ch.broken]


def _changes(blocking: list[SymbolImpact]) -> str:
    said = []
    for ch in blocking[:3]:
        shape = f": {ch.before} -> {ch.after}" if ch.before and ch.after else ""
        said.append(f"{ch.symbol} ({ch.change.value}{shape})")
    more = f" and {len(blocking) - 3} more" if len(blocking) > 3 else ""
    return "; ".join(said) + more


def summary(result: CheckResult, *, would: bool) -> str:
    """"3 callers would break: a.py:4 missing required argument 'tz', ...": what blocks, in one paragraph."""
    blocking = [ch for ch in result.changes if result.blocks(ch)]
    sites = broken_sites(result)
    verb = "would break" if would else "are broken"
    if sites:
        head = f"{_plural(len(sites), 'caller', 'callers')} {verb}" if would else \
            f"{_plural(len(sites), 'caller is', 'callers are')} broken"
        listed = ", ".join(sites[:MAX_SITES]) + (f", and {len(sites) - MAX_SITES} more" if len(sites) > MAX_SITES else "")
        return f"{head}: {listed}. Changed: {_changes(blocking)}."
    return f"{_changes(blocking)} blocks by the configuration (block_on, public API, fail_on_unknown)."


def deny_reason(result: CheckResult, path: str) -> str:
    return (f"graphguard: writing {path} {summary(result, would=True)} Fix those callers in this write, or send the same"
            " write again to go ahead and fix them next (graphguard checks the working tree again before you finish).")


def stop_reason(result: CheckResult) -> str:
    return (f"graphguard: the working tree is not done: {summary(result, would=False)} Fix them (or revert the change)"
            " before finishing; `graphguard check --worktree` shows the full report.")


def deny(editor: Editor, reason: str) -> dict[str, Any]:
    """The pre-write hook's answer that stops the tool, the reason going to the agent."""
    if editor is Editor.CLAUDE_CODE:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": reason}}
    return {"decision": "deny", "reason": reason}


def block_stop(editor: Editor, reason: str) -> dict[str, Any]:
    """The stop hook's answer that sends the agent back to work with `reason` (Gemini CLI: a retry prompt)."""
    return {"decision": "block" if editor is Editor.CLAUDE_CODE else "deny", "reason": reason}


def tell_user(reason: str) -> dict[str, Any]:
    """An answer that lets the agent finish and shows the user the reason (both editors: systemMessage)."""
    return {"systemMessage": reason}
