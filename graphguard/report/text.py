"""`--format text`: for people. `path:line` locations that editors open; colour only on a TTY.

Broken and undecidable callers are listed in full, one per line; the callers that still
bind are counted (`+ 361 callers still bind`), and listed with `verbose`: a passing
commit that adds an optional parameter is a few lines, not one per call site.
"""

from __future__ import annotations

import os
import sys
from collections import Counter

from graphguard.languages import LANGUAGES
from graphguard.model import UseKind
from graphguard.report.runner import TestRunner, test_paths
from graphguard.result import CallerImpact, ChangeKind, CheckResult, Compared, Status, SymbolImpact, TestHit, Verdict

MAX_LISTED = 10  # test files shown per line without --verbose; JSON has them all
_COLOURS = {"red": "31", "green": "32", "yellow": "33", "bold": "1", "dim": "2"}


def _colour_enabled() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _files(paths: list[str], verbose: bool) -> str:
    if verbose or len(paths) <= MAX_LISTED:
        return " ".join(paths)
    return " ".join(paths[:MAX_LISTED]) + f" (+{len(paths) - MAX_LISTED} more: --verbose lists all)"


def _tests(tests: tuple[TestHit, ...], omitted: int, verbose: bool) -> list[str]:
    """One word per test file (JSON names each test: tests[].name), and whether the list was cut."""
    direct = list(dict.fromkeys(t.path for t in tests if t.direct))
    through = [p for p in dict.fromkeys(t.path for t in tests if not t.direct) if p not in direct]
    return ([f"  tests that use it: {_files(direct, verbose)}"] if direct else []) + (
        [f"  tests through its callers: {_files(through, verbose)}"] if through else []) + (
        [f"  (+{omitted} more tests reach it: the list was cut to stay short)"] if omitted else [])


def _of(changes: list[SymbolImpact]) -> str:
    """"of 2 changed interfaces", "of 1 definition called anew", or both."""
    called = sum(1 for ch in changes if ch.change is ChangeKind.NEW_CALLS)
    changed = len(changes) - called
    parts = ([_plural(changed, "changed interface", "changed interfaces")] if changed else []) + (
        [_plural(called, "definition called anew", "definitions called anew")] if called else [])
    return "of " + " and ".join(parts)


def _command(result: CheckResult, runner: TestRunner | None) -> list[str]:
    """The line that runs the tests above, when the repository shows its runner."""
    paths = test_paths(result)
    command = runner.command(paths) if runner is not None and paths else None
    if runner is None or command is None:
        return []
    scope = runner.scope(paths)
    return [f"tests to run ({runner.evidence}{', ' + scope if scope else ''}): {command}", ""]


def files_changed(result: CheckResult) -> str:
    """"2 Python files", "1 TypeScript/JavaScript file", "1 Python file and 2 TypeScript/JavaScript files": what changed
    (Python's word when no file changed: "0 Python files")."""
    counts = [(LANGUAGES[name].noun, n) for name in LANGUAGES if (n := result.files_by_language.get(name))]
    if not counts:
        counts = [(LANGUAGES["python"].noun, result.files_changed)]
    return " and ".join(f"{n} {noun} file{'s' * (n != 1)}" for noun, n in counts)


def submodules_note(result: CheckResult) -> str:
    """The summary's word on submodules that moved: "0 Python files changed" alone would read as "nothing happened"."""
    n = len(result.submodules)
    return f"; {n} submodule{'s' * (n != 1)} moved, not checked: {', '.join(result.submodules[:3])}{' ...' * (n > 3)}" if n else ""


def _once(callers: list[CallerImpact]) -> list[tuple[CallerImpact, int]]:
    """Each line of the report once: `f(1) + f(2)` is two calls and one line to fix."""
    first: dict[tuple[object, ...], CallerImpact] = {}
    counts: Counter[tuple[object, ...]] = Counter()
    for k in callers:
        key = (k.status, k.suppressed, k.path, k.line, k.caller, k.reason)
        first.setdefault(key, k)
        counts[key] += 1
    return [(k, counts[key]) for key, k in first.items()]


def render(result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None, colour: bool | None = None) -> str:
    use = _colour_enabled() if colour is None else colour

    def c(name: str, text: str) -> str:
        return f"\033[{_COLOURS[name]}m{text}\033[0m" if use else text

    what = {Compared.STAGED: "staged changes against HEAD", Compared.WORKTREE: "working tree against HEAD",
            Compared.COMMITS: f"{result.head[:12]} against {result.base[:12]}", Compared.NOTHING: "nothing",
            Compared.PROPOSED: "proposed contents over the working tree, against HEAD"}[result.compared]
    lines: list[str] = []
    for ch in result.changes:
        lines.append(c("bold", f"{ch.path}:{ch.line}: {ch.symbol} {ch.change.value}") + (f" [{', '.join(ch.breaking)}]" if ch.breaking else ""))
        if ch.ignored:
            lines.append(f"    accepted: graphguard: ignore[{', '.join(ch.ignored)}]")
        if ch.public:
            lines.append("    public API: callers outside the repository are affected too")
        if ch.change is ChangeKind.NEW_CALLS:  # the interface is as it was: calls written in this change miss it
            lines.append(f"    signature: {ch.after}")
        else:
            if ch.before:
                lines.append(f"    before: {ch.before}")
            if ch.after:
                lines.append(f"    after:  {ch.after}")
        listed = [k for k in ch.callers if verbose or k.status is not Status.OK]
        for (k, n) in _once(listed):
            tag = {Status.BROKEN: c("red", "broken "), Status.UNKNOWN: c("yellow", "unknown"), Status.OK: c("green", "ok     ")}[k.status]
            if k.suppressed is not None:
                tag = c("dim", k.suppressed.value)
            lines.append(f"  {tag} {k.path}:{k.line}: {k.caller}: {k.reason}" + (f" ({n} {'calls' if k.kind is UseKind.CALL else 'uses'} on this line)" if n > 1 else ""))
        hidden = [] if verbose else [k for k in ch.callers if k.status is Status.OK]  # what `listed` leaves out
        quiet = sum(1 for k in hidden if k.suppressed is not None)
        if len(hidden) > quiet:
            rest = len(hidden) - quiet
            lines.append(c("dim", f"  {'+ ' if listed else ''}{_plural(rest, 'caller still binds', 'callers still bind')} (--verbose lists them)"))
        if quiet:
            lines.append(c("dim", f"  {'+ ' if listed or len(hidden) > quiet else ''}{_plural(quiet, 'site', 'sites')} not blamed:"
                                  " an inline ignore or a failure the code expects (--verbose lists them)"))
        if not ch.callers:
            lines.append(c("dim", "  no callers in the repository"))
        lines += _tests(ch.tests, ch.tests_omitted, verbose)
        lines.append("")
    lines += _command(result, runner)
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
        summary = c("red", f"graphguard: BLOCK: {broken} broken caller{'s' * (broken != 1)}") + f" {_of(result.changes)} ({what})"
    elif broken:
        summary = c("green", "graphguard: pass") + f": {broken} broken caller{'s' * (broken != 1)} accepted by `graphguard: ignore` ({what})"
    elif result.changes:
        # With no caller at all (none in the repository, or all left out as generated) none was seen to bind.
        callers = "all callers bind" if any(ch.callers for ch in result.changes) else "no caller checked"
        changed = [ch for ch in result.changes if ch.change is not ChangeKind.NEW_CALLS]  # the others: each call suppressed
        called = len(result.changes) - len(changed)
        said = ", ".join(([_plural(len(changed), "interface change", "interface changes")] if changed else [])
                         + ([_plural(called, "definition called anew", "definitions called anew")] if called else []))
        summary = c("green", "graphguard: pass") + f": {said}, {callers} ({what})"
    else:
        summary = c("green", "graphguard: pass") + f": no interface change ({what}, {files_changed(result)} changed{submodules_note(result)})"
    if unknown:
        summary += f"; {unknown} undecidable"
    suppressed = sum(len(ch.suppressed) for ch in result.changes)
    if suppressed:
        summary += f"; {_plural(suppressed, 'site', 'sites')} suppressed"
    lines.append(summary)
    return "\n".join(lines)
