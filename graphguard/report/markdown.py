"""`--format markdown`: a pull-request comment (also the GitHub step summary).

    marker + summary line          verdict, broken / unknown counts, changed interfaces
    broken sites                   every broken site (path:line, caller, what it uses, why), once each,
                                   as many as fit; then the rest counted per file
    <details> per changed symbol   collapsed (open when it is the only list of its broken callers):
                                   signatures, codes, a table of the broken and unknown callers, the
                                   callers that still bind collapsed
    tests to run                   list + a command to copy (when the repository shows its runner)
    mermaid flowchart              changes with broken or unknown callers -> those callers, -> tests (capped)
    warnings, notes

Callers in a table are ordered broken, unknown, ok, then by (path, line, caller); everything else
by (path, line, symbol). The output stays under `max_bytes` (UTF-8), GitHub's comment limit by
default: the broken sites take at most half of it (the rest of them counted per file), caller
tables are capped per symbol, and when the whole comment is still too long the least important
sections (ok-only changes first) are left out, with a line that says how much. Every broken site
is listed or counted; a section is left out whole, so `<details>` tags stay balanced.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from graphguard.report.runner import TestRunner
from graphguard.report.text import files_changed, submodules_note
from graphguard.result import CallerImpact, CheckResult, Compared, Status, SymbolImpact, Verdict

#: An HTML comment at the top, so a CI job can find and update its previous comment.
MARKER = "<!-- graphguard:check -->"
#: GitHub rejects comments longer than 65,536 characters; UTF-8 bytes are never fewer.
COMMENT_LIMIT = 65_000
MAX_TABLE_ROWS = 50
MAX_DIAGRAM_SYMBOLS = 8
MAX_DIAGRAM_CALLERS = 15
MAX_DIAGRAM_TESTS = 10

_RANK = {Status.BROKEN: 0, Status.UNKNOWN: 1, Status.OK: 2}
_BADGE = {Status.BROKEN: "❌ broken", Status.UNKNOWN: "⚠️ unknown", Status.OK: "✅ ok"}


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def _code(text: str, *, table: bool = False) -> str:
    """An inline code span that survives backticks (and, in a table cell, pipes)."""
    text = " ".join(text.splitlines())
    if table:
        text = text.replace("|", "\\|")
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _cell(text: str) -> str:
    """Free text in a table cell: no HTML, no markdown emphasis or links, no line breaks."""
    text = html.escape(" ".join(text.splitlines()), quote=False)
    return re.sub(r"([\\`*_\[\]|#~])", r"\\\1", text)


def _fence(lines: list[str], lang: str) -> str:
    body = "\n".join(lines)
    ticks = "`" * max(3, max((len(m) + 1 for m in re.findall(r"`{3,}", body)), default=3))
    return f"{ticks}{lang}\n{body}\n{ticks}"


def _callers_sorted(change: SymbolImpact) -> list[CallerImpact]:
    return sorted(change.callers, key=lambda k: (_RANK[k.status], k.path, k.line, k.caller))


def _count(change: SymbolImpact, status: Status) -> int:
    return sum(1 for k in change.callers if k.status is status)


def _what(result: CheckResult) -> str:
    return {
        Compared.STAGED: "staged changes against `HEAD`",
        Compared.WORKTREE: "working tree against `HEAD`",
        Compared.COMMITS: f"`{result.head[:12]}` against `{result.base[:12]}`",
        Compared.PROPOSED: "proposed",
        Compared.NOTHING: "nothing to compare",
    }[result.compared]


def _summary(result: CheckResult) -> str:
    broken = sum(_count(ch, Status.BROKEN) for ch in result.changes)
    unknown = sum(_count(ch, Status.UNKNOWN) for ch in result.changes)
    changed = _plural(len(result.changes), "changed interface")
    if not result.changes:
        return (f"✅ **graphguard: pass**: no interface change ({_what(result)}, "
                f"{files_changed(result)} changed{submodules_note(result)})")
    if result.verdict is Verdict.BLOCK:
        blocking = sum(1 for ch in result.changes if result.blocks(ch))
        head = (f"❌ **graphguard: block**: {_plural(broken, 'broken caller')}" if broken else
                f"❌ **graphguard: block**: {_plural(blocking, 'blocking change')} (configuration, public API or unknown callers)")
    elif broken:
        head = f"✅ **graphguard: pass**: {_plural(broken, 'broken caller')} accepted by `graphguard: ignore`"
    else:
        callers = "all callers bind" if any(ch.callers for ch in result.changes) else "no caller checked"
        head = f"✅ **graphguard: pass**: {callers}" if not unknown else "⚠️ **graphguard: pass**: no broken caller"
    tail = f", {unknown} unknown" if unknown else ""
    suppressed = sum(len(ch.suppressed) for ch in result.changes)
    tail += f", {_plural(suppressed, 'site')} suppressed (an inline ignore, or a failure the code expects)" if suppressed else ""
    return f"{head}{tail}; {changed} ({_what(result)})"


def _details(result: CheckResult, change: SymbolImpact, verbose: bool, *, collapse: bool = False) -> str:
    broken, unknown, ok = (_count(change, s) for s in (Status.BROKEN, Status.UNKNOWN, Status.OK))
    counts = ", ".join(f"{n} {name}" for n, name in ((broken, "broken"), (unknown, "unknown"), (ok, "ok")) if n) or "no callers"
    title = (f"<code>{html.escape(change.symbol)}</code> {html.escape(change.change.value)}: {counts}"
             f" (<code>{html.escape(change.path)}:{change.line}</code>)")
    # Open when nothing above lists what blocks; collapsed under the list of broken sites.
    is_open = not collapse and (bool(change.broken) or result.blocks(change))
    out = [f"<details{' open' if is_open else ''}>", f"<summary>{title}</summary>", ""]
    sig = [f"- {line}" for line in (change.before or "").splitlines()] + [f"+ {line}" for line in (change.after or "").splitlines()]
    if sig:
        out += [_fence(sig, "diff"), ""]
    if change.breaking:
        codes = ", ".join(_code(c) + (" (accepted)" if change.accepted(c) else "") for c in change.breaking)
        out += [f"Changes: {codes}", ""]
    if change.ignored:
        marker = "# graphguard: ignore[" + ", ".join(change.ignored) + "]"
        out += [f"Accepted by {_code(marker)}.", ""]
    if change.public:
        out += ["Public API: callers outside the repository are affected too.", ""]
    callers = _callers_sorted(change)
    listed = [k for k in callers if verbose or k.status is not Status.OK]
    if listed:
        out += _table(listed)
    bind = [] if verbose else [k for k in callers if k.status is Status.OK]
    if bind:
        # Collapsed: in a pull request the callers that still bind are a count, not a page.
        more = f"{'+ ' if listed else ''}{_plural(len(bind), 'caller still binds', 'callers still bind')}"
        out += ([] if out[-1] == "" else [""]) + ["<details>", f"<summary>{more}</summary>", ""]
        by_file: dict[str, list[int]] = {}
        for k in bind:  # one line per file: a page of callers that need nothing is not worth a page
            by_file.setdefault(k.path, []).append(k.line)
        files = sorted(by_file)
        out += [f"- {_code(f)}: {_lines(by_file[f])}" for f in files[:MAX_TABLE_ROWS]]
        if len(files) > MAX_TABLE_ROWS:
            out.append(f"- … {_plural(len(files) - MAX_TABLE_ROWS, 'more file')}: `graphguard check --verbose` lists every caller")
        out += ["", "</details>"]
    if not callers:
        out.append("No callers in the repository.")
    out += ["", "</details>"]
    return "\n".join(out)


def _table(callers: list[CallerImpact]) -> list[str]:
    out = ["| status | location | caller | reason |", "|---|---|---|---|"]
    for k in callers[:MAX_TABLE_ROWS]:
        out.append(f"| {_BADGE[k.status]} | {_code(f'{k.path}:{k.line}', table=True)} | {_code(k.caller or k.path, table=True)} | {_cell(k.reason)} |")
    rest = callers[MAX_TABLE_ROWS:]
    if rest:
        n_broken = sum(1 for k in rest if k.status is Status.BROKEN)
        more = f"{_plural(len(rest), 'more caller')}" + (f" ({n_broken} broken)" if n_broken else "")
        out.append(f"| … | | {more} | run `graphguard check` for all |")
    return out


def _lines(numbers: list[int], at_most: int = 20) -> str:
    """`line 4`, `lines 1, 5, 9`, `lines 1, 5, … (+12)`."""
    unique = sorted(set(numbers))
    shown = ", ".join(map(str, unique[:at_most])) + (f", … (+{len(unique) - at_most})" if len(unique) > at_most else "")
    return f"line{'s' * (len(unique) != 1)} {shown}"


def _tests(changes: Iterable[SymbolImpact], runner: TestRunner | None) -> str:
    """The test files, and the command that runs them when the repository shows its runner."""
    paths = sorted({t.path for ch in changes for t in ch.tests})
    if not paths:
        return ""
    shown = paths[:MAX_TABLE_ROWS]
    lines = ["**Tests to run**", ""] + [f"- {_code(p)}" for p in shown]
    if len(paths) > len(shown):
        lines.append(f"- … {_plural(len(paths) - len(shown), 'more test file')}")
    command = runner.command(paths) if runner is not None else None
    if runner is not None and command:
        scope = runner.scope(paths)
        lines += ["", f"With {runner.kind.value} ({_cell(runner.evidence)}{'; ' + scope if scope else ''}):", "", _fence([command], "sh")]
    return "\n".join(lines)


# --- the impact diagram ----------------------------------------------------------------------


def _label(*parts: str) -> str:
    """A quoted Mermaid label: entity codes for what would end the label or open markup."""
    def esc(text: str) -> str:
        text = " ".join(text.splitlines()).replace("#", "#35;")
        for ch, code in (('"', "#quot;"), ("[", "#91;"), ("]", "#93;"), ("(", "#40;"), (")", "#41;"), ("{", "#123;"),
                         ("}", "#125;"), ("<", "#lt;"), (">", "#gt;"), ("|", "#124;"), ("`", "#96;")):
            text = text.replace(ch, code)
        return text

    return '["' + "<br/>".join(esc(p) for p in parts if p) + '"]'


def _diagram(result: CheckResult) -> str:
    def priority(ch: SymbolImpact) -> tuple[int, str, int, str]:
        return (0 if ch.broken else 1 if _count(ch, Status.UNKNOWN) else 2, ch.path, ch.line, ch.symbol)

    # A change whose callers all bind has no impact to draw: its tests are listed above.
    relevant = [ch for ch in result.changes if any(k.status is not Status.OK for k in ch.callers)]
    if not relevant:
        return ""
    chosen = sorted(relevant, key=priority)[:MAX_DIAGRAM_SYMBOLS]
    symbols = sorted(chosen, key=lambda ch: (ch.path, ch.line, ch.symbol))
    lines = ["flowchart LR"]
    edges: list[str] = []
    sym_id = {id(ch): f"S{i}" for i, ch in enumerate(symbols)}
    for ch in symbols:
        lines.append(f"  {sym_id[id(ch)]}{_label(ch.symbol, f'{ch.change.value} · {ch.path}:{ch.line}')}:::changed")

    sites = sorted(((k, ch) for ch in symbols for k in ch.callers if k.status is not Status.OK),
                   key=lambda kc: (_RANK[kc[0].status], kc[0].path, kc[0].line, kc[0].caller, kc[1].symbol))
    nodes: dict[tuple[str, str], str] = {}  # (path, caller) -> node id: one node per calling function
    node_status: dict[str, Status] = {}
    hidden: dict[str, set[tuple[str, str]]] = {}  # symbol node -> hidden caller nodes
    seen_edges: set[tuple[str, str]] = set()
    for k, ch in sites:
        key, src = (k.path, k.caller), sym_id[id(ch)]
        if key not in nodes:
            if len(nodes) >= MAX_DIAGRAM_CALLERS:
                hidden.setdefault(src, set()).add(key)
                continue
            nodes[key] = f"C{len(nodes)}"
            node_status[nodes[key]] = k.status
            lines.append(f"  {nodes[key]}{_label(k.caller or k.path, f'{k.path}:{k.line}')}:::{k.status.value}")
        if (src, nodes[key]) not in seen_edges:
            seen_edges.add((src, nodes[key]))
            arrow = "-->|broken|" if k.status is Status.BROKEN else "-.->|unknown|"
            edges.append(f"  {src} {arrow} {nodes[key]}")
    n_hidden = len({key for keys in hidden.values() for key in keys} - set(nodes))
    if n_hidden:
        lines.append(f"  MC{_label(f'+{n_hidden} more caller' + ('s' if n_hidden != 1 else ''))}:::more")
        edges += [f"  {src} -.- MC" for src in sorted(hidden, key=lambda s: int(s[1:]))]

    tests: dict[str, str] = {}
    hidden_tests: set[str] = set()
    for ch in symbols:
        for t in sorted(ch.tests, key=lambda t: (t.path, t.line)):
            if t.path not in tests:
                if len(tests) >= MAX_DIAGRAM_TESTS:
                    hidden_tests.add(t.path)
                    continue
                tests[t.path] = f"T{len(tests)}"
                lines.append(f"  {tests[t.path]}{_label(t.path)}:::test")
            edge = f"  {sym_id[id(ch)]} -.->|test| {tests[t.path]}"
            if edge not in edges:
                edges.append(edge)
    if hidden_tests - set(tests):
        n = len(hidden_tests - set(tests))
        lines.append(f"  MT{_label(f'+{n} more test file' + ('s' if n != 1 else ''))}:::more")
    if len(relevant) > len(symbols):
        n = len(relevant) - len(symbols)
        lines.append(f"  MS{_label(f'+{n} more changed interface' + ('s' if n != 1 else ''))}:::more")
    lines += edges
    lines += [
        "  classDef changed fill:#fff3cd,stroke:#b58900,color:#000",
        "  classDef broken fill:#f8d7da,stroke:#cb2431,color:#000",
        "  classDef unknown fill:#fff5b1,stroke:#b08800,color:#000",
        "  classDef test fill:#dbedff,stroke:#0366d6,color:#000",
        "  classDef more fill:#f6f8fa,stroke:#6a737d,stroke-dasharray:3 3,color:#000",
    ]
    return "**Impact**\n\n" + _fence(lines, "mermaid")


def _tail(result: CheckResult) -> str:
    lines = [f"- ⚠️ {_code(w.path)}: {_cell(w.message)}" for w in sorted(result.warnings, key=lambda w: (w.path, w.message))]
    lines += [f"- ℹ️ {_cell(n)}" for n in result.notes]
    return ("**Warnings and notes**\n\n" + "\n".join(lines)) if lines else ""


# --- the broken sites, listed then counted per file --------------------------------------------


class _Sites:
    """The broken sites of the whole result, each once: two calls of one symbol on one line are one site."""

    def __init__(self, result: CheckResult):
        found: dict[tuple[str, int, str], tuple[CallerImpact, SymbolImpact]] = {}
        for ch in result.changes:
            for k in ch.callers:
                if k.status is Status.BROKEN:
                    found.setdefault((k.path, k.line, ch.symbol), (k, ch))
        self.sites = [found[key] for key in sorted(found)]
        self.files = len({k.path for k, _ in self.sites})
        self.listed = 0  # the first `listed` sites are rows of the list
        self.counted_files = 0  # of the files of the sites not listed, the first `counted_files` are counted

    def rest_by_file(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for k, _ in self.sites[self.listed:]:
            counts[k.path] = counts.get(k.path, 0) + 1
        return sorted(counts.items())

    def render(self) -> str:
        if not self.sites:
            return ""
        out = [f"**Broken sites**: {_plural(len(self.sites), 'site')} in {_plural(self.files, 'file')}"]
        if self.listed:
            out += ["", "| location | caller | uses | reason |", "|---|---|---|---|"]
            out += [_site_row(k, ch) for k, ch in self.sites[: self.listed]]
        rest = self.rest_by_file()[: self.counted_files]
        if rest:
            head = "broken sites not listed above" if self.listed else "broken sites"
            out += ["", f"| file | {head} |", "|---|---|"] + [f"| {_code(f, table=True)} | {n} |" for f, n in rest]
        return "\n".join(out)

    def left_out(self) -> str:
        """What neither the list nor the counts hold: "12 broken sites in 3 files", or ""."""
        rest = self.rest_by_file()[self.counted_files:]
        if not rest:
            return ""
        return f"{_plural(sum(n for _, n in rest), 'broken site')} in {_plural(len(rest), 'more file')} (not counted above)"

    def fit(self, budget: int) -> None:
        """List as many sites as fit in half the budget, count the others per file in what is left."""
        self.listed = self.counted_files = 0
        used = _size(self.render())
        for i, (k, ch) in enumerate(self.sites):
            row = _size(_site_row(k, ch)) + 1
            if used + row > budget // 2:
                break
            used, self.listed = used + row, i + 1
        used = _size(self.render()) + 64  # the count table's head
        for i, (f, n) in enumerate(self.rest_by_file()):
            row = _size(f"| {_code(f, table=True)} | {n} |") + 1
            if used + row > budget:
                break
            used, self.counted_files = used + row, i + 1


def _site_row(k: CallerImpact, ch: SymbolImpact) -> str:
    return f"| {_code(f'{k.path}:{k.line}', table=True)} | {_code(k.caller or k.path, table=True)} | {_code(ch.symbol, table=True)} | {_cell(k.reason)} |"


# --- assembly within the size limit ----------------------------------------------------------


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


#: Room kept for the summary line and the line that says what was left out.
_RESERVE = 1024


def render(result: CheckResult, *, verbose: bool = False, runner: TestRunner | None = None, max_bytes: int = COMMENT_LIMIT) -> str:
    changes = sorted(result.changes, key=lambda ch: (ch.path, ch.line, ch.symbol))
    head = f"{MARKER}\n{_summary(result)}"
    sites = _Sites(result)
    sites.fit(max(0, max_bytes - _size(head) - _RESERVE))
    listed = sites.render()
    details = [_details(result, ch, verbose, collapse=bool(listed)) for ch in changes]
    optional = [("tests", _tests(changes, runner)), ("impact diagram", _diagram(result)), ("warnings and notes", _tail(result))]

    # Leave out the least important sections until the comment fits: ok-only changes, then
    # changes with unknown callers, then broken ones (from the end), then the optional blocks.
    rank = sorted(range(len(changes)), key=lambda i: (-(0 if changes[i].broken else 1 if _count(changes[i], Status.UNKNOWN) else 2), -i))
    kept_details = set(range(len(changes)))
    kept_optional = [bool(text) for _, text in optional]

    def assemble() -> str:
        parts = [head] + ([listed] if listed else []) + [details[i] for i in sorted(kept_details)]
        parts += [text for (_, text), keep in zip(optional, kept_optional) if keep]
        dropped = len(changes) - len(kept_details)
        left = [name for (name, text), keep in zip(optional, kept_optional) if text and not keep]
        uncounted = sites.left_out()
        if dropped or left or uncounted:
            what = ([uncounted] if uncounted else []) + ([_plural(dropped, "changed interface")] if dropped else []) + left
            parts.append(f"_Left out to stay under the size limit: {', '.join(what)}. `graphguard check` prints everything._")
        return "\n\n".join(parts) + "\n"

    text = assemble()
    for i in rank:
        if _size(text) <= max_bytes:
            break
        kept_details.discard(i)
        text = assemble()
    for j in reversed(range(len(optional))):
        if _size(text) <= max_bytes:
            break
        kept_optional[j] = False
        text = assemble()
    if _size(text) > max_bytes:  # the summary alone is too long: cut at a line, keep it valid UTF-8
        cut = text.encode("utf-8")[: max(0, max_bytes - 4)].decode("utf-8", "ignore")
        text = cut[: cut.rfind("\n") + 1] if "\n" in cut else cut
        text = text + "…\n" if _size(text + "…\n") <= max_bytes else text
    return text
