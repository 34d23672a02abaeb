"""What each use of a TypeScript/JavaScript file reaches: local names -> imports -> the target file's exports.

Pure over the files' facts (`load`) and module resolution (`ModuleResolver`, which reads config files through
`read`). A symbol is named `path#qualname` (`src/cart.ts#Cart.total`). Followed without a type checker:
named, default and namespace imports; re-exports (`export { a as b } from`, `export * from`, `export * as ns
from`) to the file that defines the name; receivers bound by `new C()`, annotated `x: C` (`C | undefined`) and
`this.m()` inside class C; a call's result by the callee's return annotation (`z.string().nullable()`, through
`const string = ZodString.create` to `static create = (): ZodString =>`; unannotated, by the body's last `return`:
`new C()`, `this`, `this.m()`); a member not defined on a class by its
bases (`extends`, `implements`), in order. A method call on a receiver of unknown type stays unresolved with its
name: the graph pins it on the only class defining that name at query time (`by-name`, said so in the answer).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import NamedTuple

from graphguard.languages.typescript.nodes import returned_type
from graphguard.languages.typescript.resolution import ImportKind, ModuleResolver, Resolved
from graphguard.model import NO_CALL, BindKind, DefKind, Export, FileFacts, Import, ImportForm, Resolution, UseKind
from graphguard.resolved import FileResolution, ImportRow, ImportStatus, Site

#: What `module.exports = X` / `export = X` exports (`modules.EXPORT_EQUALS`).
EXPORT_EQUALS = "export="
#: The resolution's kind of import of each form a statement has.
_KINDS = {ImportForm.STATIC: ImportKind.STATIC, ImportForm.TYPE_ONLY: ImportKind.TYPE_ONLY, ImportForm.REQUIRE: ImportKind.REQUIRE,
          ImportForm.IMPORT_EQUALS: ImportKind.IMPORT_EQUALS, ImportForm.DYNAMIC: ImportKind.DYNAMIC}
#: The import forms that make a file an ES module (TypeScript's rule: a file with an import or export is a module).
_ES_FORMS = frozenset({ImportForm.STATIC, ImportForm.TYPE_ONLY, ImportForm.IMPORT_EQUALS})
#: Re-export chains longer than this are not followed (a cycle of `export *` is cut by the set of files seen).
MAX_HOPS = 32
#: Bases, aliases and call results are followed this deep (a cycle of them is cut here).
MAX_DEPTH = 8
#: The definitions a call gives the result of (a class's instance is the class itself).
_CALLABLE = frozenset({DefKind.FUNCTION, DefKind.METHOD, DefKind.MEMBER, DefKind.VARIABLE})


class Sym(NamedTuple):
    """A definition: its full name and file."""

    name: str
    path: str


class Namespace(NamedTuple):
    """A file's exports as one object (`import * as ns`, `export * as ns`)."""

    path: str


class External(NamedTuple):
    specifier: str


Target = Sym | Namespace | External | None


def full(path: str, qualname: str) -> str:
    return f"{path}#{qualname}"


class Resolver:
    """One commit's TypeScript/JavaScript files; memoised per file, so reuse it for every file of the commit."""

    def __init__(self, paths: Collection[str], load: Callable[[str], FileFacts | None], read: Callable[[str], bytes | None],
                 modules: ModuleResolver | None = None):
        self.load = load
        self.modules = modules or ModuleResolver(paths, read)
        self._defs: dict[str, dict[str, DefKind]] = {}
        self._returns: dict[str, dict[str, str]] = {}
        self._bases: dict[str, dict[str, tuple[str, ...]]] = {}
        self._held: dict[str, dict[str, str]] = {}
        self._aliases: dict[str, dict[str, str]] = {}
        self._specs: dict[tuple[str, str, ImportKind], Resolved] = {}
        self._exported: dict[tuple[str, str], Target] = {}
        self._export_index: dict[str, tuple[dict[str, Export], tuple[str, ...]]] = {}
        self._import_index: dict[str, dict[str, Import]] = {}

    # modules and definitions

    def module(self, importer: str, specifier: str, kind: ImportKind = ImportKind.STATIC) -> Resolved:
        key = (importer, specifier, kind)  # per file: its governing config and its format (.mts, .cts) decide too
        found = self._specs.get(key)
        if found is None:
            found = self._specs[key] = self.modules.resolve(importer, specifier, kind)
        return found

    def definitions(self, path: str) -> dict[str, DefKind]:
        if path not in self._defs:
            facts = self.load(path)
            defs = facts.definitions if facts is not None else ()
            self._defs[path] = {d.qualname: d.kind for d in defs}
            self._returns[path] = {d.qualname: t for d in defs if (t := returned_type(d.returns) or _delegated(d.returns))}
            self._bases[path] = {d.qualname: d.bases for d in defs if d.bases}
            self._held[path] = held_classes(facts) if facts is not None else {}
            self._aliases[path] = aliases(facts) if facts is not None else {}
        return self._defs[path]

    def returns(self, target: Target) -> str | None:
        """The class a function's return annotation names (`function make(): Cart`)."""
        if not isinstance(target, Sym):
            return None
        self.definitions(target.path)
        return self._returns[target.path].get(target.name.partition("#")[2])

    def held(self, target: Target) -> Target:
        """The class a module-level variable holds by its declaration (`const r: R = ...`, `= new R()`, `= make()`
        with `make(): R`), for calls on it from other files; None when its declaration does not say."""
        if not isinstance(target, Sym):
            return None
        qualname = target.name.partition("#")[2]
        if self.definitions(target.path).get(qualname) is not DefKind.VARIABLE:
            return None
        chain = self._held[target.path].get(qualname)
        if chain is None:
            return None
        found = self.named(target.path, chain)
        if isinstance(found, Sym) and self.definitions(found.path).get(found.name.partition("#")[2]) is DefKind.FUNCTION:
            named = self.returns(found)
            return self.local(found.path, named) if named is not None and "." not in named else None
        return found

    def named(self, path: str, chain: str) -> Target:
        """What a name chain (`C`, `ns.C`, `C.create`) written at the top level of `path` reaches."""
        parts = chain.split(".")
        found = self.local(path, parts[0])
        for part in parts[1:]:
            found = self.member(found, part)
        return found

    def returned(self, target: Target, receiver: Target = None, depth: int = 0) -> Target:
        """The class of what calling `target` gives: a class's instance, a function's or method's return annotation
        (`: this` is the receiver's class), through a variable that aliases one (`const string = ZodString.create`)."""
        if not isinstance(target, Sym) or depth > MAX_DEPTH:
            return None
        qualname = target.name.partition("#")[2]
        kind = self.definitions(target.path).get(qualname)
        if kind is DefKind.CLASS:
            return target
        if kind is DefKind.VARIABLE and (alias := self._aliases[target.path].get(qualname)) is not None:
            return self.returned(self.named(target.path, alias), receiver, depth + 1)
        named = self.returns(target) if kind in (DefKind.FUNCTION, DefKind.METHOD, DefKind.MEMBER) else None
        owner = Sym(full(target.path, qualname.rpartition(".")[0]), target.path) if "." in qualname else None
        if named == "this":
            return receiver if isinstance(receiver, Sym) else owner
        if named is not None and named.endswith("()"):  # `return this.m(...)`, `return f(...)`: what that returns
            head, _, rest = named.removesuffix("()").partition(".")
            if head == "this" and rest and "." not in rest:
                this = receiver if isinstance(receiver, Sym) else owner
                return self.returned(self.member(this, rest), this, depth + 1)
            return self.returned(self.named(target.path, named.removesuffix("()")), None, depth + 1) if head != "this" else None
        return self.named(target.path, named) if named is not None else None

    def bases(self, path: str, qualname: str) -> tuple[str, ...]:
        self.definitions(path)
        return self._bases[path].get(qualname, ())

    # names

    def export(self, path: str, name: str, hops: int = 0, seen: frozenset[str] = frozenset()) -> Target:
        """What `import { name } from <path>` binds: followed through re-exports to the defining file."""
        if hops or seen:
            return self._export(path, name, hops, seen)
        # Asked again and again from the outside (every importer of a barrel's name): once per file and name.
        key = (path, name)
        if key not in self._exported:
            self._exported[key] = self._export(path, name, 0, seen)
        return self._exported[key]

    def _export(self, path: str, name: str, hops: int, seen: frozenset[str]) -> Target:
        facts = self.load(path)
        if facts is None or hops > MAX_HOPS or path in seen:
            return None
        seen = seen | {path}
        named, stars = self._exports_of(path, facts)
        e = named.get(name)
        if e is not None:
            if e.specifier is None:
                return self.local(path, e.local, hops + 1, seen) if e.local else None
            found = self.module(path, e.specifier)
            if found.target is None:
                return External(e.specifier) if found.status is ImportStatus.EXTERNAL else None
            return Namespace(found.target) if e.local == "*" else self.export(found.target, e.local or name, hops + 1)
        if name != "default":
            for specifier in stars:
                to = self.module(path, specifier).target
                if to is not None and (through := self.export(to, name, hops + 1, seen)) is not None:
                    return through
        # A file that exports nothing by these forms (a script, CommonJS): its top-level definitions, leniently. Not
        # an ES module's (one `import` makes it one): its last export removed, a name it declares is not importable.
        script = not facts.exports and not any(i.form in _ES_FORMS for i in facts.imports)
        return Sym(full(path, name), path) if script and name in self.definitions(path) else None

    def _exports_of(self, path: str, facts: FileFacts) -> tuple[dict[str, Export], tuple[str, ...]]:
        """A file's exports by name (the first of each: it decides) and the specifiers of its `export *`, in order:
        a barrel of many `export *` is asked for every name it passes on, so not read statement by statement."""
        found = self._export_index.get(path)
        if found is None:
            named: dict[str, Export] = {}
            for e in facts.exports:
                if e.name != "*":
                    named.setdefault(e.name, e)
            stars = tuple(e.specifier for e in facts.exports if e.name == "*" and e.specifier is not None)
            found = self._export_index[path] = (named, stars)
        return found

    def local(self, path: str, name: str, hops: int = 0, seen: frozenset[str] = frozenset()) -> Target:
        """What a module-level name of `path` holds: its own definition, or what an import binds to it."""
        if name in self.definitions(path):
            return Sym(full(path, name), path)
        i = self._imports_of(path).get(name)
        return self._imported(path, i.module, i.name, hops, seen, _KINDS[i.form]) if i is not None and i.name is not None else None

    def _imports_of(self, path: str) -> dict[str, Import]:
        """A file's module-level imports by the name they bind (the first of each: it decides)."""
        found = self._import_index.get(path)
        if found is None:
            facts = self.load(path)
            found = self._import_index[path] = {}
            for i in facts.imports if facts is not None else ():
                if not i.scope and i.name is not None:
                    found.setdefault(i.alias or i.name, i)
        return found

    def _imported(self, path: str, specifier: str, name: str, hops: int = 0, seen: frozenset[str] = frozenset(),
                  kind: ImportKind = ImportKind.STATIC) -> Target:
        found = self.module(path, specifier, kind)
        if found.target is None:
            return External(specifier) if found.status is ImportStatus.EXTERNAL else None
        if name == "*" and kind in (ImportKind.REQUIRE, ImportKind.IMPORT_EQUALS):
            # `require()` gives what `module.exports =` (`export =`) set, else the module's exports as one object.
            return self.export(found.target, EXPORT_EQUALS, hops + 1, seen) or Namespace(found.target)
        if name == "*":
            return Namespace(found.target)
        return self.export(found.target, name, hops + 1, seen)

    def member(self, target: Target, name: str, depth: int = 0) -> Target:
        """`target.name`: a namespace's export, a class's member (its own, else its bases' in order)."""
        if isinstance(target, Namespace):
            return self.export(target.path, name)
        if isinstance(target, Sym):
            owner = target.name.partition("#")[2]
            if owner + "." + name in self.definitions(target.path):
                return Sym(full(target.path, owner + "." + name), target.path)
            for base in self.bases(target.path, owner) if depth < MAX_DEPTH else ():
                found = self.member(self.named(target.path, base), name, depth + 1)
                if isinstance(found, Sym):
                    return found
        return External(target.specifier) if isinstance(target, External) else None

    # one file

    def resolve_file(self, path: str) -> FileResolution:
        facts = self.load(path)
        out = FileResolution(path, path)
        if facts is None:
            return out
        _File(self, path, facts, out).run()
        return out


class _File:
    """The resolution of one file's uses."""

    def __init__(self, r: Resolver, path: str, facts: FileFacts, out: FileResolution):
        self.r, self.path, self.facts, self.out = r, path, facts, out
        self._locals: dict[str, Target] = {}
        self._chains: dict[tuple[str, str], Target] = {}  # (callee chain, scope) -> what it reaches
        self._results: dict[tuple[str, str], Target] = {}  # (call chain, scope) -> the class of what it gives
        self.classes = {q for q, k in r.definitions(path).items() if k is DefKind.CLASS}
        # (scope, name) -> the class a receiver holds, from `new C()` and `x: C`.
        self.receivers: dict[tuple[str, str], str] = {}
        for b in facts.bindings:
            if b.kind in (BindKind.CALL, BindKind.ANNOTATION):
                self.receivers.setdefault((b.scope, b.target), b.value)

    def run(self) -> None:
        self._imports()
        for c in self.facts.calls:
            target = self.callee(c.callee, c.scope)
            self._site(UseKind.CALL, c.scope, c.callee, target, c.line, c.end_line, c.col, c.end_col, c.shape)
        for ref in self.facts.references:
            self._site(UseKind.REFERENCE, ref.scope, ref.target, self.callee(ref.target, ref.scope), ref.line, ref.end_line, ref.col,
                       ref.end_col)
        for d in self.facts.definitions:
            for base in d.bases if d.kind is DefKind.CLASS else ():
                self._site(UseKind.INHERIT, d.qualname, base, self.callee(base, ""), d.line, d.line, d.col, d.col)

    def name(self, name: str) -> Target:
        if name not in self._locals:
            self._locals[name] = self.r.local(self.path, name)
        return self._locals[name]

    def callee(self, text: str, scope: str, depth: int = 0) -> Target:
        """What a callee chain (`f`, `ns.f`, `x.m`, `this.m`, `C.s`, `f().m`, `ns.f().m().n`) reaches."""
        key = (text, scope)
        if key not in self._chains:
            self._chains[key] = None  # a chain met again inside itself (`x` bound to `y.m()`, `y` to `x.n()`) gives nothing
            self._chains[key] = self._callee(text, scope, depth)
        return self._chains[key]

    def _callee(self, text: str, scope: str, depth: int) -> Target:
        parts = text.split(".")
        if "?" in parts or parts[-1].endswith("()"):
            return None
        calls = [i for i, p in enumerate(parts) if p.endswith("()")]
        if calls:  # `a.b().c`: the member of what the last call returns
            return self._instance(self._made(parts[:calls[-1] + 1], scope, depth), parts[calls[-1] + 1:])
        head, rest = parts[0], parts[1:]
        target: Target
        if head in ("this", "super"):
            return self._own(head, scope, rest)
        typed = self._receiver(scope, head)
        if typed is not None and depth < 8:
            return self._instance(self._class_of(self.callee(typed, scope if "." in typed else "", depth + 1)), rest)
        target = self.name(head)
        for i, part in enumerate(rest):
            if i == len(rest) - 1 and isinstance(target, Sym) and target.path != self.path:
                held = self.r.held(target)  # `registry.add()` of an imported `const registry: Registry`
                if held is not None:
                    return self._instance(held, [part])
            target = self.r.member(target, part)
        return target

    def _made(self, parts: list[str], scope: str, depth: int) -> Target:
        """The class of what the call chain `parts` (`["z", "string()"]`, `[.., "min()"]`) gives: the callee's result."""
        key = (".".join(parts), scope)
        if key not in self._results:
            self._results[key] = None  # a chain met again inside itself gives nothing
            callee = [*parts[:-1], parts[-1].removesuffix("()")]
            called = self.callee(".".join(callee), scope, depth + 1)
            self._results[key] = self.r.returned(called, self._owner(callee, scope, depth))
        return self._results[key]

    def _owner(self, parts: list[str], scope: str, depth: int) -> Target:
        """The class the last part of `parts` is looked up on (what a method returning `this` returns)."""
        if len(parts) < 2:
            return None
        before = parts[:-1]
        if before[-1].endswith("()"):
            return self._made(before, scope, depth + 1)
        if before == ["this"]:
            cls = self._class_at(scope)
            return Sym(full(self.path, cls), self.path) if cls is not None else None
        typed = self._receiver(scope, before[0]) if len(before) == 1 else None
        if typed is not None:
            return self._class_of(self.callee(typed, scope if "." in typed else "", depth + 1))
        return self.callee(".".join(before), scope, depth + 1)

    def _own(self, head: str, scope: str, rest: list[str]) -> Target:
        """`this.m()`, `this.field.m()` (the field typed by its annotation or `new C()`), `super.m()` (the first base's)."""
        cls = self._class_at(scope)
        if cls is None:
            return None
        if head == "super":
            bases = self.r.bases(self.path, cls)
            return self._instance(self._class_of(self.callee(bases[0], "")) if bases else None, rest)
        if len(rest) == 2 and (typed := self.receivers.get((cls, "this." + rest[0]))) is not None:
            return self._instance(self._class_of(self.callee(typed, "")), rest[1:])
        return self._instance(Sym(full(self.path, cls), self.path), rest)

    def _class_at(self, scope: str) -> str | None:
        """The innermost class whose body holds `scope` (`Cart` of `Cart.total`, `N.C` of `N.C.m`)."""
        while scope and scope not in self.classes:
            scope = scope.rpartition(".")[0]
        return scope or None

    def _class_of(self, target: Target) -> Target:
        """A class stays a class; a function or method stands for the class its return annotation names (`make():
        Cart`), a variable for what the function it aliases returns."""
        if isinstance(target, Sym) and self.r.definitions(target.path).get(target.name.partition("#")[2]) in _CALLABLE:
            return self.r.returned(target)
        return target

    def _receiver(self, scope: str, name: str) -> str | None:
        """The class chain an instance name was bound to, in its scope or an enclosing one."""
        while True:
            found = self.receivers.get((scope, name))
            if found is not None or not scope:
                return found
            scope = scope.rpartition(".")[0]

    def _instance(self, cls: Target, rest: list[str]) -> Target:
        """A method of an instance of `cls` (one level: `x.m`)."""
        if len(rest) != 1 or not isinstance(cls, Sym):
            return None
        return self.r.member(cls, rest[0])

    def _scope(self, scope: str) -> str:
        return full(self.path, scope) if scope else self.path

    def _site(self, kind: UseKind, scope: str, text: str, target: Target, line: int, end_line: int, col: int, end_col: int,
              shape: object = NO_CALL) -> None:
        name = text.rsplit(".", 1)[-1].removesuffix("()")
        init = None
        if isinstance(target, Sym):
            resolution, to, to_path = Resolution.EXACT, target.name, target.path
            if kind is UseKind.CALL and self.r.definitions(target.path).get(target.name.partition("#")[2]) is DefKind.CLASS:
                ctor = target.name.partition("#")[2] + ".constructor"
                init = full(target.path, ctor) if ctor in self.r.definitions(target.path) else None
            self.out.uses.setdefault(target.path, set()).add(target.name)
        elif isinstance(target, External):
            resolution, to, to_path = Resolution.EXTERNAL, None, None
        else:
            resolution, to, to_path = Resolution.UNRESOLVED, None, None
        self.out.sites.append(Site(kind, self._scope(scope), text, name, resolution, to, to_path, init, line, end_line, col,
                                   end_col, shape if isinstance(shape, tuple) else NO_CALL))  # type: ignore[arg-type]

    def _imports(self) -> None:
        """One row per imported name (and per re-export), and an import site for each name that reaches a definition."""
        rows: list[tuple[int, str, str | None, str, ImportKind]] = []
        for i in self.facts.imports:
            rows.append((i.line, i.module, i.name, i.scope, _KINDS[i.form]))
        for e in self.facts.exports:
            if e.specifier is not None:
                rows.append((e.line, e.specifier, "*" if e.name == "*" or e.local == "*" else e.local, "", ImportKind.STATIC))
        for line, spec, name, scope, kind in rows:
            found = self.r.module(self.path, spec, kind)
            self.out.imports.append(ImportRow(line, spec, name, found.status, found.target, self._scope(scope),
                                              kind is ImportKind.TYPE_ONLY, kind.value, found.category.value))
            if found.target is not None:
                self.out.uses.setdefault(found.target, set())
                if name is not None and name != "*":
                    target = self.r.export(found.target, name)
                    if isinstance(target, Sym):
                        self._site(UseKind.IMPORT, scope, name, target, line, line, 0, 0)


def held_classes(facts: FileFacts) -> dict[str, str]:
    """Module-level name -> the class chain its declaration gives it: the annotation first, else `new C()`/`f()`."""
    out: dict[str, str] = {}
    for kind in (BindKind.ANNOTATION, BindKind.CALL):
        for b in facts.bindings:
            if not b.scope and b.kind is kind and "." not in b.target:
                out.setdefault(b.target, b.value)
    return out


def _delegated(returns: str | None) -> str | None:
    """A return read off the body as a call (`this._addCheck()`, `make()`; definitions._returned), else None."""
    return returns if returns is not None and returns.endswith("()") and "(" not in returns[:-2] else None


def aliases(facts: FileFacts) -> dict[str, str]:
    """Module-level name -> the name chain it is set to (`const string = ZodString.create`)."""
    out: dict[str, str] = {}
    for b in facts.bindings:
        if not b.scope and b.kind is BindKind.ALIAS and "." not in b.target:
            out.setdefault(b.target, b.value)
    return out


def interface_digests(facts: FileFacts) -> dict[str, str]:
    """Per exported or top-level name, what importers' resolution reads of it: its definitions (kinds, bases,
    members), its export and re-export records, the import that binds it; `*` for the `export *` specifiers."""
    import hashlib

    parts: dict[str, list[object]] = {}
    for d in facts.definitions:
        parts.setdefault(d.qualname.split(".", 1)[0], []).append((d.qualname, d.kind.value, d.bases, d.returns))
    for name, chain in held_classes(facts).items():  # what importers' calls on the variable are typed by
        parts.setdefault(name, []).append(("holds", chain))
    for name, chain in aliases(facts).items():  # what importers' calls of the variable return
        parts.setdefault(name, []).append(("aliases", chain))
    for e in facts.exports:
        parts.setdefault(e.name, []).append(("export", e.local, e.specifier))
        if e.local and e.local != e.name:
            parts.setdefault(e.local, []).append(("exported-as", e.name))
    for i in facts.imports:
        if not i.scope and i.name is not None:
            parts.setdefault(i.alias or i.name, []).append(("import", i.module, i.name))
    return {name: hashlib.blake2b(repr(items).encode(), digest_size=8).hexdigest() for name, items in parts.items()}


def changed_names(old: dict[str, str], new: dict[str, str]) -> set[str]:
    return {n for n in old.keys() | new.keys() if old.get(n) != new.get(n)}
