"""A merge is decided against each parent: a caller that one side added and the other
side's change breaks is new relative to the first parent, and to the second only in the
merge result. Each comparison reports the breaks relative to its parent; they are united here."""

from __future__ import annotations

import dataclasses

from graphguard import git
from graphguard.check.revisions import Revisions
from graphguard.model import UseKind
from graphguard.result import CallerImpact, ChangeKind, CheckResult, Status, SymbolImpact, TestHit


def other_parents(root: str, revs: Revisions, git_dir: str | None = None) -> list[str]:
    """The parents of a merge other than the one compared already: none for an ordinary change."""
    if revs.compared == "commits":
        heads = git.parents(root, revs.new)
        heads = heads if len(heads) > 1 else []
    else:  # staged or worktree: during `git merge` (its pre-merge-commit hook) or after --no-commit
        heads = git.merge_heads(root, git_dir)
    return [p for p in dict.fromkeys(heads) if p != revs.old]


def _caller_key(c: CallerImpact) -> tuple[str, int, int, str, UseKind]:
    return (c.path, c.line, c.end_line, c.caller, c.kind)


def union(into: CheckResult, other: CheckResult) -> None:
    """Add another parent's findings; the same change's callers and warnings are counted once."""
    # One entry per symbol and new signature: `before` (and so some codes) differ by parent.
    where = {(c.symbol, c.path, c.change, c.after): i for i, c in enumerate(into.changes)}
    for ch in other.changes:
        i = where.get((ch.symbol, ch.path, ch.change, ch.after))
        if i is None:
            where[(ch.symbol, ch.path, ch.change, ch.after)] = len(into.changes)
            into.changes.append(ch)
            continue
        have = into.changes[i]
        known = {_caller_key(c) for c in have.callers}
        extra = tuple(c for c in ch.callers if _caller_key(c) not in known)
        callers = tuple(sorted(have.callers + extra, key=lambda c: (c.status is not Status.BROKEN, c.path, c.line)))
        into.changes[i] = dataclasses.replace(
            have, callers=callers, breaking=tuple(dict.fromkeys(have.breaking + ch.breaking)),
            tests=_tests(have.tests + ch.tests), tests_omitted=max(have.tests_omitted, ch.tests_omitted))
    into.warnings += [w for w in other.warnings if w not in into.warnings]
    into.changes[:] = _new_calls_once(into.changes)
    into.changes.sort(key=lambda c: (c.path, c.line, c.symbol))


def _tests(hits: tuple[TestHit, ...]) -> tuple[TestHit, ...]:
    """One entry per test (its nearest distance from either parent), nearest first."""
    best: dict[str, TestHit] = {}
    for t in hits:
        key = t.name or f"{t.path}:{t.line}"
        if key not in best or t.distance < best[key].distance:
            best[key] = t
    return tuple(sorted(best.values(), key=lambda t: (t.distance, t.path, t.line)))


def _new_calls_once(changes: list[SymbolImpact]) -> list[SymbolImpact]:
    """A call new relative to one parent and a caller of a change relative to the other is
    reported with the change: the `new-calls` entry keeps the rest, if any is broken."""
    decided = {_caller_key(c) for ch in changes if ch.change is not ChangeKind.NEW_CALLS for c in ch.callers}
    out = []
    for ch in changes:
        if ch.change is ChangeKind.NEW_CALLS:
            ch = dataclasses.replace(ch, callers=tuple(c for c in ch.callers if _caller_key(c) not in decided))
            if not ch.broken:
                continue
        out.append(ch)
    return out
