"""`graphguard impact SYMBOL`: the callers of a symbol to some depth, and the tests that reach it."""

from __future__ import annotations

from graphguard import output
from graphguard.answers.impact import impact_answer
from graphguard.commands.printing import note_stale, write_compact, write_json
from graphguard.repo import fresh_answer, open_repo


def impact(repo_path: str, symbol: str, *, depth: int = 2, fmt: str = "text", compact: bool = False) -> int:
    repo = open_repo(repo_path)
    doc, fresh = fresh_answer(repo, lambda: impact_answer(repo, symbol, depth=depth).to_json())
    if compact:
        return write_compact(doc)
    if fmt == "json":
        return write_json(doc)
    note_stale(fresh)
    from graphguard.report.printable import one_line

    lines = [f"{doc['symbol']}  {doc['path']}:{doc['line']}  {doc['signature']}"]
    distance = 0
    for c in doc["callers"]:
        if c["distance"] != distance:
            distance = c["distance"]
            lines.append(f"callers at distance {distance}:")
        how = "" if c["resolution"] == "exact" else f"  [{c['resolution']}]"
        lines.append(f"  {c['path']}:{c['line']}: {c['kind']} {c['text']}  in {c['caller']}{how}")
    if doc["callers_omitted"]:
        lines.append(f"  ... {doc['callers_omitted']} more callers")
    more = f", {doc['tests_omitted']} more" if doc["tests_omitted"] else ""
    lines.append(f"tests ({len(doc['tests'])}{more}):")
    lines += [f"  {t['name'] or t['path']}  (distance {t['distance']})" for t in doc["tests"]]
    lines += [f"# {n}" for n in doc["notes"]]
    output.write("\n".join(one_line(x) for x in lines))
    return 0
