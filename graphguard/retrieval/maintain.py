"""The indexer's hook: keep retrieval's history (and its text index, once used) in step with the graph."""

from __future__ import annotations

import sys

from graphguard.store import Store


def after_index(store: Store, root: str, head: str) -> None:
    """Called with the write lock held, after the graph moved to `head`. The co-change history always follows
    (from `git log` of the new commits only); the text index only once a query has built it, so that a
    repository nobody queries never pays for tokenizing. Never fails the index: a problem is a warning and the
    next query tries again."""
    from graphguard.retrieval import history, source, textindex

    db = store.graph
    try:
        history.update(db, root, head)
        if db.execute("SELECT 1 FROM meta WHERE key = 'text_state'").fetchone():
            textindex.ensure(db, head, lambda shas: source.blobs(root, shas), lambda a, b: source.changed_paths(root, a, b))
    except Exception as e:  # noqa: BLE001 - retrieval's indexes are a cache; the graph is what matters here
        if db.in_transaction:
            db.execute("ROLLBACK")
        print(f"graphguard: warning: retrieval indexes not updated: {e}", file=sys.stderr)
