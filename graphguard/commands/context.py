"""`graphguard context "TASK"` and `graphguard related PATH|SYMBOL...`: what an agent should read for a task."""

from __future__ import annotations

from collections.abc import Sequence

from graphguard import output
from graphguard.answers.context import check_retrieval_request, retrieval_sizes, retrieve
from graphguard.errors import GraphguardError
from graphguard.repo import checked_after, ensure_fresh, head_probe, open_repo


def _run(repo_path: str, command: str, *, text: str | None, seeds: Sequence[str], limit: int | None,
         budget: int | None, depth: int, profile: str, fmt: str, compact: bool = False) -> int:
    from graphguard.report.printable import printable
    from graphguard.retrieval.render import RENDERERS

    check_retrieval_request(limit, budget, depth)
    limit, budget = retrieval_sizes(limit, budget)
    seeds = _named(seeds)
    repo = open_repo(repo_path)
    probe = head_probe(repo.paths)
    fresh = ensure_fresh(repo)  # retrieval writes its text index at the graph's commit: no answer from a stale graph
    result = retrieve(repo, command, text=text, seeds=seeds, limit=limit, budget=budget, depth=depth, profile=profile)
    fresh = checked_after(repo, fresh, probe)
    if compact or fmt == "json":
        from graphguard.commands.printing import write_compact
        from graphguard.freshness import with_freshness
        from graphguard.retrieval.render import to_dict

        doc = with_freshness(to_dict(result), fresh)
        if compact:
            return write_compact(doc)
        import json

        output.write(printable(json.dumps(doc, indent=2, ensure_ascii=False)))
        return 0
    from graphguard.commands.printing import note_stale

    note_stale(fresh)
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


def context(repo_path: str, task: str, *, limit: int | None = None, budget: int | None = None, depth: int = 1,
            profile: str = "auto", fmt: str = "text", compact: bool = False) -> int:
    if not task.strip():
        raise GraphguardError("the task text is empty")
    return _run(repo_path, "context", text=task, seeds=(), limit=limit, budget=budget, depth=depth, profile=profile, fmt=fmt,
                compact=compact)


def related(repo_path: str, seeds: Sequence[str], *, limit: int | None = None, budget: int | None = None, depth: int = 1,
            profile: str = "auto", fmt: str = "text", compact: bool = False) -> int:
    return _run(repo_path, "related", text=None, seeds=seeds, limit=limit, budget=budget, depth=depth, profile=profile, fmt=fmt,
                compact=compact)


def seeds_from_cwd(repo_path: str, seeds: Sequence[str], *, folders: bool = False) -> list[str]:
    """Paths given relative to the current directory (files; with `folders`, folders too), made relative to the
    repository's root; others as given."""
    import os

    from graphguard import git

    out = []
    root = None
    for s in seeds:
        if os.path.isfile(s) or (folders and os.path.isdir(s)):
            if root is None:
                root = git.repo_paths(repo_path).root
            rel = os.path.relpath(os.path.abspath(s), root)
            if not rel.startswith(".."):
                out.append(rel.replace(os.sep, "/"))
                continue
        out.append(s)
    return out
