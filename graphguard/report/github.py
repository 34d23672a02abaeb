"""`--format github`: GitHub Actions workflow commands, one annotation per broken or unknown caller.

    ::error file=PATH,line=L,endLine=E,title=TITLE::MESSAGE      a broken caller (at the call site)
    ::warning file=PATH,line=L,endLine=E,title=TITLE::MESSAGE    a caller that cannot be decided
    ::notice::N more ...                                         what the cap left out
    graphguard: block: ...                                       a plain summary line for the log

GitHub displays only ten error (and ten warning) annotations per step, so the ten most important
are printed (broken before unknown, then by path, line, symbol) and a notice counts the rest.

`render` is pure. `append_step_summary(result, env)` is the one function here that does I/O: when
`GITHUB_STEP_SUMMARY` names a file it appends the Markdown report, capped so the file stays under
GitHub's 1 MiB limit. The check command calls it for `--format github`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from graphguard import files
from graphguard.errors import GraphguardError
from graphguard.model import UseKind
from graphguard.report import markdown
from graphguard.report.runner import TestRunner
from graphguard.report.text import files_changed, submodules_note
from graphguard.result import CallerImpact, ChangeKind, CheckResult, Status, SymbolImpact, Verdict

MAX_ANNOTATIONS = 10
STEP_SUMMARY_LIMIT = 1024 * 1024  # bytes per step
#: Below this much room a summary would say nothing useful: append nothing.
MIN_SUMMARY_ROOM = 512


def escape_data(text: str) -> str:
    """The message of a workflow command (toolkit's escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A `key=value` property of a workflow command (toolkit's escapeProperty)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _ordered(result: CheckResult) -> list[tuple[CallerImpact, SymbolImpact]]:
    rank = {Status.BROKEN: 0, Status.UNKNOWN: 1}
    found = [(k, ch) for ch in result.changes for k in ch.callers if k.status in rank]
    return sorted(found, key=lambda kc: (rank[kc[0].status], kc[0].path, kc[0].line, kc[1].symbol, kc[0].caller))


#: What a site is, as a title names it.
_SITE = {UseKind.CALL: "call to", UseKind.IMPORT: "import of", UseKind.INHERIT: "subclass of", UseKind.REFERENCE: "reference to"}
#: Changes after which the name a site looks for is gone.
_GONE = {ChangeKind.REMOVED: "removed", ChangeKind.RENAMED: "renamed", ChangeKind.MOVED: "moved"}


def _noun(k: CallerImpact, ch: SymbolImpact) -> str:
    """What the changed name was, as far as the site's title needs: an import or a reference is of a name."""
    if k.kind in (UseKind.IMPORT, UseKind.REFERENCE):
        return "name"
    before = ch.before or ""
    if k.kind is UseKind.INHERIT or before.startswith("class "):
        return "class"
    return "method" if re.match(r"(async )?def \w+\((self|cls)\b", before) else "function"


def title(k: CallerImpact, ch: SymbolImpact) -> str:
    """The annotation's title: what the site is and what happened to it, as a sentence would say it.

    "Broken call to billing.calculate_proration", "Import of removed name billing.old_helper",
    "Subclass of removed class billing.Plan", "Call to billing.calculate_proration may be broken".
    """
    site = _SITE.get(k.kind, "use of")
    if k.status is not Status.BROKEN:
        return f"{site.capitalize()} {ch.symbol} may be broken"
    if ch.change is ChangeKind.SYNTAX_ERROR:
        return f"{site.capitalize()} {ch.symbol}, which does not parse"
    gone = _GONE.get(ch.change)
    if gone:
        return f"{site.capitalize()} {gone} {_noun(k, ch)} {ch.symbol}"
    return f"Broken {site} {ch.symbol}"


def _annotation(result: CheckResult, k: CallerImpact, ch: SymbolImpact) -> str:
    broken = k.status is Status.BROKEN
    # error exactly for what blocks: an accepted breakage warns, fail_on_unknown makes unknown an error
    error = result.blocks(ch) and (broken or result.fail_on_unknown)
    codes = f": {', '.join(ch.breaking)}" if ch.breaking else ""
    message = f"{k.caller or k.path}: {k.reason}\n{ch.symbol} changed ({ch.change.value}{codes}) at {ch.path}:{ch.line}"
    if ch.after:
        message += f"\nnow: {ch.after}"
    props = f"file={escape_property(k.path)},line={k.line},endLine={max(k.line, k.end_line)},title={escape_property(title(k, ch))}"
    return f"::{'error' if error else 'warning'} {props}::{escape_data(message)}"


def _summary(result: CheckResult, broken: int, unknown: int) -> str:
    n = len(result.changes)
    changed = f"{n} changed interface{'s' * (n != 1)}"
    if result.verdict is Verdict.BLOCK:
        line = f"graphguard: block: {broken} broken caller{'s' * (broken != 1)} of {changed}"
    elif broken:
        line = f"graphguard: pass: {broken} broken caller{'s' * (broken != 1)} accepted by `graphguard: ignore` ({changed})"
    elif n:
        line = f"graphguard: pass: {changed}, no broken caller"
    else:
        line = f"graphguard: pass: no interface change ({files_changed(result)} changed{submodules_note(result)})"
    return line + (f"; {unknown} unknown" if unknown else "")


def render(result: CheckResult) -> str:
    found = _ordered(result)
    lines = [_annotation(result, k, ch) for k, ch in found[:MAX_ANNOTATIONS]]
    rest = found[MAX_ANNOTATIONS:]
    if rest:
        n_broken = sum(1 for k, _ in rest if k.status is Status.BROKEN)
        split = ", ".join(f"{n} {what}" for n, what in ((n_broken, "broken"), (len(rest) - n_broken, "unknown")) if n)
        lines.append("::notice::" + escape_data(
            f"graphguard: {len(rest)} more caller{'s' * (len(rest) != 1)} not annotated ({split}):"
            f" GitHub shows {MAX_ANNOTATIONS} per step. The step summary and `graphguard check` list them all."
        ))
    broken = sum(1 for k, _ in found if k.status is Status.BROKEN)
    lines.append(_summary(result, broken, len(found) - broken))
    return "\n".join(lines)


def step_summary(result: CheckResult, room: int, runner: TestRunner | None = None) -> str:
    """The Markdown to append to a step summary that has `room` bytes left ("" when too little)."""
    if room < MIN_SUMMARY_ROOM:
        return ""
    from graphguard.report.printable import one_line, printable

    return printable(markdown.render(one_line(result), runner=runner, max_bytes=room))


def append_step_summary(result: CheckResult, env: Mapping[str, str] = os.environ, runner: TestRunner | None = None) -> str | None:
    """Append the Markdown report to `$GITHUB_STEP_SUMMARY`; the path written, or None when not set or full.
    Only to a regular file: a FIFO there would hold the check until something read it (GraphguardError)."""
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    try:
        fd = files.open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, follow=True)  # the user's path: a link is theirs
    except OSError as e:
        raise GraphguardError(f"cannot append to the step summary file {path} (GITHUB_STEP_SUMMARY): {e.strerror or e}") from None
    with os.fdopen(fd, "a", encoding="utf-8", newline="") as f:
        size = os.fstat(fd).st_size
        sep = "\n" if size else ""
        text = step_summary(result, STEP_SUMMARY_LIMIT - 1 - size - len(sep), runner)
        if not text:
            return None
        try:
            f.write(sep + text)
            f.flush()
        except OSError as e:
            raise GraphguardError(f"cannot append to the step summary file {path} (GITHUB_STEP_SUMMARY): {e}") from None
    return path
