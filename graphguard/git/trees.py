"""What a commit's tree or the index holds: entries (mode, blob, path), all of them or some paths', and the
paths in conflict."""

from __future__ import annotations

from dataclasses import dataclass

from graphguard.errors import GraphguardError
from graphguard.git.commits import INDEX
from graphguard.git.process import run

MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    sha: str
    path: str


def parse_ls_tree(out: bytes) -> list[TreeEntry]:
    """`git ls-tree -r -z` lines: '<mode> <type> <sha>\\t<path>'."""
    entries = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, _, path = rec.partition(b"\t")
        mode, _, sha = meta.decode().split(" ")
        entries.append(TreeEntry(mode, sha, path.decode("utf-8", "surrogateescape")))
    return entries


def ls_tree(root: str, rev: str) -> list[TreeEntry]:
    return parse_ls_tree(run(root, "ls-tree", "-r", "-z", "--full-tree", rev))


def parse_ls_files_stage(out: bytes) -> list[TreeEntry]:
    """`git ls-files -s -z` lines: '<mode> <sha> <stage>\\t<path>'; stage 0 only (no conflicts)."""
    entries = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, _, path = rec.partition(b"\t")
        mode, sha, stage = meta.decode().split(" ")
        if stage == "0":
            entries.append(TreeEntry(mode, sha, path.decode("utf-8", "surrogateescape")))
    return entries


def ls_index(root: str) -> list[TreeEntry]:
    return parse_ls_files_stage(run(root, "ls-files", "-s", "-z"))


def blobs_at(root: str, rev: str, paths: list[str]) -> dict[str, TreeEntry]:
    """path -> entry at a commit or in the index, for the given paths only."""
    if not paths:
        return {}
    if rev == INDEX:
        entries = parse_ls_files_stage(run(root, "ls-files", "-s", "-z", "--", *paths))
    else:
        entries = parse_ls_tree(run(root, "ls-tree", "-r", "-z", "--full-tree", rev, "--", *paths))
    return {e.path: e for e in entries}


def unmerged_paths(root: str) -> list[str]:
    """Paths in conflict: index entries at stages 1-3 (`git ls-files -u`)."""
    paths = set()
    for rec in run(root, "ls-files", "-u", "-z").split(b"\0"):
        if rec:
            paths.add(rec.partition(b"\t")[2].decode("utf-8", "surrogateescape"))
    return sorted(paths)


@dataclass(frozen=True)
class MergedTree:
    """What `git merge-tree --write-tree` made of two commits: the merged tree (written to the object
    database, never to the work tree or the index) and the paths git could not merge."""

    tree: str
    conflicted: tuple[str, ...]


def parse_merge_tree(out: bytes) -> MergedTree:
    """`merge-tree --write-tree -z --name-only --no-messages`: '<tree>\\0' then one '<path>\\0' per conflicted
    file (a path once, whatever the number of its conflicts)."""
    tree, *paths = [p for p in out.split(b"\0") if p]
    return MergedTree(tree.decode(), tuple(dict.fromkeys(p.decode("utf-8", "surrogateescape") for p in paths)))


def merge_tree(root: str, ours: str, theirs: str) -> MergedTree:
    """The merge of two commits as a tree (git >= 2.38). Exit 1 means conflicts, which the output lists:
    only an empty output is a failure."""
    out = run(root, "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", ours, theirs, check=False)
    if not out.strip(b"\0"):
        run(root, "merge-tree", "--write-tree", "--no-messages", ours, theirs)  # raises with git's own message
        raise GraphguardError(f"git merge-tree gave no tree for {ours[:12]} and {theirs[:12]} (git 2.38 or later is needed)")
    return parse_merge_tree(out)
