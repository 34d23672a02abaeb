"""Each use of a changed definition of a by-path language (TypeScript/JavaScript), judged through its `Language`.

A use is the stored graph's (its file unchanged) or the new version's (its file changed, resolved against the
new tree: `fresh`). A definition that is gone (removed, renamed, moved) breaks the uses that name it, unless
the use's file, resolved again against the new tree, reaches a definition by the same place (a re-export left
behind, the name now imported from elsewhere): then the call is bound to what it reaches now. Pure over the
records given; signatures of the new side come from `NewSigs`, which reads the new side's bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphguard.languages import Language, for_path
from graphguard.model import Resolution, UseKind
from graphguard.resolved import FileResolution, Site, Use
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact
from graphguard.store.reads import CodeGraph

#: The resolutions that say a use names the definition: it breaks when the definition is gone.
_NAMED = frozenset({Resolution.EXACT, Resolution.PARTIAL, Resolution.BY_NAME})

#: The changes after which the old name leads nowhere (its uses break unless they now reach a definition).
GONE = frozenset({ChangeKind.REMOVED, ChangeKind.RENAMED, ChangeKind.MOVED})


@dataclass
class NewSigs:
    """The signature of `path#qualname` on the new side: the changed files' bytes, else the new tree's (`read`)."""

    new_data: Mapping[str, bytes]
    read: Callable[[str], bytes | None]
    _files: dict[str, Any] = field(default_factory=dict)

    def of(self, symbol: str) -> Any:
        path, _, qualname = symbol.partition("#")
        lang = for_path(path)
        if lang is None or not qualname:
            return None
        if path not in self._files:
            data = self._data(path)
            self._files[path] = lang.signatures(data, kind=lang.facts_kind(path)) if data is not None else None
        sigs = self._files[path]
        return sigs.defs.get(qualname) if sigs is not None else None

    def _data(self, path: str) -> bytes | None:
        return self.new_data[path] if path in self.new_data else self.read(path)


def uses(graph: CodeGraph, symbol: str, changed: set[str], fresh: Mapping[str, FileResolution]) -> list[Use]:
    """Every use of `symbol`: the graph's in unchanged files, the new versions' in changed ones."""
    out = [u for u in graph.uses_of(symbol) if u.path not in changed]
    for r in fresh.values():
        if r.path not in changed:
            continue
        out += [_use(r.path, s) for s in r.sites if s.target == symbol or s.init_target == symbol]
    return sorted(set(out), key=lambda u: (u.path, u.line, u.col, u.kind))


def _use(path: str, s: Site) -> Use:
    return Use(path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, s.resolution, s.shape)


def lost_imports(path: str, qualname: str, changed: set[str], fresh: Mapping[str, FileResolution]) -> list[Use]:
    """Imports of a gone top-level name written in the changed files' new versions (`import { f } from "./a"` with
    `f` no longer exported there): they reach nothing, so they are no site of the graph's, but they break."""
    if "." in qualname:
        return []
    out = []
    for r in fresh.values():
        if r.path not in changed:
            continue
        reached = {(s.line, s.text) for s in r.sites if s.kind is UseKind.IMPORT and s.target is not None}
        for row in r.imports:
            if row.target_path == path and row.name == qualname and (row.line, qualname) not in reached:
                out.append(Use(r.path, row.line, row.line, 0, row.scope, UseKind.IMPORT, qualname, Resolution.UNRESOLVED))
    return out


def impact(lang: Language, path: str, change: Any, graph: CodeGraph, fresh: Mapping[str, FileResolution], changed: set[str],
           sigs: NewSigs) -> SymbolImpact:
    symbol = f"{path}#{change.qualname}"
    found = uses(graph, symbol, changed, fresh)
    if change.before is not None and change.before.kind.value == "class":
        # `new C(...)` binds to the class's constructor: the graph's init edge names `C.constructor`.
        found += [u for u in uses(graph, symbol + ".constructor", changed, fresh) if u not in found]
    if change.change in GONE:
        found += [u for u in lost_imports(path, change.qualname, changed, fresh) if u not in found]
    judge = _Judge(lang, path, change, fresh, sigs)
    callers = tuple(c for u in found if (c := judge(u, written=u.path in changed)) is not None)
    line = change.before.line if change.before is not None else change.after.line if change.after is not None else 1
    if change.change is ChangeKind.MOVED and change.after is not None:  # as Python's: where the definition is now
        path, line = change.new_module, change.after.line
    return SymbolImpact(symbol, path, line, change.change, change.breaking, change.before.text if change.before else None,
                        change.after.text if change.after else None, callers)


@dataclass
class _Judge:
    """A use against one change (`written`: in a file the change touches, read in its new version)."""

    lang: Language
    path: str  # the changed file
    change: Any
    fresh: Mapping[str, FileResolution]
    sigs: NewSigs

    def __call__(self, use: Use, *, written: bool) -> CallerImpact:
        change = self.change
        if written and use.path == self.path and change.after is not None and change.new_qualname in (None, change.qualname):
            # An export dropped or renamed: the definition is still there, and the file's own calls still bind to it.
            return self._bound(use, change.after, "", written=True)
        if change.after is None or change.change in GONE:
            now = None if written else self._reached_now(use)
            if now is None and (use.kind is UseKind.IMPORT or use.resolution in _NAMED):
                return _impact(use, Status.BROKEN, self._gone_reason())
            if now is None:  # `x.date()`, a local `date`: the same name, nothing says it is this definition
                return _impact(use, Status.UNKNOWN, self._gone_reason() + f" (if this names it: resolved {use.resolution.value})")
            return self._bound(use, now[1], f" (now reaches {now[0]})", written=True)
        return self._bound(use, change.after, "", written=written)

    def _gone_reason(self) -> str:
        change = self.change
        name = change.qualname.rpartition(".")[2]
        if change.change is ChangeKind.MOVED:
            where = f"{change.new_module}#{change.new_qualname}"
            return f"'{name}' was moved to {where} and is no longer exported here: import it from there"
        what = f"renamed to '{change.new_qualname}'" if change.change is ChangeKind.RENAMED else "removed"
        return f"'{name}' was {what}: this use names what is no longer there"

    def _reached_now(self, use: Use) -> tuple[str, Any] | None:
        """(symbol, signature) that an unchanged file's use reaches in the new tree, when it still reaches one."""
        r = self.fresh.get(use.path)
        if r is None:
            return None
        for s in r.sites:
            if (s.line, s.col, s.kind, s.text) == (use.line, use.col, use.kind, use.text) and s.target is not None:
                sig = self.sigs.of(s.target)
                return (s.target, sig) if sig is not None else None
        return None

    def _bound(self, use: Use, sig: Any, said: str, *, written: bool) -> CallerImpact:
        if use.kind is not UseKind.CALL:
            return _impact(use, Status.OK, ("imports it" if use.kind is UseKind.IMPORT else "names it; calls nothing here") + said)
        bound = self.lang.bind(use.shape, sig)
        before = self.change.before
        if bound.status is Status.BROKEN and before is not None and not written:
            then = self.lang.bind(use.shape, before)
            if then.status is Status.BROKEN:  # broken already: fixing it is not this change's to ask
                return _impact(use, Status.UNKNOWN, f"did not bind before this change either: {bound.reason}")
        reason = bound.reason + said
        if use.resolution.value == "by-name" and bound.status is Status.BROKEN:
            reason += " (receiver typed by the only class defining this method name)"
        elif use.resolution.value not in ("exact", "partial") and bound.status is Status.BROKEN:
            return _impact(use, Status.UNKNOWN, reason + f" (if the receiver is this class: resolved {use.resolution.value})")
        return _impact(use, bound.status, reason)


def _impact(use: Use, status: Status, reason: str) -> CallerImpact:
    return CallerImpact(use.path, use.line, use.end_line, use.caller, status, reason, use.kind, use.resolution)
