"""The answers as documents: each question an agent or the CLI asks, answered as the dict its `--format json` prints.

Every function takes an open Repo whose graph the caller has already brought current (the CLI
calls `repo.ensure_current` first; the MCP server refreshes on its own schedule) and asks the
graph as it stands: nothing here refreshes, so one open Repo answers again and again in a
long-lived process. The commands print these documents; the server returns them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphguard.errors import GraphguardError
from graphguard.graph import CodeGraph, SymbolRow, Use
from graphguard.repo import Repo

if TYPE_CHECKING:
    from graphguard.result import CheckResult
    from graphguard.retrieval.engine import ContextResult

CALLERS_SCHEMA = "graphguard.callers/1"
STATS_SCHEMA = "graphguard.stats/1"
MAX_RETRIEVAL_DEPTH = 2


def graph_head(repo: Repo) -> str | None:
    """The commit the stored graph describes (None before the first commit)."""
    return repo.store.meta("head") or None


# --- check ------------------------------------------------------------------------------------


def check_document(result: CheckResult) -> dict[str, Any]:
    """graphguard.check/1 of a check's result."""
    from graphguard.report.json_report import to_dict

    return to_dict(result)


# --- callers ----------------------------------------------------------------------------------


def find_symbol(repo: Repo, graph: CodeGraph, symbol: str) -> SymbolRow:
    """The definition `symbol` names, as defined or as imported; an unknown name is an error with suggestions."""
    sym = graph.symbol(symbol) or graph_symbol_through_imports(repo, graph, symbol)
    if sym is None:
        hint = graph.symbols_named(symbol.rsplit(".", 1)[-1])[:5]
        did_you_mean = f"; did you mean {', '.join(h.qualname for h in hint)}?" if hint else ""
        raise GraphguardError(f"no symbol {symbol!r} in the graph{did_you_mean}")
    return sym


def use_entry(u: Use) -> dict[str, Any]:
    """One use as the callers' documents list it."""
    return {"path": u.path, "line": u.line, "end_line": u.end_line, "caller": u.caller, "kind": u.kind.value,
            "resolution": u.resolution.value, "text": u.text}


def callers_document(repo: Repo, symbol: str) -> dict[str, Any]:
    """graphguard.callers/1: every call site and reference of `symbol`."""
    graph = CodeGraph(repo.store.graph)
    sym = find_symbol(repo, graph, symbol)
    return {
        "schema": CALLERS_SCHEMA,
        "symbol": sym.qualname, "path": sym.path, "line": sym.line, "signature": sym.signature,
        "callers": [use_entry(u) for u in graph.uses_of(sym.qualname)],
    }


def defined_name(repo: Repo, graph: CodeGraph, name: str) -> str:
    """`name` as the graph names it: a re-exported public name becomes its definition's; anything else is kept."""
    if "/" in name or name.endswith((".py", ".pyi")) or graph.symbol(name) is not None:
        return name  # a path, or a defined name
    sym = graph_symbol_through_imports(repo, graph, name)
    return sym.qualname if sym is not None else name


def graph_symbol_through_imports(repo: Repo, graph: CodeGraph, name: str) -> SymbolRow | None:
    """The definition a public name reaches through imports: `sqlalchemy.util.warn_deprecated` is
    defined in `sqlalchemy.util.deprecations` and re-exported by the package's `__init__`. The graph
    names symbols where they are defined; a user or an agent names them as they import them."""
    from graphguard.model import FileFacts
    from graphguard.modules import ModuleMap
    from graphguard.resolve import Mod, Resolver, Sym, Target

    blobs = dict(graph.db.execute("SELECT path, blob FROM files WHERE parsed"))

    def load(path: str) -> FileFacts | None:
        raw = repo.store.load_facts(blobs[path]) if path in blobs else None
        try:
            return FileFacts.from_json(raw) if raw else None
        except (ValueError, TypeError, IndexError):
            return None

    resolver = Resolver(ModuleMap.build(blobs), load)
    parts = name.split(".")
    # The longest prefix that is a module of the repository, then each further name looked up in it.
    for cut in range(len(parts) - 1, 0, -1):
        target = resolver.module(".".join(parts[:cut]), "")
        if not isinstance(target, Mod):
            continue
        found: Target = target
        for attr in parts[cut:]:
            found = resolver.attribute(found, attr)
        if isinstance(found, Sym):
            return graph.symbol(found.qualname)
        return None
    return None


# --- context and related ----------------------------------------------------------------------


def check_retrieval_request(limit: int, budget: int | None, depth: int) -> None:
    if limit < 1:
        raise GraphguardError("--limit must be at least 1")
    if budget is not None and budget < 1:
        raise GraphguardError("--budget must be at least 1 token")
    if not 0 <= depth <= MAX_RETRIEVAL_DEPTH:
        raise GraphguardError(f"--depth must be between 0 and {MAX_RETRIEVAL_DEPTH}")


def retrieve(repo: Repo, command: str, *, text: str | None, seeds: Sequence[str], limit: int = 20,
             budget: int | None = 8000, depth: int = 1, profile: str = "default") -> ContextResult:
    """Rank what to read for a task text (`context`) or for seeds (`related`) over the graph as it stands.
    The text index and history follow the graph's commit (cheap when they already describe it)."""
    from graphguard.config import load as load_config
    from graphguard.report.printable import printable
    from graphguard.retrieval.engine import Request, Retriever, ensure_indexes
    from graphguard.retrieval.rank import PROFILES

    check_retrieval_request(limit, budget, depth)
    if profile not in PROFILES:
        raise GraphguardError(f"unknown profile {profile!r}; one of {', '.join(PROFILES)}")
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
    return retriever.run(request, command)


def context_document(repo: Repo, task: str, *, budget: int | None = 8000, limit: int = 20, depth: int = 1,
                     profile: str = "default") -> dict[str, Any]:
    """graphguard.context/1 for a task text."""
    from graphguard.retrieval.render import to_dict

    if not task.strip():
        raise GraphguardError("the task text is empty")
    return to_dict(retrieve(repo, "context", text=task, seeds=(), limit=limit, budget=budget, depth=depth, profile=profile))


def related_document(repo: Repo, targets: Sequence[str], *, budget: int | None = 8000, limit: int = 20, depth: int = 1,
                     profile: str = "default") -> dict[str, Any]:
    """graphguard.context/1 seeded with files (relative to the repository) or dotted symbols."""
    from graphguard.retrieval.render import to_dict

    if not targets:
        raise GraphguardError("name at least one file or symbol")
    return to_dict(retrieve(repo, "related", text=None, seeds=targets, limit=limit, budget=budget, depth=depth,
                            profile=profile))


# --- stats ------------------------------------------------------------------------------------


def stats_document(repo: Repo) -> dict[str, Any]:
    """graphguard.stats/1: what the graph holds and how much of it resolved."""
    return {"schema": STATS_SCHEMA, "head": graph_head(repo) or "", **CodeGraph(repo.store.graph).stats()}
