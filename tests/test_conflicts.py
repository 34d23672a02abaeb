"""`graphguard conflicts`: the breaks that merging two branches would have and neither has alone (a semantic
merge conflict), from the tree `git merge-tree` writes; real repositories, real branches, real git."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard import git
from graphguard.check.conflicts import only_in_merge, recent
from graphguard.git.trees import parse_merge_tree
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]

BASE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a, tz=None):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1)\n",
}
# Branch A renames f to fetch and fixes its one caller ...
RENAME = {
    "pkg/mod.py": "def fetch(a, tz=None):\n    return a\n",
    "pkg/use.py": "from pkg.mod import fetch\n\n\ndef g():\n    return fetch(1)\n",
}
# ... branch B adds calls to f under its old name: each passes alone, the merge does not.
NEW_CALLS = {"pkg/report.py": "from pkg import mod\n\n\ndef r():\n    mod.f(2)\n    mod.f(3)\n    return mod.f(4)\n"}
# Branch A moves `tz` to the keyword-only arguments (and fixes g), B passes it by position.
KEYWORD_ONLY = {
    "pkg/mod.py": "def f(a, *, tz=None):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, tz=None)\n",
}
POSITIONAL_TZ = {"pkg/zone.py": "from pkg.mod import f\n\n\ndef z():\n    return f(1, 'UTC')\n"}
UNRELATED = {"pkg/extra.py": "def e():\n    return 0\n"}


def two_branches(make_repo: Callable[..., GitRepo], ours: dict[str, str], theirs: dict[str, str]) -> GitRepo:
    """`main` checked out with `ours` committed, `topic` (from the same base) with `theirs`."""
    repo = make_repo(BASE)
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("topic's work", theirs)
    repo.git("checkout", "-q", "main")
    repo.commit("main's work", ours)
    return repo


def sites(r: Result, ref: str = "topic") -> set[tuple[str, int, str]]:
    branch = next(b for b in r.json["branches"] if b["ref"] == ref)
    return {(c["path"], c["line"], c["status"]) for ch in branch["changes"] for c in ch["callers"]}


def test_a_rename_on_one_branch_breaks_the_calls_the_other_adds(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = two_branches(make_repo, RENAME, NEW_CALLS)
    before = (repo.git("status", "--porcelain"), repo.git("rev-parse", "HEAD"), repo.git("ls-files", "-s"))
    # Each side alone passes its own check.
    assert graphguard(repo, "check", "--base", "main~1").code == 0
    assert graphguard(repo, "check", "--base", "main", "--head", "topic").code == 0
    r = graphguard(repo, "conflicts", "--format", "json")
    assert r.code == 1, r.out + r.err
    doc = r.json
    assert doc["schema"] == "graphguard.conflicts/1"
    [branch] = doc["branches"]
    assert branch["ref"] == "topic" and branch["verdict"] == "block" and branch["conflicted"] == []
    assert branch["merge_base"] == repo.git("merge-base", "main", "topic")
    assert sites(r) == {("pkg/report.py", 5, "broken"), ("pkg/report.py", 6, "broken"), ("pkg/report.py", 7, "broken")}
    assert branch["changes"][0]["symbol"] == "pkg.mod.f" and branch["changes"][0]["change"] == "renamed"
    # Nothing moved: not the work tree, not the index, not HEAD.
    assert (repo.git("status", "--porcelain"), repo.git("rev-parse", "HEAD"), repo.git("ls-files", "-s")) == before
    text = graphguard(repo, "conflicts")
    assert text.code == 1 and "topic (merge base" in text.out and "BLOCK" in text.out and "pkg/report.py:5" in text.out


def test_an_argument_moved_to_keyword_only_breaks_the_other_branchs_positional_call(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = two_branches(make_repo, KEYWORD_ONLY, POSITIONAL_TZ)
    r = graphguard(repo, "conflicts", "--against", "topic", "--format", "json")
    assert r.code == 1, r.out + r.err
    assert sites(r) == {("pkg/zone.py", 5, "broken")}
    # Seen from the other branch the same: the merge is the merge.
    repo.git("checkout", "-q", "topic")
    back = graphguard(repo, "conflicts", "--against", "main", "--format", "json")
    assert back.code == 1 and sites(back, "main") == {("pkg/zone.py", 5, "broken")}


def test_two_independent_branches_report_nothing(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = two_branches(make_repo, RENAME, UNRELATED)
    r = graphguard(repo, "conflicts", "--format", "json")
    assert r.code == 0, r.out + r.err
    [branch] = r.json["branches"]
    assert branch["verdict"] == "pass" and branch["changes"] == []


def test_a_break_one_side_has_alone_is_not_the_merges(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # main renames f and leaves g broken (committed without the hook); topic adds calls to f: only those are the merge's.
    ours = {"pkg/mod.py": RENAME["pkg/mod.py"]}
    repo = two_branches(make_repo, ours, NEW_CALLS)
    r = graphguard(repo, "conflicts", "--format", "json")
    assert r.code == 1
    assert ("pkg/use.py", 5, "broken") not in sites(r)
    assert {p for p, _, _ in sites(r)} == {"pkg/report.py"}


def test_each_side_alone_resolves_only_the_files_where_the_merge_fails(make_repo: Callable[..., GitRepo], graphguard: Run,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A side alone is asked only about the merged tree's failing sites: an unchanged file that names `f` (its own)
    is not resolved against the merge base for it, and the answer is the one a full comparison gives."""
    from graphguard.languages.python.resolver import Resolver

    repo = make_repo({**BASE, "pkg/other.py": "def f():\n    return 1\n\n\ndef h():\n    return f()\n"})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("topic's work", NEW_CALLS)
    repo.git("checkout", "-q", "main")
    repo.commit("main's work", {"pkg/mod.py": RENAME["pkg/mod.py"]})  # g left broken: main's own
    assert graphguard(repo, "index").code == 0  # the graph at HEAD: what the indexer resolves is not counted
    resolved: list[str] = []
    real = Resolver.resolve_file
    monkeypatch.setattr(Resolver, "resolve_file", lambda self, path: resolved.append(path) or real(self, path))
    r = graphguard(repo, "conflicts", "--format", "json")
    assert r.code == 1 and {p for p, _, _ in sites(r)} == {"pkg/report.py"}
    assert "pkg/report.py" in resolved and "pkg/other.py" not in resolved


def test_a_textual_conflict_is_reported_as_such_not_checked(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = two_branches(make_repo, RENAME, {"pkg/mod.py": "def f(a, tz=None, x=0):\n    return a\n"})
    r = graphguard(repo, "conflicts", "--format", "json")
    assert r.code == 0, r.out + r.err  # git says so at the merge; nothing of graphguard's to block
    [branch] = r.json["branches"]
    assert branch["verdict"] == "conflict" and branch["conflicted"] == ["pkg/mod.py"] and branch["changes"] == []
    assert "textual conflicts in 1 file (pkg/mod.py)" in graphguard(repo, "conflicts").out


@pytest.mark.parametrize("fmt", ["markdown", "sarif", "github", "codequality"])
def test_the_ci_formats_carry_the_merges_breaks(make_repo: Callable[..., GitRepo], graphguard: Run, fmt: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    repo = two_branches(make_repo, RENAME, NEW_CALLS)
    r = graphguard(repo, "conflicts", "--format", fmt)
    assert r.code == 1 and "pkg/report.py" in r.out
    if fmt in ("sarif", "codequality"):
        json.loads(r.out)


def test_compact_expands_to_the_full_answer(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    from graphguard.report.compact import expand

    repo = two_branches(make_repo, RENAME, NEW_CALLS)
    full = graphguard(repo, "conflicts", "--format", "json").json
    small = graphguard(repo, "conflicts", "--compact")
    got = expand(json.loads(small.out))
    got["stats"]["elapsed_ms"] = full["stats"]["elapsed_ms"] = 0
    assert got == full


def test_the_default_branches_are_recent_ones_with_commits_head_lacks(make_repo: Callable[..., GitRepo]) -> None:
    repo = two_branches(make_repo, RENAME, NEW_CALLS)
    repo.git("branch", "merged", "main~1")  # an ancestor of HEAD: nothing to merge
    repo.git("update-ref", "refs/remotes/origin/topic", "topic")  # the same tip under a second name: once
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/topic")
    env = {**os.environ, "GIT_COMMITTER_DATE": "2000-01-01T00:00:00"}
    subprocess.run(["git", "checkout", "-q", "-b", "stale", "main~1"], cwd=repo.root, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "old"], cwd=repo.root, check=True, env=env)
    repo.git("checkout", "-q", "main")
    root = str(repo.root)
    chosen = recent(root, repo.head, git.branches(root), time.time())
    assert [c.ref for c in chosen.candidates] == ["topic"]
    assert "1 branch older than 30 days: not checked" in chosen.notes and "1 branch already in HEAD: not checked" in chosen.notes


def test_parse_merge_tree_lists_each_conflicted_path_once() -> None:
    merged = parse_merge_tree(b"abc\0a.py\0a.py\0b.py\0")
    assert merged.tree == "abc" and merged.conflicted == ("a.py", "b.py")


def _site(path: str, line: int, caller: str = "r") -> CallerImpact:
    return CallerImpact(path, line, line, caller, Status.BROKEN, "no f")


def test_only_in_merge_subtracts_each_sides_sites_by_what_they_are_not_their_lines() -> None:
    change = SymbolImpact("pkg.mod.f", "pkg/mod.py", 1, ChangeKind.RENAMED, (), "f()", None)
    merged = [SymbolImpact(**{**change.__dict__, "callers": (_site("a.py", 9), _site("a.py", 12), _site("b.py", 3))})]
    alone = [[SymbolImpact(**{**change.__dict__, "callers": (_site("a.py", 4),)})]]  # the same site, before lines shifted
    [kept] = only_in_merge(merged, alone)
    assert [(c.path, c.line) for c in kept.callers] == [("a.py", 12), ("b.py", 3)]
    assert only_in_merge(merged[:0], alone) == []


def test_an_unknown_ref_is_one_line_exit_2(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = two_branches(make_repo, RENAME, NEW_CALLS)
    r = graphguard(repo, "conflicts", "--against", "nope")
    assert r.code == 2 and "unknown revision: nope" in r.err


def test_the_opt_in_pre_push_entry_runs_conflicts() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = {h["id"]: h for h in load_manifest(str(Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml"))}
    entry = hooks["graphguard-conflicts"]
    assert entry["entry"] == "python -I -m graphguard conflicts" and entry["stages"] == ["pre-push"]
    assert entry["always_run"] and not entry["pass_filenames"] and entry["require_serial"]
