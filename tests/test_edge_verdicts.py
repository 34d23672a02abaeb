"""The verdict at the edges: merges, files that do not parse, resolution limits, conflicts.

Every scenario is a real repository driven by real git (merges, conflicts, hooks).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.helpers import GitRepo, Result, run_git

Run = Callable[..., Result]

# --- merges: each side is fine, the merge result is not --------------------------------------

BASE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a, b):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, 2)\n",
}
# main makes `c` required and fixes its own caller ...
MAIN = {
    "pkg/mod.py": "def f(a, b, c):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, 2, 3)\n",
}
# ... while the branch adds a caller of f(a, b).
BRANCH = {"pkg/added.py": "from pkg.mod import f\n\n\ndef h():\n    return f(4, 5)\n"}


def semantic_conflict(make_repo: Callable[..., GitRepo]) -> GitRepo:
    """main and topic each pass on their own; their merge leaves pkg/added.py:5 broken. HEAD is main."""
    repo = make_repo(BASE)
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("add a caller", BRANCH)
    repo.git("checkout", "-q", "main")
    repo.commit("make c required", MAIN)
    return repo


def test_git_merge_runs_pre_merge_commit_and_blocks_the_semantic_conflict(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = semantic_conflict(make_repo)
    assert graphguard(repo, "install").code == 0
    before = repo.head
    proc = run_git(repo, "merge", "--no-edit", "topic")
    assert proc.returncode != 0, proc.stdout
    assert repo.head == before  # the merge was not committed
    assert "pkg/added.py:5" in proc.stdout and "BLOCK" in proc.stdout


def test_staged_merge_result_is_checked_against_each_parent(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = semantic_conflict(make_repo)
    repo.git("merge", "--no-commit", "--no-ff", "topic")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.out
    [change] = r.json["changes"]
    assert change["symbol"] == "pkg.mod.f"
    broken = [(c["path"], c["line"]) for c in change["callers"] if c["status"] == "broken"]
    assert broken == [("pkg/added.py", 5)]  # counted once, though both parents' comparisons walk f's uses
    # and `git commit` concluding the merge runs pre-commit, which blocks too
    assert graphguard(repo, "install").code == 0
    proc = run_git(repo, "commit", "--no-edit")
    assert proc.returncode != 0, proc.stdout
    assert "pkg/added.py:5" in proc.stdout


def test_merge_commit_is_checked_against_each_parent_in_ci(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = semantic_conflict(make_repo)
    repo.git("merge", "--no-edit", "topic")  # no hooks installed: the merge is committed
    assert len(repo.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert r.code == 1, r.out
    assert "pkg/added.py:5" in r.out
    # A merge that breaks nothing passes against both parents.
    fine = make_repo(BASE)
    fine.git("checkout", "-q", "-b", "topic")
    fine.commit("unrelated", {"pkg/other.py": "def o():\n    return 0\n"})
    fine.git("checkout", "-q", "main")
    fine.commit("make c required", MAIN)
    fine.git("merge", "--no-edit", "topic")
    r = graphguard(fine, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert r.code == 0, r.out
