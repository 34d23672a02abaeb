"""Breadth-first expansion over file edges, both ways, from seed files. Pure: edges come from a callback.

Forward edges go to what a file depends on (its callees, bases, imported
modules), reverse edges to who depends on it (callers, subclasses, importers,
tests). An edge is weighted by its strongest kind (call > inheritance > type
reference > import > re-export) and by how many distinct symbols it carries.
A node's weight is the best product of edge weights over the paths reaching
it, times a decay per hop after the first.

Hubs are not walked through: a node (other than a seed) with more neighbours
than the degree cap is reached but not expanded, so a package `__init__`
barrel or a constants module everyone imports does not pull in the whole
repository. Tests are reverse neighbours: code never depends on them, and
from a test file (a conftest, a helper) the walk goes on in reverse only, to
the tests that use it, so a test reaching a seed through a fixture or a helper
is found one hop further than the test that imports the seed itself.
Generated files are walked through like any other; the caller drops them from
what it returns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.retrieval.kinds import Direction, Link, Via

#: Weight of an edge by its strongest kind.
KIND_WEIGHT: Mapping[Link, float] = {
    Link.CALL: 1.0, Link.INHERIT: 0.85, Link.REFERENCE: 0.7, Link.IMPORT: 0.5, Link.REEXPORT: 0.3, Link.TEST: 0.8,
    Link.FIXTURE: 0.6,
}
#: Kinds in order of strength (for the label of an edge with several).
KIND_ORDER = tuple(Link)
#: Every hop after the first multiplies the weight by this.
HOP_DECAY = 0.5
#: Neighbours beyond this (forward plus reverse) make a node a hub: reached, not walked through.
DEGREE_CAP = 40
#: How many of the best nodes of a layer are expanded into the next.
BEAM = 25


class Edge(NamedTuple):
    """A file-to-file dependency seen from one end: `node` reaches `other` forward (node depends on it) or
    reverse (it depends on node)."""

    node: str
    other: str
    direction: Direction  # FORWARD or REVERSE
    kinds: frozenset[Link]
    n_symbols: int = 0
    symbols: tuple[str, ...] = ()  # in `other`: the callees it provides (forward), the callers in it (reverse)

    @property
    def kind(self) -> Link:
        return next((k for k in KIND_ORDER if k in self.kinds), Link.IMPORT)


def edge_weight(edge: Edge) -> float:
    """Strongest kind times a factor growing with the distinct symbols used: 0.6 for none, 1.0 from 8 up."""
    base = KIND_WEIGHT.get(edge.kind, 0.5)
    n = max(edge.n_symbols, len(edge.symbols))
    return base * (0.6 + 0.4 * min(1.0, math.log2(1 + n) / math.log2(9)))


@dataclass
class Reached:
    path: str
    distance: int
    weight: float
    via: Via  # the kind of the edge that gave the best weight, with its direction
    direction: Direction  # FORWARD, REVERSE or SEED
    parent: str | None  # the node it was reached from on its best path
    symbols: tuple[str, ...] = ()  # symbols of this file on the best edge
    direct_test: bool = False  # a test importing a seed itself


@dataclass
class Expansion:
    reached: dict[str, Reached] = field(default_factory=dict)
    hubs: set[str] = field(default_factory=set)  # reached, not walked through


def via_label(edge: Edge, is_test: bool) -> Via:
    if edge.direction is Direction.REVERSE:
        return Via.TEST if is_test else Via.CALLER
    return Via.CALL if edge.kind is Link.CALL else Via.IMPORT


def expand(
    seeds: Mapping[str, float],
    edges_of: Callable[[Sequence[str]], Iterable[Edge]],
    degree_of: Callable[[Sequence[str]], Mapping[str, int]],
    is_test: Callable[[str], bool],
    *,
    depth: int = 1,
    degree_cap: int = DEGREE_CAP,
    beam: int = BEAM,
) -> Expansion:
    """Nodes within `depth` hops of the seeds (path -> seed weight in (0, 1]), with their best weight."""
    depth = max(0, min(2, depth))
    out = Expansion()
    for s, w in seeds.items():
        out.reached[s] = Reached(s, 0, w, Via.SEED, Direction.SEED, None)
    frontier = sorted(seeds, key=lambda s: (-seeds[s], s))
    for d in range(1, depth + 1):
        if not frontier:
            break
        if d > 1:
            degrees = degree_of(frontier)
            walk = []
            for node in frontier:
                if degrees.get(node, 0) > degree_cap:
                    out.hubs.add(node)
                    continue
                walk.append(node)
            frontier = walk[:beam]
        found: dict[str, Reached] = {}
        for e in sorted(edges_of(frontier), key=lambda e: (e.node, e.other, e.direction)):
            src = out.reached.get(e.node)
            if src is None or e.other == e.node:
                continue
            other_is_test = is_test(e.other)
            node_is_test = is_test(e.node)
            if e.direction is Direction.FORWARD and ((other_is_test and not node_is_test) or (src.distance > 0 and node_is_test)):
                continue  # code does not depend on tests; what a test imports besides the seed is noise
            w = src.weight * edge_weight(e) * (HOP_DECAY if d > 1 else 1.0)
            prev = out.reached.get(e.other)
            if prev is not None and prev.distance < d:
                if prev.distance > 0 and w > prev.weight:
                    prev.weight = w  # a stronger path of the same or greater length never shortens the distance
                continue
            r = found.get(e.other)
            direct = other_is_test and e.direction is Direction.REVERSE and src.distance == 0
            if r is None or w > r.weight:
                found[e.other] = Reached(e.other, d, w, via_label(e, other_is_test), e.direction, e.node, e.symbols,
                                         direct or (r.direct_test if r else False))
            elif direct:
                r.direct_test = True
        out.reached.update(found)
        frontier = sorted(found, key=lambda p: (-found[p].weight, p))
    return out
