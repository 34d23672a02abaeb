"""Renderers of a retrieval result, keyed by `--format`: pure functions to str."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from graphguard.retrieval.budget import Disclosure
from graphguard.retrieval.records import ContextResult

SCHEMA = "graphguard.context/1"


def to_dict(r: ContextResult) -> dict[str, Any]:
    """graphguard.context/1 of a retrieval result."""
    return {
        "schema": SCHEMA,
        "command": r.command,
        "query": r.query,
        "profile": r.profile,
        "head": r.head,
        "results": [
            {"path": i.path, "symbol": i.symbol, "line": i.line, "end_line": i.end_line, "score": i.score,
             "distance": i.distance, "via": i.via, "disclosure": i.disclosure, "tokens": i.tokens,
             "truncated": i.truncated, "signals": dict(i.signals), "text": i.text,
             "symbols": [{"symbol": n.symbol, "line": n.line, "end_line": n.end_line, "disclosure": n.disclosure,
                          "tokens": n.tokens, "truncated": n.truncated, "text": n.text} for n in i.symbols]}
            for i in r.items
        ],
        "stats": {"seeds": r.seeds, "terms": r.terms, "candidates": r.candidates, "stale_paths": r.stale,
                  "tokens": r.tokens, "budget": r.budget, "elapsed_ms": r.elapsed_ms},
    }


def render_json(r: ContextResult) -> str:
    return json.dumps(to_dict(r), indent=2, ensure_ascii=False)


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return ticks


#: A fence's info string by the file's suffix (what a Markdown viewer highlights it as); anything else is Python.
_INFO = {"ts": "ts", "mts": "ts", "cts": "ts", "tsx": "tsx", "js": "js", "mjs": "js", "cjs": "js", "jsx": "jsx"}


def _info(path: str) -> str:
    return _INFO.get(path.rpartition(".")[2], "python") if "." in path.rpartition("/")[2] else "python"


def _one_line(text: str) -> str:
    """A file name (or a module named after one) with its line breaks shown as `\\n`."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def render_text(r: ContextResult) -> str:
    budget = f" of {r.budget}" if r.budget is not None else ""
    what = f"context for {r.query!r}" if r.command == "context" else f"related to {', '.join(_one_line(q) for q in r.query)}"
    lines = [f"# graphguard {what}",
             f"# {len(r.items)} files, {r.tokens}{budget} tokens, profile {r.profile}, HEAD {r.head[:12]}"]
    if r.stale:
        lines.append(f"# {r.stale} path(s) of the graph are not at HEAD: left out (run `graphguard index`)")
    if not r.items:
        lines.append("# nothing found" + ("" if r.seeds else ": no symbol matches the task's words"))
    for i in r.items:
        how = i.via if i.distance == 0 else f"{i.via}, distance {i.distance}"
        lines.append("")
        lines.append(f"## {_one_line(i.path)}:{i.line}  {_one_line(i.symbol)}  ({i.disclosure}; {how}; score {i.score:.2f})")
        _source(lines, i.path, i.disclosure, i.text)
        for n in i.symbols:  # the file's next symbols, under it
            lines.append(f"### {_one_line(i.path)}:{n.line}  {_one_line(n.symbol)}  ({n.disclosure})")
            _source(lines, i.path, n.disclosure, n.text)
    return "\n".join(lines)


def _source(lines: list[str], path: str, disclosure: Disclosure, text: str) -> None:
    if disclosure is Disclosure.REFERENCE:
        return
    fence = _fence(text)
    lines.append(f"{fence}{_info(path)}")
    lines.append(text)
    lines.append(fence)


RENDERERS: dict[str, Callable[[ContextResult], str]] = {"text": render_text, "json": render_json}
