"""The indexer's hook: keep retrieval's history and text index in step with the graph.

Both are built with the graph (by `graphguard index`, the background refresher after a post-* hook, and any
command that moves the graph), so that no query pays for them: the text index follows incrementally by blob
(a commit that changes 3 files tokenizes at most 3 blobs; a blob seen before, on any branch, is not tokenized
again). The pre-commit check is the exception (`text=False`): its graph update stays as fast as it was, and the
refresher after the commit brings the text index along.
"""

from __future__ import annotations

import sys

from graphguard.store import Store
from graphguard.store.db import rollback


def after_index(store: Store, root: str, head: str, *, text: bool = True, by: str = "index") -> None:
    """Called with the write lock held, after the graph moved to `head`. The co-change history always follows
    (from `git log` of the new commits only); the text index unless `text` is False. Never fails the index: a
    problem is a warning and the next index or query tries again."""
    from graphguard.retrieval import history, source, textindex

    db = store.graph
    try:
        history.update(db, root, head)
        if text:
            textindex.ensure(db, head, lambda shas: source.blobs(root, shas), lambda a, b: source.changed_paths(root, a, b),
                             by=by)
    except Exception as e:  # noqa: BLE001 - retrieval's indexes are a cache; the graph is what matters here
        rollback(db)
        print(f"graphguard: warning: retrieval indexes not updated: {e}", file=sys.stderr)


def is_current(store: Store, head: str) -> bool:
    """Whether the history and the text index both describe `head` (two meta reads)."""
    from graphguard.retrieval import history, textindex

    db = store.graph
    return history.is_current(db, head) and textindex.is_current(db, head)


def catch_up(store: Store, root: str, head: str | None, *, by: str = "index", lock_timeout: float = 30.0) -> bool:
    """Bring the history and the text index to `head` when the graph already describes it (a graph built
    before they were built with it, or moved by the pre-commit check); True when there was work."""
    if head is None or is_current(store, head):
        return False
    with store.write_lock(lock_timeout):
        after_index(store, root, head, by=by)
    return True


def rebuild(store: Store, root: str, head: str, *, lock_timeout: float = 30.0) -> None:
    """Drop the text index and build it again at `head` (a query found it damaged)."""
    from graphguard.retrieval import textindex

    print("graphguard: warning: the text index is damaged; rebuilding it", file=sys.stderr)
    with store.write_lock(lock_timeout):
        textindex.reset(store.graph)
        after_index(store, root, head, by="query")
