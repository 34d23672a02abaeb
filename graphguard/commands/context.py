"""`graphguard context "TASK"` and `graphguard related PATH|SYMBOL...`: what an agent should read for a task."""

from __future__ import annotations

from collections.abc import Sequence

from graphguard import output
from graphguard.commands.callers import defined_name
from graphguard.config import load as load_config
from graphguard.errors import GraphguardError
from graphguard.graph import CodeGraph
from graphguard.repo import ensure_current, open_repo

MAX_DEPTH = 2


def _request(limit: int, budget: int | None, depth: int) -> None:
    if limit < 1:
        raise GraphguardError("--limit must be at least 1")
    if budget is not None and budget < 1:
        raise GraphguardError("--budget must be at least 1 token")
    if not 0 <= depth <= MAX_DEPTH:
        raise GraphguardError(f"--depth must be between 0 and {MAX_DEPTH}")


def _run(repo_path: str, command: str, *, text: str | None, seeds: Sequence[str], limit: int, budget: int | None,
         depth: int, profile: str, fmt: str) -> int:
    from graphguard.report.printable import printable
    from graphguard.retrieval.engine import Request, Retriever, ensure_indexes
    from graphguard.retrieval.render import RENDERERS

    _request(limit, budget, depth)
    seeds = _named(seeds)
    if text is not None:
        text = printable(text)  # words to search for: an undecodable byte matches nothing anyway
    repo = open_repo(repo_path)
    r = ensure_current(repo)
    if r.head is None:
        raise GraphguardError("the repository has no commit yet: nothing to retrieve")
    ensure_indexes(repo.store, repo.root, r.head)
    # An agent names a symbol as it imports it (`pkg.warn`); the graph, where it is defined.
    graph = CodeGraph(repo.store.graph)
    seeds = [defined_name(repo, graph, s) for s in seeds]
    retriever = Retriever(repo.store.graph, repo.root, r.head, load_config(repo.root))
    result = retriever.run(Request(text=text, seeds=tuple(seeds), limit=limit, budget=budget, depth=depth, profile=profile), command)
    output.write(printable(RENDERERS[fmt](result)))
    return 0


def _named(seeds: Sequence[str]) -> list[str]:
    """Seeds that can name something: a file name that is not UTF-8 is never indexed."""
    kept = []
    for s in seeds:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            output.warn(f"{s.encode('utf-8', 'surrogateescape').decode('utf-8', 'replace')!r} is not valid UTF-8; such files are not indexed")
            continue
        kept.append(s)
    return kept


def context(repo_path: str, task: str, *, limit: int = 20, budget: int | None = 8000, depth: int = 1,
            profile: str = "default", fmt: str = "text") -> int:
    if not task.strip():
        raise GraphguardError("the task text is empty")
    return _run(repo_path, "context", text=task, seeds=(), limit=limit, budget=budget, depth=depth, profile=profile, fmt=fmt)


def related(repo_path: str, seeds: Sequence[str], *, limit: int = 20, budget: int | None = 8000, depth: int = 1,
            profile: str = "default", fmt: str = "text") -> int:
    return _run(repo_path, "related", text=None, seeds=seeds, limit=limit, budget=budget, depth=depth, profile=profile, fmt=fmt)


def seeds_from_cwd(repo_path: str, seeds: Sequence[str]) -> list[str]:
    """Paths given relative to the current directory, made relative to the repository's root; others as given."""
    import os

    from graphguard import git

    out = []
    root = None
    for s in seeds:
        if os.path.isfile(s):
            if root is None:
                root = git.repo_paths(repo_path).root
            rel = os.path.relpath(os.path.abspath(s), root)
            if not rel.startswith(".."):
                out.append(rel.replace(os.sep, "/"))
                continue
        out.append(s)
    return out
