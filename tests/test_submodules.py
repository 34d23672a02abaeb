"""A submodule bump is a change: the report says that the submodule moved and was not checked.

graphguard's graph holds the superproject's files only; a gitlink that moves can break what the
superproject calls in the submodule, and "0 Python files changed" said nothing had happened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import GitRepo, Result


@pytest.fixture
def superproject(make_repo: Callable[..., GitRepo], tmp_path: Path) -> tuple[GitRepo, GitRepo, str, str]:
    """A superproject with `libs/money` as a submodule, whose `parse` gained a required parameter upstream
    after the commit the superproject records: (superproject, submodule checkout, old sha, new sha)."""
    lib = make_repo({"money.py": "def parse(text):\n    return text\n"}, name="money")
    old = lib.head
    new = lib.commit("parse needs a currency", {"money.py": "def parse(text, currency):\n    return text\n"})
    lib.git("checkout", "-q", old)
    sup = make_repo({"app.py": "from libs.money.money import parse\n\nparse('1.00')\n"}, name="super")
    sup.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib.root), "libs/money")
    sup.git("-C", "libs/money", "checkout", "-q", old)
    sup.commit("add the submodule")
    return sup, GitRepo(sup.root / "libs" / "money"), old, new


def test_a_staged_submodule_bump_is_named_in_every_report(
        superproject: tuple[GitRepo, GitRepo, str, str], graphguard: Callable[..., Result]) -> None:
    sup, sub, old, new = superproject
    sub.git("checkout", "-q", new)
    sup.git("add", "libs/money")
    said = f"submodule libs/money moved {old[:12]}..{new[:12]}: not checked"
    r = graphguard(sup, "check", "--staged")
    assert r.code == 0, r.err
    assert said in r.out
    assert r.out.rstrip().endswith("0 Python files changed; 1 submodule moved, not checked: libs/money)")
    doc = graphguard(sup, "check", "--staged", "--format", "json").json
    assert [w["path"] for w in doc["warnings"]] == ["libs/money"] and said in doc["warnings"][0]["message"]
    md = graphguard(sup, "check", "--staged", "--format", "markdown").out
    assert said in md and "1 submodule moved, not checked" in md


def test_a_committed_bump_and_a_moved_checkout(superproject: tuple[GitRepo, GitRepo, str, str],
                                               graphguard: Callable[..., Result]) -> None:
    sup, sub, old, new = superproject
    sub.git("checkout", "-q", new)
    # Not staged: the working tree's submodule is at another commit than the one recorded.
    r = graphguard(sup, "check", "--worktree")
    assert f"submodule libs/money moved {old[:12]}..(the commit checked out): not checked" in r.out
    sup.commit("bump money")
    r = graphguard(sup, "check", "--base", "HEAD~1")
    assert f"submodule libs/money moved {old[:12]}..{new[:12]}: not checked" in r.out
    # Edits inside the submodule's own working tree are its business, not a move.
    sub.write({"money.py": "def parse(text, currency, extra):\n    return text\n"})
    assert "submodule" not in graphguard(sup, "check", "--worktree").out
