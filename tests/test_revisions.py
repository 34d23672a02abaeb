"""check.revisions and check.sides: one `git diff --raw` gives the changed files and both sides' blobs; the bytes come from one cat-file."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from graphguard import git
from graphguard.check import revisions, sides
from graphguard.config import Config
from tests.helpers import GitRepo


def test_staged_changes_carry_both_sides_blobs(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": "A = 1\n", "pkg/gone.py": "G = 1\n", "pkg/same.py": "S = 1\n", "README.md": "x\n"})
    repo.write({"pkg/a.py": "A = 2\n", "pkg/gone.py": None, "pkg/new.py": "A = 2\n", "README.md": "y\n"})
    repo.git("add", "-A")
    head = repo.head
    changes = revisions.changed(str(repo.root), Config(), head, git.INDEX)
    assert changes.paths == ["pkg/a.py", "pkg/gone.py", "pkg/new.py"]  # Python files only, in git's order
    assert set(changes.old) == {"pkg/a.py", "pkg/gone.py"} and set(changes.new) == {"pkg/a.py", "pkg/new.py"}
    assert changes.old["pkg/a.py"].sha == repo.git("rev-parse", f"{head}:pkg/a.py").strip()
    assert changes.new["pkg/a.py"].sha == repo.git("rev-parse", ":pkg/a.py").strip()
    both = sides.read_sides(str(repo.root), head, git.INDEX, changes)
    assert both.old.data == {"pkg/a.py": b"A = 1\n", "pkg/gone.py": b"G = 1\n"}
    # Two paths of one blob: both read, from one request.
    assert both.new.data == {"pkg/a.py": b"A = 2\n", "pkg/new.py": b"A = 2\n"}
    assert both.new.blobs["pkg/a.py"] == both.new.blobs["pkg/new.py"] == git.blob_sha(b"A = 2\n")
    assert both.warnings == []


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_symlink_on_either_side_is_a_warning_and_the_worktree_is_read_from_files(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": "A = 1\n", "pkg/b.py": "B = 1\n"})
    os.remove(repo.path("pkg/b.py"))
    os.symlink("a.py", repo.path("pkg/b.py"))
    repo.write({"pkg/a.py": "A = 3\n"})
    head = repo.head
    changes = revisions.changed(str(repo.root), Config(), head, git.WORKTREE)
    assert changes.paths == ["pkg/a.py", "pkg/b.py"]
    assert changes.new == {}  # the working tree is not hashed by git diff
    both = sides.read_sides(str(repo.root), head, git.WORKTREE, changes)
    assert both.old.data == {"pkg/a.py": b"A = 1\n", "pkg/b.py": b"B = 1\n"}
    assert both.new.data == {"pkg/a.py": b"A = 3\n"}
    assert [w.message for w in both.warnings] == ["symlink; not checked"]


def test_a_conflict_shows_in_the_diff_against_the_index(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mod.py": "def f(a):\n    return a\n"})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("topic", {"pkg/mod.py": "def f(a, b=1):\n    return a\n"})
    repo.git("checkout", "-q", "-")
    repo.commit("main", {"pkg/mod.py": "def f(a, c=2):\n    return a\n"})
    repo.git("merge", "topic", check=False)
    changes = revisions.changed(str(repo.root), Config(), repo.head, git.INDEX)
    assert changes.unmerged == ["pkg/mod.py"] == git.unmerged_paths(str(repo.root))
