"""A merge is blamed only for what it broke: a site broken in the merge result counts when it is broken
seen from every parent, never for a parent's own state (its own history answered for it).

Every scenario is a real repository: real merges by real git, the hook through pre-merge-commit."""

from __future__ import annotations

from collections.abc import Callable

from tests.helpers import GitRepo, Result, run_git

Run = Callable[..., Result]

BASE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a, b):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, 2)\n",
    "pkg/other.py": "def o(x):\n    return x\n",
}
# One side makes `c` required and fixes its own caller ...
REQUIRE_C = {
    "pkg/mod.py": "def f(a, b, c):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, 2, 3)\n",
}
# ... the other adds a caller of f(a, b): each side passes, the merge does not.
NEW_CALLER = {"pkg/added.py": "from pkg.mod import f\n\n\ndef h():\n    return f(4, 5)\n"}
# A side that changes o's signature and leaves its caller broken (committed without the hook).
BREAK_O = {
    "pkg/other.py": "def o(x, y):\n    return x\n",
    "pkg/calls_o.py": "from pkg.other import o\n\n\ndef k():\n    return o(1)\n",
}
UNRELATED = {"pkg/extra.py": "def e():\n    return 0\n"}


def broken_sites(r: Result) -> set[tuple[str, int]]:
    return {(c["path"], c["line"]) for ch in r.json["changes"] for c in ch["callers"] if c["status"] == "broken"}


def filler(count: int, name: str = "filler") -> dict[str, str]:
    return {f"pkg/{name}_{i}.py": f"def fill_{i}(v):\n    return v\n" for i in range(count)}


def branch_merging(make_repo: Callable[..., GitRepo], branch: dict[str, str], upstream: dict[str, str], *,
                   extra: int = 0) -> GitRepo:
    """`topic` (checked out) with `branch` committed, `main` (upstream) with `upstream` and `extra` more modules."""
    repo = make_repo(BASE)
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("the branch's work", branch)
    repo.git("checkout", "-q", "main")
    repo.commit("upstream's work", upstream | filler(extra))
    repo.git("checkout", "-q", "topic")
    return repo


def test_the_semantic_conflict_blocks_the_merge_in_the_hook_and_in_ci(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = branch_merging(make_repo, NEW_CALLER, REQUIRE_C)
    assert graphguard(repo, "install").code == 0
    before = repo.head
    proc = run_git(repo, "merge", "--no-edit", "main")  # pre-merge-commit
    assert proc.returncode != 0, proc.stdout
    assert repo.head == before
    assert "pkg/added.py:5" in proc.stdout and "BLOCK" in proc.stdout
    repo.git("commit", "-q", "--no-edit", "--no-verify")  # the merge, concluded without the hook
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 1, r.out
    assert broken_sites(r) == {("pkg/added.py", 5)}


def test_upstream_s_own_break_does_not_block_the_merge_of_it(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """main committed a broken caller with --no-verify; the clean branch that merges main is not blamed for it."""
    repo = branch_merging(make_repo, UNRELATED, BREAK_O)
    assert graphguard(repo, "install").code == 0
    proc = run_git(repo, "merge", "--no-edit", "main")  # pre-merge-commit passes: the merge broke nothing
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(repo.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 0, r.out
    assert broken_sites(r) == set()
    merged = repo.git("rev-parse", "main")[:12]
    assert f"1 broken site already in the merged parent {merged}: not the merge's, not counted" in r.json["notes"]
    # Upstream's break is still upstream's: checked on its own, main blocks.
    r = graphguard(repo, "check", "--base", "main~1", "--head", "main")
    assert r.code == 1 and "pkg/calls_o.py:5" in r.out, r.out


def test_upstream_s_own_break_and_the_semantic_conflict_in_one_merge(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """Only the merge's own break is reported, staged or committed."""
    repo = branch_merging(make_repo, NEW_CALLER, REQUIRE_C | BREAK_O)
    repo.git("merge", "--no-commit", "--no-ff", "main")
    staged = graphguard(repo, "check", "--staged", "--format", "json")
    repo.git("commit", "-q", "--no-edit", "--no-verify")
    committed = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    for r in (staged, committed):
        assert r.code == 1, r.out
        assert broken_sites(r) == {("pkg/added.py", 5)}


def test_the_branch_s_own_break_is_excused_in_the_merge_but_not_in_the_pull_request(make_repo: Callable[..., GitRepo],
                                                                                   graphguard: Run) -> None:
    """The branch committed a broken caller earlier: the merge of upstream did not make it; the PR (against main) did."""
    repo = branch_merging(make_repo, BREAK_O, UNRELATED)
    repo.git("merge", "--no-edit", "--no-verify", "main")
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 0, r.out
    assert any(n.startswith("1 broken site already in the first parent") for n in r.json["notes"]), r.json["notes"]
    for base in ("main", "HEAD~2"):  # the branch's commits are in the range: their break is theirs
        r = graphguard(repo, "check", "--base", base, "--head", "HEAD", "--format", "json")
        assert r.code == 1, (base, r.out)
        assert broken_sites(r) == {("pkg/calls_o.py", 5)}, base


def test_a_merge_that_breaks_nothing_passes(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = branch_merging(make_repo, UNRELATED, REQUIRE_C)
    repo.git("merge", "--no-edit", "--no-verify", "main")
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 0, r.out
    assert not any("already in" in n for n in r.json["notes"]), r.json["notes"]


def test_a_parent_the_merge_changed_much_of_is_compared_only_where_the_merge_s_breaks_can_be(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """Upstream changed 60 files (a broken caller among them): the conflict still blocks, upstream's break does not,
    and the comparison with the branch's first parent covered only the files where the merge meets it."""
    repo = branch_merging(make_repo, NEW_CALLER, REQUIRE_C | BREAK_O, extra=60)
    repo.git("merge", "--no-edit", "--no-verify", "main")
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 1, r.out
    assert broken_sites(r) == {("pkg/added.py", 5)}
    first = repo.git("rev-parse", "HEAD~1")[:12]
    assert any(n.startswith(f"compared with the first parent {first} only in the 1 file where") for n in r.json["notes"]), r.json["notes"]
    # And a clean branch merging that upstream passes.
    clean = branch_merging(make_repo, UNRELATED, BREAK_O, extra=60)
    clean.git("merge", "--no-edit", "--no-verify", "main")
    r = graphguard(clean, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 0, r.out


def test_a_branch_that_changed_much_merging_a_small_upstream_is_bounded_the_other_way(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """The branch made `c` required among 60 other files; upstream adds f(4, 5): the merge is blocked, compared with
    the merged parent only where the merge meets it."""
    repo = branch_merging(make_repo, REQUIRE_C | filler(60, "mine"), NEW_CALLER)
    repo.git("merge", "--no-edit", "--no-verify", "main")
    r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert r.code == 1, r.out
    assert broken_sites(r) == {("pkg/added.py", 5)}
    merged = repo.git("rev-parse", "main")[:12]
    assert any(n.startswith(f"compared with the merged parent {merged} only in the 1 file where") for n in r.json["notes"]), r.json["notes"]
