"""Stage 1b: both sides' bytes, for the changed files.

The only stage that reads files: git blobs for a commit or the index, the working tree
for --worktree (regular files only, no symlink followed), and for a shadow check
(--proposed) the working tree with the proposed contents laid over it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard import git
from graphguard.caches import LRU
from graphguard.check import scan
from graphguard.check.proposed import Proposals
from graphguard.check.revisions import PROPOSED, Changes, Commits, Proposed, Staged, Target, Worktree, target_of
from graphguard.errors import GraphguardError
from graphguard.result import FileWarning


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
    new_wanted = {} if target.on_disk else _wanted(paths, changes.new, warnings)
    wanted = sorted(old_wanted.keys() | new_wanted.keys())
    # A shadow check is asked again and again by one process: the blobs it read are kept (scan.read_blobs).
    # (`kept_blobs`: Caches.blobs of the Repo.)
    if target.shadow and kept_blobs is not None:
        contents = scan.read_blobs(kept_blobs, root, wanted)
    else:
        contents = dict(git.read_blobs(root, wanted))
    old = _fill(Side(old_rev), old_wanted, paths, changes.old, contents)
    match target:
        case Proposed(proposals):
            proposed = proposals.by_path
            new = lay_over(_read_worktree(root, [p for p in paths if p not in proposed], warnings),
                           {p: proposed[p] for p in paths if p in proposed})
        case Worktree():
            new = _read_worktree(root, paths, warnings)
        case Staged() | Commits():
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
