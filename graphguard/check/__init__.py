"""The check, as a pipeline of named stages; each takes records and returns records.

    revisions.select      what is compared (staged | worktree | two commits)   -> Revisions
    revisions.changed     the changed Python files                            -> paths
    sides.read_sides      their old and new bytes (blobs; the working tree only for --worktree) -> Sides
    assemble.build        both versions of the repository over the stored graph -> Overlay (check.overlay)
    interface.find        syntax errors, lost re-exports, signatures of changed headers -> sigdiff -> Interface
    uses.gather           every use of each changed definition               -> [impact.Found]
    uses.once             each site under one change only (a class and its base's __init__)
    leftout.*             what `exclude` and `generated` left unchecked (every changed file, every use) -> warnings
    calls.find            calls written in this change, bound to their (unchanged) target -> SymbolImpact
    decide.decide         each use bound to the new signature               -> SymbolImpact
    fields.attach         a dataclass's lost fields, read or replaced on receivers of the class
    suppress.apply        sites the file says not to blame (an inline ignore, `pytest.raises(TypeError)`)
    tests_to_run.attach   the tests that reach the callers                   -> SymbolImpact.tests
    merge.intersect       a merge: the same, against each other parent; a site is blamed only when broken from each
    merge.union           ... and the views united

run_proposed is the shadow check (check --proposed, the MCP tool check_edit): the same stages
with the new side being the working tree with proposed contents laid over it (proposed.validate
first); nothing is written.

commands/check.py parses the flags, runs this, renders the result and turns the verdict
into the exit code.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Collection, Mapping
from typing import NamedTuple

from graphguard import git
from graphguard.check import (
    assemble,
    bypath,
    calls,
    decide,
    fields,
    interface,
    leftout,
    merge,
    proposed,
    revisions,
    scan,
    sides,
    suppress,
    tests_to_run,
    uses,
)
from graphguard.check.merge import other_parents, union
from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.languages import for_path
from graphguard.repo import Repo, checked_after, ensure_fresh, head_probe
from graphguard.result import CheckResult, Compared, FileWarning, SymbolImpact
from graphguard.store.paths import StoredPaths
from graphguard.store.reads import CodeGraph
from graphguard.store.schema import head as graph_head


class Findings(NamedTuple):
    """What one comparison found: changes in report order, and warnings in the order met."""

    changes: list[SymbolImpact]
    warnings: list[FileWarning]


def run(repo: Repo, *, staged: bool = False, worktree: bool = False, base: str | None = None, head: str | None = None,
        at: str | None = None) -> CheckResult:
    """`at`: HEAD as the caller fixed it, the graph already at it and held (see run_proposed)."""
    root = repo.root
    head_commit = at or git.head(root)
    config = load_config(root)
    if base is None and not staged:
        revisions.refuse_conflicts(root, config)
    revs = revisions.select(root, head_commit, staged=staged, worktree=worktree, base=base, head_ref=head)
    # Two commits: the graph is brought to the old one, as the hook has it, so that every mode
    # (a warm graph at either commit, a cold CI clone) finds the callers the same way.
    # (Staged or worktree: the old side is HEAD, just read; passing it saves reading it again.)
    # (The empty tree is no commit to bring the graph to: the overlay reads the old side's tree, which holds nothing.)
    if at is None:
        probe = head_probe(repo.paths)
        fresh = ensure_fresh(repo, config=config, at=None if revs.empty_old else revs.old, text_index=False)  # the refresher after the commit builds it
        result = _compare(repo, config, revs)
        result.freshness = checked_after(repo, fresh, probe)
        return result
    return _compare(repo, config, revs)


def run_proposed(repo: Repo, files: Mapping[str, bytes], deleted: Collection[str] = (), *, at: str | None = None) -> CheckResult:
    """The shadow check: HEAD -> the working tree with `files` (path -> proposed bytes) laid over it and
    `deleted` gone, as `check --worktree` would answer after the write. Nothing is written: no file, no
    index, no graph or blob-cache row (the overlay over the stored graph is dropped with the answer).

    Paths are relative to the repository root, '/'-separated. Input that cannot be checked is a
    GraphguardError with a one-line message (proposed.validate, sides.refuse_links); content
    that is not text is a warning in the answer. Cheap to call again and again with one open Repo.

    `at`: HEAD as the caller fixed it at the start of its answer, the graph already brought to it and held
    in a read transaction (the MCP server): HEAD is not read again nor the graph updated, so a commit landing
    meanwhile cannot turn the answer into an update inside that transaction, or into one for two commits."""
    root = repo.root
    config = load_config(root)
    wanted = proposed.validate(files, deleted, config)
    sides.refuse_links(root, wanted)
    head_commit = at or git.head(root)
    if head_commit is None:
        return CheckResult(base="", head="", compared=Compared.NOTHING, notes=["no commit yet: nothing to compare"])
    revisions.refuse(scan.unmerged_paths(repo.caches.unmerged, repo.paths), config)  # as refuse_conflicts, asked again when the index moved
    fresh = None
    if at is None:
        probe = head_probe(repo.paths)
        fresh = ensure_fresh(repo, config=config, at=head_commit, text_index=False)
    revs = revisions.Revisions(head_commit, revisions.Proposed(wanted), list(wanted.notes))
    result = _compare(repo, config, revs)
    result.warnings[:0] = wanted.warnings
    if fresh is not None:
        result.freshness = checked_after(repo, fresh, probe)
    return result


def _compare(repo: Repo, config: Config, revs: revisions.Revisions) -> CheckResult:
    """The old side against the new, and during a merge against each other parent too."""
    root = repo.root
    result = CheckResult(base=revs.old, head=revs.new, compared=revs.compared, notes=revs.notes, warnings=list(config.warnings),
                         block_on=frozenset(config.block_on), fail_on_unknown=config.fail_on_unknown)
    shadow = revs.target.shadow
    # The graph describes HEAD (ensure_current): a proposed file's old blob is asked of it, not of git.
    stored_blob = StoredPaths(repo.store.graph).blob if shadow and graph_head(repo.store) == revs.old else None
    # A long-lived process (the MCP server) asks again and again: the working tree's scan is reused while unchanged.
    worktree_diff = functools.partial(scan.worktree_changes, repo.caches.scans, repo.paths) if shadow else None
    changes = revisions.changed(root, config, revs.old, revs.target, stored_blob, worktree_diff)
    # The diff against the index shows a conflict as status U: --staged asks no `git ls-files -u` (run() asked it
    # when the staged changes were chosen for want of a mode: this finds nothing more).
    if isinstance(revs.target, revisions.Staged):
        revisions.refuse(changes.unmerged, config)
    others = other_parents(root, revs, repo.paths.git_dir)
    diffs = {revs.old: changes} | {p: revisions.changed(root, config, p, revs.target) for p in others}
    views = _views(repo, config, revs, diffs)
    kept, excused = merge.intersect(views) if others else (views, [])
    result.changes += kept[0].changes
    result.warnings += kept[0].warnings + changes.submodules
    result.submodules += [w.path for w in changes.submodules]
    for parent, view in zip(others, kept[1:], strict=True):
        other = CheckResult(base=parent, head=revs.new, compared=revs.compared, changes=view.changes,
                            warnings=view.warnings + diffs[parent].submodules)
        union(result, other)
        result.submodules += [w.path for w in diffs[parent].submodules if w.path not in result.submodules]
    if others:
        result.notes.append("a merge: checked against each parent (" + ", ".join(p[:12] for p in [revs.old, *others]) + ");"
                            " a site is blamed only when it is broken seen from every parent")
        first = revs.old if not isinstance(revs.target, revisions.Commits) or git.parents(root, revs.new)[:1] == [revs.old] else None
        result.notes += merge.notes(views, excused, first, {p: len(d.paths) for p, d in diffs.items()})
    paths = {p for d in diffs.values() for p in d.paths}
    result.files_changed = len(paths)
    result.files_by_language = dict(Counter(lang.name for p in sorted(paths) if (lang := for_path(p)) is not None))
    return result


def _views(repo: Repo, config: Config, revs: revisions.Revisions, diffs: dict[str, revisions.Changes]) -> list[merge.View]:
    """The new side seen from each parent (the old side first): the comparison with the fewest changed files
    in full, one with a parent the merge changed many files of only where the first found failing sites."""
    order = sorted(diffs, key=lambda p: len(diffs[p].paths))
    near = order[0]
    found = {near: merge.View(near, *assess(repo, config, near, revs.target, diffs[near]))}
    scope = merge.scope_for(found[near].changes)
    for parent in order[1:]:
        diff, bounded = diffs[parent], None
        if len(diff.paths) > merge.FULL_VIEW_FILES:
            diff = revisions.only(diff, scope)
            bounded = frozenset(diff.paths)
        found[parent] = merge.View(parent, *assess(repo, config, parent, revs.target, diff), scope=bounded)
    return [found[p] for p in diffs]


def assess(repo: Repo, config: Config, old_rev: str, target: revisions.Target, diff: revisions.Changes, *,
           changed_sites_only: bool = False, sites_in: frozenset[str] | None = None,
           old_sides: assemble.OldSides | None = None) -> Findings:
    """One comparison, stage by stage. `changed_sites_only`: the uses in the changed files alone (conflicts).
    `sites_in`: only the sites in these files are asked about (conflicts, each side alone): unchanged files
    elsewhere are not resolved, and no tests are selected (the findings' tests are then empty). `old_sides`: the
    old commit's side as an earlier comparison built it (assemble.OldSides)."""
    if not diff.paths and not diff.configs:
        return Findings([], leftout.excluded_changes(config, diff.excluded, diff.paths))
    python, others = bypath.split(diff.paths)
    if others or diff.configs:  # TypeScript/JavaScript files (and the configs of their resolution): through their Language
        read = sides.read_sides(repo.root, old_rev, target, diff._replace(paths=others + list(diff.configs)),
                                kept_blobs=repo.caches.blobs)
        graph = CodeGraph(repo.store.graph)
        changes, warnings = bypath.assess(repo.root, graph, repo.store.load_facts, read, target)
        changes = tests_to_run.attach(graph, config, changes)
        if python:
            theirs = assess(repo, config, old_rev, target, diff._replace(paths=python, configs=()), changed_sites_only=changed_sites_only,
                            sites_in=sites_in, old_sides=old_sides)
            changes, warnings = theirs.changes + changes, theirs.warnings + read.warnings + warnings
        else:
            warnings = read.warnings + warnings + leftout.excluded_changes(config, diff.excluded, diff.paths)
        changes.sort(key=lambda c: (c.path, c.line, c.symbol))
        return Findings(changes, warnings)
    both = sides.read_sides(repo.root, old_rev, target, diff, kept_blobs=repo.caches.blobs)
    # A shadow check's facts are of contents never committed: not kept in the blob cache.
    over = assemble.build(repo, both, config, cache_facts=not target.shadow, old_sides=old_sides)
    over.changed_sites_only = changed_sites_only
    over.sites_in = sites_in
    found = interface.find(over, config)
    changes = list(found.impacts)
    every = [uses.gather(over, config, ic) for ic in found.changes]
    gathered = uses.once([g.uses for g in every])
    for ic, its_uses in zip(found.changes, gathered, strict=True):
        entry = decide.decide(over, config, ic, its_uses)
        if entry is not None:
            changes.append(entry)
    changes = fields.attach(over, changes, [(ic, g.uses) for ic, g in zip(found.changes, every, strict=True)])
    new_calls = calls.find(over, config, found)
    changes += new_calls
    changes, ignore_warnings = suppress.apply(over, changes)
    if sites_in is None:
        changes = tests_to_run.attach(over.graph, config, changes)
    if found.changes or new_calls:  # output order: by place (the findings above come in the order they are looked for)
        changes.sort(key=lambda c: (c.path, c.line, c.symbol))
    left_out = {ic.qualname: g.generated for ic, g in zip(found.changes, every, strict=True) if g.generated and not g.uses}
    said = leftout.generated_changes(config, diff.paths) + leftout.generated_uses(config, left_out)
    return Findings(changes, both.warnings + found.warnings + ignore_warnings + said)
