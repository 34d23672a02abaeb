"""`graphguard index` and `graphguard refresh`."""

from __future__ import annotations

import json

from graphguard import output
from graphguard.repo import ensure_current, open_repo


def index(repo_path: str, *, fmt: str = "text") -> int:
    repo = open_repo(repo_path)
    r = ensure_current(repo)
    if fmt == "json":
        output.write(json.dumps({
            "schema": "graphguard.index/1", "head": r.head, "files": r.files, "parsed": r.parsed,
            "resolved": r.resolved, "noop": r.noop, "elapsed_ms": r.elapsed_ms,
            "warnings": [{"path": p, "message": m} for p, m in r.warnings],
        }, indent=2))
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
