"""Stage 1: which revisions are compared (the comparison target), and which Python files changed.

Their bytes are read by check/sides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from graphguard import git
from graphguard.check.proposed import Proposals
from graphguard.config import Config
from graphguard.errors import GraphguardError
from graphguard.index.plan import is_config
from graphguard.languages import for_path
from graphguard.result import Compared, FileWarning

#: The new side of a shadow check: the working tree with the proposed contents laid over it (never written).
PROPOSED = "PROPOSED"


@dataclass(frozen=True)
class Staged:
    """The index against HEAD (the pre-commit hook's question)."""

    rev = git.INDEX  # the new side as git.diff_* and a report's `head` name it
    compared = Compared.STAGED
    on_disk = False  # the new side is the working tree's files (sides.read_sides)
    shadow = False  # contents not written yet (check --proposed): see Proposed


@dataclass(frozen=True)
class Worktree:
    """The working tree against HEAD."""

    rev = git.WORKTREE
    compared = Compared.WORKTREE
    on_disk = True
    shadow = False


@dataclass(frozen=True)
class Commits:
    """Two commits: `head` against `base` (the merge base of --base and the head, or the empty tree: `Revisions.old`)."""

    base: str
    head: str
    compared = Compared.COMMITS
    on_disk = False
    shadow = False

    @property
    def rev(self) -> str:
        return self.head


@dataclass(frozen=True)
class Proposed:
    """A shadow check: the working tree with the proposed files laid over it, and the proposed deletions gone."""

    proposals: Proposals
    rev = PROPOSED
    compared = Compared.PROPOSED
    on_disk = True  # with the proposals laid over the working tree's files
    # One process (the MCP server) asks again and again about contents never committed: what it read of
    # git is kept (Repo.caches), their facts go to no store.
    shadow = True


#: What a check compares its old side with.
Target = Staged | Worktree | Commits | Proposed


def target_of(old_rev: str, new: Target | str) -> Target:
    """A target, or the one a new side's git name stands for (INDEX, WORKTREE or a commit: a caller that names it so)."""
    if not isinstance(new, str):
        return new
    return Staged() if new == git.INDEX else Worktree() if new == git.WORKTREE else Commits(old_rev, new)


class Revisions(NamedTuple):
    old: str  # a commit
    target: Target
    notes: list[str]
    empty_old: bool = False  # the old side is the empty tree (no commit yet, a root commit, an orphan branch)

    @property
    def new(self) -> str:
        """The new side as git and the report name it: a commit, INDEX, WORKTREE or PROPOSED."""
        return self.target.rev

    @property
    def compared(self) -> Compared:
        """The target's kind (a report's `compared`)."""
        return self.target.compared


def select(root: str, head: str | None, *, staged: bool, worktree: bool, base: str | None, head_ref: str | None) -> Revisions:
    """What is compared: two commits (--base), or HEAD with the index or the working tree. Where there is
    no old commit (no commit yet, a root commit, an orphan branch), the old side is the empty tree: every
    file is new, so each call in it is checked against its target and a file that does not parse blocks."""
    notes: list[str] = []
    if base is not None:
        if head is None:
            raise GraphguardError("the repository has no commits; nothing to compare with --base")
        new = git.resolve_commit(root, head_ref or "HEAD")
        try:
            base_commit = git.resolve_commit(root, base)
        except GraphguardError:
            if _parent_of_root(root, base):
                notes.append(f"{base}: a root commit has no parent; compared with the empty tree")
                return _from_empty_tree(root, new, notes)
            hint = (" (a shallow clone: fetch it, e.g. `git fetch origin main`, or check out"
                    " with actions/checkout `fetch-depth: 0`)") if git.is_shallow(root) else ""
            raise GraphguardError(f"unknown revision: {base}{hint}") from None
        old = git.merge_base(root, base_commit, new)
        if old is None:
            if git.is_shallow(root):
                raise GraphguardError(
                    f"no merge base between {base} and {head_ref or 'HEAD'}: this is a shallow clone."
                    " Fetch the history (actions/checkout with `fetch-depth: 0`, or `git fetch --deepen=200`)"
                )
            # An orphan branch: nothing of it is shared with `base`, so all of it is new.
            notes.append(f"{base} and {head_ref or 'HEAD'} have no common ancestor; compared with the empty tree")
            return _from_empty_tree(root, new, notes)
        return Revisions(old, Commits(old, new), notes)
    empty_old = head is None
    old = git.empty_tree(root) if head is None else head
    if empty_old:
        notes.append("no commit yet: compared with the empty tree")
    if staged:
        return Revisions(old, Staged(), notes, empty_old)
    if worktree:
        return Revisions(old, Worktree(), notes, empty_old)
    if git.has_staged_changes(root, old):
        if git.has_unstaged_changes(root):
            notes.append("unstaged changes were not checked (staged changes were); `graphguard check --worktree` checks them")
        return Revisions(old, Staged(), notes, empty_old)
    return Revisions(old, Worktree(), notes, empty_old)


def _from_empty_tree(root: str, new: str, notes: list[str]) -> Revisions:
    empty = git.empty_tree(root)
    return Revisions(empty, Commits(empty, new), notes, empty_old=True)


def _parent_of_root(root: str, rev: str) -> bool:
    """Whether `rev` names the (missing) first parent of a root commit: `X^`, `X^1`, `X~` or `X~1` (CI's `--base HEAD~1`
    on a repository's first commit)."""
    import re

    m = re.fullmatch(r"(.+?)(?:\^1?|~1?)", rev)
    if m is None:
        return False
    try:
        return not git.parents(root, git.resolve_commit(root, m.group(1)))
    except GraphguardError:
        return False


def refuse_conflicts(root: str, config: Config) -> None:
    """An unresolved conflict has no staged version to check (git shows the file as gone from the index)."""
    refuse(git.unmerged_paths(root), config)


def refuse(unmerged: list[str], config: Config) -> None:
    paths = [p for p in unmerged if for_path(p) is not None and not config.is_excluded(p)]
    if paths:
        which = paths[0] + " is" if len(paths) == 1 else f"{len(paths)} files are"
        listed = "" if len(paths) == 1 else " (" + ", ".join(paths[:5]) + (", ..." if len(paths) > 5 else "") + ")"
        raise GraphguardError(f"{which} in conflict{listed}: resolve, `git add`, then check again")


class Changes(NamedTuple):
    """The changed Python files, and their entries (mode, blob) on each side that has them as a blob."""

    paths: list[str]
    old: dict[str, git.TreeEntry]
    new: dict[str, git.TreeEntry]
    unmerged: list[str]  # against the index: the paths in conflict (status U), sorted
    excluded: tuple[str, ...] = ()  # changed Python files that `exclude` leaves out of the check, sorted
    submodules: list[FileWarning] = []  # noqa: RUF012 - never mutated; the gitlinks that moved, each as a warning
    renamed: Mapping[str, str] = {}  # a file git sees as renamed (listed as a D and an A): new path -> old path
    #: The changed config files of module resolution (tsconfig.json, package.json, ...: index.plan.is_config), sorted:
    #: no language's files, but the TS/JS imports they decide are checked again (check/pathconfig).
    configs: tuple[str, ...] = ()


def submodule_moves(listed: list[git.RawChange]) -> list[FileWarning]:
    """A gitlink that moved is a change graphguard does not look into (the submodule's files are not in
    the superproject's graph): said in the report, never taken for "nothing changed"."""
    out = []
    for c in (c for c in listed if _is_gitlink(c)):
        old = c.old.sha[:12] if c.old is not None and c.old.mode == git.MODE_SUBMODULE else None
        new = c.new.sha[:12] if c.new is not None and c.new.mode == git.MODE_SUBMODULE else None
        if old is not None and new is not None:
            what = f"moved {old}..{new}"
        elif old is not None and c.status is git.ChangeStatus.MODIFIED:  # against the working tree git names no new commit
            what = f"moved {old}..(the commit checked out)"
        elif old is not None:
            what = f"removed (was {old})"
        else:
            what = f"added at {new}"
        out.append(FileWarning(c.path, f"submodule {c.path} {what}: not checked (what this repository calls in it)"))
    return out


def changed(root: str, config: Config, old_rev: str, new_side: Target | str,
            stored_blob: Callable[[str], str | None] | None = None,
            worktree_diff: Callable[[str], list[git.RawChange]] | None = None) -> Changes:
    """The Python files that differ between two revisions and are not excluded (Proposed: the working
    tree's changes, those left out of the check dropped, and the proposed files; `stored_blob`: a
    Python file's blob at `old_rev`, when the stored graph describes it; `worktree_diff`: the working
    tree's changes against a commit, when not git.diff_raw's, e.g. scan.worktree_changes)."""
    target = target_of(old_rev, new_side)
    new = git.WORKTREE if isinstance(target, Proposed) else target.rev
    if worktree_diff is not None and new == git.WORKTREE:
        listed, moved = worktree_diff(old_rev), []
    else:
        listed = git.diff_raw(root, old_rev, new, submodules=True)
        moved = submodule_moves(listed)
    python = [c for c in listed if (for_path(c.path) is not None or is_config(c.path)) and not _is_gitlink(c)]
    raw = [c for c in python if not config.is_excluded(c.path)] if config.exclude else python
    excluded = tuple(sorted({c.path for c in python if for_path(c.path) is not None} - {c.path for c in raw}))
    if isinstance(target, Proposed):
        raw = _with_proposals(root, old_rev, raw, target.proposals, stored_blob)
    configs = tuple(sorted(c.path for c in raw if for_path(c.path) is None))
    raw = [c for c in raw if for_path(c.path) is not None]
    return Changes([c.path for c in raw], {c.path: c.old for c in raw if c.old is not None},
                   {c.path: c.new for c in raw if c.new is not None}, sorted(c.path for c in raw if c.status is git.ChangeStatus.UNMERGED),
                   excluded=excluded, submodules=moved, renamed={} if isinstance(target, Proposed) else _renamed(root, old_rev, new, raw),
                   configs=configs)


def only(changes: Changes, paths: frozenset[str]) -> Changes:
    """The changes to these paths alone (the rest compared as if unchanged)."""
    return changes._replace(paths=[p for p in changes.paths if p in paths], unmerged=[p for p in changes.unmerged if p in paths],
                            excluded=(), submodules=[])


def _is_gitlink(c: git.RawChange) -> bool:
    return any(e is not None and e.mode == git.MODE_SUBMODULE for e in (c.old, c.new))


def _renamed(root: str, old_rev: str, new_rev: str, raw: list[git.RawChange]) -> dict[str, str]:
    """new path -> old path of the changed Python files git pairs as renamed; asked of git only when
    a Python file was added and another deleted (a commit that moves nothing pays nothing)."""
    added = {c.path for c in raw if c.status is git.ChangeStatus.ADDED}
    deleted = {c.path for c in raw if c.status is git.ChangeStatus.DELETED}
    if not added or not deleted:
        return {}
    return {new: old for new, old in git.renames(root, old_rev, new_rev).items() if new in added and old in deleted}


def _with_proposals(root: str, old_rev: str, raw: list[git.RawChange], proposals: Proposals,
                    stored_blob: Callable[[str], str | None] | None) -> list[git.RawChange]:
    """The working tree's changes with the proposed paths among them. The old side of a proposed path the
    working tree has not changed is the stored graph's (its mode does not matter: refuse_links made sure
    the file is no symlink, and a symlink at HEAD made a regular file would be among the changes), else
    git's (one ls-tree, for new files). A new side's entry is not needed: read_sides reads the proposals."""
    proposed = proposals.by_path
    kept = [c for c in raw if c.path not in proposals.skipped]
    listed = {c.path for c in kept}
    unlisted = [p for p in proposed if p not in listed]
    at_old = {}
    if stored_blob is not None:
        for path in unlisted:
            blob = stored_blob(path)
            if blob is not None:
                at_old[path] = git.TreeEntry("100644", blob, path)
    at_old.update(git.blobs_at(root, old_rev, [p for p in unlisted if p not in at_old]))
    for path in unlisted:
        old = at_old.get(path)
        if old is None and proposed[path] is None:
            continue  # deleting a file that is neither committed nor in the working tree: nothing changes
        kept.append(git.RawChange(git.ChangeStatus.ADDED if old is None else git.ChangeStatus.MODIFIED, path, old, None))
    kept.sort(key=lambda c: c.path)
    return kept


