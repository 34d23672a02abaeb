"""Open a repository's graph, and bring it up to date on demand."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphguard import git
from graphguard.store import Store


@dataclass
class IndexResult:
    head: str | None
    files: int = 0
    parsed: int = 0
    resolved: int = 0
    noop: bool = False
    elapsed_ms: int = 0
    warnings: list[tuple[str, str]] = field(default_factory=list)


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


def ensure_current(repo: Repo, *, progress: bool = True, lock_timeout: float = 30.0) -> IndexResult:
    """Build or refresh the graph to HEAD. When it already describes HEAD this costs one
    git call and one SQLite read: the parser and resolver are not even imported."""
    from graphguard.config import load as load_config

    head = git.head(repo.root)
    config = load_config(repo.root)
    if head is not None and repo.store.meta("head") == head and repo.store.meta("config") == config.digest():
        return IndexResult(head, noop=True)
    from graphguard.indexer import Indexer

    return Indexer(repo.paths, repo.store, progress=progress, lock_timeout=lock_timeout, config=config).update(head)
