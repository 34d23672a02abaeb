"""`graphguard callers SYMBOL`: every call site and reference of a symbol."""

from __future__ import annotations

import json

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.graph import CodeGraph
from graphguard.model import Resolution
from graphguard.repo import ensure_current, open_repo


def callers(repo_path: str, symbol: str, *, fmt: str = "text") -> int:
    repo = open_repo(repo_path)
    ensure_current(repo)
    graph = CodeGraph(repo.store.graph)
    sym = graph.symbol(symbol)
    if sym is None:
        hint = graph.symbols_named(symbol.rsplit(".", 1)[-1])[:5]
        did_you_mean = f"; did you mean {', '.join(h.qualname for h in hint)}?" if hint else ""
        raise GraphguardError(f"no symbol {symbol!r} in the graph{did_you_mean}")
    uses = graph.uses_of(symbol)
    if fmt == "json":
        output.write(json.dumps({
            "schema": "graphguard.callers/1",
            "symbol": sym.qualname, "path": sym.path, "line": sym.line, "signature": sym.signature,
            "callers": [
                {"path": u.path, "line": u.line, "end_line": u.end_line, "caller": u.caller, "kind": u.kind.value,
                 "resolution": u.resolution.value, "text": u.text}
                for u in uses
            ],
        }, indent=2))
        return 0
    lines = [f"{sym.qualname}  {sym.path}:{sym.line}  {sym.signature}"]
    for u in uses:
        how = "" if u.resolution is Resolution.EXACT else f"  [{u.resolution.value}]"
        lines.append(f"  {u.path}:{u.line}: {u.kind.value} {u.text}  in {u.caller}{how}")
    exact = sum(u.resolution in (Resolution.EXACT, Resolution.PARTIAL) for u in uses)
    lines.append(f"{len(uses)} uses: {exact} resolved, {len(uses) - exact} by name only")
    output.write("\n".join(lines))
    return 0
