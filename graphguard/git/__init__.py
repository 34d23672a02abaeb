"""Every question graphguard asks git, one function each, with a pure parser beside it.

Every question is one `git` subprocess with NUL-separated output: a hook pays
for a few milliseconds of git, not for importing a git library (GitPython
takes about 90 ms to import, a third of a hook's budget, and would only wrap
the same commands).

    process     running git (`run`, two at once), NUL-separated names
    repository  which repository: its folders; GIT_DIR and GIT_WORK_TREE kept from moving it
    commits     HEAD, a revision's commit, merges, parents, refs (the branches); the pseudo revisions INDEX and WORKTREE
    trees       what a commit's tree or the index holds (entries, modes), the paths in conflict, two commits merged as a tree
    blobs       blob contents through one `cat-file --batch`, a blob's id
    diffs       what changed between two revisions (status, each side's entry, renames); untracked files

The names below are the ones the rest of graphguard asks for as `git.<name>` (`from graphguard import git`
in two dozen modules): the package re-exports them rather than have each importer name a submodule. A submodule is loaded
when one of its names is first asked for (PEP 562), not when the package is: the agent hook's client asks
only for `repo_paths`, and `diffs` and `trees` bring `graphguard.model` (about 25 ms of a hook's start-up).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphguard.git.blobs import blob_sha as blob_sha
    from graphguard.git.blobs import read_at as read_at
    from graphguard.git.blobs import read_blobs as read_blobs
    from graphguard.git.commits import INDEX as INDEX
    from graphguard.git.commits import WORKTREE as WORKTREE
    from graphguard.git.commits import Branch as Branch
    from graphguard.git.commits import branches as branches
    from graphguard.git.commits import empty_tree as empty_tree
    from graphguard.git.commits import has_commit as has_commit
    from graphguard.git.commits import head as head
    from graphguard.git.commits import is_shallow as is_shallow
    from graphguard.git.commits import merge_base as merge_base
    from graphguard.git.commits import merge_heads as merge_heads
    from graphguard.git.commits import parents as parents
    from graphguard.git.commits import remote_default as remote_default
    from graphguard.git.commits import resolve_commit as resolve_commit
    from graphguard.git.diffs import ChangeStatus as ChangeStatus
    from graphguard.git.diffs import RawChange as RawChange
    from graphguard.git.diffs import diff as diff
    from graphguard.git.diffs import diff_raw as diff_raw
    from graphguard.git.diffs import has_staged_changes as has_staged_changes
    from graphguard.git.diffs import has_unstaged_changes as has_unstaged_changes
    from graphguard.git.diffs import renames as renames
    from graphguard.git.diffs import walk_facts as walk_facts
    from graphguard.git.process import is_utf8_name as is_utf8_name
    from graphguard.git.process import run as run
    from graphguard.git.repository import RepoPaths as RepoPaths
    from graphguard.git.repository import follow_path as follow_path
    from graphguard.git.repository import repo_paths as repo_paths
    from graphguard.git.trees import MODE_SUBMODULE as MODE_SUBMODULE
    from graphguard.git.trees import MODE_SYMLINK as MODE_SYMLINK
    from graphguard.git.trees import MergedTree as MergedTree
    from graphguard.git.trees import TreeEntry as TreeEntry
    from graphguard.git.trees import blobs_at as blobs_at
    from graphguard.git.trees import ls_index as ls_index
    from graphguard.git.trees import ls_tree as ls_tree
    from graphguard.git.trees import merge_tree as merge_tree
    from graphguard.git.trees import unmerged_paths as unmerged_paths

#: Each re-exported name's submodule.
_HOME: dict[str, str] = {
    "blob_sha": "blobs",
    "read_at": "blobs",
    "read_blobs": "blobs",
    "INDEX": "commits",
    "WORKTREE": "commits",
    "Branch": "commits",
    "branches": "commits",
    "empty_tree": "commits",
    "has_commit": "commits",
    "head": "commits",
    "is_shallow": "commits",
    "merge_base": "commits",
    "merge_heads": "commits",
    "parents": "commits",
    "remote_default": "commits",
    "resolve_commit": "commits",
    "ChangeStatus": "diffs",
    "RawChange": "diffs",
    "diff": "diffs",
    "diff_raw": "diffs",
    "has_staged_changes": "diffs",
    "has_unstaged_changes": "diffs",
    "renames": "diffs",
    "walk_facts": "diffs",
    "is_utf8_name": "process",
    "run": "process",
    "RepoPaths": "repository",
    "follow_path": "repository",
    "repo_paths": "repository",
    "MODE_SUBMODULE": "trees",
    "MODE_SYMLINK": "trees",
    "MergedTree": "trees",
    "TreeEntry": "trees",
    "blobs_at": "trees",
    "ls_index": "trees",
    "ls_tree": "trees",
    "merge_tree": "trees",
    "unmerged_paths": "trees",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # asked once: later lookups find it in the module, without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})
