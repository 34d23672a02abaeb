"""`freshness` in every JSON answer: each state made to happen on a real repository, through the CLI, the functions
under it and the MCP server's session (issue 22 §2)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from graphguard import repo as repo_module
from graphguard.background import state
from graphguard.errors import LockTimeout
from graphguard.freshness import State
from graphguard.repo import ensure_current, ensure_fresh, open_repo
from graphguard.report.compact import expand
from graphguard.server import session as session_module
from graphguard.server import tools
from graphguard.server.session import Session
from graphguard.store.lock import Lock
from tests.helpers import LIB, GitRepo, Result

Run = Callable[..., Result]
ADDED = {"pkg/more.py": "from pkg.mod import f\n\nf(2)\n"}


def _fresh(r: Result) -> dict[str, Any]:
    assert r.code in (0, 1), r.err
    return dict(r.json["freshness"])


def test_built_then_current_then_refreshed_after_a_commit(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    first = _fresh(graphguard(repo, "callers", "pkg.mod.f", "--format", "json"))
    assert first["state"] == "refreshed" and first["head"] == repo.head and first["reason"].startswith("built the graph")
    again = _fresh(graphguard(repo, "callers", "pkg.mod.f", "--format", "json"))
    assert again == {"head": repo.head, "state": "current", "refresh_ms": 0, "reason": ""}
    old = repo.head
    new = repo.commit("a caller", ADDED)
    moved = _fresh(graphguard(repo, "impact", "pkg.mod.f", "--format", "json"))
    assert moved["state"] == "refreshed" and moved["head"] == new
    assert moved["reason"] == f"updated from {old[:12]}: 1 files parsed, 1 resolved again"


@pytest.mark.parametrize("args", [("check",), ("stats",), ("outline", "pkg"), ("imports",), ("context", "f of a"),
                                  ("related", "pkg/mod.py"), ("index",)])
def test_every_json_answer_ends_with_it(make_repo: Callable[..., GitRepo], graphguard: Run, args: tuple[str, ...]) -> None:
    repo = make_repo(LIB)
    doc = graphguard(repo, *args, "--format", "json").json
    assert list(doc)[-1] == "freshness" and doc["freshness"]["head"] == repo.head
    assert doc["freshness"]["state"] == "refreshed"
    short = graphguard(repo, *args, "--compact").json
    assert short["fr"]["sa"] == "current" and expand(short)["freshness"]["state"] == "current"


def test_a_held_write_lock_gives_a_stale_answer_not_an_error(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo(LIB)
    old = repo.head
    opened = open_repo(str(repo.root))
    ensure_current(opened, progress=False)
    repo.commit("a caller", ADDED)
    other = open_repo(str(repo.root))
    with other.store.write_lock(5):  # another process updating the graph, say
        with pytest.raises(LockTimeout):
            ensure_fresh(opened, progress=False, lock_timeout=0.2)
        fresh = ensure_fresh(opened, stale_ok=True, progress=False, lock_timeout=0.2)
    assert fresh.state is State.STALE and fresh.head == old
    assert "holds the graph's write lock" in fresh.reason
    after = ensure_fresh(opened, stale_ok=True, progress=False)
    assert after.state is State.REFRESHED and after.head == repo.head


def test_a_stale_text_answer_says_so_on_stderr(make_repo: Callable[..., GitRepo], graphguard: Run,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(LIB)
    old = repo.head
    graphguard(repo, "stats")
    repo.commit("a caller", ADDED)
    real = repo_module.ensure_current
    monkeypatch.setattr(repo_module, "ensure_current", lambda r, **kw: real(r, **{**kw, "lock_timeout": 0.2}))
    with open_repo(str(repo.root)).store.write_lock(5):
        r = graphguard(repo, "callers", "pkg.mod.f")
        doc = graphguard(repo, "callers", "pkg.mod.f", "--format", "json").json
    assert r.code == 0 and f"the graph describes {old[:12]}, not HEAD" in r.err
    assert doc["head"] == old and doc["freshness"]["state"] == "stale"


def test_the_server_answers_from_the_previous_graph_while_a_refresher_works(
    make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(LIB)
    old = repo.head
    session = Session(str(repo.root))
    session.refresh()
    repo.commit("a caller", ADDED)
    monkeypatch.setattr(session_module, "STALE_AFTER", 0.3)
    lock = Lock(str(repo.graph_path.parent / state.LOCK_NAME))  # a refresher a post-* hook started, alive
    lock.acquire(0)
    try:
        doc = tools.call(session, "callers", {"symbol": "pkg.mod.f"})
    finally:
        lock.release()
    assert doc["head"] == old and [c["path"] for c in doc["callers"]].count("pkg/more.py") == 0
    assert doc["freshness"]["state"] == "stale" and "background refresh is still updating" in doc["freshness"]["reason"]
    # The next answer looks again: the refresher is gone, so the server brings the graph to HEAD itself.
    doc = tools.call(session, "callers", {"symbol": "pkg.mod.f"})
    assert doc["freshness"]["state"] == "refreshed" and doc["head"] == repo.head
    assert "pkg/more.py" in [c["path"] for c in doc["callers"]]
    assert tools.call(session, "callers", {"symbol": "pkg.mod.f"})["freshness"]["state"] == "current"
    session.close()


def test_a_wait_for_the_refresher_is_refreshed(make_repo: Callable[..., GitRepo]) -> None:
    """The refresher (here: a thread holding its lock) brings the graph to HEAD while the answer waits for it."""
    repo = make_repo(LIB)
    session = Session(str(repo.root))
    session.refresh()
    new = repo.commit("a caller", ADDED)
    lock = Lock(str(repo.graph_path.parent / state.LOCK_NAME))
    lock.acquire(0)

    def refresher() -> None:
        try:
            ensure_current(open_repo(str(repo.root)), progress=False, wait=False)
        finally:
            lock.release()

    worker = threading.Timer(0.2, refresher)
    worker.start()
    try:
        doc = tools.call(session, "check", {})
    finally:
        worker.join()
    fresh = doc["freshness"]
    assert fresh["state"] == "refreshed" and fresh["head"] == new and fresh["reason"].startswith("waited for the background")
    session.close()


def test_head_moving_while_answering_marks_it_stale(make_repo: Callable[..., GitRepo], graphguard: Run,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from graphguard.answers import callers as callers_module
    from graphguard.commands import callers as callers_command

    repo = make_repo(LIB)
    old = repo.head
    real = callers_module.callers_answer

    def commits_meanwhile(*args: Any) -> Any:
        repo.commit("lands while answering", {"pkg/late.py": "x = 1\n"})
        return real(*args)

    monkeypatch.setattr(callers_command, "callers_answer", commits_meanwhile)
    doc = graphguard(repo, "callers", "pkg.mod.f", "--format", "json").json
    assert doc["freshness"]["state"] == "stale" and doc["freshness"]["head"] == old
    assert doc["freshness"]["reason"] == f"HEAD moved to {repo.head[:12]} while answering from the graph of {old[:12]}"

    session = Session(str(repo.root))
    monkeypatch.setattr(callers_module, "callers_answer", commits_meanwhile)
    before = session.refresh().head
    doc = tools.call(session, "callers", {"symbol": "pkg.mod.f"})
    assert doc["head"] == before != repo.head and doc["freshness"]["state"] == "stale"
    session.close()
