"""A merge is decided against each parent: a site broken in the merge result is the merge's fault only
when it is broken seen from every parent. Seen from one parent, a site that the merge left as the other
parent had it, calling a definition the merge left as it was there, was that parent's own state (its own
history and CI answered for it): it is counted in a note, not blamed.

Cost: the comparison with the parent the merge changed least is made in full; one with a parent it
changed more files of than FULL_VIEW_FILES only where the first found a failing site (the sites' files
and the changed definitions' files), since no other site can fail seen from every parent."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

from graphguard import git
from graphguard.check.revisions import Commits, Revisions
from graphguard.model import UseKind
from graphguard.result import CallerImpact, ChangeKind, CheckResult, FileWarning, Status, SymbolImpact, TestHit

#: A parent the merge changed more Python files of than this is compared only where the merge's breaks can be.
FULL_VIEW_FILES = 40


def other_parents(root: str, revs: Revisions, git_dir: str | None = None) -> list[str]:
    """The merged-in parents of a merge, other than the one compared already: none for an ordinary change.
    Of a merge commit, the first parent is the branch: a range whose old side is not that parent (`--base`
    an older commit of the branch, or the merged-in upstream itself) reviews the branch's own commits, so
    their breaks are never excused as "already in the first parent"."""
    if isinstance(revs.target, Commits):
        heads = git.parents(root, revs.new)
        heads = heads[1:] if len(heads) > 1 else []
    else:  # staged or worktree: during `git merge` (its pre-merge-commit hook) or after --no-commit
        heads = git.merge_heads(root, git_dir)
    return [p for p in dict.fromkeys(heads) if p != revs.old]


class View(NamedTuple):
    """The merge result seen from one parent: what that comparison found, and over which files."""

    parent: str
    changes: list[SymbolImpact]
    warnings: list[FileWarning]
    scope: frozenset[str] | None = None  # None: every changed file; else only these were compared, the rest as the parent has them


SiteKey = tuple[str, int, int, UseKind]


def _site(c: CallerImpact) -> SiteKey:
    # Every view judges the same merge result: one site has one place whatever the parent.
    return (c.path, c.line, c.end_line, c.kind)


def _fails(c: CallerImpact) -> bool:
    return c.status in (Status.BROKEN, Status.UNKNOWN)


def failing(changes: Sequence[SymbolImpact]) -> set[SiteKey]:
    return {_site(c) for ch in changes for c in ch.callers if _fails(c)}


def scope_for(near: Sequence[SymbolImpact]) -> frozenset[str]:
    """The files a comparison with another parent must cover to judge the sites `near` found failing:
    theirs and those of the definitions they call (or that changed)."""
    paths = {ch.path for ch in near}
    paths.update(c.path for ch in near for c in ch.callers if _fails(c))
    return frozenset(paths)


def _entry(ch: SymbolImpact) -> tuple[str, str, ChangeKind, str | None]:
    return (ch.symbol, ch.path, ch.change, ch.after)


class Excused(NamedTuple):
    """Sites broken seen from the other parents and not from this one: already broken in it."""

    parent: str
    sites: int
    exact: bool  # False: another parent was compared only where the merge's breaks can be (a lower bound)


def intersect(views: Sequence[View]) -> tuple[list[View], list[Excused]]:
    """Each view keeps what every view finds: a failing site only when it fails seen from each parent
    (else it was the state of the parent that does not see it fail), and a change found only from
    some parents only with such sites (the others had that definition as the merge has it)."""
    seen = [failing(v.changes) for v in views]
    common = set.intersection(*seen)
    everywhere = set.intersection(*({_entry(ch) for ch in v.changes} for v in views))
    kept = [v._replace(changes=_keep(v.changes, common, everywhere)) for v in views]
    # A restricted view saw the files outside its scope as its parent had them, not as the merge has them.
    judged = [s if v.scope is None else {k for k in s if k[0] in v.scope} for v, s in zip(views, seen, strict=True)]
    blamed = {_site(c) for v in views for ch in v.changes for c in ch.callers if c.status is Status.BROKEN and c.suppressed is None}
    excused = []
    for j, v in enumerate(views):
        elsewhere = set().union(*(judged[i] for i in range(len(views)) if i != j))
        exact = all(w.scope is None for i, w in enumerate(views) if i != j)
        excused.append(Excused(v.parent, len((elsewhere & blamed) - seen[j]), exact))
    return kept, excused


def _keep(changes: list[SymbolImpact], common: set[SiteKey], everywhere: set[tuple[str, str, ChangeKind, str | None]]) -> list[SymbolImpact]:
    out = []
    for ch in changes:
        callers = tuple(c for c in ch.callers if not _fails(c) or _site(c) in common)
        if _entry(ch) not in everywhere and not any(_fails(c) for c in callers):
            continue  # a change only some parents see, and none of its sites is the merge's
        out.append(dataclasses.replace(ch, callers=callers) if len(callers) != len(ch.callers) else ch)
    return out


def notes(views: Sequence[View], excused: Sequence[Excused], first: str | None, files: dict[str, int]) -> list[str]:
    """What the merge was not blamed for, per parent, and which comparisons were bounded (`files`: each
    parent's count of changed Python files; `first`: the first parent, when it is one of the views)."""
    said = []
    for v in views:
        if v.scope is not None:
            n = len(v.scope)
            said.append(f"compared with {_which(v.parent, first, views)} {v.parent[:12]} only in the {n} file{'' if n == 1 else 's'} where"
                        f" the merge's breaks can be (it differs from the merge in {files[v.parent]} Python files)")
    for e in excused:
        if e.sites:
            s = "" if e.sites == 1 else "s"
            bound = "" if e.exact else "at least "
            said.append(f"{bound}{e.sites} broken site{s} already in {_which(e.parent, first, views)} {e.parent[:12]}: not the merge's, not counted")
    return said


def _which(parent: str, first: str | None, views: Sequence[View]) -> str:
    if parent == views[0].parent:
        return "the first parent" if parent == first else "the base"
    return "the merged parent"
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
