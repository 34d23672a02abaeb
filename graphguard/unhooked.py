"""Commits git makes without a pre-commit hook, and which range of them to check (pure).

git runs no pre-commit hook for a cherry-pick, a revert or a rebase that applies cleanly, so those
commits are checked after the fact: post-commit for a cherry-pick or revert (once for a range, at its
last commit, against where the sequence started), post-rewrite for a rebase (its final tree once,
against the commit it was replayed onto, however many commits it replayed). An ordinary commit is
not checked again: its pre-commit hook did that. `git am` has pre-applypatch, which checks before it
commits. A push (the opt-in pre-push hook) checks each pushed range.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from graphguard.gitstate import Operation
from graphguard.model import WireEnum

ZERO = "0" * 40
#: Refs one push checks at most (each is one check); the rest are named as not checked.
MAX_PUSHED_REFS = 8


class Replay(WireEnum):
    """What made commits without a pre-commit hook (its value reads in the warnings: "the cherry-pick was not checked")."""

    CHERRY_PICK = "cherry-pick"
    REVERT = "revert"
    REBASE = "rebase"


class Unhooked(NamedTuple):
    """A range of commits no pre-commit hook saw: `base` None means the first parent of `head`."""

    what: Replay
    base: str | None
    head: str


def after_commit(op: Operation) -> Unhooked | None:
    if op.rebasing or op.applying:
        return None  # a rebase's post-rewrite checks it once; `git am` had pre-applypatch
    what = (Replay.CHERRY_PICK if op.cherry_pick or op.last_action == "cherry-pick" else
            Replay.REVERT if op.last_action == "revert" else None)
    if what is None:
        return None  # an ordinary commit: pre-commit checked it
    if op.todo_left > 1:
        return None  # a range: its last commit checks all of it at once
    return Unhooked(what, op.sequence_start if op.todo_left == 1 else None, "HEAD")


def after_rewrite(command: str, op: Operation, mapping: str) -> Unhooked | None:
    """post-rewrite's `command` (amend | rebase) and its stdin ('<old> <new>' per rewritten commit)."""
    if command != "rebase":
        return None  # `git commit --amend` ran pre-commit
    if op.onto:
        return Unhooked(Replay.REBASE, op.onto, "HEAD")
    rewritten = [line.split() for line in mapping.splitlines() if len(line.split()) >= 2]
    if not rewritten:
        return None
    return Unhooked(Replay.REBASE, f"{rewritten[0][1]}^", "HEAD")  # the first replayed commit's parent: where it went


class Pushed(NamedTuple):
    """One ref a push sends: the commits of `head` not on `base` (None: the remote's default branch; no
    such branch known: not checked)."""

    ref: str
    base: str | None
    head: str


def pushed(stdin: str, env: Mapping[str, str]) -> list[Pushed]:
    """pre-push's stdin ('<local ref> <local sha> <remote ref> <remote sha>' per ref), or the pre-commit
    framework's PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF (it reads stdin itself). Deletions are skipped."""
    if env.get("PRE_COMMIT_TO_REF"):
        ref = env.get("PRE_COMMIT_REMOTE_BRANCH") or env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
        return [Pushed(ref, env.get("PRE_COMMIT_FROM_REF") or None, env["PRE_COMMIT_TO_REF"])]
    out = []
    for line in stdin.splitlines():
        parts = line.split()
        if len(parts) != 4 or set(parts[1]) == {"0"}:
            continue  # malformed, or a deletion: nothing is sent
        local_ref, local, _, remote = parts
        out.append(Pushed(local_ref, None if set(remote) == {"0"} else remote, local))
    return out


def bounded(refs: Sequence[Pushed]) -> tuple[list[Pushed], list[Pushed]]:
    return list(refs[:MAX_PUSHED_REFS]), list(refs[MAX_PUSHED_REFS:])
