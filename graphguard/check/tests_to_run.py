"""Stage 6: the tests to run for each change, from its callers. One call per change: `select`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from graphguard.config import Config
from graphguard.graph import CodeGraph
from graphguard.result import CallerImpact, SymbolImpact, TestHit


def attach(graph: CodeGraph, config: Config, impacts: list[SymbolImpact]) -> list[SymbolImpact]:
    return [dataclasses.replace(ch, tests=tuple(select(graph, config, ch.callers))) for ch in impacts]


def select(graph: CodeGraph, config: Config, callers: Sequence[CallerImpact]) -> list[TestHit]:
    """Test files among the callers (direct), then test files that test a caller's file (indirect)."""
    direct: dict[str, int] = {}
    for c in callers:
        if config.is_test(c.path):
            direct[c.path] = min(direct.get(c.path, c.line), c.line)
    hits = [TestHit(p, line, True) for p, line in sorted(direct.items())]
    seen = set(direct)
    indirect: dict[str, int] = {}
    for c in callers:
        if config.is_test(c.path):
            continue
        for test_path, line in graph.db.execute(
            "SELECT s.path, min(i.line) FROM file_edges e JOIN files d ON d.id = e.dst JOIN files s ON s.id = e.src"
            " LEFT JOIN imports i ON i.file_id = s.id AND i.target_file = d.id"
            " WHERE d.path = ? AND e.kind = 'test-of' GROUP BY s.path",
            (c.path,),
        ):
            if test_path not in seen:
                indirect[test_path] = min(indirect.get(test_path, line or 1), line or 1)
    hits += [TestHit(p, line, False) for p, line in sorted(indirect.items())]
    return hits
