"""The working tree's changes against a commit, reused by a long-lived process while nothing they depend on changed.

`git diff --raw HEAD` and `git ls-files --others` walk and stat the whole working tree: about 35 ms
on Django's 7,000 files, most of a shadow check (the MCP server's check_edit). Their answer, for
Python files, depends only on the commit, the index, the tracked Python files, what each folder git
walks holds, and the ignore rules. So a scan is kept with the stat of each of those: a file's own,
a folder's (it moves when an entry is added, removed or renamed), the index's, the ignore files' and
git's configuration files'; the next call compares stats (a few ms) instead of asking git. ctime is
in each stat: a write, a rename or a touch moves it, and nothing sets it back.

An entry that changed less than SETTLE_NS before the scan could change again within the same
clock tick unseen (git's "racy clean" entries): a file's bytes and a folder's names are kept for
those, and compared at each reuse too.

Only a process that scans a repository twice keeps a scan (the first scan of a root is plain): a
one-shot command pays nothing for it. graphguard.check uses it for the shadow check only, with
the two other answers such a process can keep: the paths in conflict (they live in the index:
asked again when its stat moved) and blobs' bytes (a blob never changes).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from graphguard import git
from graphguard.caches import LRU
from graphguard.languages import for_path

SETTLE_NS = 2_000_000_000

Key = tuple[int, int, int, int, int] | None  # (mode, inode, size, mtime_ns, ctime_ns); None: not there


@dataclass
class _Kept:
    commit: str
    raw: list[git.RawChange]  # the Python files' changes
    stats: dict[str, Key]  # absolute path -> its stat when the scan began
    racy_files: dict[str, bytes | None] = field(default_factory=dict)  # path -> its bytes then (None: not readable)
    racy_folders: dict[str, list[str] | None] = field(default_factory=dict)  # path -> its names then


Scans = LRU[str, _Kept | None]  # root -> its kept scan (None: scanned once, nothing kept); Caches.scans
Unmerged = LRU[str, tuple[Key, list[str]]]  # root -> (the index's stat, the paths in conflict); Caches.unmerged


def worktree_changes(kept_scans: Scans, paths: git.RepoPaths, commit: str) -> list[git.RawChange]:
    """The Python files' changes between `commit` and the working tree, as git.diff_raw lists them."""
    root = paths.root
    kept = kept_scans.get(root)
    if kept is not None and kept.commit == commit and _unchanged(kept):
        return list(kept.raw)
    if root not in kept_scans:
        kept_scans.put(root, None)
        return _python(git.diff_raw(root, commit, git.WORKTREE))
    return _scan(kept_scans, paths, commit)


def unmerged_paths(kept: Unmerged, paths: git.RepoPaths) -> list[str]:
    """`git ls-files -u`, asked again only when the index's stat moved (or had just moved when asked)."""
    key = _key(os.path.join(paths.git_dir, "index"))
    got = kept.get(paths.root)
    if got is not None and key is not None and got[0] == key:
        return list(got[1])
    began = time.time_ns()
    found = git.unmerged_paths(paths.root)
    kept.pop(paths.root)
    if key is not None and max(key[3], key[4]) < began - SETTLE_NS:
        kept.put(paths.root, (key, found))
    return list(found)


def read_blobs(kept: LRU[str, bytes], root: str, shas: list[str]) -> dict[str, bytes]:
    """git.read_blobs, with the bytes of the blobs read lately kept (Caches.blobs: up to its bound in all)."""
    out = {sha: kept[sha] for sha in shas if sha in kept}
    missing = [sha for sha in shas if sha not in out]
    if missing:
        out.update(git.read_blobs(root, missing))
    for sha in shas:
        if sha in out:
            kept.put(sha, out[sha])  # the newest last
    return out


def _scan(kept_scans: Scans, paths: git.RepoPaths, commit: str) -> list[git.RawChange]:
    began = time.time_ns()
    watched = list(_watched(paths))
    stats = {p: _key(p) for p in watched}  # before git looks: what changes after, the next reuse sees
    racy = [p for p, k in stats.items() if k is not None and max(k[3], k[4]) >= began - SETTLE_NS]
    kept = _Kept(commit, [], stats, {p: _read(p) for p in racy if _is(stats[p], stat.S_ISREG)},
                 {p: _names(p) for p in racy if _is(stats[p], stat.S_ISDIR)})
    kept.raw = _python(git.diff_raw(paths.root, commit, git.WORKTREE))
    kept_scans.put(paths.root, kept)
    return list(kept.raw)


def _python(raw: list[git.RawChange]) -> list[git.RawChange]:
    return [c for c in raw if for_path(c.path) is not None]


def _unchanged(kept: _Kept) -> bool:
    return (all(_key(p) == k for p, k in kept.stats.items())
            and all(_read(p) == data for p, data in kept.racy_files.items())
            and all(_names(p) == names for p, names in kept.racy_folders.items()))


def _watched(paths: git.RepoPaths) -> Iterator[str]:
    """Every path whose stat decides the scan's answer."""
    root = paths.root
    tracked, ignored, excludes = git.walk_facts(root)
    yield from (os.path.join(root, p) for p in dict.fromkeys(tracked) if for_path(p) is not None)
    yield from _walked(root, {p.rstrip("/") for p in ignored if p.endswith("/")})
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    yield os.path.join(paths.git_dir, "index")
    yield os.path.join(paths.git_dir, "config.worktree")
    yield os.path.join(paths.common_dir, "config")
    yield os.path.join(paths.common_dir, "info", "exclude")
    yield os.path.join(home, ".gitconfig")
    yield os.path.join(xdg, "git", "config")
    yield excludes if excludes is not None else os.path.join(xdg, "git", "ignore")


def _walked(root: str, ignored: set[str]) -> Iterator[str]:
    """The folders git walks for untracked files (not .git, not an ignored folder, not a nested
    repository's inside) and the .gitignore files in them."""
    for top, folders, files in os.walk(root):
        rel = os.path.relpath(top, root).replace(os.sep, "/")
        yield top
        if ".gitignore" in files:
            yield os.path.join(top, ".gitignore")
        keep = []
        for name in folders:
            sub = name if rel == "." else f"{rel}/{name}"
            if (name == ".git" and rel == ".") or sub in ignored:
                continue
            if os.path.lexists(os.path.join(top, name, ".git")):
                yield os.path.join(top, name)  # a nested repository: git lists it, never its inside
                continue
            keep.append(name)
        folders[:] = keep


def _key(path: str) -> Key:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _is(key: Key, kind: Callable[[int], bool]) -> bool:
    return key is not None and kind(key[0])


def _read(path: str) -> bytes | None:
    """A regular file's bytes (no symlink followed, no FIFO waited for); None when it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def _names(path: str) -> list[str] | None:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return None
