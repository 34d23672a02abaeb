"""Which repository git answers about: its folders, and keeping GIT_DIR and GIT_WORK_TREE from moving it."""

from __future__ import annotations

import os
import subprocess
from typing import NamedTuple

from graphguard.errors import GraphguardError
from graphguard.git.process import run


class RepoPaths(NamedTuple):  # not a dataclass: the agent hook's client imports this module, not `dataclasses`
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
