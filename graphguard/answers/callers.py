"""`callers`: the definition a name names, and every use of it."""

from __future__ import annotations

from typing import Any

from graphguard.answers.records import CallersAnswer, graph_head
from graphguard.errors import GraphguardError
from graphguard.model import last_name
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph, SymbolRow, Use


def find_symbol(repo: Repo, graph: CodeGraph, symbol: str) -> SymbolRow:
    """The definition `symbol` names, as defined or as imported; an unknown name is an error with suggestions."""
    sym = graph.symbol(symbol) or (None if "#" in symbol else graph_symbol_through_imports(repo, graph, symbol))
    if sym is None:
        hint = graph.symbols_named(last_name(symbol))[:5]
        did_you_mean = f"; did you mean {', '.join(h.qualname for h in hint)}?" if hint else ""
        raise GraphguardError(f"no symbol {symbol!r} in the graph{did_you_mean}")
    return sym


def use_entry(u: Use) -> dict[str, Any]:
    """One use as the callers' documents list it."""
    from graphguard.model import UseKind

    args = None
    if u.kind is UseKind.CALL:
        args = {"positional": u.shape.n_positional, "keywords": list(u.shape.keywords), "star": u.shape.has_star,
                "starstar": u.shape.has_starstar}
    return {"path": u.path, "line": u.line, "end_line": u.end_line, "caller": u.caller, "kind": u.kind.value,
            "resolution": u.resolution.value, "text": u.text, "args": args}


def callers_answer(repo: Repo, symbol: str) -> CallersAnswer:
    """graphguard.callers/1: every call site and reference of `symbol`."""
    from graphguard.answers.reach import unresolved

    graph = CodeGraph(repo.store.graph)
    sym = find_symbol(repo, graph, symbol)
    uses = graph.uses_of(sym.qualname)
    maybe = unresolved(graph, sym, uses)
    return CallersAnswer(graph_head(repo), sym.qualname, sym.path, sym.line, sym.signature,
                         tuple(use_entry(u) for u in uses), no_resolved_callers=maybe.to_json() if maybe else None)


def callers_document(repo: Repo, symbol: str) -> dict[str, Any]:
    return callers_answer(repo, symbol).to_json()


def defined_name(repo: Repo, graph: CodeGraph, name: str) -> str:
    """`name` as the graph names it: a re-exported public name becomes its definition's; anything else is kept."""
    if "/" in name or "#" in name or name.endswith((".py", ".pyi")) or graph.symbol(name) is not None:
        return name  # a path, or a defined name
    sym = graph_symbol_through_imports(repo, graph, name)
    return sym.qualname if sym is not None else name


def graph_symbol_through_imports(repo: Repo, graph: CodeGraph, name: str) -> SymbolRow | None:
    """The definition a public name reaches through imports: `sqlalchemy.util.warn_deprecated` is
    defined in `sqlalchemy.util.deprecations` and re-exported by the package's `__init__`. The graph
    names symbols where they are defined; a user or an agent names them as they import them."""
    from graphguard.config import load as load_config
    from graphguard.languages.python.modules import ModuleMap
    from graphguard.languages.python.resolver import Resolver
    from graphguard.languages.python.targets import Mod, Sym, Target
    from graphguard.model import FileFacts

    blobs = graph.parsed_blobs()

    def load(path: str) -> FileFacts | None:
        raw = repo.store.load_facts(blobs[path]) if path in blobs else None
        try:
            return FileFacts.from_json(raw) if raw else None
        except (ValueError, TypeError, IndexError):
            return None

    resolver = Resolver(ModuleMap.build(blobs, load_config(repo.root).test_data), load)
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
