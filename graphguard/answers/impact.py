"""`impact`: the callers of a symbol to some depth, and the tests that reach it."""

from __future__ import annotations

from typing import Any

from graphguard.answers.callers import find_symbol, use_entry
from graphguard.answers.records import ImpactAnswer, graph_head
from graphguard.errors import GraphguardError
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph, Use

MAX_IMPACT_DEPTH = 5
#: Callers listed in one impact answer, over all depths (a hub symbol has thousands).
MAX_IMPACT_CALLERS = 500
#: Definitions whose callers are looked up, over all depths.
MAX_IMPACT_NODES = 300


def impact_answer(repo: Repo, symbol: str, *, depth: int = 2) -> ImpactAnswer:
    """graphguard.impact/1: the callers of `symbol`, their callers and so on to `depth`, and the tests that reach it."""
    from graphguard.answers.reach import unresolved
    from graphguard.config import load as load_config
    from graphguard.model import Resolution, UseKind
    from graphguard.result import CallerImpact, Status
    from graphguard.testselect import select_tests

    if not 1 <= depth <= MAX_IMPACT_DEPTH:
        raise GraphguardError(f"--depth must be between 1 and {MAX_IMPACT_DEPTH}")
    graph = CodeGraph(repo.store.graph)
    sym = find_symbol(repo, graph, symbol)
    first = graph.uses_of(sym.qualname)
    maybe = unresolved(graph, sym, first)
    levels = _caller_levels(graph, sym.qualname, first, depth)
    entries = [{**use_entry(u), "distance": d, "callee": callee} for d, callee, u in levels.uses]
    notes = []
    if depth > 1:
        notes.append("beyond distance 1 only callers tied by imports, types or a unique method name are followed")
    if maybe is not None:
        notes.append(maybe.note())
    if levels.stopped:
        notes.append(f"the walk stopped after {MAX_IMPACT_NODES} definitions: callers farther out are not listed")
    omitted = max(0, len(entries) - MAX_IMPACT_CALLERS)
    if omitted:
        notes.append(f"{omitted} callers left out (at most {MAX_IMPACT_CALLERS}), farthest first")
    impacts = [CallerImpact(u.path, u.line, u.end_line, u.caller, Status.OK, "", u.kind, u.resolution)
               for u in first if u.kind is not UseKind.IMPORT and u.resolution is not Resolution.CANDIDATE]
    selection = select_tests(graph, load_config(repo.root), impacts, sym.qualname, changed_path=sym.path)
    return ImpactAnswer(
        graph_head(repo), sym.qualname, sym.path, sym.line, sym.signature, depth,
        callers=tuple(entries[:MAX_IMPACT_CALLERS]), callers_omitted=omitted,
        tests=tuple({"path": t.path, "line": t.line, "direct": t.direct, "name": t.name, "distance": t.distance}
                    for t in selection.hits),
        tests_omitted=selection.omitted, notes=tuple(notes), no_resolved_callers=maybe.to_json() if maybe else None,
    )


def impact_document(repo: Repo, symbol: str, *, depth: int = 2) -> dict[str, Any]:
    return impact_answer(repo, symbol, depth=depth).to_json()


class _Levels:
    def __init__(self) -> None:
        self.uses: list[tuple[int, str, Use]] = []  # (distance, the symbol used, the use)
        self.stopped = False


def _caller_levels(graph: CodeGraph, qualname: str, first: list[Use], depth: int) -> _Levels:
    """Breadth first up the callers: distance 1 is every use (as `callers` lists them); farther out,
    only uses tied to their target (a by-name guess of a guess is noise), each definition once."""
    from graphguard.model import Resolution

    weak = (Resolution.CANDIDATE, Resolution.BY_NAME_WEAK)
    levels = _Levels()
    seen = {qualname}
    frontier = [(qualname, first)]
    visited = 1
    for distance in range(1, depth + 1):
        following: list[str] = []
        for callee, uses in frontier:
            for u in uses:
                levels.uses.append((distance, callee, u))
                if u.caller not in seen and u.resolution not in weak:
                    seen.add(u.caller)
                    following.append(u.caller)
        if distance == depth or not following:
            break
        frontier = []
        for q in following:
            if graph.symbol(q) is None:
                continue  # a module's top level: what imports it is not a caller of it
            if visited >= MAX_IMPACT_NODES:
                levels.stopped = True
                break
            visited += 1
            frontier.append((q, [u for u in graph.uses_of(q) if u.resolution not in weak]))
    return levels
