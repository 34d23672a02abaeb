"""`graphguard callers SYMBOL`: every call site and reference of a symbol."""

from __future__ import annotations

import json

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.graph import CodeGraph, SymbolRow
from graphguard.model import Resolution
from graphguard.repo import Repo, ensure_current, open_repo


def callers(repo_path: str, symbol: str, *, fmt: str = "text") -> int:
    repo = open_repo(repo_path)
    ensure_current(repo)
    graph = CodeGraph(repo.store.graph)
    sym = graph.symbol(symbol) or graph_symbol_through_imports(repo, graph, symbol)
    if sym is None:
        hint = graph.symbols_named(symbol.rsplit(".", 1)[-1])[:5]
        did_you_mean = f"; did you mean {', '.join(h.qualname for h in hint)}?" if hint else ""
        raise GraphguardError(f"no symbol {symbol!r} in the graph{did_you_mean}")
    uses = graph.uses_of(sym.qualname)
    if fmt == "json":
        output.write(json.dumps({
            "schema": "graphguard.callers/1",
            "symbol": sym.qualname, "path": sym.path, "line": sym.line, "signature": sym.signature,
            "callers": [
                {"path": u.path, "line": u.line, "end_line": u.end_line, "caller": u.caller, "kind": u.kind.value,
                 "resolution": u.resolution.value, "text": u.text}
                for u in uses
            ],
        }, indent=2))
        return 0
    lines = [f"{sym.qualname}  {sym.path}:{sym.line}  {sym.signature}"]
    for u in uses:
        how = "" if u.resolution is Resolution.EXACT else f"  [{u.resolution.value}]"
        lines.append(f"  {u.path}:{u.line}: {u.kind.value} {u.text}  in {u.caller}{how}")
    exact = sum(u.resolution in (Resolution.EXACT, Resolution.PARTIAL) for u in uses)
    lines.append(f"{len(uses)} uses: {exact} resolved, {len(uses) - exact} by name only")
    output.write("\n".join(lines))
    return 0


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
