"""Stage 4b: calls this change wrote, bound against their target's current signature.

A call added in this change (`f(1)` for `def f(a, b)`), or one whose arguments changed,
breaks as surely as an old call to a changed definition. A call site of a changed file's
new version is new when its (target, call shape) is not among the old version's calls;
each new call to a repository definition whose interface did not change (those are
decided with their change) is bound against that definition's signature. Targets with a
broken new call are reported as a `new-calls` change listing the new calls to them.

A file git sees as renamed (git.renames) carries its calls over: its old version is the file
it was renamed from, so only the calls whose target or shape changed are new; a call whose
target moved with it is matched under the module's new name. It is resolved all the same:
a relative import may lead elsewhere from the new folder.

Cheap for a body-only edit: when the new version has no (callee, shape) the old one lacks
and binds its names as before, nothing is resolved; only the definitions that a new call
targets are parsed, from their source spans (Overlay.new_signature).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import TYPE_CHECKING, NamedTuple

from graphguard.check import shadow
from graphguard.check.interface import Interface
from graphguard.check.overlay import Overlay
from graphguard.check.uses import on_class
from graphguard.config import Config
from graphguard.model import CallShape, DefKind, FileFacts, Resolution, UseKind
from graphguard.resolved import Use
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact

if TYPE_CHECKING:
    from graphguard.impact import ChangeContext, Found
    from graphguard.languages.python import signature
    from graphguard.resolved import Site


class NewCall(NamedTuple):
    """A call site of a changed file's new version that the old version did not have."""

    path: str
    site: Site  # resolved against the new version of the repository


def find(overlay: Overlay, config: Config, interface: Interface) -> list[SymbolImpact]:
    """The `new-calls` entries: one per repository definition that a new call fails to bind to."""
    changes = interface.changes
    calls = [c for p in _candidate_files(overlay, config) if p not in interface.unparsable for c in _new_calls(overlay, p)]
    changed = {q for ic in changes for q in (ic.qualname, ic.new_qualname) if q is not None}
    calls = [c for c in calls if c.site.target not in changed and c.site.init_target not in changed]
    if not calls:
        return []
    by_target: dict[str, list[NewCall]] = defaultdict(list)
    for c in calls:
        assert c.site.target is not None
        by_target[c.site.target].append(c)
    out = []
    for target, sites in sorted(by_target.items()):
        path = sites[0].site.target_path
        if path is None:
            continue
        sig = overlay.new_signature(path, target)
        if sig is None or not _plain(sig):
            continue
        bound = [_bind(overlay, target, sig, c) for c in sites]
        stubbed = path.endswith(".pyi") and any(k.status is Status.BROKEN for k in bound)
        if stubbed:  # a stub says what the code accepts, and may be stale: the implementation has the last word
            bound = [_against_implementation(overlay, target, path, c, k) for c, k in zip(sites, bound, strict=True)]
        callers = sorted(bound, key=lambda k: (k.status is not Status.BROKEN, k.path, k.line))
        if stubbed or any(k.status is Status.BROKEN for k in callers):
            out.append(SymbolImpact(symbol=target, path=path, line=sig.line, change=ChangeKind.NEW_CALLS, breaking=(),
                                    before=sig.text, after=sig.text, callers=tuple(callers), public=False))
    return out


def _against_implementation(overlay: Overlay, target: str, stub: str, call: NewCall, against_stub: CallerImpact) -> CallerImpact:
    """A call the stub (`.pyi`) rejects: broken only when the Python implementation beside it rejects it too.

    With no implementation in the repository (a compiled module: pydantic-core's `Url`), the stub
    is all there is to read, and it may be stale: `unknown`, saying so."""
    if against_stub.status is not Status.BROKEN:
        return against_stub
    implementation = stub.removesuffix("i")
    sig = overlay.new_signature(implementation, target) if implementation in overlay.new_entries else None
    if sig is None:
        reason = f"the stub {stub} rejects it ({against_stub.reason}); its implementation is not Python source here and may accept it"
        return dataclasses.replace(against_stub, status=Status.UNKNOWN, reason=reason)  # it raises, if the stub is right
    against_code = _bind(overlay, target, sig, call)
    if against_code.status is Status.BROKEN:
        return against_code
    return dataclasses.replace(against_stub, status=Status.UNKNOWN,
                               reason=f"the stub rejects it ({against_stub.reason}), the implementation accepts it ({implementation})")


#: Decorators of a function or method known to keep the parameters its callers pass.
_KEEP_PARAMS = frozenset({"staticmethod", "classmethod", "property", "cached_property", "abstractmethod", "override", "final",
                          "cache", "lru_cache", "wraps", "contextmanager", "asynccontextmanager", "deprecated"})


def _plain(sig: signature.Signature) -> bool:
    """Is the signature as written the one its callers meet? Any other decorator (`@click.command()`,
    `@pytest.fixture`, a project's own) may wrap the function in anything: its new calls are not judged."""
    if sig.kind is DefKind.CLASS:
        return True  # the signature model knows the class decorators that change a constructor
    return all(d.partition("(")[0].rpartition(".")[2] in _KEEP_PARAMS for d in sig.decorators)


def _candidate_files(overlay: Overlay, config: Config) -> list[str]:
    """Changed files whose new version may hold a new call (cheap: tree-sitter facts only)."""
    out = []
    for path in sorted(overlay.sides.new.data):
        if path in overlay.commented:
            continue  # comments write no call, and bind no name
        if overlay.sites_in is not None and path not in overlay.sites_in:
            continue  # its sites are not asked about (conflicts: a side alone)
        new = overlay.new_facts.get(path)
        if new is None or not new.parsed or not new.calls or config.is_generated(path) or path not in overlay.new_map.primary:
            continue
        was = overlay.sides.renamed.get(path)
        old = overlay.old_facts(path) if path in overlay.sides.old.data else None
        # A moved file's names may lead elsewhere now (`from .helpers import h`): it is resolved, and its
        # calls compared with the old file's (_new_calls).
        if was is not None or old is None or not _same_calls(overlay, path, old, new):
            out.append(path)
    return out


def _same_calls(overlay: Overlay, path: str, old: FileFacts, new: FileFacts) -> bool:
    """No call of `new` was written in this change (written.written_calls), and names are bound as
    before: then every call reaches the target it reached, with the arguments it had."""
    return not overlay.written.get(path) and _names(old) == _names(new)


def _names(facts: FileFacts) -> object:
    """What decides where a name leads, without line numbers."""
    return ({i._replace(line=0, end_line=0) for i in facts.imports}, {b._replace(line=0) for b in facts.bindings},
            {(d.qualname, d.kind, d.bases) for d in facts.definitions})


def _new_calls(overlay: Overlay, path: str) -> list[NewCall]:
    """Calls of the new version to a repository definition whose (target, shape) the old version has not
    (a renamed file's old version: the file it was renamed from; a call that reached a renamed module
    reaches it under its new name)."""
    fresh = overlay.resolved_new(path)
    was = overlay.sides.renamed.get(path)
    old = _old_calls(overlay, path) if was is None else _moved(overlay, _old_calls(overlay, was))
    return [NewCall(path, s) for s in fresh.sites
            if s.kind is UseKind.CALL and s.resolution is Resolution.EXACT and s.target is not None and s.target_path is not None
            and (s.target, s.shape) not in old]


def _old_calls(overlay: Overlay, path: str) -> set[tuple[str | None, CallShape]]:
    """(target, shape) of the old version's calls: stored when the graph describes the old side."""
    if path not in overlay.sides.old.data or path not in overlay.old_map.primary:
        return set()
    if overlay.graph_is_old:
        return {(target, CallShape.from_row(n_pos, kws, star, starstar))
                for target, n_pos, kws, star, starstar in overlay.graph.call_shapes(path)}
    return {(s.target, s.shape) for s in overlay.old_resolver().resolve_file(path).sites if s.kind is UseKind.CALL}


def _moved(overlay: Overlay, calls: set[tuple[str | None, CallShape]]) -> set[tuple[str | None, CallShape]]:
    """The old calls, with a target in a renamed module also under that module's new name."""
    modules = {overlay.old_map.primary[o]: overlay.new_map.primary[n] for n, o in overlay.sides.renamed.items()
               if o in overlay.old_map.primary and n in overlay.new_map.primary}
    out = set(calls)
    for target, shape in calls:
        parts = (target or "").split(".")
        for i in range(len(parts) - 1, 0, -1):  # the longest module that holds it
            now = modules.get(".".join(parts[:i]))
            if now is not None:
                out.add((".".join([now, *parts[i:]]), shape))
                break
    return out


def _bind(overlay: Overlay, target: str, sig: signature.Signature, call: NewCall) -> CallerImpact:
    from graphguard import impact
    from graphguard.languages.python.binding import bind

    s = call.site
    use: Found = impact.Found(Use(call.path, s.line, s.end_line, s.col, s.scope, UseKind.CALL, s.text, s.resolution, s.shape), True)
    is_method = sig.kind is DefKind.METHOD
    if is_method:
        use = on_class(overlay.new_resolver, use)
        hidden = shadow.find(overlay, use, target.rsplit(".", 1)[-1])
        if hidden is not None:  # an instance attribute answers the call, not the method
            return shadow.judge(overlay, use, hidden)
    ctx = impact.ChangeContext(ChangeKind.NEW_CALLS, target, target, (), sig, is_method,
                               target.rsplit(".", 2)[-2] if is_method else None)
    binding = bind(s.shape, sig, implicit_first=impact.implicit_first(ctx, use, sig))
    if binding.status is Status.BROKEN and is_method:
        override = _accepting_override(overlay, call, target.rsplit(".", 1)[-1], ctx, use)
        if override is not None:  # the call is one of the method and its overrides: broken only if broken for each
            return CallerImpact(call.path, s.line, s.end_line, s.scope, Status.UNKNOWN,
                                f"{binding.reason} for this class; the receiver is annotated '{override[0]}', so it may be a"
                                f" subclass, and the override {override[1]} accepts it", UseKind.CALL, Resolution.ONE_OF)
    return CallerImpact(call.path, s.line, s.end_line, s.scope, binding.status, binding.reason, UseKind.CALL, Resolution.EXACT,
                        "TypeError" if binding.status is Status.BROKEN else None)


def _accepting_override(overlay: Overlay, call: NewCall, name: str, ctx: ChangeContext,
                        use: Found) -> tuple[str, str] | None:
    """(annotated class, override) when the call's receiver is annotated (not constructed) and a subclass's
    override of the method in the repository accepts the call the class's own method rejects."""
    from graphguard import impact
    from graphguard.languages.python.binding import bind

    cls = overlay.new_resolver.declared_receiver(call.path, call.site)
    if cls is None:
        return None
    for row in overlay.graph.overrides(cls.qualname, name):
        sig = overlay.new_signature(row.path, row.qualname)
        if sig is not None and _plain(sig) and bind(call.site.shape, sig, implicit_first=impact.implicit_first(ctx, use, sig)).status \
                is not Status.BROKEN:
            return cls.local, row.qualname
    return None
