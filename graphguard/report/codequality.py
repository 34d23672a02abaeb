"""`--format codequality`: a GitLab Code Quality report (a JSON array of Code Climate issues).

One issue per broken or unknown caller, located at the call site (GitLab shows it in the merge
request's diff and widget), plus one `info` issue per changed interface at its definition:

    graphguard/broken-caller     blocker   the call no longer binds (the check blocks);
                                 major     when the change is accepted by `graphguard: ignore`
    graphguard/unknown-caller    minor     the call cannot be decided statically (blocker under
                                           fail_on_unknown)
    graphguard/interface-change  info      the definition changed (blocker when the change blocks on
                                           its own: configuration, public API)

GitLab tells new issues from fixed ones by `fingerprint`, so it is a sha256 of check name, path,
symbol and caller (plus an ordinal among calls of one caller to one symbol), never line numbers:
an edit above a call does not make its issue look fixed and new again.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from graphguard.report import indented
from graphguard.result import CheckResult, Status, SymbolImpact

BROKEN, UNKNOWN, CHANGE = "graphguard/broken-caller", "graphguard/unknown-caller", "graphguard/interface-change"


def fingerprint(check: str, path: str, symbol: str, caller: str = "", ordinal: int = 0) -> str:
    key = "\0".join((check, path, symbol, caller, str(ordinal)))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()  # a file name's own bytes


def _changed(ch: SymbolImpact) -> str:
    return f"{ch.change.value}" + (f": {', '.join(ch.breaking)}" if ch.breaking else "")




def _issue(check: str, severity: str, description: str, path: str, line: int, end_line: int) -> dict[str, Any]:
    return {
        "type": "issue",
        "check_name": check,
        "description": description,
        "categories": ["Compatibility"] if check == CHANGE else ["Bug Risk"],
        "severity": severity,
        "location": {"path": path, "lines": {"begin": max(1, line), "end": max(1, line, end_line)}},
    }


def to_list(result: CheckResult) -> list[dict[str, Any]]:
    found: list[tuple[str, str, dict[str, Any]]] = []  # (symbol, caller, issue)
    for ch in result.changes:
        blocks = result.blocks(ch)
        for k in ch.callers:
            if k.status is Status.OK:
                continue
            broken = k.status is Status.BROKEN
            verb = "no longer binds to" if broken else "cannot be checked against"
            description = f"{k.caller or k.path}: the call {verb} {ch.symbol} ({_changed(ch)} at {ch.path}:{ch.line}): {k.reason}"
            if broken:
                severity = "blocker" if blocks else "major"  # major: accepted by `graphguard: ignore`
            else:
                severity = "blocker" if blocks and result.fail_on_unknown else "minor"
            found.append((ch.symbol, k.caller, _issue(BROKEN if broken else UNKNOWN, severity, description,
                                                      k.path, k.line, k.end_line)))
        n_bad = sum(1 for k in ch.callers if k.status is not Status.OK)
        description = f"{ch.symbol} changed its interface ({_changed(ch)})"
        if ch.public:
            description += "; public API: callers outside the repository are affected"
        if ch.after:
            description += f"; now: {' '.join(ch.after.split())}"
        if n_bad:
            description += f"; {n_bad} of {len(ch.callers)} callers need attention"
        else:
            description += f"; all {len(ch.callers)} callers bind" if ch.callers else "; no callers in the repository"
        severity = "blocker" if result.blocks(dataclasses.replace(ch, callers=())) else "info"
        found.append((ch.symbol, "", _issue(CHANGE, severity, description, ch.path, ch.line, ch.line)))

    found.sort(key=lambda f: (f[2]["location"]["path"], f[2]["location"]["lines"]["begin"], f[0], f[2]["check_name"], f[1]))
    seen: dict[tuple[str, str, str, str], int] = {}
    for symbol, caller, issue in found:
        key = (issue["check_name"], issue["location"]["path"], symbol, caller)
        seen[key] = seen.get(key, -1) + 1
        issue["fingerprint"] = fingerprint(*key, ordinal=seen[key])
    return [issue for _, _, issue in found]


def render(result: CheckResult) -> str:
    return indented.dumps(to_list(result))
