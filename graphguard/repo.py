"""Open a repository's graph, and bring it up to date on demand."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

from graphguard import git
from graphguard.config import Config
from graphguard.model import IndexResult
from graphguard.store import Store
from graphguard.versions import FACTS_VERSION, SCHEMA_VERSION


@dataclass
class Repo:
    paths: git.RepoPaths
    store: Store

    @property
    def root(self) -> str:
        return self.paths.root


def open_repo(path: str) -> Repo:
    paths = git.repo_paths(path)
    return Repo(paths, Store(paths.git_dir, paths.common_dir))


def _graph_version(path: str) -> int | None:
    """The schema version of the graph file, None when there is none (a read: creates nothing)."""
    if not os.path.isfile(path):
        return None
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def ensure_current(
    repo: Repo, *, progress: bool = True, lock_timeout: float = 30.0, config: Config | None = None
) -> IndexResult:
    """Build or refresh the graph to HEAD. When it already describes HEAD this costs one
    git call and one SQLite read: the parser and resolver are not even imported."""
    from graphguard.config import load as load_config

    head = git.head(repo.root)
    config = config or load_config(repo.root)
    if _graph_version(repo.store.graph_path) != SCHEMA_VERSION * 1000 + FACTS_VERSION:
        # Creating (or rebuilding) the graph is not atomic: of two first runs at once, the slower
        # would take the other's half-made file for a broken one and delete it. So only under
        # the write lock; opening a graph that is there never waits.
        with repo.store.write_lock(lock_timeout):
            repo.store.graph  # noqa: B018 - opening creates it
    if head is not None and repo.store.meta("head") == head and repo.store.meta("config") == config.digest():
        return IndexResult(head, noop=True)
    from graphguard.indexer import Indexer

    return Indexer(repo.paths, repo.store, progress=progress, lock_timeout=lock_timeout, config=config).update(head)
