"""No old commit (the first commit, an orphan branch, a root commit): the old side is the empty tree.

Every file is new there, so each call in it is checked against its target as a new call, and a
file that does not parse blocks: "pass: nothing to compare" let a broken first commit through.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from tests.helpers import GitRepo, Result

#: A definition and two calls that do not bind to it, one in its own file and one in another.
BROKEN = {"pkg/__init__.py": "", "pkg/mod.py": "def f(a):\n    return a\n\nf()\n",
          "pkg/use.py": "from pkg.mod import f\n\nf(1, 2)\n"}
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def broken_sites(doc: dict[str, object]) -> set[tuple[str, int]]:
    changes = doc["changes"]
    assert isinstance(changes, list)
    return {(k["path"], k["line"]) for ch in changes for k in ch["callers"] if k["status"] == "broken"}


def test_staged_changes_with_no_commit_yet_are_checked_against_the_empty_tree(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo()
    repo.write(BROKEN)
    repo.git("add", "-A")
    for mode in ("--staged", "--worktree", None):
        r = graphguard(repo, "check", *([mode] if mode else []), "--format", "json")
        assert r.code == 1, (mode, r.out, r.err)
        assert r.json["base"] == EMPTY_TREE and r.json["verdict"] == "block"
        assert broken_sites(r.json) == {("pkg/mod.py", 4), ("pkg/use.py", 3)}
        assert r.json["changes"][0]["change"] == "new-calls"
    assert "no commit yet: compared with the empty tree" in graphguard(repo, "check").out


def test_a_first_commit_that_does_not_parse_blocks(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo()
    repo.write({"pkg/__init__.py": "", "pkg/bad.py": "def (:\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged")
    assert r.code == 1 and "pkg/bad.py does not parse" in r.out


def test_the_hook_blocks_the_first_commit_of_an_orphan_branch(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/old.py": "X = 1\n"})
    subprocess.run([sys.executable, "-c", "from graphguard.main import main; main(['install'])"], cwd=repo.root,
                   check=True, capture_output=True)
    repo.git("checkout", "-q", "--orphan", "pages")
    repo.git("rm", "-q", "-r", "-f", ".")
    repo.write(BROKEN)
    repo.git("add", "-A")
    proc = subprocess.run(["git", "commit", "-q", "-m", "orphan"], cwd=repo.root, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "pkg/use.py:3" in proc.stdout + proc.stderr
    assert repo.git("rev-parse", "-q", "--verify", "HEAD", check=False) == ""  # nothing was committed


def test_a_root_commit_as_head_is_compared_with_the_empty_tree(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(BROKEN)
    # CI's `--base HEAD~1` on a repository's first commit: that parent is the empty tree.
    r = graphguard(repo, "check", "--base", "HEAD~1", "--format", "json")
    assert r.code == 1, r.err
    assert r.json["base"] == EMPTY_TREE and broken_sites(r.json) == {("pkg/mod.py", 4), ("pkg/use.py", 3)}
    assert "HEAD^: a root commit has no parent; compared with the empty tree" in graphguard(repo, "check", "--base", "HEAD^").out
    # A revision that names nothing is still an error.
    r = graphguard(repo, "check", "--base", "nosuchbranch~1")
    assert r.code == 2 and "unknown revision: nosuchbranch~1" in r.err


def test_an_orphan_branch_against_main_is_all_new(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/old.py": "X = 1\n"})
    repo.git("checkout", "-q", "--orphan", "pages")
    repo.git("rm", "-q", "-r", "-f", ".")
    repo.commit("orphan", BROKEN)
    r = graphguard(repo, "check", "--base", "main", "--format", "json")
    assert r.code == 1, r.err
    assert broken_sites(r.json) == {("pkg/mod.py", 4), ("pkg/use.py", 3)}
    assert "main and HEAD have no common ancestor; compared with the empty tree" in graphguard(repo, "check", "--base", "main").out
    # The graph was not moved to the empty tree: it still describes a commit.
    assert graphguard(repo, "stats", "--format", "json").json["head"] == repo.head
