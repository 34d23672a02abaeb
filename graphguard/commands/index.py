"""`graphguard index` and `graphguard refresh`."""

from __future__ import annotations

import json

from graphguard import output
from graphguard.repo import ensure_current, open_repo


def index(repo_path: str, *, fmt: str = "text", compact: bool = False) -> int:
    from graphguard.commands.printing import write_compact
    from graphguard.retrieval.maintain import catch_up

    repo = open_repo(repo_path)
    r = ensure_current(repo)
    catch_up(repo.store, repo.root, r.head)  # a graph that was current already: its text index may not be
    doc = {
        "schema": "graphguard.index/1", "head": r.head, "files": r.files, "parsed": r.parsed,
        "resolved": r.resolved, "noop": r.noop, "elapsed_ms": r.elapsed_ms,
        "warnings": [{"path": p, "message": m} for p, m in r.warnings],
    }
    if compact:
        return write_compact(doc)
    if fmt == "json":
        output.write(json.dumps(doc, indent=2))
    elif r.head is None:
        output.write("graphguard: no commit yet; the graph is empty")
    elif r.noop:
        output.write(f"graphguard: graph is up to date at {r.head[:12]}")
    else:
        output.write(
            f"graphguard: indexed {r.head[:12]}: {r.files} files, {r.parsed} parsed, {r.resolved} resolved"
            f" in {r.elapsed_ms} ms" + (f", {len(r.warnings)} warnings (graphguard stats)" if r.warnings else "")
        )
    return 0
