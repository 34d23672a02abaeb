"""`context` and `related`: what to read for a task text or for seeds; and fitting the ranking to a repository."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from graphguard.answers.callers import defined_name
from graphguard.answers.records import graph_head
from graphguard.errors import GraphguardError
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph

if TYPE_CHECKING:
    from graphguard.retrieval.fit import FittedProfile
    from graphguard.retrieval.records import ContextResult

MAX_RETRIEVAL_DEPTH = 2


def retrieval_sizes(limit: int | None, budget: int | None) -> tuple[int | None, int]:
    """`--limit` and `--budget` as the retrieval takes them: neither given, 20 files within 8000 tokens; a budget
    alone, as many files as it holds (the limit None); a limit alone, within 8000 tokens."""
    from graphguard.retrieval.records import DEFAULT_BUDGET, DEFAULT_LIMIT

    if limit is None and budget is None:
        return DEFAULT_LIMIT, DEFAULT_BUDGET
    return limit, DEFAULT_BUDGET if budget is None else budget


def check_retrieval_request(limit: int | None, budget: int | None, depth: int) -> None:
    if limit is not None and limit < 1:
        raise GraphguardError("--limit must be at least 1")
    if budget is not None and budget < 1:
        raise GraphguardError("--budget must be at least 1 token")
    if not 0 <= depth <= MAX_RETRIEVAL_DEPTH:
        raise GraphguardError(f"--depth must be between 0 and {MAX_RETRIEVAL_DEPTH}")


def retrieve(repo: Repo, command: str, *, text: str | None, seeds: Sequence[str], limit: int | None = 20,
             budget: int | None = 8000, depth: int = 1, profile: str = "auto") -> ContextResult:
    """Rank what to read for a task text (`context`) or for seeds (`related`) over the graph as it stands.
    The text index and history follow the graph's commit (cheap when they already describe it)."""
    from graphguard.config import load as load_config
    from graphguard.report.printable import printable
    from graphguard.retrieval import textindex
    from graphguard.retrieval.engine import Retriever, ensure_indexes
    from graphguard.retrieval.kinds import CHOICES
    from graphguard.retrieval.records import Request

    check_retrieval_request(limit, budget, depth)
    if profile not in CHOICES:
        raise GraphguardError(f"unknown profile {profile!r}; one of {', '.join(CHOICES)}")
    if text is not None:
        text = printable(text)  # words to search for: an undecodable byte matches nothing anyway
    head = graph_head(repo)
    if head is None:
        raise GraphguardError("the repository has no commit yet: nothing to retrieve")
    ensure_indexes(repo.store, repo.root, head)
    # An agent names a symbol as it imports it (`pkg.warn`); the graph, where it is defined.
    graph = CodeGraph(repo.store.graph)
    named = [defined_name(repo, graph, s) for s in seeds]
    retriever = Retriever(repo.store.graph, repo.root, head, load_config(repo.root))
    request = Request(text=text, seeds=tuple(named), limit=limit, budget=budget, depth=depth, profile=profile)
    try:
        return retriever.run(request, command)
    except textindex.Damaged:
        if repo.store.graph.in_transaction:  # a server's answer holds a read transaction: not the moment to write
            raise GraphguardError("the text index is damaged; one `graphguard context` run rebuilds it") from None
        from graphguard.retrieval.maintain import rebuild

        rebuild(repo.store, repo.root, head)
        return retriever.run(request, command)


def context_document(repo: Repo, task: str, *, budget: int | None = 8000, limit: int | None = 20, depth: int = 1,
                     profile: str = "auto") -> dict[str, Any]:
    """graphguard.context/1 for a task text."""
    from graphguard.retrieval.render import to_dict

    if not task.strip():
        raise GraphguardError("the task text is empty")
    return to_dict(retrieve(repo, "context", text=task, seeds=(), limit=limit, budget=budget, depth=depth, profile=profile))


def related_document(repo: Repo, targets: Sequence[str], *, budget: int | None = 8000, limit: int | None = 20, depth: int = 1,
                     profile: str = "auto") -> dict[str, Any]:
    """graphguard.context/1 seeded with files (relative to the repository) or dotted symbols."""
    from graphguard.retrieval.render import to_dict

    if not targets:
        raise GraphguardError("name at least one file or symbol")
    return to_dict(retrieve(repo, "related", text=None, seeds=targets, limit=limit, budget=budget, depth=depth,
                            profile=profile))


def fit_repository(repo: Repo, *, until: str | None = None, most: int = 300, seconds: float = 30.0,
                   store: bool = False, log: Callable[[str], None] = lambda _: None) -> FittedProfile:
    """Fit the ranking weights to the repository's history at the graph's HEAD (retrieval/fitting.py). `until`:
    fit on the commits before it, validate on those after. `store`: keep it as the repository's fitted profile
    (what `graphguard index` does); a benchmark leaves the stored one alone."""
    from graphguard.config import load as load_config
    from graphguard.retrieval import engine, fitting, profiles

    head = graph_head(repo)
    if head is None:
        raise GraphguardError("the repository has no commit yet: nothing to fit")
    fitted = fitting.fit_at(repo.store.graph, repo.root, head, load_config(repo.root), until=until, most=most,
                            seconds=seconds, log=log, prepare=lambda: engine.ensure_indexes(repo.store, repo.root, head))
    if store:
        with repo.store.write_lock(30.0):
            profiles.save(repo.store.graph, fitted)
    return fitted
