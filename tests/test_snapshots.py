"""Snapshots of the graph at recent commits, and resolution in forked workers: both give the graph a fresh serial index gives."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable

import pytest

from graphguard.index import restore, workers
from tests.graphdump import differences, dump
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]


def package(n: int, flavour: str) -> dict[str, str]:
    """`n` modules calling each other; `flavour` changes every body and one signature, so every file differs."""
    files = {"pkg/__init__.py": "", "pkg/base.py": f"def root(a, b=1):\n    return '{flavour}'\n"}
    for i in range(n):
        files[f"pkg/m{i}.py"] = (
            f"from pkg.base import root\nfrom pkg import m{max(i - 1, 0)} as prev\n\n\n"
            f"def f{i}(x):\n    # {flavour}\n    return root(x) + prev.f{max(i - 1, 0)}(x)\n"
        )
    return files


def index(graphguard: Run, repo: GitRepo) -> dict[str, object]:
    r = graphguard(repo, "index", "--format", "json")
    assert r.code == 0, r.err
    result: dict[str, object] = r.json
    return result


def snapshots(repo: GitRepo) -> list[str]:
    folder = repo.graph_path.parent / "snapshots"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def fresh_dump(graphguard: Run, repo: GitRepo) -> dict[str, list[tuple[object, ...]]]:
    """The dump of a graph made from nothing at the current HEAD (the blob cache kept), snapshots set aside."""
    folder = repo.graph_path.parent
    aside = folder / "snapshots-aside"
    if (folder / "snapshots").exists():
        os.rename(folder / "snapshots", aside)
    for suffix in ("", "-wal", "-shm"):
        p = folder / ("graph.sqlite3" + suffix)
        if p.exists():
            p.unlink()
    index(graphguard, repo)
    result = dump(repo.graph_path)
    if aside.exists():
        os.rename(aside, folder / "snapshots")
    return result


@pytest.fixture
def two_branches(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    monkeypatch.setattr(restore, "SNAPSHOT_FROM", 5)
    repo = make_repo(package(12, "main"))
    repo.git("checkout", "-q", "-b", "other")
    repo.commit("other", package(12, "other") | {"pkg/extra.py": "from pkg.m3 import f3\nf3(1)\n"})
    repo.git("checkout", "-q", "main")
    return repo


def test_returning_to_a_commit_restores_its_snapshot_and_equals_a_fresh_index(two_branches: GitRepo, graphguard: Run) -> None:
    repo = two_branches
    main = repo.head
    index(graphguard, repo)
    repo.git("checkout", "-q", "other")
    assert index(graphguard, repo)["resolved"] == 14
    assert snapshots(repo) == [f"{main}.sqlite3"]  # the graph being left was kept

    repo.git("checkout", "-q", "main")
    back = index(graphguard, repo)
    assert (back["head"], back["parsed"], back["resolved"], back["files"]) == (main, 0, 0, 14)
    restored = dump(repo.graph_path)
    assert differences(restored, fresh_dump(graphguard, repo)) == []
    assert len(snapshots(repo)) == 2  # and `other` was saved on the way back
    r = graphguard(repo, "callers", "pkg.base.root", "--format", "json")
    assert r.code == 0 and sum(c["kind"] == "call" for c in r.json["callers"]) == 12


def test_a_near_snapshot_is_a_start_for_the_update(two_branches: GitRepo, graphguard: Run) -> None:
    repo = two_branches
    index(graphguard, repo)
    repo.git("checkout", "-q", "other")
    index(graphguard, repo)
    repo.git("checkout", "-q", "main")
    repo.git("checkout", "-q", "-b", "main2")
    repo.commit("one more", {"pkg/m5.py": "from pkg.base import root\n\n\ndef f5(x):\n    return root(x, 2)\n"})
    near = index(graphguard, repo)
    assert near["parsed"] == 1 and near["resolved"] <= 2  # from main's snapshot: m5 and its user, not every file
    assert differences(dump(repo.graph_path), fresh_dump(graphguard, repo)) == []


def test_a_damaged_snapshot_is_dropped_never_used(two_branches: GitRepo, graphguard: Run) -> None:
    repo = two_branches
    main = repo.head
    index(graphguard, repo)
    repo.git("checkout", "-q", "other")
    index(graphguard, repo)
    saved = repo.graph_path.parent / "snapshots" / f"{main}.sqlite3"
    data = bytearray(saved.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data), page):  # every page after the schema's: b-tree headers broken
        data[offset : offset + 8] = b"\xff" * 8
    saved.write_bytes(bytes(data))

    repo.git("checkout", "-q", "main")
    r = graphguard(repo, "index", "--format", "json")
    assert r.code == 0 and r.json["resolved"] > 0  # resolved again, not restored
    assert "snapshot of the graph" in r.err and "damaged" in r.err and "dropping it" in r.err
    assert not saved.exists()
    assert differences(dump(repo.graph_path), fresh_dump(graphguard, repo)) == []


def test_a_snapshot_of_another_head_inside_is_not_trusted(two_branches: GitRepo, graphguard: Run) -> None:
    repo = two_branches
    main = repo.head
    index(graphguard, repo)
    repo.git("checkout", "-q", "other")
    index(graphguard, repo)
    saved = repo.graph_path.parent / "snapshots" / f"{main}.sqlite3"
    with sqlite3.connect(saved) as db:
        db.execute("UPDATE meta SET value = 'not-a-commit' WHERE key = 'head'")
    db.close()
    repo.git("checkout", "-q", "main")
    assert index(graphguard, repo)["resolved"] > 0


def test_snapshots_are_bounded(two_branches: GitRepo, graphguard: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = two_branches
    index(graphguard, repo)
    for i in range(5):
        repo.git("checkout", "-q", "-b", f"b{i}")
        repo.commit(f"b{i}", package(12, f"b{i}"))
        index(graphguard, repo)
    assert len(snapshots(repo)) == 3


def test_parallel_resolution_writes_the_graph_a_serial_one_writes(make_repo: Callable[..., GitRepo], graphguard: Run,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(package(40, "main") | {"tests/test_m.py": "from pkg.m7 import f7\nf7(1)\n"})
    index(graphguard, repo)
    serial = dump(repo.graph_path)
    monkeypatch.setattr(workers, "PARALLEL_RESOLVE", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    repo.graph_path.unlink()
    index(graphguard, repo)
    assert differences(serial, dump(repo.graph_path)) == []
    assert list((repo.graph_path.parent / "scratch").iterdir()) == []  # the workers' scratch databases are gone
    # An incremental update of many files goes through the workers too.
    repo.commit("every file", package(40, "again"))
    index(graphguard, repo)
    parallel = dump(repo.graph_path)
    monkeypatch.setattr(workers, "PARALLEL_RESOLVE", 10_000)
    assert differences(parallel, fresh_dump(graphguard, repo)) == []


def test_a_reader_open_during_a_restore_keeps_the_graph_it_had(two_branches: GitRepo, graphguard: Run) -> None:
    repo = two_branches
    index(graphguard, repo)
    repo.git("checkout", "-q", "other")
    index(graphguard, repo)
    reader = sqlite3.connect(repo.graph_path, isolation_level=None)
    reader.execute("BEGIN")
    before = reader.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()[0]
    files = reader.execute("SELECT count(*) FROM files").fetchone()[0]
    repo.git("checkout", "-q", "main")
    assert index(graphguard, repo)["resolved"] == 0  # restored
    assert reader.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()[0] == before
    assert reader.execute("SELECT count(*) FROM files").fetchone()[0] == files == 15
    assert reader.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    reader.execute("COMMIT")
    assert reader.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()[0] == repo.head
    assert reader.execute("SELECT count(*) FROM files").fetchone()[0] == 14
    reader.close()


def test_a_snapshot_unused_for_two_weeks_is_pruned(two_branches: GitRepo, graphguard: Run) -> None:
    from graphguard.store.snapshots import MAX_SNAPSHOT_AGE

    repo = two_branches
    for branch in ("main", "other", "main"):
        repo.git("checkout", "-q", branch)
        index(graphguard, repo)
    other = repo.git("rev-parse", "other") + ".sqlite3"
    assert other in snapshots(repo)
    old = repo.graph_path.parent / "snapshots" / other
    stamp = old.stat().st_mtime - MAX_SNAPSHOT_AGE - 60
    os.utime(old, (stamp, stamp))
    repo.git("checkout", "-q", "-b", "third")
    repo.commit("third", package(12, "third"))
    index(graphguard, repo)
    assert other not in snapshots(repo) and snapshots(repo)


def test_snapshots_past_the_size_bound_keep_only_the_newest(two_branches: GitRepo, graphguard: Run,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from graphguard.store import snapshots as snapshot_store

    repo = two_branches
    for branch in ("main", "other", "main"):
        repo.git("checkout", "-q", branch)
        index(graphguard, repo)
    assert len(snapshots(repo)) == 2
    monkeypatch.setattr(snapshot_store, "MAX_SNAPSHOT_BYTES", 1)
    repo.git("checkout", "-q", "other")
    index(graphguard, repo)
    assert len(snapshots(repo)) == 1
