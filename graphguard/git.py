"""Every question graphguard asks git, one function each, with a pure parser beside it.

Every question is one `git` subprocess with NUL-separated output: a hook pays
for a few milliseconds of git, not for importing a git library (GitPython
takes about 90 ms to import, a third of a hook's budget, and would only wrap
the same commands).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from graphguard.errors import GraphguardError
from graphguard.model import WireEnum

INDEX = "INDEX"  # the staged snapshot, as a pseudo revision
MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"


def run(root: str, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(
            ("git", *args), cwd=root, input=input, capture_output=True, check=False,
        )
    except FileNotFoundError:
        raise GraphguardError("git is not installed or not on PATH") from None
    except NotADirectoryError:
        raise GraphguardError(f"not a directory: {root}") from None
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GraphguardError(f"git {' '.join(args[:2])} failed: {msg[-1] if msg else proc.returncode}")
    return proc.stdout


def run_both(root: str, first: tuple[str, ...], second: tuple[str, ...]) -> tuple[bytes, bytes]:
    """Two git commands at once (`run` each): the working tree's stat pass and its walk for untracked
    files take a core each, and a long-lived process (the MCP server) answers in the longer one's time."""
    try:
        proc = subprocess.Popen(("git", *first), cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except (FileNotFoundError, NotADirectoryError):
        return run(root, *first), run(root, *second)  # run says which, in one line
    try:
        out2 = run(root, *second)
    finally:
        out1, err1 = proc.communicate()
    if proc.returncode != 0:
        msg = err1.decode("utf-8", "replace").strip().splitlines()
        raise GraphguardError(f"git {' '.join(first[:2])} failed: {msg[-1] if msg else proc.returncode}")
    return out1, out2


def zsplit(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def is_utf8_name(path: str) -> bool:
    """Whether a file name git gave is valid UTF-8 (the others arrive with surrogate escapes, which
    SQLite and the reports cannot take)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class RepoPaths:
    root: str  # work tree top level
    git_dir: str  # this worktree's git dir
    common_dir: str  # shared by all worktrees


def repo_paths(path: str, env: dict[str, str] | None = None) -> RepoPaths:
    if not os.path.isdir(path):
        raise GraphguardError(f"no such directory: {path}")
    try:
        proc = subprocess.run(
            ("git", "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"),
            cwd=path, capture_output=True, check=False, env=env,
        )
    except FileNotFoundError:
        raise GraphguardError("git is not installed or not on PATH") from None
    if proc.returncode != 0:
        raise GraphguardError(f"not a git repository (or a bare one): {os.path.abspath(path)}")
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 3:
        raise GraphguardError(f"not a git work tree: {os.path.abspath(path)}")
    root, git_dir, common = lines
    return RepoPaths(root, git_dir, os.path.normpath(os.path.join(path, common)) if not os.path.isabs(common) else common)


#: The variables that move git to another repository than the one its working directory is in.
MOVING_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE")


def follow_path(path: str) -> str | None:
    """Make every later git call of this process answer about the repository at `path` (what `--repo` named),
    whatever GIT_DIR or GIT_WORK_TREE say. When they name another one, git's repository-local variables
    (GIT_DIR, GIT_INDEX_FILE, ...: `git rev-parse --local-env-vars`) leave this process's environment, as git
    clears them itself before it enters a submodule, and the return value says so; None when they agree
    (a hook's own GIT_DIR and GIT_INDEX_FILE then stay: `git commit PATH` commits a temporary index)."""
    moving = [name for name in MOVING_VARIABLES if os.environ.get(name)]
    if not moving:
        return None
    local = run(path, "rev-parse", "--local-env-vars").decode().split()
    own = repo_paths(path, {k: v for k, v in os.environ.items() if k not in local})
    try:
        told: RepoPaths | None = repo_paths(path)
    except GraphguardError:
        told = None  # they name no repository at all
    if told is not None and (told.root, told.git_dir) == (own.root, own.git_dir):
        return None
    said = " and ".join(f"{name}={os.environ[name]}" for name in moving)
    where = f" ({told.root})" if told is not None else ""
    for name in local:
        os.environ.pop(name, None)
    return f"{said} name another repository{where} than --repo {path}: ignored, graphguard follows --repo"


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


def parse_cat_file_batch(out: bytes) -> Iterator[tuple[str, bytes]]:
    """`git cat-file --batch` output: '<sha> <type> <size>\\n<content>\\n' per object ('<sha> missing')."""
    pos = 0
    while pos < len(out):
        eol = out.index(b"\n", pos)
        header = out[pos:eol].split(b" ")
        pos = eol + 1
        if len(header) != 3:
            continue  # '<sha> missing': not in this repository (a shallow clone)
        size = int(header[2])
        yield header[0].decode(), out[pos : pos + size]
        pos += size + 1


def read_blobs(root: str, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """Contents of many blobs through one `git cat-file --batch`."""
    request = "".join(f"{sha}\n" for sha in shas).encode()
    if not request:
        return iter(())
    return parse_cat_file_batch(run(root, "cat-file", "--batch", input=request))


WORKTREE = "WORKTREE"  # the working tree, as a pseudo revision


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


def is_shallow(root: str) -> bool:
    return run(root, "rev-parse", "--is-shallow-repository").strip() == b"true"


def merge_base(root: str, a: str, b: str) -> str | None:
    out = run(root, "merge-base", a, b, check=False).strip()
    return out.decode() or None


def blobs_at(root: str, rev: str, paths: list[str]) -> dict[str, TreeEntry]:
    """path -> entry at a commit or in the index, for the given paths only."""
    if not paths:
        return {}
    if rev == INDEX:
        entries = parse_ls_files_stage(run(root, "ls-files", "-s", "-z", "--", *paths))
    else:
        entries = parse_ls_tree(run(root, "ls-tree", "-r", "-z", "--full-tree", rev, "--", *paths))
    return {e.path: e for e in entries}


def blob_sha(data: bytes) -> str:
    """The SHA git would give these bytes as a blob (for working-tree files)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


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


def unmerged_paths(root: str) -> list[str]:
    """Paths in conflict: index entries at stages 1-3 (`git ls-files -u`)."""
    paths = set()
    for rec in run(root, "ls-files", "-u", "-z").split(b"\0"):
        if rec:
            paths.add(rec.partition(b"\t")[2].decode("utf-8", "surrogateescape"))
    return sorted(paths)


def remote_default(root: str, remote: str) -> str | None:
    """The remote's default branch as this clone knows it (`refs/remotes/<remote>/HEAD`), else its main or master."""
    for ref in (f"refs/remotes/{remote}/HEAD", f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/master"):
        out = run(root, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False).strip()
        if out:
            return out.decode()
    return None


def has_commit(root: str, sha: str) -> bool:
    return bool(run(root, "rev-parse", "-q", "--verify", f"{sha}^{{commit}}", check=False).strip())
