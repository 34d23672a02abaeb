"""`graphguard clean` removes the store; `install --uninstall` leaves it and says so."""

from __future__ import annotations

from collections.abc import Callable

from graphguard.store.lock import Lock
from tests.helpers import LIB, GitRepo, Result

Run = Callable[..., Result]


def test_clean_removes_the_store_and_the_next_command_builds_it_again(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "index").code == 0
    store = repo.root / ".git" / "graphguard"
    assert (store / "graph.sqlite3").is_file()
    r = graphguard(repo, "clean")
    assert r.code == 0, r.err
    assert f"removed {store} (" in r.out and " MB)" in r.out
    assert not store.exists()
    assert "nothing to remove" in graphguard(repo, "clean").out
    r = graphguard(repo, "callers", "pkg.mod.f")
    assert r.code == 0, r.err
    assert (store / "graph.sqlite3").is_file()


def test_clean_leaves_a_store_being_written_alone_with_one_line(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "index").code == 0
    store = repo.root / ".git" / "graphguard"
    lock = Lock(str(store / "write.lock"))
    lock.acquire(1)
    try:
        r = graphguard(repo, "clean")  # another process's update holds the lock: clean waits a little, then says why
    finally:
        lock.release()
    assert r.code == 2 and "write lock" in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert (store / "graph.sqlite3").is_file()


def test_uninstall_says_it_left_the_store(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    assert graphguard(repo, "index").code == 0
    r = graphguard(repo, "install", "--uninstall")
    assert r.code == 0, r.err
    store = repo.root / ".git" / "graphguard"
    assert f"left the graph's store {store} (" in r.out and "graphguard clean removes it" in r.out
    assert store.is_dir()
