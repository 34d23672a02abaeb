"""Stage 5: each use of a changed definition meets its new signature (impact.decide), once.

A caller's status is set here and nowhere else: impact.decide binds the use, and the one
exception, a removed override whose base class now answers the call, is decided here too.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from graphguard.check import shadow
from graphguard.check.interface import InterfaceChange, line_now
from graphguard.check.overlay import Overlay
from graphguard.codes import CodeName
from graphguard.config import Config
from graphguard.languages.python.modules import ModuleMap
from graphguard.model import DefKind, RefKind, UseKind
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact

if TYPE_CHECKING:
    from graphguard import impact
    from graphguard.check.bound import Held
    from graphguard.impact import Found
    from graphguard.languages.python import signature
    from graphguard.languages.python.resolver import Resolver
    from graphguard.languages.python.targets import Sym


def decide(overlay: Overlay, config: Config, ic: InterfaceChange, uses: list[Found]) -> SymbolImpact | None:
    """The change's report entry; None when it is not worth one (the old version did not parse, and every use binds)."""
    from graphguard import impact

    ch = ic.change
    ctx = impact.ChangeContext(ic.kind, ic.qualname, ic.new_qualname, tuple(ch.breaking), ch.after, ic.is_method, ic.class_name,
                               before=ch.before, forwards=_forwards(overlay, ic), class_gone=ic.class_gone)
    inherited = _inherited_now(overlay.new_resolver, overlay.new_map, ic) if ic.is_method and ic.kind is ChangeKind.REMOVED else None
    name = ic.qualname.rsplit(".", 1)[-1]
    decided = []
    for u in uses:
        u = dataclasses.replace(u, annotation=True) if _in_annotation(overlay, u) else u
        hidden = shadow.find(overlay, u, name) if ic.is_method else None
        if hidden is not None:  # an instance attribute answers the call, not the method
            decided.append(shadow.judge(overlay, u, hidden))
        else:
            c = impact.decide(ctx, u)
            decided.append(_inherited_call(c, ic, inherited) if inherited is not None else c)
    callers = sorted(decided, key=lambda c: (c.status is not Status.BROKEN, c.path, c.line))
    if ic.holds is not None:
        callers = [_holds(c, ic, ic.holds) for c in callers]
    if ic.unknown_before and all(c.status is Status.OK for c in callers):
        return None  # the new signature binds every use: only the warning says the old one is unknown
    where, line = ic.where, ic.line
    sides = overlay.sides
    marker_side = sides.new if ch.after is not None and where in sides.new.data else sides.old
    return SymbolImpact(
        symbol=ic.qualname,
        path=where,
        line=line,
        change=ic.kind,
        breaking=tuple(ch.breaking),
        before=ch.before.text if ch.before is not None else None,
        after=ch.after.text if ch.after is not None else None,
        callers=tuple(callers),
        ignored=ignored_codes(marker_side.data.get(where, b""), line),
        public=config.is_public(ic.qualname),
        line_now=line_now(sides.new.data.get(where), line) if ch.after is None else line,
    )


def _in_annotation(overlay: Overlay, use: Found) -> bool:
    """Is this reference a type annotation in the new version (its file's facts say so at its place)?"""
    if use.kind is not UseKind.REFERENCE:
        return False
    info = overlay.new_resolver.info(use.path)
    return info is not None and any(r.kind is RefKind.ANNOTATION and (r.line, r.col) == (use.line, use.col)
                                    for r in info.facts.references)


#: Codes after which an argument can land in `**kwargs` or `*args` where it reached a parameter before.
_SHIFTING = (CodeName.PARAM_RENAMED, CodeName.PARAM_REMOVED, CodeName.PARAM_KIND_CHANGED, CodeName.PARAMS_REORDERED,
             CodeName.PARAM_POSITION_CHANGED)


def _forwards(overlay: Overlay, ic: InterfaceChange) -> tuple[impact.Forward, ...]:
    """Where the new definition (a class: its `__init__`) passes its **kwargs on, or reads them.

    Only read when an argument may now land in `**kwargs` (signatures of other files are
    read for the forwarding calls, not for a change that cannot need them).
    """
    from graphguard import impact

    after, new_q = ic.change.after, ic.new_qualname
    if after is None or new_q is None or not any(c.name in _SHIFTING for c in ic.change.breaking):
        return ()
    path, function = ic.where, new_q
    sig: signature.Signature | None = after
    if after.kind is DefKind.CLASS:  # the constructor that runs: the class's own `__init__` or one it inherits
        init = _constructor(overlay, path, new_q)
        if init is None:
            return ()
        path, function = init.path, init.qualname
        sig = overlay.new_signature(path, function)
    if path not in overlay.new_map.primary or sig is None:
        return ()
    resolution = overlay.fresh_new.get(path) or overlay.resolved_new(path)
    return impact.forwards(resolution, function, sig, overlay.new_signature)


def _constructor(overlay: Overlay, path: str, qualname: str) -> Sym | None:
    """The `__init__` that `Class(...)` runs in the new version, wherever in the hierarchy it is defined."""
    from graphguard.languages.python.targets import Sym

    module = overlay.new_map.primary.get(path)
    if module is None or not qualname.startswith(f"{module}."):
        return None
    init = overlay.new_resolver.member(Sym(path, qualname, qualname[len(module) + 1:], DefKind.CLASS), "__init__")
    return init if isinstance(init, Sym) else None


def _inherited_call(caller: CallerImpact, ic: InterfaceChange, inherited: str) -> CallerImpact:
    """An override was removed: the base's method answers its calls now, with a signature not compared here."""
    if caller.status is not Status.BROKEN or caller.kind is not UseKind.CALL:
        return caller
    name = ic.change.qualname.rsplit(".", 1)[-1]
    return dataclasses.replace(caller, status=Status.UNKNOWN,
                               reason=f"'{name}' is now inherited from {inherited}: check the call against its signature")


def _holds(caller: CallerImpact, ic: InterfaceChange, held: Held) -> CallerImpact:
    """The old name is still bound, to something with no signature here (bound.rebind): nothing to compare,
    unless it is a literal (`None`), which no call or subclass can use."""
    if caller.status is not Status.BROKEN:
        return caller
    name = ic.change.qualname.rsplit(".", 1)[-1]
    if caller.kind is UseKind.IMPORT:
        return dataclasses.replace(caller, status=Status.OK, reason=f"imports it: '{name}' is still bound, to {held.what}")
    if held.literal:
        if caller.kind in (UseKind.CALL, UseKind.INHERIT):
            return dataclasses.replace(caller, reason=f"'{name}' now holds {held.what}, which cannot be "
                                       + ("called" if caller.kind is UseKind.CALL else "subclassed"))
        return dataclasses.replace(caller, status=Status.OK, reason=f"refers to it: '{name}' is still bound, to {held.what}")
    return dataclasses.replace(caller, status=Status.UNKNOWN,
                               reason=f"'{name}' is still bound, to {held.what}: its signature is not known here")


def _inherited_now(resolver: Resolver, modmap: ModuleMap, ic: InterfaceChange) -> str | None:
    """The base class method that a removed method `Class.name` now falls back to, if any."""
    from graphguard.languages.python.targets import Sym

    cls_local, name = ic.change.qualname.rsplit(".", 1)
    module = modmap.primary.get(ic.path)
    if module is None:
        return None
    info = resolver.info(ic.path)
    if info is None or cls_local not in info.defs:
        return None
    cls = Sym(ic.path, f"{module}.{cls_local}", cls_local, DefKind.CLASS)
    for base in resolver.bases(cls):
        if isinstance(base, Sym):
            found = resolver.member(base, name)
            if isinstance(found, Sym):
                return found.qualname
    return None


_IGNORE = re.compile(rb"#\s*graphguard:\s*ignore(?:\[([^\]]*)\])?")


def ignored_codes(source: bytes, line: int) -> tuple[str, ...]:
    """Codes accepted by `# graphguard: ignore[code, ...]` on a definition's line ("*" for a bare ignore)."""
    from graphguard.languages.python.encoding import to_utf8

    lines = to_utf8(source)[0].splitlines()  # in the file's declared encoding, as the parsers read it
    if not 0 < line <= len(lines):
        return ()
    m = _IGNORE.search(lines[line - 1])
    if m is None:
        return ()
    if m.group(1) is None:
        return ("*",)
    return tuple(c.strip() for c in m.group(1).decode("utf-8", "replace").split(",") if c.strip())
