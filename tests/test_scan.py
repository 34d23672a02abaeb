"""The working-tree scan a long-lived process reuses (graphguard.check.scan): after every kind of
change it answers what git answers, and it asks git nothing while nothing changed."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import pytest

from graphguard import git
from graphguard.caches import MAX_ROOTS, Caches
from graphguard.check import scan
from graphguard.languages.python.modules import is_python
from tests.helpers import GitRepo

FILES = {"pkg/__init__.py": "", "pkg/a.py": "x = 1\n", "pkg/sub/b.py": "y = 2\n", "README.md": "hi\n",
         ".gitignore": "build/\n"}


KEPT = [Caches()]  # what one long-lived process keeps (Repo.caches); new for each test


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    KEPT[0] = Caches()
    yield
    KEPT[0] = Caches()


def truth(repo: GitRepo) -> list[tuple[str, str, str | None]]:
    return sorted((c.path, c.status, c.old.sha if c.old else None)
                  for c in git.diff_raw(str(repo.root), repo.head, git.WORKTREE) if is_python(c.path))


def scanned(repo: GitRepo) -> list[tuple[str, str, str | None]]:
    raw = scan.worktree_changes(KEPT[0].scans, git.repo_paths(str(repo.root)), repo.head)
    return sorted((c.path, c.status, c.old.sha if c.old else None) for c in raw)


def mkdirs_write(repo: GitRepo, rel: str, text: str) -> None:
    p = repo.path(rel)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


CHANGES: dict[str, Callable[[GitRepo], None]] = {
    "edit, same size": lambda r: r.path("pkg/a.py").write_text("x = 3\n"),
    "edit back to HEAD": lambda r: r.path("pkg/a.py").write_text("x = 1\n"),
    "new file in a folder": lambda r: r.path("pkg/sub/c.py").write_text("z = 1\n"),
    "new folder": lambda r: mkdirs_write(r, "pkg/new/deep/d.py", "w = 1\n"),
    "new file in an untracked folder": lambda r: mkdirs_write(r, "pkg/new/e.py", "w = 2\n"),
    "in an ignored folder": lambda r: mkdirs_write(r, "build/gen.py", "g = 1\n"),
    "delete": lambda r: r.path("pkg/sub/b.py").unlink(),
    "rename": lambda r: r.path("pkg/a.py").rename(r.path("pkg/a2.py")),
    "staged": lambda r: r.git("add", "-A"),
    "ignore rule": lambda r: r.path(".gitignore").write_text("build/\nc.py\n"),
    "commit": lambda r: r.commit("more"),
    "nothing": lambda r: None,
}


@pytest.mark.parametrize("settle", ["racy", "settled", "coarse-clock"])
def test_reused_scan_answers_as_git_after_each_change(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch,
                                                      settle: str) -> None:
    """One repository through every change in turn; after each, the scan (reused or not) equals git's answer.
    racy: everything was just written; settled: the stats alone decide; coarse-clock: a file system
    whose times are whole seconds, so changes within one second show in no stat: the kept bytes and
    names of the entries changed lately decide."""
    if settle == "settled":
        monkeypatch.setattr(scan, "SETTLE_NS", 0)
    if settle == "coarse-clock":
        real_key = scan._key

        def coarse(path: str) -> scan.Key:
            k = real_key(path)
            return None if k is None else (k[0], k[1], k[2], k[3] // 10**9 * 10**9, k[4] // 10**9 * 10**9)
        monkeypatch.setattr(scan, "_key", coarse)
    repo = make_repo(FILES)
    repo.path("pkg/sub/c.py").write_text("untracked = 1\n")
    assert scanned(repo) == truth(repo)  # the first: plain
    for name, change in CHANGES.items():
        assert scanned(repo) == truth(repo), f"before {name}"  # kept now
        if settle == "settled":
            time.sleep(0.05)  # past the file system's clock tick: the stats alone must see the change
        change(repo)
        assert scanned(repo) == truth(repo), name


def test_nothing_asked_of_git_while_nothing_changed(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(FILES)
    repo.path("pkg/a.py").write_text("x = 22\n")
    calls: list[str] = []
    real_diff, real_walk = git.diff_raw, git.walk_facts
    monkeypatch.setattr(git, "diff_raw", lambda *a: calls.append("diff") or real_diff(*a))
    monkeypatch.setattr(git, "walk_facts", lambda *a: calls.append("walk") or real_walk(*a))
    first = scanned(repo)
    assert calls == ["diff"]  # a one-shot process keeps nothing
    assert scanned(repo) == first and calls == ["diff", "walk", "diff"]
    for _ in range(3):
        assert scanned(repo) == first
    assert calls == ["diff", "walk", "diff"]
    assert [p for p, _, _ in first] == ["pkg/a.py"]


def test_kept_scans_are_bounded(make_repo: Callable[..., GitRepo]) -> None:
    repos = [make_repo(FILES) for _ in range(MAX_ROOTS + 2)]
    for repo in repos:
        scanned(repo)
    assert len(KEPT[0].scans) == MAX_ROOTS
    assert str(repos[0].root) not in KEPT[0].scans and str(repos[-1].root) in KEPT[0].scans
    assert os.path.isdir(repos[0].root)


def test_paths_in_conflict_are_asked_again_when_the_index_moves(make_repo: Callable[..., GitRepo],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "SETTLE_NS", 0)
    repo = make_repo(FILES)
    paths = git.repo_paths(str(repo.root))
    assert scan.unmerged_paths(KEPT[0].unmerged, paths) == []
    assert str(repo.root) in KEPT[0].unmerged  # kept: the index had settled
    repo.git("checkout", "-q", "-b", "other")
    repo.commit("other", {"pkg/a.py": "x = 'other'\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"pkg/a.py": "x = 'main'\n"})
    repo.git("merge", "other", check=False)
    assert scan.unmerged_paths(KEPT[0].unmerged, paths) == ["pkg/a.py"] == git.unmerged_paths(str(repo.root))


def test_blobs_are_kept_up_to_a_bound(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(FILES)
    shas = sorted({e.sha for e in git.ls_tree(str(repo.root), "HEAD")})
    first = scan.read_blobs(KEPT[0].blobs, str(repo.root), shas)
    assert first == dict(git.read_blobs(str(repo.root), shas)) and set(KEPT[0].blobs) == set(shas)
    monkeypatch.setattr(git, "read_blobs", lambda *a: pytest.fail("asked git again"))
    assert scan.read_blobs(KEPT[0].blobs, str(repo.root), shas) == first
    KEPT[0].blobs.most = 8
    scan.read_blobs(KEPT[0].blobs, str(repo.root), shas[:1])
    assert sum(len(b) for b in KEPT[0].blobs.values()) <= 8
