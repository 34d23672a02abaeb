"""`graphguard index` and `graphguard refresh`."""

from __future__ import annotations

import json

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.repo import Repo, ensure_current, open_repo


def index(repo_path: str, *, fmt: str = "text", compact: bool = False) -> int:
    from graphguard.commands.printing import write_compact

    repo = open_repo(repo_path)
    r = ensure_current(repo)
    fitted = _fit_if_due(repo, r.head)
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
    if fitted is not None and fmt != "json":
        output.write(f"graphguard: retrieval profile fitted to this repository's history: {fitted}")
    return 0


def _fit_if_due(repo: Repo, head: str | None) -> str | None:
    """Fit the retrieval profile when none was fitted or enough commits arrived since (retrieval/fitting.py);
    the outcome in words, or None when nothing was due. Only here and in the background refresher: never in a hook."""
    from graphguard.config import load as load_config
    from graphguard.retrieval import fitting

    if head is None or not fitting.due(repo.store.graph):
        return None
    try:
        fitted = fitting.refit(repo.store, repo.root, head, load_config(repo.root))
    except GraphguardError as e:  # the graph is built: a fit that could not run is said, not an error
        return f"not fitted ({e}); the default profile stays"
    return f"{'in use' if fitted.accepted else 'not used'}, {fitted.reason}"
