"""The check's stages over an in-memory graph: an Overlay of a change laid over `in_memory(old)`, no git.

`change(old, new)`: `old` is the repository (path -> source), `new` the changed files' new versions (None:
deleted). The graph describes the old side, as in the pre-commit hook.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from graphguard import git
from graphguard.check import decide, interface, tests_to_run, uses
from graphguard.check.overlay import Overlay, lay_over
from graphguard.check.sides import Side, Sides
from graphguard.config import Config
from graphguard.index.facts import parse_blob
from graphguard.index.memory import MEMORY_HEAD, MemoryGraph, in_memory
from graphguard.model import FileFacts
from graphguard.result import SymbolImpact
from tests.helpers import source


def change(old: Mapping[str, str], new: Mapping[str, str | None], *, config: Config | None = None) -> Overlay:
    """The overlay of the changed files `new` over the repository `old` (both dedented)."""
    config = config or Config()
    graph = in_memory({p: source(t) for p, t in old.items()}, config=config)
    paths = sorted(p for p in new if p.endswith(".py"))
    new_data = {p: source(t).encode() for p, t in new.items() if t is not None and p in paths}
    before = Side(MEMORY_HEAD, {p: graph.files[p] for p in paths if p in graph.files}, {p: graph.blobs[p] for p in paths if p in graph.blobs})
    after = Side(git.INDEX, new_data, {p: git.blob_sha(d) for p, d in new_data.items()})
    sides = Sides(before, after, paths, [])
    new_facts = {p: FileFacts.from_json(parse_blob(d)) for p, d in new_data.items()}
    return lay_over(sides, graph, graph.facts_of_blob, MEMORY_HEAD, new_facts, graph.blobs, graph.modmap, read_blobs=_reader(graph))


def _reader(graph: MemoryGraph) -> Callable[[list[str]], list[tuple[str, bytes]]]:
    """The contents of the graph's blobs, as git.read_blobs gives them."""
    by_blob = {graph.blobs[p]: d for p, d in graph.data.items()}
    return lambda shas: [(s, by_blob[s]) for s in shas if s in by_blob]


def decided(overlay: Overlay, config: Config | None = None) -> list[SymbolImpact]:
    """Every change's entry after interface, uses and decide (the stages of check.assess up to decide)."""
    config = config or Config()
    found = interface.find(overlay, config)
    out = list(found.impacts)
    for ic in found.changes:
        entry = decide.decide(overlay, config, ic, uses.gather(overlay, config, ic).uses)
        if entry is not None:
            out.append(entry)
    return out


def with_tests(overlay: Overlay, config: Config | None = None) -> list[SymbolImpact]:
    return tests_to_run.attach(overlay.graph, config or Config(), decided(overlay, config))
