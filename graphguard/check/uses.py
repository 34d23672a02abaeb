"""Stage 4: every use of a changed definition, in the old or the new version of the repository.

    unchanged files  the stored graph when it describes the old side (the hook); else the
                     candidate files resolved afresh against the old side (CI, another commit)
    changed files    their new version, resolved against the old and against the new repository
    stale names      unchanged files whose names lead to the new definition now (a re-export
                     left behind by a move, an alias kept by a rename)

Each use is an `impact.Found`: where it is, what kind, how it was resolved, its call shape,
and whether it reaches the new definition.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, NamedTuple

from graphguard.check.interface import InterfaceChange
from graphguard.check.overlay import Overlay
from graphguard.config import Config
from graphguard.languages.python.modules import ModuleMap
from graphguard.model import BindKind, CallShape, DefKind, FileFacts, Resolution, UseKind
from graphguard.result import ChangeKind
from graphguard.store.reads import CodeGraph, Use

if TYPE_CHECKING:
    from graphguard.impact import Found
    from graphguard.languages.python.resolver import Resolver
    from graphguard.resolved import Site

_Key = tuple[str, int, int, UseKind]  # one use per place and kind (gather)
_Site = tuple[str, int, int, UseKind, str]  # ... and what is written there (once)


class Gathered(NamedTuple):
    uses: list[Found]
    generated: list[str]  # the files of the uses left out as generated (sorted, each once)


def gather(overlay: Overlay, config: Config, ic: InterfaceChange) -> Gathered:
    """The uses of one changed definition, each once; generated files are walked through but left out."""
    qual, new_q = ic.qualname, ic.new_qualname
    found: dict[_Key, Found] = {}
    reaches_new = ic.kind is ChangeKind.SIGNATURE
    if overlay.graph_is_old and not overlay.changed_sites_only:
        _stored_uses(overlay, ic, found, reaches_new)
    elif not overlay.changed_sites_only:
        _resolved_uses(overlay, ic, found, reaches_new)
    # Changed files: their new version, resolved against the old and against the new repository.
    # A call written in this change was never made against the old signature (impact.Found.written).
    for p, s in overlay.fresh_old_sites.reaching(qual):
        _add(found, _found(p, s, reaches_new=False, init=s.init_target == qual, written=overlay.written.get(p, frozenset())))
    if new_q is not None:
        for p, s in overlay.fresh_new_sites.reaching(new_q):
            # An alias onto another definition (check.bound): that one's uses count only where they came through the old name.
            if not ic.alias or (p, s.line, s.col, s.kind) in found:
                _add(found, _found(p, s, reaches_new=True, init=s.init_target == new_q, written=overlay.written.get(p, frozenset())))
        if ic.kind is not ChangeKind.SIGNATURE:
            _followed_to_new(overlay, ic, found)
    if ic.is_method:
        _by_name_in_changed(overlay, ic, found, reaches_new)
    if _name_shared(overlay.old_map, ic.path) or _name_shared(overlay.new_map, ic.where):
        _keep_own(overlay, ic, found)
    uses = [f for f in found.values() if not config.is_generated(f.path)] if config.generated else list(found.values())
    generated = sorted({f.path for f in found.values()} - {f.path for f in uses})
    return Gathered([on_class(overlay.new_resolver, f) for f in uses] if ic.is_method else uses, generated)


def once(gathered: list[list[Found]]) -> list[list[Found]]:
    """Each site under one change only, whatever number of changed definitions it reached.

    `Sub(...)` reaches the class `Sub` (whose constructor changed with its base's) and the
    base's `__init__`: it is reported once, where it is sure (a `one-of` or by-name row only
    when no exact one reached it: `field_class(...)` is one of two subclasses, but surely
    runs their shared base's `__init__`), then where it is direct (not through a constructor
    run by instantiation), else under the first change that found it. A site is its place and
    what is written there: the names of one import statement share a place.
    """
    owner: dict[_Site, tuple[bool, bool, int]] = {}
    for i, found in enumerate(gathered):
        for f in found:
            rank = (f.resolution not in (Resolution.EXACT, Resolution.PARTIAL), f.via.value == "init", i)
            key = _site(f)
            if key not in owner or rank < owner[key]:
                owner[key] = rank
    return [[f for f in found if owner[_site(f)][2] == i] for i, found in enumerate(gathered)]


def _site(f: Found) -> _Site:
    return (f.path, f.line, f.col, f.kind, f.text)


def _add(found: dict[_Key, Found], f: Found) -> None:
    """One use per place; the one that reaches the new definition wins."""
    key = (f.path, f.line, f.col, f.kind)
    if key not in found or f.reaches_new and not found[key].reaches_new:
        found[key] = f


def _stored_uses(overlay: Overlay, ic: InterfaceChange, found: dict[_Key, Found], reaches_new: bool) -> None:
    """Unchanged files: the stored graph (it describes the old commit, and these files did not change)."""
    changed = overlay.changed
    # How sure a by-name use is that it calls this definition (and not an override or a dict's).
    by_name = overlay.graph.by_name_resolution(ic.qualname) if ic.is_method else Resolution.CANDIDATE
    for u in overlay.graph.uses_of(ic.qualname):
        if u.path in changed or u.resolution is Resolution.CANDIDATE:
            continue
        resolution = by_name if u.resolution is Resolution.BY_NAME else u.resolution
        _add(found, _from_graph(u, resolution, reaches_new=reaches_new, init=u.via_init))
    for f in _limited_uses(overlay.graph, ic.qualname, changed, reaches_new=reaches_new):
        _add(found, f)


def _by_name_in_changed(overlay: Overlay, ic: InterfaceChange, found: dict[_Key, Found], reaches_new: bool) -> None:
    """Changed files: `x.name(...)` on a receiver of unknown type, by the method's name, as the stored
    graph answers for the unchanged files (graph.uses_of): the changed file's own callers are callers too."""
    resolution = overlay.graph.by_name_resolution(ic.qualname)
    if resolution is Resolution.CANDIDATE:
        return
    name = ic.qualname.rsplit(".", 1)[-1]
    for p, fr in overlay.fresh_new.items():
        written = overlay.written.get(p, frozenset())
        for s in fr.sites:
            # `super(Named, self).name()` left unresolved runs a class after Named: no guess by name.
            if s.resolution is Resolution.UNRESOLVED and s.name == name and s.text.endswith("." + name) and not s.text.startswith("super("):
                _add(found, _found(p, s._replace(resolution=resolution), reaches_new=reaches_new, init=False, written=written))


def _resolved_uses(overlay: Overlay, ic: InterfaceChange, found: dict[_Key, Found], reaches_new: bool) -> None:
    """Unchanged files when the stored graph is not the old side: candidates resolved against the old side."""
    qual, changed = ic.qualname, overlay.changed
    resolver = overlay.old_resolver()
    wanted = overlay.sites_in
    # Where no file whose sites are wanted is an unchanged file of the old side, no candidate would be kept: the
    # search for them (a scan of every stored site's name) is skipped.
    searched = _candidates(overlay, qual) if wanted is None or any(p in overlay.old_map.primary for p in wanted - changed) else []
    for p in searched:
        if p not in overlay.old_map.primary or (wanted is not None and p not in wanted):
            continue
        for s in resolver.resolve_file(p).sites:
            if qual in (s.target, s.init_target) or _limited(s, qual):
                _add(found, _found(p, s, reaches_new=reaches_new, init=s.init_target == qual))
    if overlay.stored_head == overlay.sides.new.rev:  # CI: the graph describes the head, where unchanged files read the same
        by_name = overlay.graph.by_name_resolution(qual) if ic.is_method else Resolution.CANDIDATE
        for u in overlay.graph.uses_of(qual):  # method calls on receivers typed by name only, as the hook sees them
            if u.resolution is Resolution.BY_NAME and u.path not in changed:
                _add(found, _from_graph(u, by_name, reaches_new=reaches_new, init=False))


def _name_shared(modmap: ModuleMap, path: str) -> bool:
    """Does another module have this file's module name (two `vyos.py` in plugin folders that are import roots)?
    (A stub beside its module is the same module.)"""
    module = modmap.primary.get(path)
    files = modmap.by_name.get(module, ()) if module is not None else ()
    return len({f.removesuffix(".pyi").removesuffix(".py") for f in files}) > 1


def _keep_own(overlay: Overlay, ic: InterfaceChange, found: dict[_Key, Found]) -> None:
    """Two modules of one name have the same qualnames, and a use found by qualname may be of the other
    one's definition (a file's own `ActionModule`): each use is kept only when it reaches the changed file."""
    resolvers: dict[bool, Resolver] = {}
    for key, f in list(found.items()):
        qual, path = (ic.new_qualname, ic.where) if f.reaches_new else (ic.qualname, ic.path)
        if f.path == path or qual is None:
            continue
        if f.path in overlay.changed:
            resolution = (overlay.fresh_new if f.reaches_new else overlay.fresh_old).get(f.path)
        elif f.path in (overlay.new_map if f.reaches_new else overlay.old_map).primary:
            if f.reaches_new not in resolvers:
                resolvers[f.reaches_new] = overlay.new_resolver if f.reaches_new else overlay.old_resolver()
            resolution = resolvers[f.reaches_new].resolve_file(f.path)
        else:
            resolution = None
        here = [s for s in resolution.sites if (s.line, s.col, s.kind) == (f.line, f.col, f.kind)] if resolution else []
        # Only a use whose target is known to be another file's definition is left out.
        if any(s.target == qual for s in here) and all(s.target_path not in (None, path) for s in here if s.target == qual):
            del found[key]


def _followed_to_new(overlay: Overlay, ic: InterfaceChange, found: dict[_Key, Found]) -> None:
    """Unchanged files reach the new definition when their names lead there now: a
    re-export left behind by a move, an alias kept by a rename, a factory's return type."""
    qual, new_q = ic.qualname, ic.new_qualname
    assert new_q is not None
    stale = {f.path for f in found.values() if not f.reaches_new and f.path not in overlay.changed}
    for p in sorted(p for p in stale if p in overlay.new_map.primary):
        for s in overlay.resolved_new(p).sites:
            if new_q in (s.target, s.init_target) and (not ic.alias or (p, s.line, s.col, s.kind) in found):
                _add(found, _found(p, s, reaches_new=True, init=s.target != new_q))
    if new_q.rsplit(".", 1)[-1] == qual.rsplit(".", 1)[-1]:  # a method whose class was renamed or moved
        for key, f in found.items():
            if f.resolution in (Resolution.BY_NAME, Resolution.BY_NAME_WEAK) and not f.reaches_new:
                found[key] = dataclasses.replace(f, reaches_new=True)


def on_class(resolver: Resolver, f: Found) -> Found:
    """`Sub.method(obj, ...)`, `Alias.method(obj, ...)`: a method called on a class gets no implicit self."""
    from graphguard.impact import Via
    from graphguard.languages.python.targets import Sym

    receiver = f.text.rsplit(".", 1)[0] if f.kind is UseKind.CALL and f.via is Via.SELF and "." in f.text else ""
    info = resolver.info(f.path) if receiver and f.path in resolver.modmap.primary else None
    if info is None:
        return f
    module = info.module
    scope = f.caller[len(module) + 1:] if f.caller.startswith(module + ".") else ""
    target = resolver.chain(info, scope, receiver)
    return dataclasses.replace(f, via=Via.CLASS) if isinstance(target, Sym) and target.kind is DefKind.CLASS else f


def _found(path: str, s: Site, *, reaches_new: bool, init: bool, written: frozenset[tuple[int, int]] = frozenset()) -> Found:
    """A use from a resolved file; `written`: (line, col) of the calls this change wrote in it."""
    from graphguard.impact import Found, Via

    kind = s.kind
    return Found(Use(path, s.line, s.end_line, s.col, s.scope, kind, s.text, s.resolution, s.shape), reaches_new,
                 via=Via.INIT if init else Via.SELF, written=kind is UseKind.CALL and (s.line, s.col) in written)


def _from_graph(u: Use, resolution: Resolution, *, reaches_new: bool, init: bool) -> Found:
    from graphguard.impact import Found, Via

    return Found(dataclasses.replace(u, resolution=resolution, via_init=False), reaches_new,
                 via=Via.INIT if init else Via.SELF)


def _limited(site: Site, qualname: str) -> bool:
    """A call whose resolution stopped at a limit, by the name it calls: it may reach `qualname`."""
    return site.kind is UseKind.CALL and site.resolution.limited and site.name == qualname.rsplit(".", 1)[-1]


def _limited_uses(graph: CodeGraph, qualname: str, changed: set[str], *, reaches_new: bool) -> list[Found]:
    """Stored calls of `qualname`'s name whose resolution a limit stopped: undecided, never left out."""
    from graphguard.impact import Found

    rows = graph.limited_calls(qualname.rsplit(".", 1)[-1])
    return [Found(Use(path, line, end_line, col, scope, UseKind.CALL, text, Resolution(resolution),
                      CallShape.from_row(n_pos, kws, star, starstar)), reaches_new)
            for path, line, end_line, col, scope, text, resolution, n_pos, kws, star, starstar in rows if path not in changed]


def _candidates(overlay: Overlay, qualname: str) -> list[str]:
    """Unchanged files of the old side that may use `qualname`, under any name it has there.

    A use names it by its own name, or by a name that an import, an assignment or a subclass
    gave it (`from .pricing import total as order_total`, then `order_total(...)` in another
    file): the names are followed to a fixpoint over the files that mention them, so that
    this search finds what the stored graph's resolved uses find in the hook.
    """
    parts = qualname.split(".")
    names = {parts[-1]}
    if parts[-1] in ("__init__", "__new__") and len(parts) > 1:
        names.add(parts[-2])  # a constructor is called by its class's names
    files: set[str] = set()
    frontier = set(names)
    while frontier:
        naming = _files_naming(overlay, frontier)
        files |= naming
        aliases: set[str] = set()
        for p in naming:
            facts = overlay.facts(overlay.old_entries[p])
            if facts is not None:
                aliases |= _aliases(facts, names)
        frontier = aliases - names
        names |= frontier
    return sorted(files - overlay.changed)


def _files_naming(overlay: Overlay, names: set[str]) -> set[str]:
    """Old-side files that mention one of `names`: the stored graph answers for the files it
    describes as they are on the old side, their facts for the others (another branch's, during a merge)."""
    stored = overlay.stored_files()
    rows = overlay.graph.files_naming(names)
    out = {p for p in rows if p in overlay.old_entries and stored.get(p) == overlay.old_entries[p]}
    for path, blob in overlay.old_entries.items():
        if stored.get(path) != blob:
            facts = overlay.facts(blob)
            if facts is not None and any(_names(facts, n) for n in names):
                out.add(path)
    return out


def _aliases(facts: FileFacts, names: set[str]) -> set[str]:
    """The other names a file gives one of `names`: an import's alias, an assignment, a subclass."""
    out = {i.alias for i in facts.imports if i.alias and i.name in names}
    out |= {b.target.rsplit(".", 1)[-1] for b in facts.bindings
            if b.kind in (BindKind.ALIAS, BindKind.PARTIAL) and b.value.rsplit(".", 1)[-1] in names}
    out |= {d.qualname.rsplit(".", 1)[-1] for d in facts.definitions
            if d.kind is DefKind.CLASS and any(b.rsplit(".", 1)[-1] in names for b in d.bases)}
    return out


def _names(facts: FileFacts, name: str) -> bool:
    """Does the file mention `name` in a call, an import, a reference or a binding?"""
    return (any(c.name == name for c in facts.calls) or any(i.name == name or name in i.module.split(".") for i in facts.imports)
            or any(r.target.rsplit(".", 1)[-1] == name for r in facts.references)
            or any(b.value.rsplit(".", 1)[-1].removesuffix("()") == name for b in facts.bindings))
