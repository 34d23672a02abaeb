"""The state of the walk over one TypeScript/JavaScript file (`extract.Extractor`) and its definitions: the open scopes,
in document order, and what a declaration in each defines.

A definition is one where importers can reach it: at module level, in a namespace, a class member, a member of a
module-level object (`const api = { get() {} }`, `module.exports = { parse() {} }`). A function inside a function is
its local: its uses belong to the function around it. Qualnames follow `signature` (`Cart.total`, `N.f`, `default`).
"""

from __future__ import annotations

import enum
import heapq
from typing import TYPE_CHECKING, NamedTuple

from graphguard.languages.typescript import nodes as n
from graphguard.model import Binding, BindKind, CallSite, Definition, DefKind, Export, ExportKind, Import, Reference, RefKind, Region

if TYPE_CHECKING:
    from tree_sitter import Node

_DECLARED = {"interface": DefKind.INTERFACE, "type": DefKind.TYPE, "enum": DefKind.ENUM, "namespace": DefKind.NAMESPACE}


class Kind(enum.Enum):
    """What an open scope is: it decides whether a declaration in it is a definition."""

    MODULE = "module"
    NAMESPACE = "namespace"
    CLASS = "class"
    OBJECT = "object"  # a module-level object literal: its function members are definitions
    FUNCTION = "function"
    TYPE = "type"      # an interface or type body: members there are no code
    SHAPE = "shape"    # a named interface's or type alias's body: its members declare method names (DefKind.MEMBER)


class Scope(NamedTuple):
    start: int
    end: int
    qualname: str
    kind: Kind
    code: str = ""  # the definition a use here belongs to (a `module.exports = {...}` object's: the module's)


_MODULE = Scope(0, 1 << 62, "", Kind.MODULE)


class Walk:
    """The facts so far and the scopes open at the current node (`_advance` moves it on)."""

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
        written = n.text(returns).lstrip(": ") if returns is not None else ""
        said = written or (_returned(inner) if kind in (DefKind.FUNCTION, DefKind.METHOD) else None)
        self.defs.append(Definition(qualname, kind, line, end_line, n.header(self.data, node, inner), decorators, bases,
                                    said or None, n.is_async(self.data, inner), col))

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
        if s.kind is Kind.SHAPE and name is not None and _declares_method(node):
            self._define(node, f"{s.qualname}.{name}", DefKind.MEMBER)
            return
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
        shape = Kind.SHAPE if kind in (DefKind.INTERFACE, DefKind.TYPE) else Kind.TYPE
        self._enter(node, prefix + name, Kind.NAMESPACE if kind is DefKind.NAMESPACE else shape)

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

    def _value_definition(self, node: Node, name: str, value: Node) -> None:
        if value.type in n.CLASS_VALUES:
            self.klass(value, name)
        else:
            self._define(node, name, DefKind.FUNCTION, value=value)
            self._enter(node, name, Kind.FUNCTION)


def _declared_key(node_type: str) -> str:
    return {"interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum"}.get(
        node_type, "namespace")


def _declares_method(node: Node) -> bool:
    """`m(): T` in an interface or type literal, or `m: () => T` (a property typed by a function)."""
    if node.type == "method_signature":
        return True
    typed = node.child_by_field_name("type")
    value = typed.named_children[0] if typed is not None and typed.named_children else None
    return value is not None and value.type == "function_type"


def _require(call: Node) -> str | None:
    callee = call.child_by_field_name("function")
    return "require" if callee is not None and n.text(callee) == "require" else None


def _returned(node: Node) -> str | None:
    """What a function without a return annotation returns, when its body says it in the one form the resolver types:
    its last statement `return new C(...)` (`C`), `return this` (`this`) or `return f(...)` / `return this.m(...)`
    (the call's chain and `()`: what that returns); an arrow's expression body the same. Only the body's own
    statements are read (an earlier `return` inside an `if` is not), as a hint for receivers, never a signature."""
    body = node.child_by_field_name("body")
    if body is None:
        return None
    if body.type == "statement_block":
        last = body.named_children[-1] if body.named_child_count else None
        if last is None or last.type != "return_statement" or not last.named_child_count:
            return None
        body = last.named_children[0]
    body = n.unwrapped(body)
    if body.type == "this":
        return "this"
    if body.type == "new_expression":
        made = body.child_by_field_name("constructor")
        return n.chain(made) if made is not None and made.type in ("identifier", "member_expression") else None
    if body.type == "call_expression":
        called = n.chain(body.child_by_field_name("function"))
        return called + "()" if "?" not in called.split(".") else None
    return None


def _heritage(node: Node) -> tuple[str, ...]:
    """`extends`/`implements` of a class, `extends` of an interface, as name chains; the one type a type alias names
    (`type ZodTypeAny = ZodType<any>`: a receiver so typed has ZodType's members)."""
    bases: list[str] = []
    value = node.child_by_field_name("value") if node.type == "type_alias_declaration" else None
    if value is not None:
        value = value.child_by_field_name("name") or value if value.type == "generic_type" else value
        return (n.chain(value),) if value.type in ("type_identifier", "nested_type_identifier") else ()
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
