"""Open a repository's graph, and bring it up to date on demand."""

from __future__ import annotations

from dataclasses import dataclass

from graphguard import git
from graphguard.store import Store


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


def ensure_current(repo: Repo, *, progress: bool = True) -> "IndexResult":  # noqa: F821
    """Build or refresh the graph to HEAD (a no-op when it already describes HEAD)."""
    from graphguard.indexer import Indexer

    return Indexer(repo.paths, repo.store, progress=progress).update()
