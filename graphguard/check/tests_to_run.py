"""Stage 6: the tests to run for each change, by name, from its callers (graphguard.testselect). One call per change."""

from __future__ import annotations

import dataclasses

from graphguard.config import Config
from graphguard.result import SymbolImpact
from graphguard.store.reads import CodeGraph


def attach(graph: CodeGraph, config: Config, impacts: list[SymbolImpact]) -> list[SymbolImpact]:
    if not impacts:
        return []  # most checks of a commit change no interface: testselect (and testcollect) never imported
    from graphguard.testselect import select_tests

    out = []
    for ch in impacts:
        selection = select_tests(graph, config, ch.callers, ch.symbol, changed_path=ch.path)
        out.append(dataclasses.replace(ch, tests=selection.hits, tests_omitted=selection.omitted))
    return out
