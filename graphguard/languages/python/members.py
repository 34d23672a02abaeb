"""The member half of `Resolver` (a mixin): attributes, call results, class members, bases and constructors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphguard.languages.python import reaching
from graphguard.languages.python.scopes import _GENERIC, ModuleInfo, annotation_chain
from graphguard.languages.python.targets import MAX_DEPTH, MAX_INHERITANCE, TOO_DEEP, TOO_LONG, Ext, Inst, Limit, Mod, OneOf, Partial, Sym, Target, one_of
from graphguard.model import Binding, BindKind, DefKind


class Members:
    """Attribute, call and member resolution; the rest of `Resolver` is declared for the type checker."""

    if TYPE_CHECKING:
        _cuts: int
        _member_memo: dict[tuple[str, str, str], Target]
        def info(self, path: str) -> ModuleInfo | None: ...
        def module(self, name: str, near: str) -> Target: ...
        def module_attr(self, path: str, name: str, depth: int = 0) -> Target: ...
        def binding(self, info: ModuleInfo, b: Binding, depth: int) -> Target: ...
        def chain(self, info: ModuleInfo, scope: str, chain: str, depth: int = 0, at: reaching.Pos | None = None) -> Target: ...

    # attribute, call, member

    def attribute(self, target: Target, attr: str, depth: int = 0) -> Target:
        if target is None or isinstance(target, Limit):
            return target
        if isinstance(target, OneOf):  # an option without the attribute cannot be the one that runs
            return one_of([self.attribute(o, attr, depth) for o in target.options])
        if depth > MAX_DEPTH:
            self._cuts += 1
            return TOO_LONG
        if isinstance(target, Mod):
            if target.path is not None:
                return self.module_attr(target.path, attr, depth + 1)
            return self.module(f"{target.name}.{attr}", "")
        if isinstance(target, Ext):
            return Ext(f"{target.name}.{attr}")
        if isinstance(target, Sym) and target.kind is DefKind.CLASS:
            member = self.member(target, attr, depth + 1)
            return member
        if isinstance(target, Inst):
            member = self.member(target.cls, attr, depth + 1)
            return member
        return None

    def call_result(self, target: Target, depth: int = 0, receiver: Target = None) -> Target:
        """What calling `target` returns; `receiver` is what it was looked up on (`Self` is its class)."""
        if isinstance(target, OneOf):
            return one_of([self.call_result(o, depth) for o in target.options])
        if isinstance(target, Sym):
            if target.kind is DefKind.CLASS:
                return Inst(target)
            info = self.info(target.path)
            d = info.defs.get(target.local) if info else None
            if d is None or not d.returns or info is None:
                return None
            # `ReturningInsert[Any]`: a generic class of ours is still that class (only ours: `List[X]` is not followed).
            generic = _GENERIC.match(d.returns.strip())
            chain = annotation_chain(d.returns) or (generic.group(1) if generic else None)
            if chain in ("Self", "typing.Self", "typing_extensions.Self"):
                if isinstance(receiver, Inst) or isinstance(receiver, Sym) and receiver.kind is DefKind.CLASS:
                    return receiver if isinstance(receiver, Inst) else Inst(receiver)  # a subclass's instance
                cls = info.class_of(target.local)
                return Inst(Sym(info.path, f"{info.module}.{cls}", cls, DefKind.CLASS)) if cls else None
            scope = target.local.rsplit(".", 1)[0] if "." in target.local else ""
            if scope and info.defs.get(scope) and info.defs[scope].kind is DefKind.CLASS:
                scope = ""  # annotations are evaluated at module level for methods
            result = self.chain(info, scope, chain, depth + 1) if chain else None
            return Inst(result, declared=True) if isinstance(result, Sym) and result.kind is DefKind.CLASS else None
        if isinstance(target, Ext):
            return Ext(target.name + "()")
        if isinstance(target, Partial):
            return self.call_result(target.func, depth)
        if isinstance(target, Limit):
            return target
        return None

    def member(self, cls: Sym, attr: str, depth: int = 0, seen: frozenset[Sym] = frozenset()) -> Target:
        key = (cls.path, cls.qualname, attr)  # by path too: two roots can give two files one module name
        if key in self._member_memo:
            return self._member_memo[key]
        if cls in seen:
            self._cuts += 1
            return None
        if len(seen) >= MAX_INHERITANCE:
            self._cuts += 1
            return TOO_DEEP
        if depth > MAX_DEPTH:
            self._cuts += 1
            return TOO_LONG
        cuts = self._cuts
        result = self._member(cls, attr, depth, seen | {cls})
        if self._cuts == cuts and not isinstance(result, Limit):
            self._member_memo[key] = result
        return result

    def _member(self, cls: Sym, attr: str, depth: int, seen: frozenset[Sym]) -> Target:
        info = self.info(cls.path)
        if info is None:
            return None
        local = f"{cls.local}.{attr}"
        d = info.defs.get(local)
        if d is not None:
            return Sym(info.path, f"{info.module}.{local}", local, d.kind)
        for b in info.class_attrs.get(cls.local, {}).get(attr, ()):
            t = self.binding(info, b, depth + 1)
            if t is not None:
                return t
        # Walking up costs no depth step (`seen` ends cycles, MAX_INHERITANCE deep hierarchies):
        # a deep hierarchy is not a long chain of names.
        for base in self.bases(cls, depth):
            if isinstance(base, Sym):
                found = self.member(base, attr, depth, seen)
                if found is not None:
                    return found
        return None

    def instance_attribute(self, cls: Sym, attr: str) -> tuple[ModuleInfo, Binding] | None:
        """The first `self.attr = ...` that a method of `cls` or of a class it inherits from writes:
        on an instance, that value hides a method of the name once the method that sets it has run."""
        seen: set[Sym] = set()
        todo = [cls]
        while todo and len(seen) < MAX_INHERITANCE:
            c = todo.pop(0)
            if c in seen:
                continue
            seen.add(c)
            info = self.info(c.path)
            if info is None:
                continue
            own = [b for b in info.class_attrs.get(c.local, {}).get(attr, ()) if b.target.startswith("self.")]
            if own:
                return info, min(own, key=lambda b: b.line)
            todo += [b for b in self.bases(c) if isinstance(b, Sym) and b.kind is DefKind.CLASS]
        return None

    def held(self, info: ModuleInfo, b: Binding) -> Target:
        """What an instance attribute's binding holds: its value followed, a plain chain too (`self.f = obj.f`)."""
        if b.kind is BindKind.VALUE:
            return self.chain(info, b.scope, b.value, at=(b.line, b.col)) if b.value else None
        return self.binding(info, b, 0)

    def bases(self, cls: Sym, depth: int = 0) -> list[Target]:
        info = self.info(cls.path)
        d = info.defs.get(cls.local) if info else None
        if d is None or info is None:
            return []
        scope = cls.local.rsplit(".", 1)[0] if "." in cls.local else ""
        return [self.chain(info, scope, b, depth + 1) for b in d.bases]

    def constructor(self, cls: Sym) -> Sym | None:
        """What `cls(...)` runs: the __init__ in its hierarchy, else the class whose constructor is
        generated (a dataclass up the hierarchy); None when it is `cls`'s own."""
        ctor = self.member(cls, "__init__")
        if isinstance(ctor, Sym):
            return ctor
        return self._constructor_class(cls)

    def _constructor_class(self, cls: Sym) -> Sym | None:
        """For a class with no `__init__` in its hierarchy: the ancestor whose constructor
        `cls(...)` runs (a dataclass's generated one, say); None when it is `cls`'s own."""
        start = cls
        for depth in range(MAX_DEPTH):
            info = self.info(cls.path)
            d = info.defs.get(cls.local) if info else None
            if d is None:
                return None
            base = next((b for b in self.bases(cls, depth) if isinstance(b, Sym) and b.kind is DefKind.CLASS), None)
            if d.decorators or base is None:  # generates its own (dataclass, attrs), or the top of the hierarchy
                return cls if cls != start else None
            cls = base
        return None
