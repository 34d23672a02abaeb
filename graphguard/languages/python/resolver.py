"""Resolution: from the names a file uses to the definitions they reach.

Pure over a `ModuleMap` and a loader of `FileFacts`. Files are resolved one at a
time; whatever a file needs of other modules (their namespaces, class members,
return annotations) is loaded lazily and memoised, so an incremental update
that re-resolves three files touches only the modules those three reach.

Targets are values, never exceptions: a name resolves to a symbol of the
repository, a module, an instance of a repository class, something external
(stdlib, third-party, builtins), or nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from graphguard.languages.python import reaching
from graphguard.languages.python.members import Members
from graphguard.languages.python.modules import STDLIB, ModuleMap, is_installed
from graphguard.languages.python.scopes import Entry, EntryKind, ModuleInfo, Selection, annotation_chain
from graphguard.languages.python.sites import Sites
from graphguard.languages.python.targets import _FOLLOWED, BUILTINS, MAX_DEPTH, TOO_LONG, Data, Ext, Inst, Limit, Mod, OneOf, Partial, Sym, Target, one_of
from graphguard.model import Binding, BindKind, Definition, DefKind, FileFacts, Import
from graphguard.resolved import Site

# --- the resolver ----------------------------------------------------------------------


class InfoCache:
    """ModuleInfo of files, shared by resolvers that load the same facts. One costs its file's size (a 6,000-line
    module's ~15 ms), and the check resolves each changed file's new version against the old repository with a
    resolver of its own: each built the ModuleInfo of the module they all import again. Kept per path and module
    name while the facts are the same object (the indexer keeps one per blob): a resolver that loads other facts
    for a path (its new version) gets its own."""

    def __init__(self) -> None:
        self._infos: dict[tuple[str, str], ModuleInfo] = {}

    def get(self, path: str, module: str, facts: FileFacts) -> ModuleInfo:
        info = self._infos.get((path, module))
        if info is None or info.facts is not facts:
            info = self._infos[(path, module)] = ModuleInfo(path, module, facts)
        return info


class Resolver(Members, Sites):
    def __init__(self, modmap: ModuleMap, load: Callable[[str], FileFacts | None], infos: InfoCache | None = None):
        self.modmap = modmap
        self._load = load
        self._shared = infos if infos is not None else InfoCache()
        self._infos: dict[str, ModuleInfo | None] = {}
        self._attr_memo: dict[tuple[str, str], Target] = {}
        self._member_memo: dict[tuple[str, str, str], Target] = {}
        self._busy: set[tuple[str, str]] = set()
        self._lookup_memo: dict[tuple[str, str, str, Selection], Target] = {}
        self._busy_lookup: set[tuple[str, str, str, Selection]] = set()
        # Times a lookup was cut short (a cycle, or too deep). A result computed across a cut depends on where
        # the lookup started, so it is not memoised: the answer must not depend on which files were resolved first.
        self._cuts = 0

    # modules

    def info(self, path: str) -> ModuleInfo | None:
        if path not in self._infos:
            facts = self._load(path)
            self._infos[path] = self._shared.get(path, self.modmap.module_of(path), facts) if facts is not None else None
        return self._infos[path]

    def module(self, name: str, near: str) -> Target:
        paths = self.modmap.nearest(name, near)
        if len(paths) > 1:  # modules of one name in folders equally near: one of them
            return OneOf(tuple(Mod(name, p) for p in paths))
        if paths:
            return Mod(name, paths[0])
        if (name in self.modmap.by_name or self._is_namespace(name)) and not self._shadowed(name):
            return Mod(name, None)
        return None

    def _shadowed(self, name: str) -> bool:
        """Is `name` outside the repository though a folder of it has that name? Its top-level name is only a
        folder without `__init__.py` here (a namespace package), and Python prefers a stdlib or installed
        module of that name (`asyncio.current_task` beside a `test/ext/asyncio/` folder)."""
        top = name.split(".", 1)[0]
        return self.modmap.find(top) is None and is_installed(top)

    def _is_namespace(self, name: str) -> bool:
        return name in self.modmap.prefixes

    def external_or_none(self, name: str) -> Target:
        """An absolute name that is not in the repository: external, unless it looks internal."""
        if self.modmap.looks_internal(name) and name.split(".", 1)[0] not in STDLIB and not self._shadowed(name):
            return None
        return Ext(name)

    def absolute(self, imp: Import, path: str) -> str | None:
        if imp.level == 0:
            return imp.module
        base = self.modmap.relative_base(path, imp.level)
        if base is None:
            return None
        return f"{base}.{imp.module}" if base and imp.module else (base or imp.module)

    # a module's attributes

    def module_attr(self, path: str, name: str, depth: int = 0) -> Target:
        key = (path, name)
        if key in self._attr_memo:
            return self._attr_memo[key]
        if key in self._busy:
            self._cuts += 1
            return None
        if depth > MAX_DEPTH:
            self._cuts += 1
            return TOO_LONG
        self._busy.add(key)
        cuts = self._cuts
        try:
            result = self._module_attr(path, name, depth)
        finally:
            self._busy.discard(key)
        if self._cuts == cuts and not isinstance(result, Limit):
            self._attr_memo[key] = result
        return result

    def _module_attr(self, path: str, name: str, depth: int) -> Target:
        info = self.info(path)
        if info is None:
            return None
        entries = info.ns.get(name)
        if entries:
            result = self._best(info, "", entries, depth, info.selection("", name, None))
            if result is not None:
                return result
        sub = f"{info.module}.{name}"
        found = self.module(sub, path) if self.modmap.is_package(path) else None
        if found is not None:
            return found
        for star in info.stars:
            base = self.absolute(star, path)
            if base is None:
                continue
            target = self.module(base, path)
            if isinstance(target, Mod) and target.path:
                star_info = self.info(target.path)
                if star_info and star_info.facts.all_names is not None and name not in star_info.facts.all_names:
                    continue
                if name.startswith("_"):
                    continue
                result = self.module_attr(target.path, name, depth + 1)
                if result is not None:
                    return result
        return None

    def _best(self, info: ModuleInfo, scope: str, entries: list[Entry], depth: int, sel: Selection) -> Target:
        """What a name holds, from its entries in `scope` that reach the use (`sel`)."""
        if len(entries) == 1 and sel is None:  # most names: nothing to choose from
            e = entries[0]
            return self._entry(info, scope, e.kind, e.payload, depth)
        seen: dict[int, Target] = {}

        def value(i: int) -> Target:
            if i not in seen:
                seen[i] = self._entry(info, scope, entries[i].kind, entries[i].payload, depth)
            return seen[i]

        def pick(chosen: list[int]) -> Target:
            # Every value that reaches, when there is one to follow: several make a OneOf. An import
            # of something external is an alternative only to other such imports: beside one of the
            # repository's, it is the fallback in `except ImportError:`. None to follow: what it is
            # (data, a limit), never a guess from a binding that does not reach.
            reached = [(i, value(i)) for i in chosen]
            followed = [(i, t) for i, t in reached if isinstance(t, (*_FOLLOWED, OneOf))]
            ours = [t for i, t in followed if not (isinstance(t, Ext) and entries[i].kind is EntryKind.IMPORT)]
            return one_of(ours or [t for _, t in followed] or [t for _, t in reached])

        if sel is not None:
            found = pick([i for i in sel if i >= 0])
            runtime = [-1 - i for i in sel if i < 0]
            if runtime and not isinstance(found, (Sym, Mod, Inst, Partial, OneOf)):
                found = pick(runtime)  # `if TYPE_CHECKING: X = IntFlag`, `else: X = _OurIntFlag`
            return found
        # No choice made (one entry, or none reaches): as without flow. Later bindings win, but a fallback import in
        # `except ImportError:` must not hide the in-repository one: prefer the last entry
        # that resolves in the repository.
        fallback: Target = None
        for i in range(len(entries) - 1, -1, -1):
            t = value(i)
            if isinstance(t, (Sym, Mod, Inst, Partial, OneOf)):
                return t
            if fallback is None or isinstance(t, Data) and not isinstance(fallback, Data):
                fallback = t
        return fallback

    def _entry(self, info: ModuleInfo, scope: str, kind: EntryKind, payload: object, depth: int) -> Target:
        if kind is EntryKind.DEF:
            d = payload
            assert isinstance(d, Definition)
            return Sym(info.path, f"{info.module}.{d.qualname}", d.qualname, d.kind)
        if kind is EntryKind.IMPORT:
            imp = payload
            assert isinstance(imp, Import)
            return self.imported(imp, info.path, depth)
        b = payload
        assert isinstance(b, Binding)
        found = self.binding(info, b, depth)
        if found is None and not b.target.startswith(("self.", "cls.")):
            prefix = f"{info.module}.{scope}." if scope else f"{info.module}."
            return Data(info.path, prefix + b.target)
        return found

    def imported(self, imp: Import, path: str, depth: int = 0) -> Target:
        base = self.absolute(imp, path)
        if base is None:
            return None
        if imp.name is None:
            # `import a.b` binds `a`; `import a.b as c` binds c to a.b.
            name = base if imp.alias else base.split(".", 1)[0]
            return self.module(name, path) or self.external_or_none(name)
        target = self.module(base, path)
        if target is None:  # a relative import is never stdlib or third-party
            return None if imp.level else self.external_or_none(f"{base}.{imp.name}")
        assert isinstance(target, (Mod, OneOf))
        return self.attribute(target, imp.name, depth + 1)

    def binding(self, info: ModuleInfo, b: Binding, depth: int) -> Target:
        if b.kind is BindKind.VALUE:
            return None
        if b.kind is BindKind.ANNOTATION:
            chain = annotation_chain(b.value)
            cls = self.chain(info, b.scope, chain, depth + 1, at=(b.line, b.col)) if chain else None
            if isinstance(cls, Limit):
                return cls
            return Inst(cls, declared=True) if isinstance(cls, Sym) and cls.kind is DefKind.CLASS else None
        # The value is read where the statement starts: `x = x.strip()` reads the x bound before it.
        at = (b.line, b.col)
        if b.kind in (BindKind.CALL, BindKind.WITH) and not b.value.endswith("()"):
            # Called as part of the chain: a method returning `Self` returns the receiver's class.
            return self.chain(info, b.scope, b.value + "()", depth + 1, at=at)
        target = self.chain(info, b.scope, b.value, depth + 1, at=at)
        if b.kind is BindKind.ALIAS:
            return target
        if b.kind is BindKind.PARTIAL:
            return Partial(target) if isinstance(target, Sym) else None
        return self.call_result(target, depth)

    # names and chains in a scope

    def lookup(self, info: ModuleInfo, scope: str, name: str, depth: int, at: reaching.Pos | None = None) -> Target:
        """What `name` holds in `scope` at `at` (None: wherever; the bindings that reach the end of its scope)."""
        sel = info.selection(scope, name, at) if at is not None and (scope, name) in info.choices else None
        key = (info.path, scope, name, sel)
        if key in self._lookup_memo:
            return self._lookup_memo[key]
        if key in self._busy_lookup:
            self._cuts += 1
            return None  # `x = x.strip()`: a name defined through itself
        self._busy_lookup.add(key)
        cuts = self._cuts
        try:
            result = self._lookup(info, scope, name, depth, sel)
        finally:
            self._busy_lookup.discard(key)
        if self._cuts == cuts and not isinstance(result, Limit):
            self._lookup_memo[key] = result
        return result

    def _lookup(self, info: ModuleInfo, scope: str, name: str, depth: int, sel: Selection) -> Target:
        # Function scopes from the innermost out; class bodies only for their own body. `sel` picks
        # the entries of the innermost scope; an enclosing scope's name holds what reaches its end.
        s = scope
        while s:
            entries = info.scope_ns.get(s, {}).get(name)
            if entries:
                return self._best(info, s, entries, depth, sel if s == scope else info.selection(s, name, None))
            d = info.defs.get(s)
            if d is not None and d.kind is DefKind.CLASS and s == scope:
                for b in info.class_attrs.get(s, {}).get(name, ()):
                    return self.binding(info, b, depth + 1)
                inner = info.defs.get(f"{s}.{name}")
                if inner is not None:
                    return Sym(info.path, f"{info.module}.{inner.qualname}", inner.qualname, inner.kind)
            if ".<locals>." in s:
                s = s.rsplit(".<locals>.", 1)[0]
            elif "." in s:
                s = s.rsplit(".", 1)[0]
            else:
                s = ""
        if name in info.ns:
            if not scope and sel is not None:  # a use at module level, after some of the module's bindings
                found = self._best(info, "", info.ns[name], depth + 1, sel)
                if found is not None:
                    return found
            return self.module_attr(info.path, name, depth + 1)
        if name in BUILTINS:
            return Ext(f"builtins.{name}")
        if info.stars:
            return self.module_attr(info.path, name, depth + 1)
        return None

    def chain(self, info: ModuleInfo, scope: str, chain: str, depth: int = 0, at: reaching.Pos | None = None) -> Target:
        """What a name chain (`a.b().c`) reaches, read in `scope` at `at` (None: after the scope's last line)."""
        if not chain:
            return None
        if depth > MAX_DEPTH:
            self._cuts += 1
            return TOO_LONG
        parts = chain.split(".")
        head = parts[0]
        called = head.endswith("()")
        head = head.removesuffix("()")
        if head == "?":
            return None
        if (head == "super" or head.startswith("super(")) and called:
            if len(parts) < 2:
                return None
            if head == "super":
                cls_local = info.class_of(scope)
                if cls_local is None:
                    return None
                cls = Sym(info.path, f"{info.module}.{cls_local}", cls_local, DefKind.CLASS)
            else:  # `super(Named, self).m`: the lookup starts after Named (its bases), not after the enclosing class
                named = self.lookup(info, scope, head[len("super("):-1], depth, at)
                if not isinstance(named, Sym) or named.kind is not DefKind.CLASS:
                    return None
                cls = named
            attr = parts[1]
            attr_called = attr.endswith("()")
            attr = attr.removesuffix("()")
            target: Target = None
            for base in self.bases(cls, depth):
                if isinstance(base, Sym):
                    target = self.member(base, attr, depth + 1)
                    if target is not None:
                        break
            if attr_called:
                target = self.call_result(target, depth)
            rest = parts[2:]
        else:
            if head in ("self", "cls") and info.class_of(scope):
                cls_local = info.class_of(scope)
                assert cls_local is not None
                cls = Sym(info.path, f"{info.module}.{cls_local}", cls_local, DefKind.CLASS)
                target = Inst(cls) if head == "self" else cls
            else:
                target = self.lookup(info, scope, head, depth, at)
            if called:
                target = self.call_result(target, depth)
            rest = parts[1:]
        for part in rest:
            if target is None or isinstance(target, Limit):
                return target
            attr = part.removesuffix("()")
            receiver = target
            target = self.attribute(target, attr, depth + 1)
            if part.endswith("()"):
                target = self.call_result(target, depth + 1, receiver)
        return target

    def declared_receiver(self, path: str, site: Site) -> Sym | None:
        """The class a method call's receiver is annotated with (`def f(r: Response)`, `-> Response`):
        the receiver is that class or a subclass, so a subclass's override may be the method that runs."""
        info = self.info(path)
        receiver = site.text.rpartition(".")[0]
        if info is None or not receiver:
            return None
        module = self.modmap.module_of(path)
        scope = site.scope.removeprefix(module).removeprefix(".")  # the site's scope is its full qualname
        t = self.chain(info, scope, receiver, at=(site.line, site.col))
        return t.cls if isinstance(t, Inst) and t.declared else None
