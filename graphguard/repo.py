"""Open a repository's graph, and bring it up to date on demand."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from graphguard import git
from graphguard.caches import Caches
from graphguard.config import Config
from graphguard.errors import LockTimeout
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
    at: str | None = None, wait: bool = True, text_index: bool = True,
) -> IndexResult:
    """Build or refresh the graph to HEAD (or to the commit `at`). When it already describes it this costs one
    git call and one SQLite read: the parser and resolver are not even imported. After an update both
    store files are checked for damage (`verify`), and rebuilt once when there is any. A stale graph that
    a background refresher (started by a post-* hook) is bringing current is waited for (`wait`; the
    refresher itself does not wait for itself); if it is dead, the work is done here. `text_index`: an update
    brings retrieval's text index along (False on the pre-commit hook's path; see retrieval.maintain)."""
    from graphguard.config import load as load_config

    head = at if at is not None else git.head(repo.root)
    config = config or load_config(repo.root)
    try:
        return _ensure_current(repo, head, config, progress=progress, lock_timeout=lock_timeout, verify=verify, at=at,
                               wait=wait, text_index=text_index)
    except LockTimeout:
        raise  # another process has the graph: nothing of it was written here
    except BaseException:
        repo.store.drop_unbuilt()  # a failed first build leaves nothing behind to fill the disk
        raise


def _ensure_current(
    repo: Repo, head: str | None, config: Config, *, progress: bool, lock_timeout: float, verify: bool, at: str | None,
    wait: bool, text_index: bool,
) -> IndexResult:
    if stored_version(repo.store.graph_path) != GRAPH_VERSION:
        if wait and head is not None and wait_for_refresher(repo, head, config):
            return IndexResult(head, noop=True)  # a refresher was building it (a first checkout, a new version)
        # Creating (or rebuilding) the graph is not atomic: of two first runs at once, the slower
        # would take the other's half-made file for a broken one and delete it. So only under
        # the write lock; opening a graph that is there never waits.
        with repo.store.write_lock(lock_timeout):
            repo.store.graph  # noqa: B018 - opening creates it
    if head is not None and describes(repo.store, head, config.digest()):
        return IndexResult(head, noop=True)
    if wait and head is not None and wait_for_refresher(repo, head, config):
        return IndexResult(head, noop=True)
    from graphguard.index.update import Indexer

    result = Indexer(repo.paths, repo.store, progress=progress, lock_timeout=lock_timeout, config=config,
                     text_index=text_index).update(head)
    if not result.noop and verify and _worth_verifying(result) and rebuild_if_damaged(repo, lock_timeout=lock_timeout):
        return ensure_current(repo, progress=progress, lock_timeout=lock_timeout, config=config, verify=False, at=at, wait=wait,
                              text_index=text_index)
    return result


def wait_for_refresher(repo: Repo, head: str, config: Config) -> bool:
    """Wait for a live background refresher (see graphguard.background) until the graph describes `head`
    or the refresher is gone; True when the graph describes `head` then. Costs one lock probe when none runs."""
    from graphguard.background import waiting

    def done() -> bool:
        # Never open a graph the refresher has not created yet: opening creates it, outside the write lock.
        return stored_version(repo.store.graph_path) == GRAPH_VERSION and describes(repo.store, head, config.digest())

    return waiting.wait(repo.store.dir, done, also=(repo.store.blobs_path + "-wal",)) and done()


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
