"""The sites half of `Resolver` (a mixin): a whole file resolved to the rows of the graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphguard.languages.python import reaching
from graphguard.languages.python.modules import ModuleMap
from graphguard.languages.python.scopes import ModuleInfo, Selection
from graphguard.languages.python.targets import Data, Ext, Inst, Limit, Mod, OneOf, Partial, Sym, Target, options_of
from graphguard.model import DefKind, Import, RefKind, Resolution, UseKind
from graphguard.resolved import FileResolution, ImportRow, ImportStatus, Site


class Sites:
    """`resolve_file` and the rows it makes; the rest of `Resolver` is declared for the type checker."""

    if TYPE_CHECKING:
        modmap: ModuleMap
        def info(self, path: str) -> ModuleInfo | None: ...
        def module(self, name: str, near: str) -> Target: ...
        def external_or_none(self, name: str) -> Target: ...
        def absolute(self, imp: Import, path: str) -> str | None: ...
        def imported(self, imp: Import, path: str, depth: int = 0) -> Target: ...
        def member(self, cls: Sym, attr: str, depth: int = 0, seen: frozenset[Sym] = frozenset()) -> Target: ...
        def constructor(self, cls: Sym) -> Sym | None: ...
        def chain(self, info: ModuleInfo, scope: str, chain: str, depth: int = 0, at: reaching.Pos | None = None) -> Target: ...

    # a whole file

    def resolve_file(self, path: str) -> FileResolution:
        info = self.info(path)
        module = self.modmap.module_of(path)
        out = FileResolution(path, module)
        if info is None:
            return out
        memo: dict[tuple[str, str, Selection], Target] = {}

        def resolve(scope: str, chain: str, at: reaching.Pos) -> Target:
            # Memoised by the bindings of its first name that reach `at`, not by `at`: most uses
            # of a name see the same ones.
            head = chain.partition(".")[0].removesuffix("()")
            key = (scope, chain, info.selection(scope, head, at) if (scope, head) in info.choices else None)
            if key not in memo:
                memo[key] = self.chain(info, scope, chain, at=at)
            return memo[key]

        def full_scope(scope: str) -> str:
            return f"{module}.{scope}" if scope else module

        def use(t: Sym) -> None:
            if t.path != path:
                out.uses.setdefault(t.path, set()).add(t.qualname)

        def subclass_at(line: int) -> str | None:
            """The class whose header holds a base expression on `line` (the innermost such class)."""
            holders = [d for d in info.defs.values() if d.kind is DefKind.CLASS and d.line <= line <= d.end_line]
            return max(holders, key=lambda d: d.line).qualname if holders else None

        def depend_on_receiver(scope: str, chain: str, at: reaching.Pos) -> None:
            # An unresolved `a.b().c` depends on the file of its longest resolved prefix, where `c`
            # may appear later: without the edge, that change would not re-resolve this file.
            parts = chain.split(".")
            for i in range(len(parts), 0, -1):
                t = resolve(scope, ".".join(parts[:i]), at)
                if t is None:
                    continue
                for o in options_of(t):
                    where = o.cls.path if isinstance(o, Inst) else o.func.path if isinstance(o, Partial) else getattr(o, "path", None)
                    if where and where != path:
                        out.uses.setdefault(where, set())
                return

        for c in info.facts.calls:
            t = resolve(c.scope, c.callee, (c.line, c.col))
            rows = self._call_rows(t)
            for resolution, sym, init in rows:
                if sym is not None:
                    use(sym)
                elif resolution in (Resolution.UNRESOLVED, Resolution.TOO_DEEP, Resolution.TOO_LONG):
                    depend_on_receiver(c.scope, c.callee, (c.line, c.col))
                out.sites.append(
                    Site(UseKind.CALL, full_scope(c.scope), c.callee, c.name, resolution, sym.qualname if sym else None,
                         sym.path if sym else None, init,
                         c.line, c.end_line, c.col, c.end_col, c.shape)
                )
        for r in info.facts.references:
            t = resolve(r.scope, r.target, (r.line, r.col))
            kind = UseKind.INHERIT if r.kind is RefKind.BASE else UseKind.REFERENCE
            name = r.target.rsplit(".", 1)[-1]
            options = [o.func if isinstance(o, Partial) else o for o in options_of(t)]
            # A module-level instance is data, not an interface.
            syms = [o for o in options if isinstance(o, Sym)]
            for sym in syms:
                use(sym)
                # A base is resolved in the enclosing scope, but the edge belongs to the subclass.
                scope = subclass_at(r.line) if kind is UseKind.INHERIT else None
                resolution = Resolution.EXACT if len(options) == 1 else Resolution.ONE_OF
                out.sites.append(Site(kind, full_scope(scope or r.scope), r.target, name, resolution, sym.qualname, sym.path,
                                      None, r.line, r.end_line, r.col, r.end_col))
            for o in options:
                if isinstance(o, Mod) and o.path and o.path != path:
                    out.uses.setdefault(o.path, set())
            if t is None:
                depend_on_receiver(r.scope, r.target, (r.line, r.col))
        for imp in info.facts.imports:
            out.imports.append(self._import_row(imp, path, out, full_scope))
        return out

    def _called(self, t: Target) -> tuple[Target, Resolution]:
        """What runs when `t` is called: a partial's function (PARTIAL), an instance's `__call__`."""
        resolution = Resolution.EXACT
        if isinstance(t, Partial):
            t, resolution = t.func, Resolution.PARTIAL
        if isinstance(t, Inst):  # calling an instance runs __call__
            t = self.member(t.cls, "__call__")
        return t, resolution

    def _call_rows(self, t: Target) -> list[tuple[Resolution, Sym | None, str | None]]:
        """The rows of a call that reaches `t`: (resolution, target, the __init__ it runs).

        One row for one target. For a OneOf, a `one-of` row per target, and a row for what
        every option runs (the __init__ of a base they share) with its own resolution: a
        change there reaches the call whichever option runs, a change to one option only
        on some paths.
        """
        if not isinstance(t, OneOf):  # one target: most calls
            t, resolution = self._called(t)
            if isinstance(t, Sym):
                init = self.constructor(t) if t.kind is DefKind.CLASS else None
                return [(resolution, t, init.qualname if init is not None else None)]
            if isinstance(t, Ext):
                return [(Resolution.EXTERNAL, None, None)]
            if isinstance(t, Limit):  # undecided, not unresolved: a check reports it as unknown
                return [(t.resolution, None, None)]
            if not isinstance(t, OneOf):  # an instance's __call__ may itself be one of several
                return [(Resolution.UNRESOLVED, None, None)]
        found: dict[tuple[Sym, Sym | None], Resolution] = {}
        others = []  # options followed elsewhere (external) or not to the end (a limit)
        for option in options_of(t):
            o, resolution = self._called(option)
            if isinstance(o, Sym):
                key = (o, self.constructor(o) if o.kind is DefKind.CLASS else None)
                if found.get(key) is not Resolution.PARTIAL:
                    found[key] = resolution
            elif isinstance(o, (Ext, Limit, OneOf)):
                others.append(o)
            # anything else (a module, an instance without __call__) cannot be the one that runs
        if not found:
            o = others[0] if len(others) == 1 else None
            resolution = o.resolution if isinstance(o, Limit) else Resolution.EXTERNAL if others else Resolution.UNRESOLVED
            return [(resolution, None, None)]
        if len(found) == 1 and not others:
            ((sym, init), resolution), = found.items()
            return [(resolution, sym, init.qualname if init else None)]
        # What every option runs: only when each option is one of ours.
        runs = [{sym, init} - {None} for sym, init in found]
        common: set[Sym] = set.intersection(*runs) if not others else set()  # type: ignore[arg-type]
        rows: list[tuple[Resolution, Sym | None, str | None]] = []
        partial = Resolution.PARTIAL in found.values()
        for sym in sorted(common, key=lambda c: c.qualname):
            rows.append((Resolution.PARTIAL if partial else Resolution.EXACT, sym, None))
        for sym, init in found:
            if sym not in common:
                rows.append((Resolution.ONE_OF, sym, init.qualname if init is not None and init not in common else None))
        return rows

    def _import_row(self, imp: Import, path: str, out: FileResolution, full_scope: Callable[[str], str]) -> ImportRow:
        base = self.absolute(imp, path)
        if base is None:
            return ImportRow(imp.line, "." * imp.level + imp.module, imp.name, ImportStatus.UNRESOLVED, None, imp.scope, imp.type_checking)
        if imp.name == "*":
            t: Target = self.module(base, path) or (None if imp.level else self.external_or_none(base))
        else:
            t = self.imported(imp, path)
            # `from a import f` depends on `a` even when `f` is defined elsewhere (a re-export):
            # when `a` stops re-exporting it, this file must be re-resolved.
            # `import a.b.c` binds `a`: `a.b.c.f()` is looked up through the namespaces of `a` and `a.b`.
            parts = base.split(".")
            sources = [base] if imp.name is not None else [".".join(parts[:i]) for i in range(1, len(parts))]
            for source in (self.module(name, path) for name in sources):
                if isinstance(source, Mod) and source.path and source.path != path:
                    out.uses.setdefault(source.path, set())
            if imp.name is None and isinstance(t, Mod):
                t = self.module(base, path)  # the edge goes to a.b, not a
        if isinstance(t, Partial):
            t = t.func
        if isinstance(t, OneOf):  # the module binds the name to one of several things
            where: str | None = None
            for o in t.options:
                o = o.func if isinstance(o, Partial) else o
                if isinstance(o, Sym):
                    out.uses.setdefault(o.path, set()).add(o.qualname) if o.path != path else None
                    out.sites.append(Site(UseKind.IMPORT, full_scope(imp.scope), f"{base}.{imp.name}", imp.name or "", Resolution.ONE_OF,
                                          o.qualname, o.path, None, imp.line, imp.end_line))
                if isinstance(o, (Sym, Mod)) and o.path and o.path != path:
                    out.uses.setdefault(o.path, set())
                    where = where or o.path
            mod = self.module(base, path) if imp.name is not None else None
            where = mod.path if isinstance(mod, Mod) and mod.path else where
            return ImportRow(imp.line, base, imp.name, ImportStatus.INTERNAL, where, imp.scope, imp.type_checking)
        if isinstance(t, (Inst, Data)):  # a module-level value (`settings`): depend on its module
            t = self.module(base, path) if imp.name is not None else None
        if isinstance(t, Sym):
            out.uses.setdefault(t.path, set()).add(t.qualname) if t.path != path else None
            out.sites.append(Site(UseKind.IMPORT, full_scope(imp.scope), f"{base}.{imp.name}", imp.name or "", Resolution.EXACT,
                                  t.qualname, t.path, None, imp.line, imp.end_line))
            return ImportRow(imp.line, base, imp.name, ImportStatus.INTERNAL, t.path, imp.scope, imp.type_checking)
        if isinstance(t, Mod):
            if t.path and t.path != path:
                out.uses.setdefault(t.path, set())
            return ImportRow(imp.line, base, imp.name, ImportStatus.INTERNAL, t.path, imp.scope, imp.type_checking)
        if isinstance(t, Ext):
            return ImportRow(imp.line, base, imp.name, ImportStatus.EXTERNAL, None, imp.scope, imp.type_checking)
        # An attribute of an in-repository module we could not find (set at runtime, or gone).
        # This file still depends on that module: when the name comes back there, it must be re-resolved.
        mod = self.module(base, path) if imp.name is not None else None
        if isinstance(mod, Mod) and mod.path and mod.path != path:
            out.uses.setdefault(mod.path, set())
        return ImportRow(imp.line, base, imp.name, ImportStatus.UNRESOLVED, None, imp.scope, imp.type_checking)
