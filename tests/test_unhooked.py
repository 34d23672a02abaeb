"""Commits git makes without a pre-commit hook (cherry-pick, revert, rebase, `git am`) are checked, and an
opt-in pre-push hook refuses a broken head: real git commands with graphguard's native hooks installed.

Branch `other` gives `f` a required parameter and fixes its callers; `main` adds a new caller `f(5)`.
Each side passes its own pre-commit hook; putting `other`'s commit on top of `main` breaks `f(5)`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard import gitstate, unhooked
from tests.helpers import BREAK, FIX, LIB, GitRepo, Result, run_git, settled_meta, wait_for_refresher

NEW_CALLER = {"pkg/new.py": "from pkg.mod import f\n\nf(5)\n"}
BROKEN_SITE = "pkg/new.py:3"
WARNING = "graphguard: WARNING: the"


def diverged(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> GitRepo:
    repo = make_repo(LIB)
    assert graphguard(repo, "install", "--pre-push").code == 0
    repo.git("checkout", "-q", "-b", "other")
    repo.commit("f needs b", {**BREAK, **FIX})
    repo.git("checkout", "-q", "main")
    repo.commit("a new caller", NEW_CALLER)
    return repo


def test_a_clean_cherry_pick_that_breaks_a_caller_says_so(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = diverged(make_repo, graphguard)
    before = repo.head
    p = run_git(repo, "cherry-pick", "other")
    assert p.returncode == 0, p.stdout  # the commit is made: a post-commit hook cannot undo it
    assert f"{WARNING} cherry-pick committed a change that leaves callers broken" in p.stdout
    assert f"broken  {BROKEN_SITE}" in p.stdout
    assert f"graphguard check --base {repo.head[:12]}^ --head {repo.head[:12]}" in p.stdout
    shown = graphguard(repo, "check", "--base", f"{repo.head[:12]}^", "--head", repo.head[:12])
    assert shown.code == 1 and BROKEN_SITE in shown.out
    assert repo.git("rev-parse", "HEAD^") == before


def test_a_range_of_picks_is_checked_once_at_its_end(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = diverged(make_repo, graphguard)
    start = repo.head
    repo.git("checkout", "-q", "other")
    repo.commit("two", {"pkg/two.py": "T = 2\n"})
    repo.commit("three", {"pkg/three.py": "T = 3\n"})
    repo.git("checkout", "-q", "main")
    p = run_git(repo, "cherry-pick", "main..other")  # three commits, the breaking one first
    assert p.returncode == 0, p.stdout
    assert p.stdout.count(WARNING) == 1, p.stdout
    assert f"--base {start[:12]} --head {repo.head[:12]}" in p.stdout


@pytest.mark.slow
def test_a_clean_rebase_is_checked_once_against_where_it_landed(make_repo: Callable[..., GitRepo],
                                                                graphguard: Callable[..., Result]) -> None:
    repo = diverged(make_repo, graphguard)
    main = repo.head
    repo.git("checkout", "-q", "other")
    for i in range(3):
        repo.commit(f"more {i}", {f"pkg/more{i}.py": f"M = {i}\n"})
    p = run_git(repo, "rebase", "main")
    assert p.returncode == 0, p.stdout
    assert p.stdout.count(WARNING) == 1, p.stdout  # not one per replayed commit
    assert f"{WARNING} rebase committed" in p.stdout and f"broken  {BROKEN_SITE}" in p.stdout
    assert f"--base {main[:12]} --head {repo.head[:12]}" in p.stdout


def test_a_revert_that_breaks_a_caller_says_so(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    repo.commit("f needs b", {**BREAK, **FIX})
    repo.commit("a new caller", {"pkg/new.py": "from pkg.mod import f\n\nf(5, 6)\n"})
    p = run_git(repo, "revert", "--no-edit", "HEAD~1")  # f(a) again: the new f(5, 6) breaks
    assert p.returncode == 0, p.stdout
    assert f"{WARNING} revert committed" in p.stdout and "broken  pkg/new.py:3" in p.stdout


def test_an_ordinary_commit_is_not_checked_twice(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    repo.write(BREAK)
    repo.git("add", "-A")
    p = run_git(repo, "commit", "-q", "--no-verify", "-m", "skipped on purpose")
    assert p.returncode == 0 and "graphguard" not in p.stdout, p.stdout


def test_git_am_of_a_breaking_patch_is_stopped(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                tmp_path: Path) -> None:
    repo = diverged(make_repo, graphguard)
    patch = tmp_path / "p.patch"
    patch.write_text(repo.git("format-patch", "-1", "--stdout", "other") + "\n")
    head = repo.head
    p = run_git(repo, "am", str(patch))
    assert p.returncode != 0 and f"broken  {BROKEN_SITE}" in p.stdout, p.stdout
    assert repo.head == head
    run_git(repo, "am", "--abort")


def _remote(repo: GitRepo, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(tmp_path / "remote.git")], check=True)
    repo.git("remote", "add", "origin", str(tmp_path / "remote.git"))


@pytest.mark.slow
def test_pre_push_refuses_a_broken_head(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result], tmp_path: Path) -> None:
    repo = diverged(make_repo, graphguard)
    _remote(repo, tmp_path)
    assert run_git(repo, "push", "-q", "origin", "main").returncode == 0
    repo.git("remote", "set-head", "origin", "main")
    run_git(repo, "cherry-pick", "other")  # committed broken (and said so)
    p = run_git(repo, "push", "origin", "main")
    assert p.returncode != 0 and "push refused: refs/heads/main leaves callers broken" in p.stdout, p.stdout
    assert repo.git("rev-parse", "origin/main") == repo.git("rev-parse", "HEAD^")
    # A new branch is checked against the remote's default branch.
    repo.git("checkout", "-q", "-b", "topic")
    p = run_git(repo, "push", "origin", "topic")
    assert p.returncode != 0 and "push refused: refs/heads/topic" in p.stdout, p.stdout
    # Fixed: pushed.
    repo.commit("fix the caller", {"pkg/new.py": "from pkg.mod import f\n\nf(5, 6)\n"})
    p = run_git(repo, "push", "origin", "topic", "main")
    assert p.returncode != 0  # main is still broken, topic is not
    assert "refs/heads/main leaves" in p.stdout and "refs/heads/topic leaves" not in p.stdout
    assert run_git(repo, "push", "-q", "origin", "topic").returncode == 0


def test_without_the_opt_in_there_is_no_pre_push_hook(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    assert not (repo.root / ".git" / "hooks" / "pre-push").exists()
    assert graphguard(repo, "install", "--pre-push").code == 0
    assert (repo.root / ".git" / "hooks" / "pre-push").is_file()
    assert graphguard(repo, "install", "--uninstall").code == 0
    assert not (repo.root / ".git" / "hooks" / "pre-push").exists()


def test_what_each_state_asks_for() -> None:
    op = gitstate.Operation(cherry_pick=False, rebasing=False, applying=False, onto=None, todo_left=0,
                            sequence_start=None, last_action="commit")
    assert unhooked.after_commit(op) is None
    assert unhooked.after_commit(op._replace(cherry_pick=True)) == unhooked.Unhooked("cherry-pick", None, "HEAD")
    assert unhooked.after_commit(op._replace(cherry_pick=True, todo_left=3, sequence_start="s")) is None
    assert unhooked.after_commit(op._replace(last_action="revert", todo_left=1, sequence_start="s")) == unhooked.Unhooked("revert", "s", "HEAD")
    assert unhooked.after_commit(op._replace(cherry_pick=True, rebasing=True)) is None
    assert unhooked.after_rewrite("amend", op, "a b\n") is None
    assert unhooked.after_rewrite("rebase", op._replace(onto="o"), "") == unhooked.Unhooked("rebase", "o", "HEAD")
    assert unhooked.after_rewrite("rebase", op, "a1 b1\na2 b2\n") == unhooked.Unhooked("rebase", "b1^", "HEAD")
    z = "0" * 40
    assert unhooked.pushed(f"refs/heads/x {'1' * 40} refs/heads/x {z}\nrefs/heads/y {z} refs/heads/y {'2' * 40}\n", {}) == [
        unhooked.Pushed("refs/heads/x", None, "1" * 40)]


def test_the_commits_a_rebase_replays_start_no_refresh_of_their_own(make_repo: Callable[..., GitRepo],
                                                                     graphguard: Callable[..., Result]) -> None:
    """post-commit runs for every replayed commit; the rebase's post-rewrite refreshes the graph once, at the end."""
    repo = diverged(make_repo, graphguard)
    repo.git("checkout", "-q", "other")
    for i in range(3):
        repo.commit(f"more {i}", {f"pkg/more{i}.py": f"M = {i}\n"})
    assert wait_for_refresher(repo)
    log = repo.root / ".git" / "graphguard" / "refresh.log"
    before = log.read_text() if log.exists() else ""
    p = run_git(repo, "rebase", "main")
    assert p.returncode == 0, p.stdout
    assert settled_meta(repo) == repo.head
    started = [line for line in log.read_text()[len(before):].splitlines() if line.startswith("---")]
    # (the rebase's first step, a checkout of `main`, runs post-checkout)
    assert not [line for line in started if line.endswith("started by post-commit")], started
    assert started[-1].endswith("started by post-rewrite"), started
