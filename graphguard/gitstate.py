"""What git is in the middle of, read from the files it keeps in the git dir: no git process, not even
`subprocess` imported, since the post-commit hook asks it after every commit (graphguard.git talks to git)."""

from __future__ import annotations

import os
from typing import NamedTuple


class Operation(NamedTuple):
    """What git is in the middle of, from the files it keeps in the git dir (no git process): the hooks after a
    cherry-pick, a revert, a rebase or `git am` ask it, since git ran no pre-commit hook for those commits."""

    cherry_pick: bool  # CHERRY_PICK_HEAD: a cherry-pick is committing
    rebasing: bool  # rebase-merge/ or rebase-apply/ of a rebase: its post-rewrite comes at the end
    applying: bool  # rebase-apply/ of `git am` (not of a rebase)
    onto: str | None  # the commit a rebase replays onto
    todo_left: int  # the sequencer's commands not yet done, this one included (a range of picks or reverts)
    sequence_start: str | None  # HEAD when the sequencer started (sequencer/head)
    last_action: str  # the action of HEAD's newest reflog entry ("commit", "cherry-pick", "revert", "rebase (pick)")


def operation(git_dir: str) -> Operation:
    def read(*parts: str) -> str | None:
        try:
            with open(os.path.join(git_dir, *parts), encoding="utf-8", errors="replace") as f:
                return f.read(1 << 20)
        except OSError:
            return None

    apply_dir = os.path.isdir(os.path.join(git_dir, "rebase-apply"))
    am_rebasing = apply_dir and os.path.exists(os.path.join(git_dir, "rebase-apply", "rebasing"))
    rebasing = os.path.isdir(os.path.join(git_dir, "rebase-merge")) or am_rebasing
    onto = read("rebase-merge", "onto") or read("rebase-apply", "onto")
    todo = read("sequencer", "todo") or ""
    left = sum(1 for line in todo.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    start = read("sequencer", "head")
    return Operation(os.path.exists(os.path.join(git_dir, "CHERRY_PICK_HEAD")), rebasing, apply_dir and not am_rebasing,
                     onto.strip() if onto else None, left, start.strip() if start else None, _last_reflog_action(git_dir))


def _last_reflog_action(git_dir: str) -> str:
    """'<old> <new> <who> <when> <zone>\\t<action>: <message>' is a reflog line; the newest is last."""
    try:
        with open(os.path.join(git_dir, "logs", "HEAD"), "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    except OSError:
        return ""
    return last.partition(b"\t")[2].decode("utf-8", "replace").partition(":")[0]

