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
    assert broken == [("pkg/added.py", 5)]
    # A resolution that changes f again differs from both parents: each use is still reported once.
    repo.write({"pkg/mod.py": "def f(a, b, c, d):\n    return a\n"})
    repo.git("add", "pkg/mod.py")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.out
    [change] = r.json["changes"]
    assert set(change["breaking"]) == {"required-param-added:c", "required-param-added:d"}
    broken = [(c["path"], c["line"]) for c in change["callers"] if c["status"] == "broken"]
    assert broken == [("pkg/added.py", 5), ("pkg/use.py", 5)]
    repo.write(MAIN)
    repo.git("add", "pkg/mod.py")
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


# --- a staged file that does not parse ----------------------------------------------------------

LIB = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1)\n",
}
UNPARSABLE = {
    "conflict markers": b"def f(a):\n<<<<<<< HEAD\n    return a\n=======\n    return a + 1\n>>>>>>> topic\n",
    "python 2": b"def f(a):\n    print \"x\"\n    return a\n",
    "a NUL byte": b"def f(a):\n    return a\x00\n",
    "broken indentation": b"def f(a):\n  x = 1\n    return a\n",
}


@pytest.mark.parametrize("kind", list(UNPARSABLE))
def test_staged_file_that_does_not_parse_blocks(make_repo: Callable[..., GitRepo], graphguard: Run, kind: str) -> None:
    repo = make_repo(LIB)
    repo.write({"pkg/mod.py": UNPARSABLE[kind]})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.out
    [change] = r.json["changes"]
    assert (change["symbol"], change["change"], change["breaking"]) == ("pkg.mod", "syntax-error", ["syntax-error"])
    # its importer cannot import it
    assert [(c["path"], c["status"]) for c in change["callers"]] == [("pkg/use.py", "broken")]
    [warning] = r.json["warnings"]
    assert warning["path"] == "pkg/mod.py"
    if kind == "conflict markers":
        assert warning["message"] == "merge conflict markers (line 2); file not checked"
    text = graphguard(repo, "check", "--staged")
    assert "pkg/mod.py:" in text.out and "syntax-error" in text.out
    assert "graphguard: BLOCK: pkg/mod.py does not parse; 1 broken caller" in text.out  # the summary says why


def test_block_on_without_syntax_error_lets_it_through_with_the_warning(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**LIB, ".graphguard.toml": "block_on = []\n"})
    repo.write({"pkg/mod.py": UNPARSABLE["conflict markers"]})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 0, r.out
    assert r.json["changes"] == []
    assert [w["path"] for w in r.json["warnings"]] == ["pkg/mod.py"]


@pytest.mark.slow
def test_commit_with_conflict_markers_is_stopped_by_the_hook(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    before = repo.head
    repo.write({"pkg/mod.py": UNPARSABLE["conflict markers"]})
    repo.git("add", "-A")
    proc = run_git(repo, "commit", "-m", "oops")
    assert proc.returncode != 0, proc.stdout
    assert repo.head == before
    assert "merge conflict markers" in proc.stdout


def test_old_version_that_did_not_parse_still_checks_the_uses(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    calls = "".join(f"\n\ndef g{i}():\n    return f({i})\n" for i in range(5))
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/mod.py": "def f(a):\n    return a\n\n\ndef h(:\n    pass\n",
        "pkg/use.py": "from pkg.mod import f\n" + calls,
    })
    r = graphguard(repo, "callers", "pkg.mod.f", "--format", "json")
    assert r.code == 0
    assert len([c for c in r.json["callers"] if c["kind"] == "call"]) == 5  # the graph knows the uses
    # The staged copy fixes the syntax and adds a required parameter.
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n\n\ndef h():\n    pass\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.out
    [change] = r.json["changes"]
    assert change["symbol"] == "pkg.mod.f" and change["before"] is None and change["after"] == "def f(a, b)"
    broken = [c for c in change["callers"] if c["status"] == "broken"]
    assert len(broken) == 5 and all(c["reason"] == "missing required argument 'b'" for c in broken)
    assert any(w["path"] == "pkg/mod.py" and "does not parse" in w["message"] for w in r.json["warnings"])
    # Had every use bound, the check passes, but never silently: the warning says why.
    repo.write({"pkg/mod.py": "def f(a, b=0):\n    return a\n\n\ndef h():\n    pass\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 0, r.out
    assert r.json["changes"] == []
    assert any(w["path"] == "pkg/mod.py" and "does not parse" in w["message"] for w in r.json["warnings"])


# --- an unresolved conflict -------------------------------------------------------------------


def conflicted(make_repo: Callable[..., GitRepo]) -> GitRepo:
    """A real `git merge` stopped on a conflict in pkg/mod.py (and in a README)."""
    repo = make_repo({**LIB, "README.md": "base\n"})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("topic", {"pkg/mod.py": "def f(a, b=1):\n    return a\n", "README.md": "topic\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"pkg/mod.py": "def f(a, c=2):\n    return a\n", "README.md": "main\n"})
    assert run_git(repo, "merge", "topic").returncode != 0
    assert "pkg/mod.py" in repo.git("ls-files", "-u")
    return repo


@pytest.mark.parametrize("mode", ["--staged", "--worktree", None])
def test_unresolved_conflict_is_reported_as_a_conflict(make_repo: Callable[..., GitRepo], graphguard: Run, mode: str | None) -> None:
    repo = conflicted(make_repo)
    r = graphguard(repo, "check", *([mode] if mode else []))
    assert r.code == 2, r.out + r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "pkg/mod.py is in conflict" in r.err
    assert "removed" not in r.out + r.err and "broken" not in r.out + r.err
    # Once resolved and staged, the merge result is checked (against each parent).
    repo.write({"pkg/mod.py": "def f(a, b=1, c=2):\n    return a\n", "README.md": "both\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged")
    assert r.code == 0, r.out + r.err


# --- resolution limits ------------------------------------------------------------------------


def hierarchy(levels: int) -> dict[str, str]:
    """C0.m(self, a) at the top of a `levels`-deep chain of subclasses, a caller through the
    deepest one, and another class defining `m` (so the name alone pins nothing)."""
    classes = ["class C0:\n    def m(self, a):\n        return a\n"]
    classes += [f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, levels + 1)]
    return {
        "pkg/__init__.py": "",
        "pkg/deep.py": "\n\n".join(classes),
        "pkg/other.py": "class Other:\n    def m(self):\n        return 0\n",
        "pkg/use.py": f"from pkg.deep import C{levels}\n\n\ndef g():\n    return C{levels}().m(1)\n",
    }


def break_m(repo: GitRepo) -> None:
    text = repo.path("pkg/deep.py").read_text().replace("def m(self, a):", "def m(self, a, b):")
    repo.write({"pkg/deep.py": text})
    repo.git("add", "-A")


@pytest.mark.parametrize("how", ["stored graph", "another base"])
def test_thirty_levels_of_inheritance_are_followed(make_repo: Callable[..., GitRepo], graphguard: Run, how: str) -> None:
    repo = make_repo(hierarchy(30))
    break_m(repo)
    if how == "stored graph":
        r = graphguard(repo, "check", "--staged", "--format", "json")
    else:  # a base the stored graph does not describe: the files are resolved afresh
        repo.git("commit", "-q", "--no-verify", "-m", "break")
        r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 1, r.out
    [change] = r.json["changes"]
    assert [(c["path"], c["line"], c["status"]) for c in change["callers"]] == [("pkg/use.py", 5, "broken")]


def test_inheritance_deeper_than_the_limit_is_unknown_with_the_reason(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    from graphguard.languages.python.targets import MAX_INHERITANCE

    repo = make_repo(hierarchy(MAX_INHERITANCE + 6))
    break_m(repo)
    r = graphguard(repo, "check", "--staged", "--format", "json")
    [change] = r.json["changes"]
    [caller] = change["callers"]
    assert (caller["path"], caller["line"], caller["status"]) == ("pkg/use.py", 5, "unknown")
    assert caller["reason"].startswith(f"inheritance deeper than {MAX_INHERITANCE} levels")
    assert "missing required argument 'b'" in caller["reason"]

