"""What every answer shares: the commit the graph describes."""

from __future__ import annotations

from graphguard.repo import Repo


def graph_head(repo: Repo) -> str | None:
    """The commit the stored graph describes (None before the first commit)."""
    return repo.store.meta("head") or None
