"""`--format text`: for people. `path:line` locations that editors open; colour only on a TTY."""

from __future__ import annotations

import os
import sys

from graphguard.result import ChangeKind, CheckResult, Status, Verdict

MAX_LISTED = 10  # indirect tests shown per change; JSON has them all
_COLOURS = {"red": "31", "green": "32", "yellow": "33", "bold": "1", "dim": "2"}


def _colour_enabled() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def render(result: CheckResult, colour: bool | None = None) -> str:
    use = _colour_enabled() if colour is None else colour

    def c(name: str, text: str) -> str:
        return f"\033[{_COLOURS[name]}m{text}\033[0m" if use else text

    what = {"staged": "staged changes against HEAD", "worktree": "working tree against HEAD",
            "commits": f"{result.head[:12]} against {result.base[:12]}", "nothing": "nothing"}[result.compared]
    lines: list[str] = []
    for ch in result.changes:
        lines.append(c("bold", f"{ch.path}:{ch.line}: {ch.symbol} {ch.change.value}") + (f" [{', '.join(ch.breaking)}]" if ch.breaking else ""))
        if ch.ignored:
            lines.append(f"    accepted: graphguard: ignore[{', '.join(ch.ignored)}]")
        if ch.public:
            lines.append("    public API: callers outside the repository are affected too")
        if ch.before:
            lines.append(f"    before: {ch.before}")
        if ch.after:
            lines.append(f"    after:  {ch.after}")
        for k in ch.callers:
            tag = {Status.BROKEN: c("red", "broken "), Status.UNKNOWN: c("yellow", "unknown"), Status.OK: c("green", "ok     ")}[k.status]
            lines.append(f"  {tag} {k.path}:{k.line}: {k.caller}: {k.reason}")
        if not ch.callers:
            lines.append(c("dim", "  no callers in the repository"))
        if ch.tests:
            # One word per test file: JSON names each test (tests[].name).
            direct = list(dict.fromkeys(t.path for t in ch.tests if t.direct))
            through = [p for p in dict.fromkeys(t.path for t in ch.tests if not t.direct) if p not in direct]
            if direct:
                lines.append("  tests that use it: " + " ".join(direct))
            if through:
                shown = " ".join(through[:MAX_LISTED]) + (f" (+{len(through) - MAX_LISTED} more: --format json lists all)" if len(through) > MAX_LISTED else "")
                lines.append(f"  tests through its callers: {shown}")
            if ch.tests_omitted:
                lines.append(f"  (+{ch.tests_omitted} more tests reach it: the list was cut to stay short)")
        lines.append("")
    for w in result.warnings:
        lines.append(c("yellow", f"warning: {w.path}: {w.message}"))
    for note in result.notes:
        lines.append(f"note: {note}")
    broken = sum(len(ch.broken) for ch in result.changes)
    unknown = sum(1 for ch in result.changes for k in ch.callers if k.status is Status.UNKNOWN)
    unparsable = [ch.path for ch in result.changes if ch.change is ChangeKind.SYNTAX_ERROR]
    if result.verdict is Verdict.BLOCK and unparsable:  # the reason comes first: "0 broken callers" alone reads like a false alarm
        names = ", ".join(unparsable[:3]) + (f" (+{len(unparsable) - 3} more)" if len(unparsable) > 3 else "")
        summary = (c("red", f"graphguard: BLOCK: {names} {'does' if len(unparsable) == 1 else 'do'} not parse")
                   + f"; {broken} broken caller{'s' * (broken != 1)} ({what})")
    elif result.verdict is Verdict.BLOCK:
        summary = c("red", f"graphguard: BLOCK: {broken} broken caller{'s' * (broken != 1)}") + f" of {len(result.changes)} changed interface{'s' * (len(result.changes) != 1)} ({what})"
    elif broken:
        summary = c("green", "graphguard: pass") + f": {broken} broken caller{'s' * (broken != 1)} accepted by `graphguard: ignore` ({what})"
    elif result.changes:
        summary = c("green", "graphguard: pass") + f": {len(result.changes)} interface change{'s' * (len(result.changes) != 1)}, all callers bind ({what})"
    else:
        summary = c("green", "graphguard: pass") + f": no interface change ({what}, {result.files_changed} Python file{'s' * (result.files_changed != 1)} changed)"
    if unknown:
        summary += f"; {unknown} undecidable"
    lines.append(summary)
    return "\n".join(lines)
