"""Open a repository's graph, and bring it up to date on demand."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphguard import git
from graphguard.caches import Caches
from graphguard.config import Config
from graphguard.errors import LockTimeout, StillRefreshing
from graphguard.freshness import Freshness, State, with_freshness
from graphguard.model import IndexResult
from graphguard.store import Store
from graphguard.store.db import stored_version
from graphguard.store.schema import GRAPH_VERSION, describes


@dataclass
class Repo:
    paths: git.RepoPaths
    store: Store
    # What a long-lived process (the MCP server's Session) keeps between answers; a CLI run opens a new Repo.
    caches: Caches = field(default_factory=Caches)

    @property
    def root(self) -> str:
        return self.paths.root


def open_repo(path: str) -> Repo:
    paths = git.repo_paths(path)
    return Repo(paths, Store(paths.git_dir, paths.common_dir))


def ensure_current(
    repo: Repo, *, progress: bool = True, lock_timeout: float = 30.0, config: Config | None = None, verify: bool = True,
    at: str | None = None, wait: bool = True, text_index: bool = True, patience: float | None = None,
) -> IndexResult:
    """Build or refresh the graph to HEAD (or to the commit `at`). When it already describes it this costs one
    git call and one SQLite read: the parser and resolver are not even imported. After an update both
    store files are checked for damage (`verify`), and rebuilt once when there is any. A stale graph that
    a background refresher (started by a post-* hook) is bringing current is waited for (`wait`; the
    refresher itself does not wait for itself); if it is dead, the work is done here. `text_index`: an update
    brings retrieval's text index along (False on the pre-commit hook's path; see retrieval.maintain).
    `patience`: seconds to wait for a refresher updating a graph that exists before StillRefreshing (ensure_fresh)."""
    from graphguard.config import load as load_config

    head = at if at is not None else git.head(repo.root)
    config = config or load_config(repo.root)
    try:
        return _ensure_current(repo, head, config, progress=progress, lock_timeout=lock_timeout, verify=verify, at=at,
                               wait=wait, text_index=text_index, patience=patience)
    except (LockTimeout, StillRefreshing):
        raise  # another process has the graph: nothing of it was written here
    except BaseException:
        repo.store.drop_unbuilt()  # a failed first build leaves nothing behind to fill the disk
        raise


def _ensure_current(
    repo: Repo, head: str | None, config: Config, *, progress: bool, lock_timeout: float, verify: bool, at: str | None,
    wait: bool, text_index: bool, patience: float | None = None,
) -> IndexResult:
    if stored_version(repo.store.graph_path) != GRAPH_VERSION:
        if wait and head is not None and wait_for_refresher(repo, head, config):
            return IndexResult(head, noop=True, waited=True)  # a refresher was building it (a first checkout, a new version)
        # Creating (or rebuilding) the graph is not atomic: of two first runs at once, the slower
        # would take the other's half-made file for a broken one and delete it. So only under
        # the write lock; opening a graph that is there never waits.
        with repo.store.write_lock(lock_timeout):
            repo.store.graph  # noqa: B018 - opening creates it
    if head is not None and describes(repo.store, head, config.digest()):
        return IndexResult(head, noop=True)
    if wait and head is not None and wait_for_refresher(repo, head, config, patience=patience):
        return IndexResult(head, noop=True, waited=True)
    from graphguard.index.update import Indexer

    result = Indexer(repo.paths, repo.store, progress=progress, lock_timeout=lock_timeout, config=config,
                     text_index=text_index).update(head)
    if not result.noop and verify and _worth_verifying(result) and rebuild_if_damaged(repo, lock_timeout=lock_timeout):
        return ensure_current(repo, progress=progress, lock_timeout=lock_timeout, config=config, verify=False, at=at, wait=wait,
                              text_index=text_index)
    return result


def wait_for_refresher(repo: Repo, head: str, config: Config, *, patience: float | None = None) -> bool:
    """Wait for a live background refresher (see graphguard.background) until the graph describes `head`
    or the refresher is gone; True when the graph describes `head` then. Costs one lock probe when none runs."""
    from graphguard.background import waiting

    def done() -> bool:
        # Never open a graph the refresher has not created yet: opening creates it, outside the write lock.
        return stored_version(repo.store.graph_path) == GRAPH_VERSION and describes(repo.store, head, config.digest())

    return waiting.wait(repo.store.dir, done, also=(repo.store.blobs_path + "-wal",), patience=patience) and done()


def _worth_verifying(result: IndexResult) -> bool:
    """quick_check reads every page (about 90 ms on Django's graph): after an update that re-resolved a
    tenth of the files or more it is a small share of the work; after a small one (a commit's hook) it
    would double the cost, so only one in 16 of those runs it, and `stats` always checks thoroughly."""
    return result.resolved * 10 >= result.files or os.urandom(1)[0] < 16


def rebuild_if_damaged(repo: Repo, *, lock_timeout: float = 30.0, thorough: bool = False) -> bool:
    """Check both store files for damage (quick after a write, thorough in `stats`; too slow for every
    query) and discard them when there is any, so that the next ensure_current rebuilds; True when it did."""
    problem = repo.store.damage(thorough=thorough)
    if problem is None:
        return False
    print(f"graphguard: warning: the graph database is damaged ({problem}); rebuilding it", file=sys.stderr)
    with repo.store.write_lock(lock_timeout):
        repo.store.discard()
    return True


# --- how fresh an answer is -----------------------------------------------------------------------


def ensure_fresh(repo: Repo, *, stale_ok: bool = False, **options: Any) -> Freshness:
    """ensure_current (the same `options`), and how fresh it left the graph: current, refreshed (with what that
    cost), or, when `stale_ok` and a graph of an earlier commit exists, stale instead of an error: another process
    holds the write lock past `lock_timeout`, or a background refresher is still working past `patience`."""
    t0 = time.perf_counter()
    before = stored_head(repo)
    try:
        result = ensure_current(repo, **options)
    except (LockTimeout, StillRefreshing) as e:
        if not stale_ok or before is None:
            raise
        return Freshness(before, State.STALE, _ms(t0), _stale_reason(repo, e))
    return freshness_of(before, result, t0)


def freshness_of(before: str | None, result: IndexResult, t0: float) -> Freshness:
    """How fresh ensure_current's `result` left a graph that described `before`, begun at perf_counter `t0`."""
    if result.noop and not result.waited:
        return Freshness(result.head, State.CURRENT)
    return Freshness(result.head, State.REFRESHED, _ms(t0), _refreshed_reason(before, result))


def stored_head(repo: Repo) -> str | None:
    """The commit the stored graph describes, without creating a graph that is not there (or not of this version)."""
    if stored_version(repo.store.graph_path) != GRAPH_VERSION:
        return None
    return repo.store.meta("head") or None


def _ms(t0: float) -> int:
    return int((time.perf_counter() - t0) * 1000)


def _stale_reason(repo: Repo, e: Exception) -> str:
    from graphguard.background.state import running

    if isinstance(e, StillRefreshing) or running(repo.store.dir):
        return f"a background refresh is still updating the graph ({e}); answered from the graph as it was"
    return f"another graphguard process holds the graph's write lock ({e}); answered from the graph as it was"


def _refreshed_reason(before: str | None, result: IndexResult) -> str:
    if result.waited:
        return "waited for the background refresh a git hook started"
    if before is None:
        return f"built the graph: {result.files} files"
    return f"updated from {before[:12]}: {result.parsed} files parsed, {result.resolved} resolved again"


def head_probe(paths: git.RepoPaths) -> tuple[object, ...]:
    """What changes when HEAD moves, by stats and one small read (no git process): HEAD, the ref it names, packed-refs."""
    head_path = os.path.join(paths.git_dir, "HEAD")
    try:
        with open(head_path, "rb") as f:
            head_text = f.read(512).decode("utf-8", "replace")
    except OSError:
        head_text = ""
    ref = head_text[4:].strip() if head_text.startswith("ref:") else None  # None: a detached HEAD
    # Worktrees: HEAD and the index are the worktree's own, branches are shared (the common dir).
    ref_stamp = stamp(os.path.join(paths.common_dir, ref)) if ref else None
    if ref and ref.startswith(("refs/bisect", "refs/worktree")):
        ref_stamp = stamp(os.path.join(paths.git_dir, ref))
    return (head_text, ref_stamp, stamp(os.path.join(paths.common_dir, "packed-refs")))


def stamp(path: str) -> tuple[int, int, int] | None:
    """A stat's identity: (inode, size, mtime in ns); None for a missing file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def checked_after(repo: Repo, fresh: Freshness, probe: tuple[object, ...]) -> Freshness:
    """`fresh`, stale when HEAD moved since `probe` (taken before the graph was brought current) and the answer."""
    if head_probe(repo.paths) == probe:
        return fresh
    return fresh.moved(git.head(repo.root))


def fresh_answer(repo: Repo, make: Callable[[], dict[str, Any]], **options: Any) -> tuple[dict[str, Any], Freshness]:
    """The graph brought current (ensure_fresh with `options`, a stale graph accepted), the document `make` answers
    from it, with its `freshness` (stale too when HEAD moved meanwhile)."""
    probe = head_probe(repo.paths)
    fresh = ensure_fresh(repo, stale_ok=True, **options)
    doc = make()
    fresh = checked_after(repo, fresh, probe)
    return with_freshness(doc, fresh), fresh
