"""The answers sized for an agent's context window (the MCP tools' default), cut from the full documents. Pure.

An agent acts on what breaks, not on the hundreds of callers that still bind: a passing `check_edit` of an
optional parameter on a function with 300 callers is a line, not 48 KB. So the default answer of each tool is its
full document (what the CLI prints with `--format json`, what `verbose: true` answers) with a one-line `summary`
first, and

- check: per change, the `broken` and `unknown` callers in full, the `ok` ones counted (`ok_omitted`), the tests
  at the nearest distance, at most `NEAREST_TESTS` (the rest added to `tests_omitted`); a change that every caller
  binds gives only its nearest test and leaves out `before`/`after`;
- callers: the first `limit` uses (`CALLERS_LIMIT`), the rest counted (`callers_omitted`);
- impact: the `limit` nearest callers (`IMPACT_LIMIT`), the rest added to `callers_omitted`, and the
  `IMPACT_TESTS` nearest tests, the rest added to `tests_omitted`;
- context, related and outline: bounded by their own `budget`, `limit` and caps already; the summary only.

Entries are never shortened: a listed caller or test is the full document's entry, unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphguard.answers.records import CALLERS_SCHEMA, IMPACT_SCHEMA, OUTLINE_SCHEMA

Document = dict[str, Any]

CHECK_SCHEMA = "graphguard.check/1"
CONTEXT_SCHEMA = "graphguard.context/1"
#: Tests listed per change of a check answer: those at the nearest distance, at most this many (the rest are counted).
NEAREST_TESTS = 3
#: Uses listed in a callers answer by default.
CALLERS_LIMIT = 100
#: Callers listed in an impact answer by default, nearest first; and its tests.
IMPACT_LIMIT = 50
IMPACT_TESTS = 10
#: What a change every caller binds leaves out of the default answer.
SETTLED_OMITS = frozenset({"before", "after"})
#: Sites quoted in a check's summary line; the rest are counted.
QUOTED_SITES = 3
#: The summary stays one short line whatever it quotes.
MAX_SUMMARY = 400


@dataclass(frozen=True)
class Shape:
    """How much of an answer to give: `verbose` the whole document; else at most `limit` entries where the tool
    bounds a list by it (None: the tool's default)."""

    verbose: bool = False
    limit: int | None = None


def shaped(doc: Mapping[str, Any], shape: Shape = Shape()) -> Document:
    """The answer an agent gets: `summary` first, then the document, cut unless `shape.verbose`."""
    cut, summarize = _BY_SCHEMA.get(str(doc.get("schema")), (_whole, _no_summary))
    body = dict(doc) if shape.verbose else cut(doc, shape)
    return {"summary": _one_line(summarize(doc, body)), **body}


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_SUMMARY else line[:MAX_SUMMARY - 3] + "..."


def nearest(entries: Sequence[Mapping[str, Any]], n: int, *, closest_only: bool = False) -> list[Mapping[str, Any]]:
    """The `n` entries of smallest `distance`, in their order (a stable cut: ties keep the document's order);
    `closest_only`: of those, only the ones at the smallest distance there is."""
    if closest_only and entries:
        least = min(e.get("distance") or 0 for e in entries)
        entries = [e for e in entries if (e.get("distance") or 0) == least]
    if len(entries) <= n:
        return list(entries)
    keep = sorted(range(len(entries)), key=lambda i: (entries[i].get("distance") or 0, i))[:n]
    return [entries[i] for i in sorted(keep)]


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


# --- check -----------------------------------------------------------------------------------


def _check_cut(doc: Mapping[str, Any], shape: Shape) -> Document:
    changes = []
    for ch in doc["changes"]:
        listed = [k for k in ch["callers"] if k["status"] != "ok"]
        # A change every caller binds leaves the agent nothing to act on: its signatures (the agent wrote the new
        # one) and all but its nearest test are in the verbose answer, so a pass stays a line whatever it reaches.
        settled = not listed
        tests = nearest(ch["tests"], 1 if settled else NEAREST_TESTS, closest_only=True)
        out: Document = {}
        for key, value in ch.items():
            if settled and key in SETTLED_OMITS:
                continue
            if key == "callers":
                out["callers"] = listed
                out["ok_omitted"] = len(ch["callers"]) - len(listed)
            elif key == "tests":
                out["tests"] = tests
            elif key == "tests_omitted":
                out["tests_omitted"] = value + len(ch["tests"]) - len(tests)
            else:
                out[key] = value
        changes.append(out)
    return {**doc, "changes": changes}


def _sites(changes: Sequence[Mapping[str, Any]]) -> tuple[dict[str, int], list[str]]:
    """The callers of all changes counted by status, and the first broken ones quoted (`path:line reason`)."""
    counts = {"broken": 0, "unknown": 0, "ok": 0}
    quoted: list[str] = []
    for ch in changes:
        for k in ch["callers"]:
            counts[k["status"]] = counts.get(k["status"], 0) + 1
            if k["status"] == "broken" and len(quoted) < QUOTED_SITES:
                quoted.append(f"{k['path']}:{k['line']} {k['reason']}".strip())
    return counts, quoted


def _check_summary(doc: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    """`pass: 179 callers bind, 342 tests reach it (2 nearest listed)`; a block quotes its first broken sites."""
    changes = doc["changes"]
    warned = [_plural(len(doc["warnings"]), "warning")] if doc["warnings"] else []
    if not changes:
        return "; ".join([f"{doc['verdict']}: no interface changed", *warned])
    counts, quoted = _sites(changes)
    parts = []
    if counts["broken"]:
        more = counts["broken"] - len(quoted)
        parts.append(f"{_plural(counts['broken'], 'caller')} broken: " + "; ".join(quoted) + (f"; +{more} more" if more else ""))
    parts.append(_plural(counts["ok"], "caller binds", "callers bind"))
    if counts["unknown"]:
        parts.append(f"{counts['unknown']} undecidable")
    tests = sum(len(ch["tests"]) + ch["tests_omitted"] for ch in changes)
    listed = sum(len(ch["tests"]) for ch in body["changes"])
    parts.append(f"{_plural(tests, 'test')} reach {'it' if len(changes) == 1 else 'them'}"
                 + (f" ({listed} nearest listed)" if listed < tests else ""))
    changed = f" {_plural(len(changes), 'interface change')};" if len(changes) > 1 else ""
    return f"{doc['verdict']}:{changed} " + ", ".join(parts + warned)


# --- callers and impact ----------------------------------------------------------------------


def _callers_cut(doc: Mapping[str, Any], shape: Shape) -> Document:
    limit = CALLERS_LIMIT if shape.limit is None else shape.limit
    callers = doc["callers"]
    cut = {"callers": callers[:limit], "callers_omitted": doc["callers_omitted"] + max(0, len(callers) - limit)}
    return {key: cut.get(key, value) for key, value in doc.items()}


def _uses(callers: Sequence[Mapping[str, Any]]) -> str:
    kinds: dict[str, int] = {}
    for c in callers:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    files = len({c["path"] for c in callers})
    by_kind = ", ".join(_plural(n, k) for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{_plural(len(callers), 'use')} in {_plural(files, 'file')}" + (f" ({by_kind})" if by_kind else "")


def _listed(body: Mapping[str, Any], key: str, omitted: str) -> str:
    cut = body.get(omitted, 0)
    return f"; {len(body[key])} listed, {cut} more with verbose: true" if cut else ""


def _callers_summary(doc: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    return f"{doc['symbol']}: {_uses(doc['callers'])}" + _listed(body, "callers", "callers_omitted")


def _impact_cut(doc: Mapping[str, Any], shape: Shape) -> Document:
    limit = IMPACT_LIMIT if shape.limit is None else shape.limit
    callers = nearest(doc["callers"], limit)
    tests = nearest(doc["tests"], IMPACT_TESTS)
    cut = {"callers": callers, "callers_omitted": doc["callers_omitted"] + len(doc["callers"]) - len(callers),
           "tests": tests, "tests_omitted": doc["tests_omitted"] + len(doc["tests"]) - len(tests)}
    return {key: cut.get(key, value) for key, value in doc.items()}


def _impact_summary(doc: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    callers = doc["callers"]
    first = sum(1 for c in callers if c["distance"] == 1)
    total = len(callers) + doc["callers_omitted"]
    tests = len(doc["tests"]) + doc["tests_omitted"]
    line = (f"{doc['symbol']}: {_plural(total, 'use')} to depth {doc['depth']} ({first} at distance 1),"
            f" {_plural(tests, 'test')} reach it")
    if body.get("callers_omitted", 0) or body.get("tests_omitted", 0):
        line += (f"; {len(body['callers'])} nearest callers and {len(body['tests'])} tests listed"
                 f" ({body['callers_omitted']} and {body['tests_omitted']} more: verbose: true or a larger limit)")
    return line


# --- retrieval and outline -------------------------------------------------------------------


def _whole(doc: Mapping[str, Any], _shape: Shape) -> Document:
    return dict(doc)


def _context_summary(doc: Mapping[str, Any], _body: Mapping[str, Any]) -> str:
    results = doc["results"]
    if not results:
        return "no results"
    stats = doc.get("stats", {})
    top = results[0]
    budget = stats.get("budget")
    spent = f", {stats.get('tokens', 0)} of {budget} tokens" if budget else ""
    files = len({r["path"] for r in results})
    return f"{_plural(len(results), 'result')} in {_plural(files, 'file')}{spent}; first: {top['path']}:{top['line']} {top['symbol'] or ''}"


def _outline_summary(doc: Mapping[str, Any], _body: Mapping[str, Any]) -> str:
    files = doc["files"]
    defs = sum(len(f["definitions"]) for f in files)
    line = f"{_plural(len(files), 'file')}, {_plural(defs, 'definition')}"
    left = [n for n in (f"{doc['files_omitted']} files" if doc["files_omitted"] else "",
                        f"{doc['definitions_omitted']} definitions" if doc["definitions_omitted"] else "") if n]
    return line + (f"; left out: {', '.join(left)}" if left else "") + (f"; {_plural(len(doc['warnings']), 'warning')}" if doc["warnings"] else "")


def _no_summary(doc: Mapping[str, Any], _body: Mapping[str, Any]) -> str:
    return str(doc.get("schema", "answer"))


_BY_SCHEMA: Mapping[str, tuple[Callable[[Mapping[str, Any], Shape], Document],
                               Callable[[Mapping[str, Any], Mapping[str, Any]], str]]] = {
    CHECK_SCHEMA: (_check_cut, _check_summary),
    CALLERS_SCHEMA: (_callers_cut, _callers_summary),
    IMPACT_SCHEMA: (_impact_cut, _impact_summary),
    CONTEXT_SCHEMA: (_whole, _context_summary),
    OUTLINE_SCHEMA: (_whole, _outline_summary),
}
