"""Breaks between branches (a semantic merge conflict): what merging another branch with HEAD would break
that neither side breaks alone.

Branch A renames a function, branch B adds calls to its old name: each passes its own check, git merges
them without a conflict, and the merge is broken. For each other branch:

    git.merge_tree        HEAD and the branch merged as a tree (nothing written but git objects) -> MergedTree
    (textual conflicts)   reported as such, not checked: a person settles that merge
    check.assess          merge base -> the merged tree, each comparison the check's own; the graph stays at
                          HEAD (the overlay reads the merge base's tree, as `check` in CI does)
    check.assess x 2      merge base -> HEAD, -> the branch, only where the merged tree fails (merge.scope_for)
    only_in_merge         the sites failing in the merged tree that fail in neither side alone

A site is matched across the three comparisons by what it is, not by its line (the merged tree shifts
lines of a file both sides changed): its file, the definition it is in, its kind, the symbol it uses.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from graphguard import git
from graphguard.check import assess, merge, revisions
from graphguard.check.assemble import OldSides
from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.errors import GraphguardError
from graphguard.repo import Repo, ensure_current
from graphguard.result import BranchConflicts, CallerImpact, CheckResult, Compared, ConflictsResult, Status, SymbolImpact

#: The default set: branches whose tip moved within this many days.
RECENT_DAYS = 30


class Candidate(NamedTuple):
    ref: str
    tip: str
    merge_base: str


SiteKey = tuple[str, str, str, str]  # (path, caller, kind, symbol used)


def run(repo: Repo, against: Sequence[str] = (), *, now: float | None = None) -> ConflictsResult:
    """Each branch of `against` (default: the recent branches sharing history with HEAD) merged with HEAD."""
    root = repo.root
    head = git.head(root)
    if head is None:
        raise GraphguardError("no commit yet: nothing to merge with")
    config = load_config(root)
    result = ConflictsResult(head)
    # The graph stays at HEAD (one git call when it is current): the overlay reads the merge base's tree and
    # resolves the files that may use a changed definition against it, as `check` in CI does.
    ensure_current(repo, config=config, at=head, text_index=False)
    chosen = named(root, head, against) if against else recent(root, head, git.branches(root), now or time.time())
    result.notes += chosen.notes
    # Branches from one merge base (topics off the same commit of main) share its side, as one branch's comparisons do.
    old_sides = OldSides()
    result.branches += [branch(repo, config, head, c, old_sides) for c in sorted(chosen.candidates, key=lambda c: c.ref)]
    return result


class Chosen(NamedTuple):
    candidates: list[Candidate]
    notes: list[str]


def named(root: str, head: str, refs: Sequence[str]) -> Chosen:
    """`--against REF...`: each as asked (one with nothing to merge is said so, not dropped in silence)."""
    out, notes = [], []
    for ref in dict.fromkeys(refs):
        tip = git.resolve_commit(root, ref)
        base = git.merge_base(root, head, tip)
        if base is None:
            raise GraphguardError(f"{ref} shares no history with HEAD: no merge to check")
        if base == tip:
            notes.append(f"{ref}: already in HEAD, nothing to merge")
            continue
        out.append(Candidate(ref, tip, base))
    return Chosen(out, notes)


def recent(root: str, head: str, listed: Iterable[git.Branch], now: float) -> Chosen:
    """The local and remote-tracking branches that moved within RECENT_DAYS, share history with HEAD and hold
    commits HEAD has not; a tip listed under two names (`topic`, `origin/topic`) once, under the first."""
    since = now - RECENT_DAYS * 86400
    out: list[Candidate] = []
    seen = {head}
    old = merged = unrelated = 0
    for b in listed:
        if b.commit in seen:
            continue
        seen.add(b.commit)
        if b.committed < since:
            old += 1
            continue
        base = git.merge_base(root, head, b.commit)
        if base is None:
            unrelated += 1
        elif base == b.commit:
            merged += 1
        else:
            out.append(Candidate(b.name, b.commit, base))
    notes = [f"{n} branch{'' if n == 1 else 'es'} {why}: not checked"
             for n, why in ((old, f"older than {RECENT_DAYS} days"), (merged, "already in HEAD"), (unrelated, "sharing no history with HEAD"))
             if n]
    return Chosen(out, notes)


def branch(repo: Repo, config: Config, head: str, c: Candidate, old_sides: OldSides | None = None) -> BranchConflicts:
    """One branch merged with HEAD, checked against what each side breaks alone (`old_sides`: the merge bases'
    sides built so far, check.assemble.OldSides)."""
    root = repo.root
    merged = git.merge_tree(root, head, c.tip)
    check = CheckResult(base=c.merge_base, head=merged.tree, compared=Compared.COMMITS, fail_on_unknown=config.fail_on_unknown)
    if merged.conflicted:
        check.notes.append(f"git cannot merge {c.ref} without a person ({len(merged.conflicted)} file(s) in conflict): not checked")
        return BranchConflicts(c.ref, c.tip, c.merge_base, check, merged.conflicted)
    ours = revisions.changed(root, config, c.merge_base, head)
    theirs = revisions.changed(root, config, c.merge_base, c.tip)
    if not ours.paths or not theirs.paths:
        # One side changed no Python file: the merged tree's Python files are the other side's, checked on their own.
        check.notes.append(f"{'HEAD' if not ours.paths else c.ref} changed no Python file since the merge base: nothing the merge adds")
        return BranchConflicts(c.ref, c.tip, c.merge_base, check)
    both = revisions.changed(root, config, c.merge_base, merged.tree)
    # A site in a file neither side changed meets in the merged tree what one side gave it, so fails as it does
    # there: only the changed files' sites are gathered.
    # The three comparisons start from the merge base: its side is built once.
    old_sides = old_sides if old_sides is not None else OldSides()
    findings = assess(repo, config, c.merge_base, revisions.Commits(c.merge_base, merged.tree), both, changed_sites_only=True,
                      old_sides=old_sides)
    # Each side alone only where the merged tree fails: the failing sites' files and their definitions' (the rest
    # as at the merge base); nothing failing, nothing to compare.
    # (only_in_merge asks a side alone about the failing sites' keys: its other files' sites are never read.)
    scope = merge.scope_for(findings.changes)
    failing_in = frozenset(site.path for ch in findings.changes for site in ch.callers if _fails(site))
    alone = [assess(repo, config, c.merge_base, revisions.Commits(c.merge_base, rev), revisions.only(diff, scope),
                    sites_in=failing_in, old_sides=old_sides).changes
             for rev, diff in ((head, ours), (c.tip, theirs))] if merge.failing(findings.changes) else []
    check.changes = only_in_merge(findings.changes, alone)
    check.warnings = findings.warnings
    check.files_changed = len(both.paths)
    return BranchConflicts(c.ref, c.tip, c.merge_base, check)


def _fails(c: CallerImpact) -> bool:
    return c.status in (Status.BROKEN, Status.UNKNOWN) and c.suppressed is None


def _key(change: SymbolImpact, c: CallerImpact) -> SiteKey:
    return (c.path, c.caller, c.kind.value, change.symbol)


def only_in_merge(merged: Sequence[SymbolImpact], alone: Sequence[Sequence[SymbolImpact]]) -> list[SymbolImpact]:
    """The changes of the merged tree with only the failing sites that no side has failing alone (a site
    matched by its key as many times as a side has it: two broken calls in one function, one of them the
    merge's, leave one). A change none of whose sites is the merge's is dropped: each side answers for its own."""
    own = Counter(_key(ch, c) for side in alone for ch in side for c in ch.callers if _fails(c))
    out = []
    for ch in merged:
        kept = []
        for c in ch.callers:
            if not _fails(c):
                continue
            key = _key(ch, c)
            if own[key]:
                own[key] -= 1
                continue
            kept.append(c)
        if kept:
            # Blocks for its sites alone: whether the change itself would block (public API, block_on) is each side's question.
            out.append(dataclasses.replace(ch, callers=tuple(kept), public=False))
    return out


def as_check(result: ConflictsResult) -> CheckResult:
    """Every branch's merge-only breaks as one check report, for the CI formats (SARIF, annotations, markdown,
    Code Quality): a change found with several branches is one entry, and a note per branch names its verdict."""
    from graphguard.check.merge import union
    from graphguard.report.conflicts import branch_summary

    one = CheckResult(base=result.head, head=result.head, compared=Compared.COMMITS)
    for b in result.branches:
        one.fail_on_unknown = one.fail_on_unknown or b.check.fail_on_unknown
        union(one, b.check)
        one.notes.append(f"{b.ref} merged with HEAD: {branch_summary(b)}")
        one.files_changed = max(one.files_changed, b.check.files_changed)
    one.notes += result.notes
    return one

