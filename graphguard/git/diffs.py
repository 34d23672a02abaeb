"""What changed between two revisions (a commit, INDEX or WORKTREE): paths with their status, each side's
entry, the renames git sees; the working tree's untracked files and what its walk watches."""

from __future__ import annotations

from dataclasses import dataclass

from graphguard.git.commits import INDEX, WORKTREE
from graphguard.git.process import run, run_both, zsplit
from graphguard.git.trees import TreeEntry
from graphguard.model import WireEnum


class ChangeStatus(WireEnum):
    """The letter git's --name-status and --raw give a path (renames are off: a D and an A, both sides checked)."""

    ADDED = "A"
    COPIED = "C"
    DELETED = "D"
    MODIFIED = "M"
    RENAMED = "R"
    TYPE_CHANGED = "T"
    UNMERGED = "U"
    UNKNOWN = "X"
    BROKEN = "B"


@dataclass(frozen=True)
class Change:
    status: ChangeStatus
    path: str


def parse_name_status(out: bytes) -> list[Change]:
    """`git diff --name-status -z --no-renames`: status NUL path NUL ..."""
    parts = zsplit(out)
    return [Change(ChangeStatus(parts[i][0]), parts[i + 1]) for i in range(0, len(parts) - 1, 2)]


def diff(root: str, old: str, new: str) -> list[Change]:
    """Files that differ between `old` (a commit) and `new` (a commit, INDEX or WORKTREE)."""
    args = ["diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", "--ignore-submodules"]
    if new == INDEX:
        out = run(root, *args, "--cached", old)
    elif new == WORKTREE:
        out = run(root, *args, old)
    else:
        out = run(root, *args, old, new)
    changes = parse_name_status(out)
    if new == WORKTREE:
        changes += [Change(ChangeStatus.ADDED, p) for p in untracked(root)]
    return changes


@dataclass(frozen=True)
class RawChange:
    """A changed path with its entry on each side (None: not there; for the working tree, not hashed)."""

    status: ChangeStatus
    path: str
    old: TreeEntry | None
    new: TreeEntry | None


_NO_MODE, _NO_SHA = "000000", "0" * 40


def parse_raw(out: bytes) -> list[RawChange]:
    """`git diff --raw -z --no-abbrev --no-renames`: ':<old mode> <new mode> <old sha> <new sha> <status>' NUL path NUL ..."""
    parts = out.split(b"\0")
    changes = []
    for i in range(0, len(parts) - 1, 2):
        old_mode, new_mode, old_sha, new_sha, status = parts[i].decode().lstrip(":").split(" ")
        path = parts[i + 1].decode("utf-8", "surrogateescape")
        old = TreeEntry(old_mode, old_sha, path) if old_mode != _NO_MODE else None
        new = TreeEntry(new_mode, new_sha, path) if new_mode != _NO_MODE and new_sha != _NO_SHA else None
        changes.append(RawChange(ChangeStatus(status[:1]), path, old, new))
    return changes


def diff_raw(root: str, old: str, new: str, *, submodules: bool = False) -> list[RawChange]:
    """`diff`, with each side's mode and blob: one git call tells what changed and where to read it.
    `submodules`: a gitlink that moved is listed too (a submodule's own uncommitted edits are not)."""
    ignore = "--ignore-submodules=dirty" if submodules else "--ignore-submodules"
    args = ("diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--no-ext-diff", ignore)
    if new == INDEX:
        return parse_raw(run(root, *args, "--cached", old))
    if new == WORKTREE:
        others, out = run_both(root, _UNTRACKED, (*args, old))
        return parse_raw(out) + [RawChange(ChangeStatus.ADDED, p, None, None) for p in zsplit(others)]
    return parse_raw(run(root, *args, old, new))


def parse_renames(out: bytes) -> dict[str, str]:
    """`git diff --name-status -z -M --diff-filter=R`: 'R<score>' NUL old NUL new NUL ... -> new path -> old path."""
    parts = zsplit(out)
    return {parts[i + 2]: parts[i + 1] for i in range(0, len(parts) - 2, 3) if parts[i].startswith("R")}


def renames(root: str, old: str, new: str) -> dict[str, str]:
    """The tracked files git sees as renamed (same or similar content) between `old` (a commit) and `new`
    (a commit, INDEX or WORKTREE): new path -> old path. The rest of the diff lists each as a D and an A."""
    args = ("diff", "--name-status", "-z", "-M", "--diff-filter=R", "--no-ext-diff", "--ignore-submodules")
    if new == INDEX:
        return parse_renames(run(root, *args, "--cached", old))
    return parse_renames(run(root, *args, old) if new == WORKTREE else run(root, *args, old, new))


_UNTRACKED = ("ls-files", "-z", "--others", "--exclude-standard")


def walk_facts(root: str) -> tuple[list[str], list[str], str | None]:
    """What a reused working-tree scan watches (graphguard.check.scan): the index's paths, what the walk
    for untracked files skips as ignored (a folder once, as 'dir/'), and core.excludesFile (None: unset)."""
    tracked, ignored = run_both(root, ("ls-files", "-z"), ("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"))
    excludes = run(root, "config", "--path", "--get", "core.excludesFile", check=False).decode("utf-8", "surrogateescape").strip()
    return zsplit(tracked), zsplit(ignored), excludes or None


def untracked(root: str) -> list[str]:
    return zsplit(run(root, *_UNTRACKED))


def has_staged_changes(root: str, against: str = "HEAD") -> bool:
    return bool(run(root, "diff", "--cached", "--name-only", "-z", "--no-ext-diff", against).strip(b"\0"))


def has_unstaged_changes(root: str) -> bool:
    return bool(run(root, "diff", "--name-only", "-z", "--no-ext-diff").strip(b"\0")) or bool(untracked(root))
