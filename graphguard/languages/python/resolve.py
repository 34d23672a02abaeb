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

import bisect
import builtins
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.languages.python import reaching
from graphguard.languages.python.modules import STDLIB, ModuleMap, is_installed
from graphguard.model import NO_CALL, Binding, BindKind, CallShape, Definition, DefKind, FileFacts, Import, RefKind, Resolution

BUILTINS = frozenset(dir(builtins))
MAX_DEPTH = 24  # re-export chains and alias loops end here
MAX_INHERITANCE = 64  # classes walked up from one class looking for a member (a base costs no MAX_DEPTH step)
#: A name bound more often than this in one scope is resolved as if every binding reached every use
#: (the reaching sets cost the square of the bindings).
MAX_FLOW = 64

# --- targets ------------------------------------------------------------------------


@dataclass(frozen=True)
class Sym:
    path: str
    qualname: str  # full dotted name: module + local qualname
    local: str  # module-relative qualname
    kind: DefKind


@dataclass(frozen=True)
class Mod:
    name: str
    path: str | None  # None for a namespace package folder


@dataclass(frozen=True)
class Inst:
    """An instance of `cls`. Declared: its type comes from an annotation (a parameter's, a variable's,
    a return's), so it may be a subclass's instance; not compared, so that resolution is as before."""

    cls: Sym
    declared: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Ext:
    name: str


@dataclass(frozen=True)
class Partial:
    """A callable from functools.partial: arguments were bound earlier."""

    func: Sym


@dataclass(frozen=True)
class Data:
    """A name the repository defines whose value we do not follow (`HORIZONTAL = 1`)."""

    path: str
    qualname: str


@dataclass(frozen=True)
class Limit:
    """Resolution stopped at a limit: the name may well reach a definition (never memoised: depth-dependent)."""

    resolution: Resolution  # TOO_DEEP (inheritance) or TOO_LONG (imports and aliases)


@dataclass(frozen=True)
class OneOf:
    """Several targets: the name holds a different one on different paths (`if c: k = A` / `else: k = B`).

    Its options are targets that can be followed (never None, Data, Limit or another OneOf),
    distinct, at least two.
    """

    options: tuple[Sym | Mod | Inst | Partial | Ext, ...]


TOO_LONG = Limit(Resolution.TOO_LONG)
TOO_DEEP = Limit(Resolution.TOO_DEEP)

#: Why a limited site is undecidable, by its resolution value.
LIMIT_REASONS = {
    Resolution.TOO_DEEP.value: f"inheritance deeper than {MAX_INHERITANCE} levels",
    Resolution.TOO_LONG.value: f"more than {MAX_DEPTH} steps of imports, aliases and attributes",
}

Target = Sym | Mod | Inst | Ext | Partial | Data | Limit | OneOf | None
#: What one reaching binding can contribute to a OneOf.
_FOLLOWED = (Sym, Mod, Inst, Partial, Ext)


def one_of(targets: Sequence[Target]) -> Target:
    """The targets a name can hold, joined: the followed ones (one, or a OneOf of several), else the first."""
    options: list[Sym | Mod | Inst | Partial | Ext] = []
    for t in targets:
        for o in t.options if isinstance(t, OneOf) else (t,):
            if isinstance(o, _FOLLOWED) and o not in options:
                options.append(o)
    if len(options) > 1:
        return OneOf(tuple(options))
    if options:
        return options[0]
    # Nothing to follow: a limit says more than data, data more than nothing.
    return next((t for t in targets if isinstance(t, Limit)), next((t for t in targets if t is not None), None))


def options_of(t: Target) -> tuple[Target, ...]:
    return t.options if isinstance(t, OneOf) else (t,)

# --- what a file resolves to ----------------------------------------------------------


class Site(NamedTuple):
    """A row of the graph: one use of a name at a place, and what it reaches."""

    kind: str  # "call" | "reference" | "inherit" | "import"
    scope: str  # full qualname of the enclosing definition, or the module name
    text: str  # the callee chain / referenced name as written
    name: str  # its last name: what a by-name query matches
    resolution: Resolution
    target: str | None  # full qualname
    target_path: str | None
    init_target: str | None  # for instantiation: the __init__ that runs
    line: int
    end_line: int
    col: int = 0
    end_col: int = 0
    shape: CallShape = NO_CALL


@dataclass(frozen=True)
class ImportRow:
    line: int
    module: str  # absolute module name as imported (relative ones made absolute)
    name: str | None
    status: str  # "internal" | "external" | "unresolved"
    target_path: str | None
    scope: str
    type_checking: bool


@dataclass
class FileResolution:
    path: str
    module: str
    sites: list[Site] = field(default_factory=list)
    imports: list[ImportRow] = field(default_factory=list)
    # imported file -> distinct symbols of it this file uses
    uses: dict[str, set[str]] = field(default_factory=dict)


# --- per-module tables built from facts ----------------------------------------------

_OPTIONAL = re.compile(r"^(?:typing\.|t\.)?Optional\[(.+)\]$")
_UNION = re.compile(r"^(?:typing\.|t\.)?Union\[(.+)\]$")
_CHAIN = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*$")
_GENERIC = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\[.*\]$", re.DOTALL)


def annotation_chain(text: str) -> str | None:
    """The class an annotation names for a receiver: `Optional["Client"]` -> "Client"."""
    text = text.strip()
    for _ in range(4):
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].strip()
        m = _OPTIONAL.match(text)
        if m:
            text = m.group(1).strip()
            continue
        m = _UNION.match(text)
        if m:
            text = m.group(1)
        if "|" in text or "," in text:
            parts = [p.strip() for p in re.split(r"[|,]", text) if p.strip() not in ("None", "")]
            if len(parts) != 1:
                return None
            text = parts[0]
            continue
        break
    return text if _CHAIN.match(text) else None


class Entry(NamedTuple):
    """One way a scope binds a name: a definition, an import or an assignment."""

    line: int
    kind: str  # "def" | "import" | "binding"
    payload: Definition | Import | Binding
    rebind: bool = False  # a function's `global name` then binding: it can happen at any time

    @property
    def start(self) -> reaching.Pos:
        return (self.payload.line, self.payload.col)

    def point(self, arms: reaching.Arms, floor: int) -> reaching.Point:
        p = self.payload
        # Definitions and imports carry no end column: they hold the name from the next line on.
        end = (p.end_line, p.end_col) if isinstance(p, Binding) else (p.end_line, reaching.LINE_END)
        return reaching.Point(self.start, end, arms.path(self.start, floor))


#: Which entries of a name reach a use: indices into its entry list, or None for all of them.
Selection = tuple[int, ...] | None


class ModuleInfo:
    """Namespaces of one file: module level, each function scope, each class."""

    def __init__(self, path: str, module: str, facts: FileFacts):
        self.path = path
        self.module = module
        self.facts = facts
        self.defs: dict[str, Definition] = {d.qualname: d for d in facts.definitions}
        # name -> entries in source order
        self.ns: dict[str, list[Entry]] = defaultdict(list)
        self.scope_ns: dict[str, dict[str, list[Entry]]] = defaultdict(lambda: defaultdict(list))
        self.stars: list[Import] = []
        self.class_attrs: dict[str, dict[str, list[Binding]]] = defaultdict(lambda: defaultdict(list))
        self._arms: reaching.Arms | None = None
        self._points: dict[tuple[str, str], list[reaching.Point | None]] = {}
        self._at_end: dict[tuple[str, str], Selection] = {}
        # `global name` in a function: its imports and assignments of `name` rebind the module's.
        rebinds = {(g.scope, g.name) for g in facts.globals}
        for d in facts.definitions:
            if "." not in d.qualname:
                self.ns[d.qualname].append(Entry(d.line, "def", d))
            elif ".<locals>." in d.qualname:
                parent, name = d.qualname.rsplit(".<locals>.", 1)
                if "." not in name:
                    self.scope_ns[parent][name].append(Entry(d.line, "def", d))
        for imp in facts.imports:
            if imp.name == "*":
                if not imp.scope:
                    self.stars.append(imp)
                continue
            rebind = (imp.scope, imp.bound_name) in rebinds
            table = self.ns if not imp.scope or rebind else self.scope_ns[imp.scope]
            table[imp.bound_name].append(Entry(imp.line, "import", imp, rebind))
        for b in facts.bindings:
            if b.target.startswith(("self.", "cls.")):
                cls = self.class_of(b.scope)
                if cls and b.target.count(".") == 1:
                    self.class_attrs[cls][b.target.split(".", 1)[1]].append(b)
                continue
            if "." in b.target:
                continue
            if b.scope and b.scope in self.defs and self.defs[b.scope].kind is DefKind.CLASS:
                self.class_attrs[b.scope][b.target].append(b)
                continue
            rebind = (b.scope, b.target) in rebinds
            table = self.ns if not b.scope or rebind else self.scope_ns[b.scope]
            table[b.target].append(Entry(b.line, "binding", b, rebind))
        for entries in self.ns.values():
            entries.sort(key=lambda e: e.line)
        # The names a scope binds more than once (or rebinds from a function): only these have a choice.
        self.choices = {("", n) for n, es in self.ns.items() if len(es) > 1 or es[0].rebind}
        self.choices.update((s, n) for s, names in self.scope_ns.items() for n, es in names.items() if len(es) > 1)

    def entries(self, scope: str, name: str) -> list[Entry] | None:
        return self.ns.get(name) if not scope else self.scope_ns.get(scope, {}).get(name)

    def floor(self, scope: str) -> int:
        """The line of the scope's header: arms on or before it lie outside the scope."""
        d = self.defs.get(scope) if scope else None
        return d.line if d is not None else 0

    def arms(self) -> reaching.Arms:
        if self._arms is None:
            self._arms = reaching.Arms(self.facts.arms)
        return self._arms

    def selection(self, scope: str, name: str, at: reaching.Pos | None) -> Selection:
        """The entries of `name` bound in `scope` that reach `at` (None: the end of the scope).

        None when there is nothing to choose (one entry, none in this scope, too many), or when
        no entry reaches (a use before any binding: every entry is taken, as without flow).
        """
        if (scope, name) not in self.choices:
            return None
        entries = self.entries(scope, name)
        if not entries or len(entries) > MAX_FLOW:
            return None
        if at is None and (scope, name) in self._at_end:
            return self._at_end[(scope, name)]
        key = (scope, name)
        points = self._points.get(key)
        floor = self.floor(scope)
        if points is None:
            points = self._points[key] = [None if e.rebind else e.point(self.arms(), floor) for e in entries]
        index = [i for i, p in enumerate(points) if p is not None]  # a rebinding has no place in the module's flow
        use = None if at is None else reaching.Point(at, at, self.arms().path(at, floor))
        chosen = [index[i] if i >= 0 else -1 - index[-1 - i]
                  for i in reaching.reaching(self.arms(), [p for p in points if p is not None], use, floor)]
        # A rebinding in a function may have run before any use (and after the module's own bindings).
        found = tuple(sorted(chosen + [i for i, p in enumerate(points) if p is None])) if chosen or len(index) < len(points) else None
        if at is None:
            self._at_end[key] = found
        return found

    def class_of(self, scope: str) -> str | None:
        """The class whose method holds `scope` (closures inside methods included).

        The innermost one: in a method of a class defined in a function or method, `self` is
        that class (`T.test.<locals>.C.m` -> `T.test.<locals>.C`), not the outer one.
        """
        while scope:
            d = self.defs.get(scope)
            if d is None:
                return None
            if d.kind is DefKind.CLASS:
                return scope
            if d.kind is DefKind.METHOD:
                return scope.rsplit(".", 1)[0]
            if ".<locals>." not in scope:  # a module-level function
                return None
            scope = scope.rsplit(".<locals>.", 1)[0]  # a closure: `self` is its enclosing function's
        return None


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


class Resolver:
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
            ours = [t for i, t in followed if not (isinstance(t, Ext) and entries[i].kind == "import")]
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

    def _entry(self, info: ModuleInfo, scope: str, kind: str, payload: object, depth: int) -> Target:
        if kind == "def":
            d = payload
            assert isinstance(d, Definition)
            return Sym(info.path, f"{info.module}.{d.qualname}", d.qualname, d.kind)
        if kind == "import":
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
                    Site("call", full_scope(c.scope), c.callee, c.name, resolution, sym.qualname if sym else None,
                         sym.path if sym else None, init,
                         c.line, c.end_line, c.col, c.end_col, c.shape)
                )
        for r in info.facts.references:
            t = resolve(r.scope, r.target, (r.line, r.col))
            kind = "inherit" if r.kind is RefKind.BASE else "reference"
            name = r.target.rsplit(".", 1)[-1]
            options = [o.func if isinstance(o, Partial) else o for o in options_of(t)]
            # A module-level instance is data, not an interface.
            syms = [o for o in options if isinstance(o, Sym)]
            for sym in syms:
                use(sym)
                # A base is resolved in the enclosing scope, but the edge belongs to the subclass.
                scope = subclass_at(r.line) if kind == "inherit" else None
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
            return ImportRow(imp.line, "." * imp.level + imp.module, imp.name, "unresolved", None, imp.scope, imp.type_checking)
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
                    out.sites.append(Site("import", full_scope(imp.scope), f"{base}.{imp.name}", imp.name or "", Resolution.ONE_OF,
                                          o.qualname, o.path, None, imp.line, imp.end_line))
                if isinstance(o, (Sym, Mod)) and o.path and o.path != path:
                    out.uses.setdefault(o.path, set())
                    where = where or o.path
            mod = self.module(base, path) if imp.name is not None else None
            where = mod.path if isinstance(mod, Mod) and mod.path else where
            return ImportRow(imp.line, base, imp.name, "internal", where, imp.scope, imp.type_checking)
        if isinstance(t, (Inst, Data)):  # a module-level value (`settings`): depend on its module
            t = self.module(base, path) if imp.name is not None else None
        if isinstance(t, Sym):
            out.uses.setdefault(t.path, set()).add(t.qualname) if t.path != path else None
            out.sites.append(Site("import", full_scope(imp.scope), f"{base}.{imp.name}", imp.name or "", Resolution.EXACT,
                                  t.qualname, t.path, None, imp.line, imp.end_line))
            return ImportRow(imp.line, base, imp.name, "internal", t.path, imp.scope, imp.type_checking)
        if isinstance(t, Mod):
            if t.path and t.path != path:
                out.uses.setdefault(t.path, set())
            return ImportRow(imp.line, base, imp.name, "internal", t.path, imp.scope, imp.type_checking)
        if isinstance(t, Ext):
            return ImportRow(imp.line, base, imp.name, "external", None, imp.scope, imp.type_checking)
        # An attribute of an in-repository module we could not find (set at runtime, or gone).
        # This file still depends on that module: when the name comes back there, it must be re-resolved.
        mod = self.module(base, path) if imp.name is not None else None
        if isinstance(mod, Mod) and mod.path and mod.path != path:
            out.uses.setdefault(mod.path, set())
        return ImportRow(imp.line, base, imp.name, "unresolved", None, imp.scope, imp.type_checking)


#: An interface entry that stands for "every name": a star import or `__all__` changed.
EVERY_NAME = "*"


def interface_digests(facts: FileFacts) -> dict[str, str]:
    """Per top-level name, what other files' resolution can depend on.

    A function's kind; a class's bases, members and typed attributes; what an import or
    assignment binds; and, under `name()` (RETURNS), each function's return annotation on
    its own: it types what a call returns, which only a file using that result depends on.
    Comparing two versions name by name tells which names changed, so only the files that
    use those names are re-resolved (a body-only edit, a docstring, a decorator's argument,
    or an added function, changes none that anybody uses). Lines are in no digest: no other
    file's rows hold a line of this one.
    """
    import hashlib

    parts: dict[str, list[object]] = {}

    def add(name: str, item: object) -> None:
        parts.setdefault(name, []).append(item)

    for d in facts.definitions:
        if ".<locals>." in d.qualname:
            continue
        item: tuple[object, ...] = (d.qualname, d.kind.value, d.bases)
        if d.kind is DefKind.CLASS and d.decorators:  # `@dataclass` makes the constructor (only then: digests stay as they were)
            item += (tuple(x.split("(", 1)[0] for x in d.decorators),)  # that it has them, not their arguments
        add(d.qualname.split(".", 1)[0], item)
        if "." in d.qualname:  # a member on its own too: `x.close()` on an untyped receiver matches it by name
            add(d.qualname, item)
        if d.returns:  # apart: only a use of the call's result depends on it (see returns_of)
            add(d.qualname + RETURNS, (d.returns,))
    for i in facts.imports:
        if not i.scope:
            add(EVERY_NAME if i.name == "*" else i.bound_name, (i.module, i.level, i.name, i.alias))
    classes = {d.qualname for d in facts.definitions if d.kind is DefKind.CLASS}
    for b in facts.bindings:
        if not b.scope or b.scope in classes or b.target.startswith(("self.", "cls.")):
            add(b.target if not b.scope else b.scope.split(".", 1)[0], (b.scope, b.target, b.kind.value, b.value))
    # Which of a name's bindings reach the end of the module depends on their order and on the
    # if/try/loop arms around them; a function's `global name` rebinding can happen at any time.
    if _has_flow(facts):  # most files bind each module name once, outside any if/try/loop: nothing to add
        info = ModuleInfo("", "", facts)
        for name, entries in info.ns.items():
            if len(entries) > 1 or entries[0].rebind or info.arms().path(entries[0].start, 0):
                add(name, ("flow", _flow_shape(info, entries)))
    if facts.all_names is not None:
        add(EVERY_NAME, ("__all__", facts.all_names))
    return {name: hashlib.blake2b(repr(items).encode(), digest_size=8).hexdigest() for name, items in parts.items()}


def _has_flow(facts: FileFacts) -> bool:
    """Does the file bind a module-level name twice, from a function (`global`), or in an arm at module level?"""
    if facts.globals:
        return True
    names = [d.qualname for d in facts.definitions if "." not in d.qualname]
    names += [i.bound_name for i in facts.imports if not i.scope and i.name != "*"]
    names += [b.target for b in facts.bindings if not b.scope and "." not in b.target]
    if len(set(names)) < len(names):
        return True
    # An arm outside every top-level definition is at module level.
    tops = sorted((d.line, d.end_line) for d in facts.definitions if "." not in d.qualname)
    starts = [t[0] for t in tops]
    for a in facts.arms:
        if a.parent == -1:
            i = bisect.bisect_left(starts, a.line) - 1
            if i < 0 or tops[i][1] < a.line:
                return True
    return False


def _flow_shape(info: ModuleInfo, entries: list[Entry]) -> list[object]:
    """The entries of a module-level name in order, each with the arms around it, told apart by
    statement and arm rank rather than by line: moving code down a file changes nothing."""
    arms = info.arms()
    stmts: dict[int, int] = {}
    shape: list[object] = []
    for e in sorted(entries, key=lambda e: (e.rebind, e.start)):
        p = e.payload
        if isinstance(p, Import) and e.rebind:
            shape.append(("global", p.scope, p.module, p.level, p.name, p.alias))
            continue
        if isinstance(p, Binding) and e.rebind:
            shape.append(("global", p.scope, p.kind.value, p.value))
            continue
        path = arms.path(e.start, 0)
        shape.append((e.kind, tuple(
            (stmts.setdefault(arms.arms[a].stmt, len(stmts)), arms.by_stmt[arms.arms[a].stmt].index(a),
             arms.arms[a].kind.value, arms.arms[a].exhaustive) for a in path)))
    return shape


#: The digest key of what calling a name returns: `Display.warning()`.
RETURNS = "()"


def returns_of(names: set[str]) -> tuple[set[str], set[str]]:
    """`names` split into those whose binding changed and those whose return annotation alone did (the latter
    without the RETURNS mark): a file whose own calls to one of the latter discard the result resolves as before."""
    returns = {n.removesuffix(RETURNS) for n in names if n.endswith(RETURNS)}
    return {n for n in names if not n.endswith(RETURNS)}, returns


def changed_names(old: dict[str, str], new: dict[str, str]) -> set[str]:
    """Names whose interface differs (added, removed or changed); {EVERY_NAME} when any might."""
    names = {n for n in old.keys() | new.keys() if old.get(n) != new.get(n)}
    return {EVERY_NAME} if EVERY_NAME in names else names
