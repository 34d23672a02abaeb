"""Which assignments of a name reach a place in its scope. Pure.

Facts carry no control flow, only where each binding starts and ends and the
arms of the compound statements around it (`FileFacts.arms`). That is enough
for a sound approximation of reaching definitions:

- a binding that ends before the use reaches it, unless the two sit in
  different arms of one `if`/`match` (or in a handler and the try's else),
  which never both run, and no loop around them runs the statement again;
- a binding after the use reaches it only through a loop around both;
- the nearest binding before the use in a block around the use (or an `if`
  with an `else` whose every arm binds the name) always runs before the use:
  everything that ended before it is overwritten.

What is left are the alternatives: `x = A` in one branch and `x = B` in another
both reach a use after the `if`. Exceptions, `break`, `continue` and `return`
are not followed: they only make the set larger than it must be.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import NamedTuple

from graphguard.model import Arm, ArmKind

Pos = tuple[int, int]  # (line, column), as in the facts
#: A place after every line of a scope: what a name holds when its scope is done (a module, for its importers).
END: Pos = (1 << 30, 0)
#: A column past any on its line: definitions and imports carry no end column.
LINE_END = 1 << 30


class Point(NamedTuple):
    start: Pos  # where the statement starts (its value is read there)
    end: Pos  # where it ends: the name holds the value from here on
    path: tuple[int, ...]  # the arms around it in its scope, outermost first


class Arms:
    """The arms of one file, indexed for `path`."""

    def __init__(self, arms: Sequence[Arm]):
        self.arms = arms
        self._starts = [(a.line, a.col) for a in arms]
        self.by_stmt: dict[int, list[int]] = {}
        for i, a in enumerate(arms):
            self.by_stmt.setdefault(a.stmt, []).append(i)

    def path(self, pos: Pos, floor: int) -> tuple[int, ...]:
        """The arms around `pos` that start after line `floor` (the scope's header), outermost first."""
        arms = self.arms
        i = bisect.bisect_right(self._starts, pos) - 1
        # Arms nest: the last one starting before pos holds it, or one of its ancestors does.
        while i >= 0 and not pos < (arms[i].end_line, arms[i].end_col):
            i = arms[i].parent
        out: list[int] = []
        while i >= 0 and arms[i].line > floor:
            out.append(i)
            i = arms[i].parent
        out.reverse()
        return tuple(out)


def reaching(arms: Arms, points: Sequence[Point], use: Point | None, floor: int) -> list[int]:
    """Indices of the `points` whose value the name can hold at `use` (None: the end of the scope), in source order.

    An index i stored as -1 - i is the runtime alternative to a declaration under `if TYPE_CHECKING:`.
    """
    upos, upath = (END, ()) if use is None else (use.start, use.path)
    if not any(p.path for p in points):  # straight-line code, the most common case: the last one before the use
        latest = max((p.start for p in points if p.end <= upos), default=None)
        return [i for i, p in enumerate(points) if p.start == latest]
    table = arms.arms
    before: list[int] = []
    back: list[tuple[int, int]] = []  # (point, the loop that brings it round)
    for i, p in enumerate(points):
        if p.end <= upos:
            if not _exclusive(table, p.path, upath):
                before.append(i)
        else:
            loop = _shared_loop(table, p.path, upath)
            if loop is not None:
                back.append((i, loop))
    # The nearest binding that always runs before the use: one in a block around it...
    kill: Pos | None = None
    for i in before:
        p = points[i]
        if upath[: len(p.path)] == p.path and (kill is None or p.start > kill):
            kill = p.start
    # ... or an if/else around or before it whose every arm binds the name.
    covered = _covered(arms, [points[i] for i in before])
    inside = set(upath)
    for stmt_arms in _exhaustive_statements(arms, covered):
        first = table[stmt_arms[0]]
        parent = first.parent
        if any(a in inside for a in stmt_arms) or (parent >= 0 and table[parent].line > floor and parent not in inside):
            continue  # the use is inside it, or it sits in a block that does not hold the use
        last = table[stmt_arms[-1]]
        start = (first.line, first.col)
        if (last.end_line, last.end_col) <= upos and (kill is None or start > kill):
            kill = start
    out = [i for i in before if kill is None or not points[i].end <= kill]
    for i, loop in back:
        lp = table[loop]
        if kill is None or kill < (lp.line, lp.col):  # overwritten inside the loop before the use: not round
            out.append(i)
    # `if TYPE_CHECKING:` declares what the name is, for type checkers and for us; its else arm,
    # what runs, is marked (-1 - i): the caller falls back to it when the declaration leads nowhere.
    declared = {table[a].stmt for i in out for a in points[i].path if table[a].kind is ArmKind.TYPE_CHECKING}
    if declared:
        out = [-1 - i if any(table[a].stmt in declared and table[a].kind is not ArmKind.TYPE_CHECKING for a in points[i].path)
               else i for i in out]
    return sorted(out, key=lambda i: i if i >= 0 else -1 - i)


def _exclusive(table: Sequence[Arm], bpath: tuple[int, ...], upath: tuple[int, ...]) -> bool:
    """Do a binding at `bpath` and a later use at `upath` sit in arms of one statement that never both run?"""
    k = 0
    n = min(len(bpath), len(upath))
    while k < n and bpath[k] == upath[k]:
        k += 1
    if k == len(bpath) or k == len(upath):
        return False
    xb, xu = table[bpath[k]], table[upath[k]]
    if xb.stmt != xu.stmt or xb.kind in (ArmKind.TRY, ArmKind.LOOP):
        return False  # statements in sequence; a try body runs before its handlers, a loop body before its else
    return not any(table[a].kind is ArmKind.LOOP for a in bpath[:k])


def _shared_loop(table: Sequence[Arm], bpath: tuple[int, ...], upath: tuple[int, ...]) -> int | None:
    """The innermost loop body around both places, if any."""
    found = None
    for a, b in zip(bpath, upath, strict=False):
        if a != b:
            break
        if table[a].kind is ArmKind.LOOP:
            found = a
    return found


def _covered(arms: Arms, points: Sequence[Point]) -> set[int]:
    """Arms that always bind the name: directly, or through an if/else inside whose every arm does."""
    table = arms.arms
    covered = {p.path[-1] for p in points if p.path}
    # Innermost first (a nested statement starts after its parent arm): one pass settles each level.
    for stmt in sorted({table[a].stmt for p in points for a in p.path}, key=lambda s: -arms.by_stmt[s][0]):
        members = arms.by_stmt[stmt]
        parent = table[members[0]].parent
        if parent >= 0 and table[members[0]].exhaustive and all(m in covered for m in members):
            covered.add(parent)
    return covered


def _exhaustive_statements(arms: Arms, covered: set[int]) -> list[list[int]]:
    """Statements that always run one of their arms and whose every arm binds the name."""
    table = arms.arms
    out = []
    for stmt in sorted({table[a].stmt for a in covered}):
        members = arms.by_stmt[stmt]
        if table[members[0]].exhaustive and all(m in covered for m in members):
            out.append(members)
    return out
