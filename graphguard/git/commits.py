"""Commits and refs: HEAD, the commit a revision names, merge bases and the heads of a merge being made,
parents, a remote's default branch; and the two pseudo revisions beside the commits, INDEX and WORKTREE."""

from __future__ import annotations

import os
from dataclasses import dataclass

from graphguard.errors import GraphguardError
from graphguard.git.process import run

INDEX = "INDEX"  # the staged snapshot, as a pseudo revision
WORKTREE = "WORKTREE"  # the working tree, as a pseudo revision


def head(root: str) -> str | None:
    """HEAD's commit, or None in a repository without commits."""
    out = run(root, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).strip()
    return out.decode() or None


def empty_tree(root: str) -> str:
    """The empty tree's id in this repository's object format (SHA-1 or SHA-256): the old side of a root commit."""
    return run(root, "hash-object", "-t", "tree", "--stdin", input=b"").decode().strip()


def resolve_commit(root: str, rev: str) -> str:
    out = run(root, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False).strip()
    if not out:
        raise GraphguardError(f"unknown revision: {rev}")
    return out.decode()


def is_shallow(root: str) -> bool:
    return run(root, "rev-parse", "--is-shallow-repository").strip() == b"true"


def merge_base(root: str, a: str, b: str) -> str | None:
    out = run(root, "merge-base", a, b, check=False).strip()
    return out.decode() or None


def merge_heads(root: str, git_dir: str | None = None) -> list[str]:
    """The other parents of the merge being made, if one is: none outside a merge.

    `git merge` runs pre-merge-commit before it writes MERGE_HEAD and names the
    merged commits in GITHEAD_<sha> variables instead; `git commit` concluding a
    merge finds them in MERGE_HEAD. MERGE_HEAD is in the worktree's own git dir:
    given it (absolute, as `repo_paths` has it), no git call is needed to find it.
    """
    if git_dir is not None:
        path = os.path.join(git_dir, "MERGE_HEAD")
    else:
        out = run(root, "rev-parse", "--git-path", "MERGE_HEAD").decode("utf-8", "surrogateescape").strip()
        path = out if os.path.isabs(out) else os.path.join(root, out)
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            heads = f.read().split()
    except OSError:
        heads = []
    if not heads:
        heads = sorted(k[len("GITHEAD_"):] for k in os.environ if k.startswith("GITHEAD_"))
    found = []
    for sha in heads:
        try:
            found.append(resolve_commit(root, sha))
        except GraphguardError:
            continue  # not this repository's (a variable left by another repository's merge)
    return found


def parents(root: str, commit: str) -> list[str]:
    """The parents of a commit, first parent first."""
    return run(root, "rev-list", "--parents", "-n", "1", commit).decode().split()[1:]


def remote_default(root: str, remote: str) -> str | None:
    """The remote's default branch as this clone knows it (`refs/remotes/<remote>/HEAD`), else its main or master."""
    for ref in (f"refs/remotes/{remote}/HEAD", f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/master"):
        out = run(root, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False).strip()
        if out:
            return out.decode()
    return None


def has_commit(root: str, sha: str) -> bool:
    return bool(run(root, "rev-parse", "-q", "--verify", f"{sha}^{{commit}}", check=False).strip())


@dataclass(frozen=True)
class Branch:
    """A local or remote-tracking branch: its short name (`topic`, `origin/topic`), its commit, when that commit was made."""

    name: str
    commit: str
    committed: int  # committer date, seconds since the epoch


def parse_branches(out: bytes) -> list[Branch]:
    """`for-each-ref --format=%(objectname) %(committerdate:unix) %(refname)` lines, NUL-separated (refs may hold
    spaces only at the end: the ref is the rest of the line). `refs/remotes/<remote>/HEAD` is an alias: left out."""
    found = []
    for rec in out.split(b"\0"):
        line = rec.strip(b"\n").decode("utf-8", "surrogateescape")
        if not line:
            continue
        sha, date, ref = line.split(" ", 2)
        if ref.startswith("refs/remotes/") and ref.endswith("/HEAD"):
            continue
        short = ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")
        found.append(Branch(short, sha, int(date or 0)))
    return found


def branches(root: str) -> list[Branch]:
    """The local and remote-tracking branches (their tips, commits only), in ref order."""
    out = run(root, "for-each-ref", "--format=%(objectname) %(committerdate:unix) %(refname)%00", "refs/heads", "refs/remotes")
    return parse_branches(out)
