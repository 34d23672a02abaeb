"""The answers as documents: each question an agent or the CLI asks, answered as the dict its `--format json` prints.

Every function takes an open Repo whose graph the caller has already brought current (the CLI
calls `repo.ensure_current` first; the MCP server refreshes on its own schedule) and asks the
graph as it stands: nothing here refreshes, so one open Repo answers again and again in a
long-lived process. The commands print these documents; the server returns them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from graphguard.errors import GraphguardError
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph, SymbolRow, Use

if TYPE_CHECKING:
    from graphguard.result import CheckResult
    from graphguard.retrieval.engine import ContextResult
    from graphguard.retrieval.fit import FittedProfile

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
    from graphguard.model import UseKind

    args = None
    if u.kind is UseKind.CALL:
        args = {"positional": u.shape.n_positional, "keywords": list(u.shape.keywords), "star": u.shape.has_star,
                "starstar": u.shape.has_starstar}
    return {"path": u.path, "line": u.line, "end_line": u.end_line, "caller": u.caller, "kind": u.kind.value,
            "resolution": u.resolution.value, "text": u.text, "args": args}


def callers_document(repo: Repo, symbol: str) -> dict[str, Any]:
    """graphguard.callers/1: every call site and reference of `symbol`."""
    graph = CodeGraph(repo.store.graph)
    sym = find_symbol(repo, graph, symbol)
    return {
        "schema": CALLERS_SCHEMA, "head": graph_head(repo),
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
    from graphguard.config import load as load_config
    from graphguard.languages.python.modules import ModuleMap
    from graphguard.languages.python.resolver import Resolver
    from graphguard.languages.python.targets import Mod, Sym, Target
    from graphguard.model import FileFacts

    blobs = dict(graph.db.execute("SELECT path, blob FROM files WHERE parsed"))

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


# --- context and related ----------------------------------------------------------------------


def check_retrieval_request(limit: int, budget: int | None, depth: int) -> None:
    if limit < 1:
        raise GraphguardError("--limit must be at least 1")
    if budget is not None and budget < 1:
        raise GraphguardError("--budget must be at least 1 token")
    if not 0 <= depth <= MAX_RETRIEVAL_DEPTH:
        raise GraphguardError(f"--depth must be between 0 and {MAX_RETRIEVAL_DEPTH}")


def retrieve(repo: Repo, command: str, *, text: str | None, seeds: Sequence[str], limit: int = 20,
             budget: int | None = 8000, depth: int = 1, profile: str = "auto") -> ContextResult:
    """Rank what to read for a task text (`context`) or for seeds (`related`) over the graph as it stands.
    The text index and history follow the graph's commit (cheap when they already describe it)."""
    from graphguard.config import load as load_config
    from graphguard.report.printable import printable
    from graphguard.retrieval import textindex
    from graphguard.retrieval.engine import Request, Retriever, ensure_indexes
    from graphguard.retrieval.rank import CHOICES

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


def context_document(repo: Repo, task: str, *, budget: int | None = 8000, limit: int = 20, depth: int = 1,
                     profile: str = "auto") -> dict[str, Any]:
    """graphguard.context/1 for a task text."""
    from graphguard.retrieval.render import to_dict

    if not task.strip():
        raise GraphguardError("the task text is empty")
    return to_dict(retrieve(repo, "context", text=task, seeds=(), limit=limit, budget=budget, depth=depth, profile=profile))


def related_document(repo: Repo, targets: Sequence[str], *, budget: int | None = 8000, limit: int = 20, depth: int = 1,
                     profile: str = "auto") -> dict[str, Any]:
    """graphguard.context/1 seeded with files (relative to the repository) or dotted symbols."""
    from graphguard.retrieval.render import to_dict

    if not targets:
        raise GraphguardError("name at least one file or symbol")
    return to_dict(retrieve(repo, "related", text=None, seeds=targets, limit=limit, budget=budget, depth=depth,
                            profile=profile))


# --- stats ------------------------------------------------------------------------------------


def stats_document(repo: Repo) -> dict[str, Any]:
    """graphguard.stats/1: what the graph holds and how much of it resolved, and what of the configuration was not read."""
    from graphguard.config import load as load_config
    from graphguard.retrieval import profiles

    fitted = profiles.load(repo.store.graph)
    config_warnings = [{"path": w.path, "message": w.message} for w in load_config(repo.root).warnings]
    return {"schema": STATS_SCHEMA, "head": graph_head(repo) or "", **CodeGraph(repo.store.graph).stats(),
            "config_warnings": config_warnings,
            "retrieval_profile": {"in_use": profiles.in_use(fitted), "fitted": fitted.document() if fitted else None}}


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


# --- outline ----------------------------------------------------------------------------------

OUTLINE_SCHEMA = "graphguard.outline/1"
#: Files in one outline: a package of thousands of files is cut (and said so), the first in path order kept.
MAX_OUTLINE_FILES = 200
#: Definitions in one outline, over all its files.
MAX_OUTLINE_DEFINITIONS = 4000
#: Parsed blobs' docstrings and decorators, by blob sha (content-addressed: never stale), for a long-lived server.
_EXTRAS_CACHE_SIZE = 4096
_extras_cache: dict[str, Any] = {}


def _relative(name: str) -> str | None:
    """A path as the graph stores it (relative to the root, `/`-separated, no `./`, no trailing `/`);
    None for one that cannot name a file of the repository (absolute, with `..`)."""
    path = name.replace("\\", "/").strip()
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    return "/".join(parts)


def outline_paths(repo: Repo, paths: Sequence[str]) -> tuple[list[str], int, list[dict[str, Any]]]:
    """The graph's files that `paths` name (files, or folders: every file under them), sorted and capped:
    (files, how many more the cap left out, warnings about names that name nothing)."""
    from graphguard.store.paths import StoredPaths

    stored = StoredPaths(repo.store.graph)
    found: set[str] = set()
    warnings: list[dict[str, Any]] = []
    for name in paths:
        path = _relative(name)
        if path is None:
            warnings.append({"path": name, "message": "not a path inside the repository (absolute, or with '..'); skipped"})
            continue
        hits = stored.all() if path == "" else sorted(stored.existing([path]) | set(stored.under([path], 1 << 30)))
        if not hits:
            warnings.append({"path": name, "message": "no file of the graph is or is under this path (only source files of"
                                                      " supported languages at the graph's commit are)"})
        found.update(hits)
    files = sorted(found)
    return files[:MAX_OUTLINE_FILES], max(0, len(files) - MAX_OUTLINE_FILES), warnings


def _extras(repo: Repo, blobs: dict[str, str]) -> dict[str, Any]:
    """Docstrings and decorators per blob sha, parsed once per process."""
    from graphguard import git
    from graphguard.languages.python import docstrings

    wanted = sorted({sha for sha in blobs.values() if sha not in _extras_cache})
    if wanted:
        for sha, data in git.read_blobs(repo.root, wanted):
            if len(_extras_cache) >= _EXTRAS_CACHE_SIZE:
                _extras_cache.pop(next(iter(_extras_cache)), None)
            _extras_cache[sha] = docstrings.extract(data)
    return {path: _extras_cache.get(sha, docstrings.NONE) for path, sha in blobs.items()}


def outline_document(repo: Repo, paths: Sequence[str]) -> dict[str, Any]:
    """graphguard.outline/1: per file its definitions (signature, decorators, docstring's first line), no bodies."""
    if not paths:
        raise GraphguardError("name at least one file or folder")
    files, files_omitted, warnings = outline_paths(repo, paths)
    if not files and warnings and len(warnings) == len(paths):
        raise GraphguardError(f"{warnings[0]['path']!r}: {warnings[0]['message']}")
    db = repo.store.graph
    rows: dict[str, tuple[str, str]] = {}
    for i in range(0, len(files), 500):
        chunk = files[i:i + 500]
        for path, blob, module in db.execute(
                f"SELECT path, blob, module FROM files WHERE path IN ({','.join('?' * len(chunk))})", chunk):
            rows[path] = (blob, module)
    extras = _extras(repo, {p: rows[p][0] for p in files if p in rows})
    out: list[dict[str, Any]] = []
    budget = MAX_OUTLINE_DEFINITIONS
    definitions_omitted = 0
    for path in files:
        module = rows[path][1] if path in rows else ""
        defs = _definitions(db, path, module, extras[path]) if path in extras else []
        if len(defs) > budget:
            definitions_omitted += len(defs) - budget
            defs = defs[:budget]
        budget -= len(defs)
        out.append({"path": path, "module": module, "docstring": extras[path].module_doc if path in extras else None,
                    "definitions": defs})
    notes = []
    if files_omitted:
        notes.append(f"{files_omitted} more files left out (at most {MAX_OUTLINE_FILES}): name sub-folders or files")
    if definitions_omitted:
        notes.append(f"{definitions_omitted} definitions left out (at most {MAX_OUTLINE_DEFINITIONS} in one outline)")
    return {"schema": OUTLINE_SCHEMA, "head": graph_head(repo), "files": out, "files_omitted": files_omitted,
            "definitions_omitted": definitions_omitted, "notes": notes, "warnings": warnings}


def _definitions(db: Any, path: str, module: str, extras: Any) -> list[dict[str, Any]]:
    """A file's definitions in line order; functions nested in functions (`<locals>`) are an implementation's detail.
    A definition's dotted name is its file's module, a dot and its `name`: not repeated in every entry."""
    prefix = module + "." if module else ""
    out = []
    for qualname, kind, line, end_line, signature in db.execute(
            "SELECT s.qualname, s.kind, s.line, s.end_line, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE f.path = ? ORDER BY s.line, s.id", (path,)):
        if "<locals>" in qualname:
            continue
        out.append({"kind": kind, "name": qualname.removeprefix(prefix), "line": line,
                    "end_line": end_line, "signature": signature,
                    "decorators": list(extras.decorators.get(line, ())), "docstring": extras.docs.get(line)})
    return out


# --- impact -----------------------------------------------------------------------------------

IMPACT_SCHEMA = "graphguard.impact/1"
MAX_IMPACT_DEPTH = 5
#: Callers listed in one impact answer, over all depths (a hub symbol has thousands).
MAX_IMPACT_CALLERS = 500
#: Definitions whose callers are looked up, over all depths.
MAX_IMPACT_NODES = 300


def impact_document(repo: Repo, symbol: str, *, depth: int = 2) -> dict[str, Any]:
    """graphguard.impact/1: the callers of `symbol`, their callers and so on to `depth`, and the tests that reach it."""
    from graphguard.config import load as load_config
    from graphguard.model import Resolution, UseKind
    from graphguard.result import CallerImpact, Status
    from graphguard.testselect import select_tests

    if not 1 <= depth <= MAX_IMPACT_DEPTH:
        raise GraphguardError(f"--depth must be between 1 and {MAX_IMPACT_DEPTH}")
    graph = CodeGraph(repo.store.graph)
    sym = find_symbol(repo, graph, symbol)
    first = graph.uses_of(sym.qualname)
    levels = _caller_levels(graph, sym.qualname, first, depth)
    entries = [{**use_entry(u), "distance": d, "callee": callee} for d, callee, u in levels.uses]
    notes = []
    if depth > 1:
        notes.append("beyond distance 1 only callers tied by imports, types or a unique method name are followed")
    if levels.stopped:
        notes.append(f"the walk stopped after {MAX_IMPACT_NODES} definitions: callers farther out are not listed")
    omitted = max(0, len(entries) - MAX_IMPACT_CALLERS)
    if omitted:
        notes.append(f"{omitted} callers left out (at most {MAX_IMPACT_CALLERS}), farthest first")
    impacts = [CallerImpact(u.path, u.line, u.end_line, u.caller, Status.OK, "", u.kind, u.resolution)
               for u in first if u.kind is not UseKind.IMPORT and u.resolution is not Resolution.CANDIDATE]
    selection = select_tests(graph, load_config(repo.root), impacts, sym.qualname, changed_path=sym.path)
    return {
        "schema": IMPACT_SCHEMA, "head": graph_head(repo),
        "symbol": sym.qualname, "path": sym.path, "line": sym.line, "signature": sym.signature, "depth": depth,
        "callers": entries[:MAX_IMPACT_CALLERS], "callers_omitted": omitted,
        "tests": [{"path": t.path, "line": t.line, "direct": t.direct, "name": t.name, "distance": t.distance}
                  for t in selection.hits],
        "tests_omitted": selection.omitted, "notes": notes,
    }


class _Levels:
    def __init__(self) -> None:
        self.uses: list[tuple[int, str, Use]] = []  # (distance, the symbol used, the use)
        self.stopped = False


def _caller_levels(graph: CodeGraph, qualname: str, first: list[Use], depth: int) -> _Levels:
    """Breadth first up the callers: distance 1 is every use (as `callers` lists them); farther out,
    only uses tied to their target (a by-name guess of a guess is noise), each definition once."""
    from graphguard.model import Resolution

    weak = (Resolution.CANDIDATE, Resolution.BY_NAME_WEAK)
    levels = _Levels()
    seen = {qualname}
    frontier = [(qualname, first)]
    visited = 1
    for distance in range(1, depth + 1):
        following: list[str] = []
        for callee, uses in frontier:
            for u in uses:
                levels.uses.append((distance, callee, u))
                if u.caller not in seen and u.resolution not in weak:
                    seen.add(u.caller)
                    following.append(u.caller)
        if distance == depth or not following:
            break
        frontier = []
        for q in following:
            if graph.symbol(q) is None:
                continue  # a module's top level: what imports it is not a caller of it
            if visited >= MAX_IMPACT_NODES:
                levels.stopped = True
                break
            visited += 1
            frontier.append((q, [u for u in graph.uses_of(q) if u.resolution not in weak]))
    return levels
