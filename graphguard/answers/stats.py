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
    graph = CodeGraph(repo.store.graph)
    return StatsAnswer(graph_head(repo) or "", graph.stats(), tuple(config_warnings),
                       {"in_use": profiles.in_use(fitted), "fitted": fitted.document() if fitted else None}, by_language(graph))


def by_language(graph: CodeGraph) -> list[dict[str, Any]]:
    """Per language a file is counted in (python, typescript, javascript): its files, its imports by kind and by
    category, its calls by how far they resolved."""
    from graphguard.languages import for_path

    out: dict[str, dict[str, Any]] = {}

    def of(path: str) -> dict[str, Any] | None:
        lang = for_path(path)
        if lang is None:
            return None
        name = lang.counted_as(path)
        return out.setdefault(name, {"language": name, "files": 0, "imports": {"total": 0, "internal": 0, "external": 0, "unresolved": 0,
                                                                               "by_category": {}},
                                                      "calls": {"total": 0, "resolved": 0, "external": 0, "unresolved": 0}})

    for path in graph.paths():
        if (entry := of(path)) is not None:
            entry["files"] += 1
    for path, what, status, category, n in graph.counts_by_file():
        entry = of(path)
        if entry is None:
            continue
        if what == "import":
            imports = entry["imports"]
            imports["total"] += n
            imports[status] = imports.get(status, 0) + n
            if category is not None:
                imports["by_category"][category] = imports["by_category"].get(category, 0) + n
        else:
            calls = entry["calls"]
            calls["total"] += n
            key = "resolved" if status in ("exact", "partial") else status if status in ("external", "unresolved") else None
            if key is not None:
                calls[key] += n
    for entry in out.values():
        entry["imports"]["by_category"] = [{"category": c, "count": n} for c, n in sorted(entry["imports"]["by_category"].items())]
    return [out[name] for name in sorted(out)]


def stats_document(repo: Repo) -> dict[str, Any]:
    return stats_answer(repo).to_json()
