"""`stats`: what the graph holds and how much of it resolved."""

from __future__ import annotations

from typing import Any

from graphguard.answers.records import StatsAnswer, graph_head
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph


def stats_answer(repo: Repo) -> StatsAnswer:
    """graphguard.stats/1: what the graph holds and how much of it resolved, and what of the configuration was not read."""
    from graphguard.config import load as load_config
    from graphguard.retrieval import profiles

    fitted = profiles.load(repo.store.graph)
    config_warnings = [{"path": w.path, "message": w.message} for w in load_config(repo.root).warnings]
    return StatsAnswer(graph_head(repo) or "", CodeGraph(repo.store.graph).stats(), tuple(config_warnings),
                       {"in_use": profiles.in_use(fitted), "fitted": fitted.document() if fitted else None})


def stats_document(repo: Repo) -> dict[str, Any]:
    return stats_answer(repo).to_json()
