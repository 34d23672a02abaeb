"""`graphguard callers SYMBOL`: every call site and reference of a symbol."""

from __future__ import annotations

from graphguard import output
from graphguard.answers.callers import callers_answer
from graphguard.commands.printing import note_stale, write_compact, write_json
from graphguard.model import Resolution
from graphguard.repo import fresh_answer, open_repo


def callers(repo_path: str, symbol: str, *, fmt: str = "text", compact: bool = False) -> int:
    repo = open_repo(repo_path)
    doc, fresh = fresh_answer(repo, lambda: callers_answer(repo, symbol).to_json())
    if compact:
        return write_compact(doc)
    if fmt == "json":
        return write_json(doc)
    note_stale(fresh)
    lines = [f"{doc['symbol']}  {doc['path']}:{doc['line']}  {doc['signature']}"]
    for u in doc["callers"]:
        how = "" if u["resolution"] == Resolution.EXACT.value else f"  [{u['resolution']}]"
        lines.append(f"  {u['path']}:{u['line']}: {u['kind']} {u['text']}  in {u['caller']}{how}")
    exact = sum(u["resolution"] in (Resolution.EXACT.value, Resolution.PARTIAL.value) for u in doc["callers"])
    lines.append(f"{len(doc['callers'])} uses: {exact} resolved, {len(doc['callers']) - exact} by name only")
    if doc["no_resolved_callers"] is not None:
        lines.append(f"# {doc['no_resolved_callers']['note']}")
    output.write("\n".join(lines))
    return 0
