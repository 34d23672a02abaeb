"""Stage 1: which revisions are compared, which Python files changed, and both sides' bytes.

The only stage that reads files: git blobs for a commit or the index, the working tree
for --worktree (regular files only, no symlink followed), and for a shadow check
(--proposed) the working tree with the proposed contents laid over it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard import git
from graphguard.caches import LRU
from graphguard.check import scan
from graphguard.check.proposed import Proposals
from graphguard.config import Config
from graphguard.errors import GraphguardError
from graphguard.languages import for_path
from graphguard.result import FileWarning

#: The new side of a shadow check: the working tree with the proposed contents laid over it (never written).
PROPOSED = "PROPOSED"


@dataclass(frozen=True)
class Staged:
    """The index against HEAD (the pre-commit hook's question)."""

    rev = git.INDEX  # the new side as git.diff_* and a report's `head` name it
    compared = "staged"


@dataclass(frozen=True)
class Worktree:
    """The working tree against HEAD."""

    rev = git.WORKTREE
    compared = "worktree"


@dataclass(frozen=True)
class Commits:
    """Two commits: `head` against `base` (the merge base of --base and the head, or the empty tree: `Revisions.old`)."""

    base: str
    head: str
    compared = "commits"

    @property
    def rev(self) -> str:
        return self.head


@dataclass(frozen=True)
class Proposed:
    """A shadow check: the working tree with the proposed files laid over it, and the proposed deletions gone."""

    proposals: Proposals
    rev = PROPOSED
    compared = "proposed"


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
    def compared(self) -> str:
        """staged | worktree | commits | proposed (a report's `compared`)."""
        return self.target.compared

    @property
    def proposals(self) -> Proposals | None:
        return self.target.proposals if isinstance(self.target, Proposed) else None


@dataclass
class Side:
    """One side of the comparison, for the changed files."""

    rev: str  # a commit, INDEX, WORKTREE or PROPOSED
    data: dict[str, bytes] = field(default_factory=dict)  # path -> bytes (absent: the file does not exist)
    blobs: dict[str, str] = field(default_factory=dict)  # path -> blob sha


class Sides(NamedTuple):
    old: Side
    new: Side
    paths: list[str]  # the changed Python files
    warnings: list[FileWarning]  # files that could not be read
    renamed: Mapping[str, str] = {}  # Changes.renamed: new path -> old path


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
    python = [c for c in listed if for_path(c.path) is not None and not _is_gitlink(c)]
    raw = [c for c in python if not config.is_excluded(c.path)] if config.exclude else python
    excluded = tuple(sorted({c.path for c in python} - {c.path for c in raw}))
    if isinstance(target, Proposed):
        raw = _with_proposals(root, old_rev, raw, target.proposals, stored_blob)
    return Changes([c.path for c in raw], {c.path: c.old for c in raw if c.old is not None},
                   {c.path: c.new for c in raw if c.new is not None}, sorted(c.path for c in raw if c.status is git.ChangeStatus.UNMERGED),
                   excluded=excluded, submodules=moved, renamed={} if isinstance(target, Proposed) else _renamed(root, old_rev, new, raw))


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


def refuse_links(root: str, proposals: Proposals) -> None:
    """A proposed path must name a place inside the working tree with no symlink on the way (to the
    file included): writing through one could land outside the repository, and the working-tree
    reader follows none. A part of the path that is a file, not a folder, cannot be written either."""
    for path in proposals.named:
        *folders, name = path.split("/")
        at = root
        for i, part in enumerate([*folders, name]):
            at = os.path.join(at, part)
            try:
                mode = os.lstat(at).st_mode
            except FileNotFoundError:
                break  # a new folder or file: nothing below it exists
            except OSError as e:
                raise GraphguardError(f"{path}: cannot be read ({e.strerror})") from None
            where = "/".join([*folders, name][: i + 1])
            if stat.S_ISLNK(mode):
                raise GraphguardError(f"{path}: {where} is a symlink; a proposed path must reach its file through no symlink")
            if i < len(folders) and not stat.S_ISDIR(mode):
                raise GraphguardError(f"{path}: {where} is a file, not a folder")
            if i == len(folders) and stat.S_ISDIR(mode):
                raise GraphguardError(f"{path}: a folder, not a file")


def read_sides(root: str, old_rev: str, new_side: Target | str, changes: Changes, *,
               kept_blobs: LRU[str, bytes] | None = None) -> Sides:
    """Both sides' bytes: the blobs of both through one `git cat-file --batch` (the entries came with the diff);
    the working tree's files for Worktree; for Proposed those, with the proposals laid over them."""
    warnings: list[FileWarning] = []
    # A name that is not UTF-8 cannot be a module name, nor be stored in SQLite: as the indexer does, skip it.
    paths = []
    for path in changes.paths:
        if git.is_utf8_name(path):
            paths.append(path)
        else:
            warnings.append(FileWarning(path, "file name is not valid UTF-8; not checked"))
    old_wanted = _wanted(paths, changes.old, warnings)
    target = target_of(old_rev, new_side)
    proposals = target.proposals if isinstance(target, Proposed) else None
    on_disk = isinstance(target, (Worktree, Proposed))
    new_wanted = {} if on_disk else _wanted(paths, changes.new, warnings)
    wanted = sorted(old_wanted.keys() | new_wanted.keys())
    # A shadow check is asked again and again by one process: the blobs it read are kept (scan.read_blobs).
    # (`kept_blobs`: Caches.blobs of the Repo.)
    if proposals is not None and kept_blobs is not None:
        contents = scan.read_blobs(kept_blobs, root, wanted)
    else:
        contents = dict(git.read_blobs(root, wanted))
    old = _fill(Side(old_rev), old_wanted, paths, changes.old, contents)
    if proposals is not None:
        proposed = proposals.by_path
        new = lay_over(_read_worktree(root, [p for p in paths if p not in proposed], warnings),
                       {p: proposed[p] for p in paths if p in proposed})
    elif on_disk:
        new = _read_worktree(root, paths, warnings)
    else:
        new = _fill(Side(target.rev), new_wanted, paths, changes.new, contents)
    return Sides(old, new, changes.paths, warnings, changes.renamed)


def _wanted(paths: list[str], entries: dict[str, git.TreeEntry], warnings: list[FileWarning]) -> dict[str, str]:
    """blob -> a path of it (the last), for the regular files among `paths`; a symlink is a warning."""
    wanted = {}
    for path in paths:
        e = entries.get(path)
        if e is None:
            continue
        if e.mode == git.MODE_SYMLINK:
            warnings.append(FileWarning(path, "symlink; not checked"))
        elif e.mode != git.MODE_SUBMODULE:
            wanted[e.sha] = path
    return wanted


def _fill(side: Side, wanted: dict[str, str], paths: list[str], entries: dict[str, git.TreeEntry], contents: dict[str, bytes]) -> Side:
    for sha in sorted(wanted):
        if sha in contents:  # else missing from this repository (a shallow clone)
            side.data[wanted[sha]] = contents[sha]
            side.blobs[wanted[sha]] = sha
    # Several paths can share one blob.
    for path in paths:
        e = entries.get(path)
        if e is not None and path not in side.data and e.sha in side.blobs.values():
            src = next(p for p, s in side.blobs.items() if s == e.sha)
            side.data[path], side.blobs[path] = side.data[src], e.sha
    return side


def lay_over(worktree: Side, proposed: dict[str, bytes | None]) -> Side:
    """The working tree's side with the proposed contents in place (a deletion: the file is absent)."""
    side = Side(PROPOSED, dict(worktree.data), dict(worktree.blobs))
    for path, data in proposed.items():
        if data is None:
            side.data.pop(path, None)
            side.blobs.pop(path, None)
        else:
            side.data[path], side.blobs[path] = data, git.blob_sha(data)
    return side


def _read_worktree(root: str, paths: list[str], warnings: list[FileWarning]) -> Side:
    side = Side(git.WORKTREE)
    for path in paths:
        data = _read_regular_file(root, path)
        if isinstance(data, str):  # why it was not read
            warnings.append(FileWarning(path, f"{data}; not checked"))
        elif data is not None:
            side.data[path] = data
            side.blobs[path] = git.blob_sha(data)
    return side


def _read_regular_file(root: str, path: str) -> bytes | str | None:
    """A working-tree file's bytes; None when it is not there; else why it was not read.

    Only a regular file is opened (a FIFO would block the read for ever), and no symlink is
    followed on the way, folders included: `pkg/sub -> /elsewhere` must not make the check
    read `pkg/sub/x.py` outside the repository (git itself never looks through it).
    """
    *folders, name = path.split("/")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if os.open not in os.supports_dir_fd:  # Windows: no openat; check each step, then open
        return _read_checked_path(root, folders, name, flags)
    fds = [os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))]
    try:
        for folder in folders:
            try:
                fds.append(os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fds[-1]))
            except (FileNotFoundError, NotADirectoryError):
                return "reached through a symlink in its path" if _is_link(folder, fds[-1]) else None
            except OSError as e:  # ELOOP: O_NOFOLLOW met a symlink
                return "reached through a symlink in its path" if _is_link(folder, fds[-1]) else f"not readable ({e.strerror})"
        try:
            fds.append(os.open(name, flags, dir_fd=fds[-1]))
        except FileNotFoundError:
            return None
        except OSError as e:
            return "symlink" if _is_link(name, fds[-1]) else f"not readable ({e.strerror})"
        return _read_fd(fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _read_checked_path(root: str, folders: list[str], name: str, flags: int) -> bytes | str | None:
    full = root
    parts = [*folders, name]
    for i, part in enumerate(parts):
        full = os.path.join(full, part)
        if not os.path.lexists(full):
            return None
        if os.path.islink(full):
            return "symlink" if i == len(parts) - 1 else "reached through a symlink in its path"
    try:
        fd = os.open(full, flags)
    except OSError as e:
        return f"not readable ({e.strerror})"
    try:
        return _read_fd(fd)
    finally:
        os.close(fd)


def _read_fd(fd: int) -> bytes | str | None:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        return None  # a folder where the file was: it is gone
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    with os.fdopen(os.dup(fd), "rb") as f:
        return f.read()
