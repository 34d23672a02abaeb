"""The walk over one TypeScript/JavaScript file's query matches, in document order, scope by scope: definitions,
imports, exports, calls, references (JSX, types, decorators, values) and the bindings that type receivers.

A definition is one where importers can reach it: at module level, in a namespace, a class member, a member of a
module-level object (`const api = { get() {} }`, `module.exports = { parse() {} }`). A function inside a function is
its local: its uses belong to the function around it. Qualnames follow `signature` (`Cart.total`, `N.f`, `default`).
"""

from __future__ import annotations

import enum
import heapq
from typing import TYPE_CHECKING, NamedTuple

from graphguard.languages.typescript import nodes as n
from graphguard.model import Binding, BindKind, CallSite, Definition, DefKind, Export, ExportKind, Import, ImportForm, Reference, RefKind, Region

if TYPE_CHECKING:
    from tree_sitter import Node

#: What `module.exports = X` makes the module itself (TypeScript's `export = X`; `signature.EXPORT_EQUALS`).
EXPORT_EQUALS = "export="
_NOT_OWNERS = frozenset({"module", "exports", "this", "window", "globalThis", "self"})
#: What ends the node types of a statement (the unit whose error makes its uses unjudged).
_STATEMENTS = ("statement", "declaration", "declarator", "definition", "program")
_USES = frozenset({"call", "jsx", "value", "argument"})
_DECLARED = {"interface": DefKind.INTERFACE, "type": DefKind.TYPE, "enum": DefKind.ENUM, "namespace": DefKind.NAMESPACE}


class Kind(enum.Enum):
    """What an open scope is: it decides whether a declaration in it is a definition."""

    MODULE = "module"
    NAMESPACE = "namespace"
    CLASS = "class"
    OBJECT = "object"  # a module-level object literal: its function members are definitions
    FUNCTION = "function"
    TYPE = "type"      # an interface or type body: members there are no code


class Scope(NamedTuple):
    start: int
    end: int
    qualname: str
    kind: Kind
    code: str = ""  # the definition a use here belongs to (a `module.exports = {...}` object's: the module's)


_MODULE = Scope(0, 1 << 62, "", Kind.MODULE)


class Extractor:
    def __init__(self, data: bytes, captures: list[tuple[str, Node, dict[str, list[Node]]]], *, has_errors: bool = False):
        self.data = data
        self.has_errors = has_errors  # the tree has an error somewhere: a use's statement is looked at
        self.recursion = False  # a handler ran out of stack: the facts of that node are missing
        self.captures = captures
        self.defs: list[Definition] = []
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.calls: list[CallSite] = []
        self.refs: list[Reference] = []
        self.bindings: list[Binding] = []
        self.errors: list[Region] = []
        self._stack: list[Scope] = [_MODULE]
        self._pending: list[Scope] = []
        self._error_end = -1
        self._calls_at: dict[int, int] = {}  # a call's arguments' start -> the call's index
        self._maybe: list[tuple[str, RefKind, str, Node]] = []  # references kept if the module binds their name

    def run(self) -> None:
        handlers = {"function": self.function, "class": self.klass, "member": self.member, "field": self.field,
                    "declarator": self.declarator, "interface": self.declared, "type": self.declared,
                    "enum": self.declared, "namespace": self.declared, "import": self.import_, "export": self.export,
                    "jsx": self.jsx, "decorator": self.decorator,
                    "param": self.param, "assign": self.assign, "typeref": self.typeref, "value": self.value,
                    "argument": self.argument, "error": self.error}
        stack, pending = self._stack, self._pending
        for key, node, caps in self.captures:
            at = node.start_byte
            if (pending and pending[0].start <= at) or stack[-1].end <= at:
                self._advance(at)
            if at < self._error_end and key in _USES:
                continue  # inside a region that did not parse: never judged
            try:
                if key == "call":
                    self.call(node, caps["callee"][0], caps["args"][0] if "args" in caps else None)
                else:
                    handlers[key](node)
            except RecursionError:  # nothing here recurses; should a helper one day, the other nodes are still read
                self.recursion = True
        self.finish()

    # -- scopes --

    def _advance(self, at: int) -> None:
        """Close the scopes that end before `at`, open those that start at or before it."""
        while self._pending and self._pending[0].start <= at:
            scope = heapq.heappop(self._pending)
            self._close(scope.start)
            if scope.end > at:
                code = self._stack[-1].code if scope.kind is Kind.OBJECT and not scope.qualname else scope.qualname
                self._stack.append(scope._replace(code=code))
        self._close(at)

    def _close(self, at: int) -> None:
        while self._stack[-1].end <= at:
            self._stack.pop()

    def _enter(self, node: Node, qualname: str, kind: Kind) -> None:
        heapq.heappush(self._pending, Scope(node.start_byte, node.end_byte, qualname, kind))

    @property
    def scope(self) -> Scope:
        return self._stack[-1]

    def _code_scope(self) -> str:
        """The definition that a use here belongs to."""
        return self._stack[-1].code

    def _definable(self) -> str | None:
        """The prefix of a definition declared here (`N.`, ""), None inside a function or a type."""
        s = self.scope
        if s.kind is Kind.MODULE:
            return ""
        return s.qualname + "." if s.kind is Kind.NAMESPACE else None

    def _define(self, node: Node, qualname: str, kind: DefKind, *, value: Node | None = None,
                bases: tuple[str, ...] = ()) -> None:
        inner = value if value is not None else node
        returns = inner.child_by_field_name("return_type")
        line, col, end_line, _ = n.span(node)
        decorators = _decorators(node) if kind is DefKind.CLASS or kind is DefKind.METHOD else ()
        self.defs.append(Definition(qualname, kind, line, end_line, n.header(self.data, node, inner), decorators, bases,
                                    n.text(returns).lstrip(": ") or None, n.is_async(self.data, inner), col))

    # -- definitions --

    def function(self, node: Node) -> None:
        prefix, name = self._definable(), n.name_of(node)
        if prefix is not None and name is not None:
            self._define(node, prefix + name, DefKind.FUNCTION)
            self._enter(node, prefix + name, Kind.FUNCTION)

    def klass(self, node: Node, name: str | None = None) -> None:
        prefix = self._definable()
        name = name or n.name_of(node)
        if prefix is None or name is None:
            return
        self._define(node, prefix + name, DefKind.CLASS, bases=_heritage(node))
        body = node.child_by_field_name("body")
        self._enter(body if body is not None else node, prefix + name, Kind.CLASS)

    def member(self, node: Node) -> None:
        s, name = self.scope, n.name_of(node)
        if s.kind not in (Kind.CLASS, Kind.OBJECT) or name is None:
            return
        qualname = f"{s.qualname}.{name}" if s.qualname else name
        self._define(node, qualname, DefKind.METHOD if s.qualname else DefKind.FUNCTION)
        self._enter(node, qualname, Kind.FUNCTION)
        if s.kind is Kind.OBJECT and not s.qualname:
            self.exports.append(Export(name, name, None, node.start_point[0] + 1, ExportKind.COMMONJS))

    def field(self, node: Node) -> None:
        s, name = self.scope, n.name_of(node)
        if s.kind is not Kind.CLASS or name is None:
            return
        value = node.child_by_field_name("value")
        value = n.unwrapped(value) if value is not None else None
        if value is not None and value.type in n.FUNCTION_VALUES:  # `m = (x) => ...`
            self._define(node, f"{s.qualname}.{name}", DefKind.METHOD, value=value)
            self._enter(node, f"{s.qualname}.{name}", Kind.FUNCTION)
            return
        self._typed(s.qualname, "this." + name, node, value)

    def declared(self, node: Node) -> None:
        """An interface, type alias, enum or namespace (`declare module "x"` is a scope, not a definition)."""
        prefix, name = self._definable(), n.name_of(node)
        ambient = node.type == "module" and n.string(node.child_by_field_name("name")) is not None
        kind = _DECLARED[_declared_key(node.type)]
        if prefix is None or name is None or ambient:
            self._enter(node, self.scope.qualname, Kind.TYPE)
            return
        self._define(node, prefix + name, kind, bases=_heritage(node))
        self._enter(node, prefix + name, Kind.NAMESPACE if kind is DefKind.NAMESPACE else Kind.TYPE)

    def declarator(self, node: Node) -> None:
        target, raw = node.child_by_field_name("name"), node.child_by_field_name("value")
        value = n.unwrapped(raw) if raw is not None else None
        scope, prefix = self._code_scope(), self._definable()
        if target is None:
            return
        if value is not None and value.type == "call_expression" and _require(value) is not None:
            return  # the import is read with the call
        if target.type != "identifier":
            return
        name = n.text(target)
        if prefix is not None and value is not None and value.type in n.FUNCTION_VALUES:
            self._define(node, prefix + name, DefKind.FUNCTION, value=value)
            self._enter(node, prefix + name, Kind.FUNCTION)
            return
        if prefix is not None and value is not None and value.type == "class":
            self.klass(value, name)
            return
        if prefix is not None:
            self._define(node, prefix + name, DefKind.VARIABLE)
            if value is not None and value.type == "object":
                self._object(value, prefix + name)
        self._typed(scope, name, node, value)

    def _typed(self, scope: str, name: str, node: Node, value: Node | None) -> None:
        """The bindings of a name to a class: `= new C()`, `= other`, `: C`, `= f()` (its return annotation)."""
        at = n.span(node)
        if value is not None and value.type == "new_expression":
            self.bindings.append(Binding(scope, name, BindKind.CALL, n.chain(value.child_by_field_name("constructor")), *at))
        elif value is not None and value.type == "call_expression":
            self.bindings.append(Binding(scope, name, BindKind.CALL, n.chain(value.child_by_field_name("function")), *at))
        elif value is not None and value.type in ("identifier", "member_expression"):
            self.bindings.append(Binding(scope, name, BindKind.ALIAS, n.chain(value), *at))
        typed = n.type_name(node.child_by_field_name("type"))
        if typed:
            self.bindings.append(Binding(scope, name, BindKind.ANNOTATION, typed, *at))

    def _object(self, value: Node, qualname: str) -> None:
        """A module-level object literal: its members are definitions (`api.get`)."""
        self._enter(value, qualname, Kind.OBJECT)
        for pair in value.named_children:
            v = pair.child_by_field_name("value")
            key = n.name_of(pair) if pair.type == "pair" else None
            if key is not None and v is not None and n.unwrapped(v).type in n.FUNCTION_VALUES:
                full = f"{qualname}.{key}" if qualname else key
                self._define(pair, full, DefKind.METHOD if qualname else DefKind.FUNCTION, value=n.unwrapped(v))
                self._enter(pair, full, Kind.FUNCTION)
                if not qualname:
                    self.exports.append(Export(key, key, None, pair.start_point[0] + 1, ExportKind.COMMONJS))
            elif not qualname and key is not None and v is not None and v.type == "identifier":
                self.exports.append(Export(key, n.text(v), None, pair.start_point[0] + 1, ExportKind.COMMONJS))
            elif not qualname and pair.type == "shorthand_property_identifier":
                self.exports.append(Export(n.text(pair), n.text(pair), None, pair.start_point[0] + 1, ExportKind.COMMONJS))

    def param(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        typed = n.type_name(node.child_by_field_name("type"))
        if pattern is None or pattern.type != "identifier" or not typed:
            return
        at = n.span(node)
        self.bindings.append(Binding(self._code_scope(), n.text(pattern), BindKind.ANNOTATION, typed, *at))
        s = self.scope
        owner = s.qualname.rpartition(".")[0]
        property_ = n.has_child(node, "accessibility_modifier") or n.has_child(node, "readonly") or n.has_child(node, "override_modifier")
        if property_ and s.qualname.endswith(".constructor"):  # `constructor(private s: Session)`: a field too
            self.bindings.append(Binding(owner, "this." + n.text(pattern), BindKind.ANNOTATION, typed, *at))

    def assign(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        target, value = n.chain(left), n.unwrapped(right)
        s = self.scope
        if target.startswith("this.") and target.count(".") == 1:
            owner = next((x.qualname for x in reversed(self._stack) if x.kind is Kind.CLASS), None)
            if owner is not None:
                self._typed(owner, target, node, value)
            return
        if s.kind is not Kind.MODULE:
            if "." not in target:  # `x = new C()` in a function
                self._typed(self._code_scope(), target, node, value)
            return
        self._commonjs(node, target, value)

    def _commonjs(self, node: Node, target: str, value: Node) -> None:
        """`module.exports = X`, `exports.f = ...`, `X.m = function`, `X.prototype.m = function` at module level."""
        line = node.start_point[0] + 1
        if target in ("module.exports", "exports"):
            if value.type == "object":
                self._object(value, "")
            elif value.type == "identifier":
                self.exports.append(Export(EXPORT_EQUALS, n.text(value), None, line, ExportKind.COMMONJS))
            elif value.type in n.FUNCTION_VALUES | n.CLASS_VALUES:
                name = n.name_of(value) or "default"
                self._value_definition(node, name, value)
                self.exports.append(Export(EXPORT_EQUALS, name, None, line, ExportKind.COMMONJS))
            return
        head, _, name = target.rpartition(".")
        if head in ("exports", "module.exports") and name.isidentifier():
            if value.type in n.FUNCTION_VALUES | n.CLASS_VALUES:
                self._value_definition(node, name, value)
            local = n.text(value) if value.type == "identifier" else name
            self.exports.append(Export(name, local, None, line, ExportKind.COMMONJS))
            return
        owner = head.removesuffix(".prototype")
        if value.type in n.FUNCTION_VALUES and owner.isidentifier() and owner not in _NOT_OWNERS and name.isidentifier():
            self._define(node, f"{owner}.{name}", DefKind.METHOD, value=value)
            self._enter(node, f"{owner}.{name}", Kind.FUNCTION)

    def _value_definition(self, node: Node, name: str, value: Node) -> None:
        if value.type in n.CLASS_VALUES:
            self.klass(value, name)
        else:
            self._define(node, name, DefKind.FUNCTION, value=value)
            self._enter(node, name, Kind.FUNCTION)

    # -- imports and exports --

    def import_(self, node: Node) -> None:
        line, col, end_line, _ = n.span(node)
        type_only = n.has_child(node, "type")
        required = next((c for c in node.named_children if c.type == "import_require_clause"), None)
        if required is not None:  # import x = require("y")
            source = n.string(required.child_by_field_name("source"))
            local = next((n.text(c) for c in required.named_children if c.type == "identifier"), None)
            if source is not None:
                self.imports.append(Import(source, 0, "*", local, line, end_line, self._code_scope(), type_only, col,
                                           ImportForm.IMPORT_EQUALS))
            return
        spec = n.string(node.child_by_field_name("source"))
        if spec is not None:
            self._import_clause(node, spec, type_only)

    def _import_clause(self, node: Node, spec: str, type_only: bool) -> None:
        line, col, end_line, _ = n.span(node)
        scope = self._code_scope()

        def add(name: str | None, alias: str | None, typed: bool = type_only) -> None:
            form = ImportForm.TYPE_ONLY if typed else ImportForm.STATIC
            self.imports.append(Import(spec, 0, name, alias, line, end_line, scope, typed, col, form))

        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:  # import "./side-effect"
            add(None, None)
            return
        for part in clause.named_children:
            if part.type == "identifier":
                add("default", n.text(part))
            elif part.type == "namespace_import":
                add("*", n.text(next((c for c in part.named_children if c.type == "identifier"), None)))
            elif part.type == "named_imports":
                for s in (c for c in part.named_children if c.type == "import_specifier"):
                    alias = n.text(s.child_by_field_name("alias")) or None
                    add(_specifier_name(s.child_by_field_name("name")), alias, type_only or n.has_child(s, "type"))

    def export(self, node: Node) -> None:
        if self.scope.kind is not Kind.MODULE:
            return  # a namespace's member: the namespace's definitions say so
        line = node.start_point[0] + 1
        spec = n.string(node.child_by_field_name("source"))
        decl, value = node.child_by_field_name("declaration"), node.child_by_field_name("value")
        if decl is not None:
            kind = ExportKind.DEFAULT if n.has_child(node, "default") else ExportKind.NAMED
            for name in _declared_names(decl):
                self.exports.append(Export("default" if kind is ExportKind.DEFAULT else name, name, None, line, kind))
            return
        if n.has_child(node, "default") and value is not None:
            self._default(node, n.unwrapped(value), line)
            return
        if n.has_child(node, "=") and value is None:  # export = x
            expr = next((c for c in node.named_children if c.type != "comment"), None)
            self.exports.append(Export(EXPORT_EQUALS, n.chain(expr) if expr is not None else None, None, line, ExportKind.EQUALS))
            return
        self._clause(node, spec, line)

    def _default(self, node: Node, value: Node, line: int) -> None:
        if value.type in n.FUNCTION_VALUES | n.CLASS_VALUES:
            name = n.name_of(value) or "default"
            self._value_definition(node, name, value)
            self.exports.append(Export("default", name, None, line, ExportKind.DEFAULT))
        else:
            local = n.text(value) if value.type == "identifier" else None
            self.exports.append(Export("default", local, None, line, ExportKind.DEFAULT))

    def _clause(self, node: Node, spec: str | None, line: int) -> None:
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        star = next((c for c in node.named_children if c.type == "namespace_export"), None)
        if clause is not None:
            kind = ExportKind.NAMED if spec is None else ExportKind.REEXPORT
            for s in (c for c in clause.named_children if c.type == "export_specifier"):
                name, alias = _specifier_name(s.child_by_field_name("name")), _specifier_name(s.child_by_field_name("alias"))
                self.exports.append(Export(alias or name, name, spec, line, kind))
        elif star is not None:
            ns = next((c for c in star.named_children if c.type in ("identifier", "string")), None)
            self.exports.append(Export(_specifier_name(ns), "*", spec, line, ExportKind.NAMESPACE))
        elif spec is not None:
            self.exports.append(Export("*", None, spec, line, ExportKind.STAR))

    # -- uses --

    def call(self, node: Node, callee: Node, args: Node | None) -> None:
        kind = callee.type
        if kind == "import" or (kind == "identifier" and callee.text == b"require" and node.type == "call_expression"):
            self._required(node, callee, args)
            return
        if node.has_error or (self.has_errors and self._in_error(node)):
            return  # a call whose arguments or statement did not parse is not judged
        count = 0
        if args is not None:  # (a tagged template has none)
            count = args.named_child_count  # comments and spreads are taken off as their own matches come (`argument`)
            if count:
                self._calls_at[args.start_byte] = len(self.calls)
        (line, col), (end_line, end_col) = node.start_point, node.end_point
        self.calls.append(CallSite(n.chain(callee), self._stack[-1].code, line + 1, col, end_line + 1, end_col, count))

    def _in_error(self, node: Node) -> bool:
        """Whether the statement around a use holds an error (`f(x) ]];`): recorded as a region that did not parse."""
        holder = node.parent
        while holder is not None and not holder.type.endswith(_STATEMENTS):
            holder = holder.parent
        if holder is None or not holder.has_error:
            return False
        region = Region(*n.span(holder))
        if region not in self.errors[-3:]:
            self.errors.append(region)
        return True

    def argument(self, node: Node) -> None:
        """A spread or a comment among a call's arguments: one positional argument fewer (a spread: of unknown count)."""
        args = node.parent
        at = self._calls_at.get(args.start_byte) if args is not None else None
        if at is not None:
            c = self.calls[at]
            self.calls[at] = c._replace(n_positional=c.n_positional - 1, has_star=c.has_star or node.type == "spread_element")

    def _required(self, node: Node, callee: Node, args: Node | None) -> None:
        """`require("x")` (with the names its declarator binds) and `import("x")` (a specifier that is no literal: "")."""
        first = args.named_children[0] if args is not None and args.named_child_count else None
        spec = n.string(first)
        dynamic = callee.type == "import"
        if spec is None and not dynamic:
            return
        line, col, end_line, _ = n.span(node)
        form = ImportForm.DYNAMIC if dynamic else ImportForm.REQUIRE
        scope = self._code_scope()
        holder = node.parent
        while holder is not None and holder.type in ("await_expression", "parenthesized_expression"):
            holder = holder.parent
        target = holder.child_by_field_name("name") if holder is not None and holder.type == "variable_declarator" else None
        for name, alias in _bound(target):
            self.imports.append(Import(spec or "", 0, name, alias, line, end_line, scope, False, col, form))

    def jsx(self, node: Node) -> None:
        name = n.chain(node) if node.type != "jsx_namespace_name" else "?"
        if name[:1].isupper() or "." in name:
            self.refs.append(Reference(name, RefKind.JSX, self._code_scope(), *n.span(node)))

    def decorator(self, node: Node) -> None:
        expr = node.named_children[0] if node.named_child_count else None
        if expr is not None and expr.type == "call_expression":
            expr = expr.child_by_field_name("function")
        if expr is not None:
            self.refs.append(Reference(n.chain(expr), RefKind.DECORATOR, self._code_scope(), *n.span(expr)))

    def typeref(self, node: Node) -> None:
        target = node.child_by_field_name("name") if node.type == "generic_type" else node
        if target is not None:
            self._maybe.append((n.chain(target), RefKind.ANNOTATION, self._stack[-1].code, target))

    def value(self, node: Node) -> None:
        self._maybe.append((n.chain(node), RefKind.VALUE, self._stack[-1].code, node))

    def finish(self) -> None:
        """Keep the type and value references whose name the module binds (an import, a definition): the others name
        a local, a parameter, a type parameter or a global, which no other file's change reaches."""
        bound = {d.qualname.partition(".")[0] for d in self.defs} | {i.bound_name for i in self.imports if i.name is not None}
        self.refs += [Reference(name, kind, scope, *n.span(node)) for name, kind, scope, node in self._maybe
                      if name.partition(".")[0] in bound]
        self.defs.sort(key=lambda d: (d.line, d.col))

    def error(self, node: Node) -> None:
        self.errors.append(Region(*n.span(node)))
        self._error_end = max(self._error_end, node.end_byte)


def _declared_key(node_type: str) -> str:
    return {"interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum"}.get(
        node_type, "namespace")


def _declared_names(decl: Node) -> list[str]:
    """The names an `export <declaration>` exports."""
    if decl.type in ("lexical_declaration", "variable_declaration"):
        return [n.text(v.child_by_field_name("name")) for v in decl.named_children
                if v.type == "variable_declarator" and (t := v.child_by_field_name("name")) is not None and t.type == "identifier"]
    if decl.type == "ambient_declaration":
        return [x for c in decl.named_children for x in _declared_names(c)]
    name = n.name_of(decl)
    return [name] if name is not None else []


def _specifier_name(node: Node | None) -> str:
    if node is None:
        return ""
    value = n.string(node)
    return value if value is not None else n.text(node)


def _bound(target: Node | None) -> list[tuple[str | None, str | None]]:
    """(imported name, local alias) for what `const <target> = require(...)` binds; (None, None) for no binding."""
    if target is None:
        return [(None, None)]
    if target.type == "identifier":
        return [("*", n.text(target))]
    if target.type != "object_pattern":
        return [(None, None)]
    out: list[tuple[str | None, str | None]] = []
    for p in target.named_children:
        if p.type == "shorthand_property_identifier_pattern":
            out.append((n.text(p), None))
        elif p.type == "pair_pattern":
            key, value = p.child_by_field_name("key"), p.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier":
                out.append((n.text(key), n.text(value)))
    return out or [(None, None)]


def _require(call: Node) -> str | None:
    callee = call.child_by_field_name("function")
    return "require" if callee is not None and n.text(callee) == "require" else None


def _heritage(node: Node) -> tuple[str, ...]:
    """`extends`/`implements` of a class, `extends` of an interface, as name chains."""
    bases: list[str] = []
    for part in node.named_children:
        if part.type == "class_heritage":
            clauses = part.named_children
        elif part.type == "extends_type_clause":
            clauses = [part]
        else:
            continue
        for clause in clauses:
            for v in clause.named_children if clause.type.endswith("clause") else [clause]:
                v = v.child_by_field_name("name") or v if v.type == "generic_type" else v
                if v.type in ("identifier", "member_expression", "type_identifier", "nested_type_identifier"):
                    bases.append(n.chain(v))
    return tuple(bases)


def _decorators(node: Node) -> tuple[str, ...]:
    """The decorators written on a definition, and those just before a class member."""
    found = [c for c in node.children if c.type == "decorator"]
    before = node.prev_named_sibling
    while before is not None and before.type == "decorator":
        found.insert(0, before)
        before = before.prev_named_sibling
    return tuple(" ".join(n.text(d).split()).lstrip("@") for d in found)
