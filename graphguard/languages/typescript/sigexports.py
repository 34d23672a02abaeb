"""What a TS/JS file exports, read for its signatures: `export` statements and default exports, namespaces,
object literals exported as namespaces, CommonJS (`exports.f =`, `module.exports = {...}`) and `export =`.

`Exports` is a mixin of the signature reader (signature._Reader): the definitions it finds are read by the
reader's `function` and `klass`, the names it exports go to the reader's `exports`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphguard.languages.typescript import sigparams as read
from graphguard.languages.typescript.sigrecords import EXPORT_EQUALS, Accessor
from graphguard.model import DefKind

if TYPE_CHECKING:
    from tree_sitter import Node


class Exports:
    """The export half of the signature reader (a mixin: the exports, the namespace prefix and the readers of
    definitions are the reader's)."""

    if TYPE_CHECKING:
        exports: dict[str, str]
        prefix: str
        hidden: set[str]

        def statement(self, node: Node) -> None: ...

        def function(self, qualname: str, node: Node, *, line_node: Node | None = None,
                     kind: DefKind = DefKind.FUNCTION, is_static: bool = False,
                     accessor: Accessor | None = None) -> None: ...

        def klass(self, qualname: str, node: Node) -> None: ...

    def export(self, node: Node) -> None:
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(c.type == "default" for c in node.children)
        if node.child_by_field_name("source") is not None:
            return  # `export ... from "x"`: another file's definitions
        if any(c.type == "=" for c in node.children):  # `export = f`
            target = next((c for c in node.named_children if c.type == "identifier"), None)
            if target is not None and not self.prefix:
                self.exports[EXPORT_EQUALS] = read.text(target)
            return
        if declaration is not None:
            self.statement(declaration)
            if self.prefix:
                return  # a namespace's member: exported with the namespace
            for name in read.declared_names(declaration):
                self.exports["default" if is_default else name] = name
            if declaration.type == "lexical_declaration":
                self.object_namespaces(declaration)
        elif value is not None and is_default:
            self.default_export(value)
        for clause in (c for c in node.named_children if c.type == "export_clause"):
            for spec in (s for s in clause.named_children if s.type == "export_specifier"):
                local, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                if local is not None:
                    self.exports[read.text(alias or local)] = read.text(local)

    def default_export(self, value: Node) -> None:
        if value.type == "identifier":  # `export default f`
            self.exports["default"] = read.text(value)
            return
        name = read.name(value) if value.type in read.FUNCTION_VALUES | read.CLASSES else None
        qualname = name or "default"
        if value.type in read.CLASSES:
            self.klass(qualname, value)
        elif value.type in read.FUNCTION_VALUES:
            self.function(qualname, value)
        else:
            return
        self.exports["default"] = qualname

    def namespace(self, node: Node) -> None:
        """`namespace N { export function f() {} }`: `N.f` (a dotted `namespace A.B` is `A.B.f`)."""
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None or name.type == "string":
            return
        outer, self.prefix = self.prefix, f"{self.prefix}{read.text(name)}."
        try:
            for child in body.named_children:
                self.statement(child)
                if child.type != "export_statement":  # visible inside the namespace only
                    self.hidden.update(self.prefix + n for n in read.declared_names(child))
        finally:
            self.prefix = outer

    def object_namespaces(self, declaration: Node) -> None:
        """`export const api = { get(url) {}, post: (url, body) => ... }`: `api.get`, `api.post`, called on the object."""
        for declarator in (d for d in declaration.named_children if d.type == "variable_declarator"):
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is None or name.type != "identifier" or value is None or read.unwrapped(value).type != "object":
                continue
            for member in read.unwrapped(value).named_children:
                key = member.child_by_field_name("name") or member.child_by_field_name("key")
                if key is None or key.type not in ("property_identifier", "string"):
                    continue
                qualname = f"{read.text(name)}.{read.text(key).strip(chr(39) + chr(34))}"
                if member.type == "method_definition":
                    accessor = next((Accessor(c.type) for c in member.children if c.type in ("get", "set")), None)
                    self.function(qualname, member, kind=DefKind.METHOD, is_static=True, accessor=accessor)
                elif member.type == "pair" and (v := member.child_by_field_name("value")) and read.unwrapped(v).type in read.FUNCTION_VALUES:
                    self.function(qualname, read.unwrapped(v), line_node=member, kind=DefKind.METHOD, is_static=True)

    def commonjs(self, node: Node) -> None:
        """`exports.f = function (...) {}`, `module.exports = {f, g: h}`, `module.exports = f` (the `export=` name),
        `exports = module.exports = f`; `X.m = function` and `X.prototype.m = function` for a name X of the file."""
        targets, value = read.assignment_chain(node)
        for target in targets:
            self.assign(target, value, node)

    def assign(self, target: str, value: Node, line_node: Node) -> None:
        if target in ("module.exports", "exports"):
            self.module_exports(value, line_node)
            return
        head, dot, name = target.rpartition(".")
        if not (dot and name.isidentifier()):
            return
        if head in ("exports", "module.exports"):
            if value.type in read.FUNCTION_VALUES:
                self.function(name, value, line_node=line_node)
                self.exports[name] = name
            elif value.type == "identifier":
                self.exports[name] = read.text(value)
        elif value.type in read.FUNCTION_VALUES and not self.prefix:
            owner, prototype = head.removesuffix(".prototype"), head.endswith(".prototype")
            if owner.isidentifier() and owner not in ("module", "exports", "this", "window", "globalThis"):
                self.function(f"{owner}.{name}", value, line_node=line_node, kind=DefKind.METHOD, is_static=not prototype)

    def module_exports(self, value: Node, line_node: Node) -> None:
        """`module.exports = ...`: what `require()` returns. An object literal exports its keys; anything else is
        the module itself, under the name TypeScript gives it (`export =`)."""
        if value.type == "object":
            for pair in value.named_children:
                key = pair.child_by_field_name("key") or pair.child_by_field_name("name")
                v = pair.child_by_field_name("value")
                if pair.type == "shorthand_property_identifier":
                    self.exports[read.text(pair)] = read.text(pair)
                elif key is None or key.type != "property_identifier":
                    continue
                elif pair.type == "method_definition":  # `module.exports = { parse(a) {} }`
                    self.function(read.text(key), pair)
                    self.exports[read.text(key)] = read.text(key)
                elif pair.type == "pair" and v is not None and read.unwrapped(v).type == "identifier":
                    self.exports[read.text(key)] = read.text(v)
                elif pair.type == "pair" and v is not None and read.unwrapped(v).type in read.FUNCTION_VALUES:
                    self.function(read.text(key), read.unwrapped(v), line_node=pair)
                    self.exports[read.text(key)] = read.text(key)
        elif value.type == "identifier":
            self.exports[EXPORT_EQUALS] = read.text(value)
        elif value.type in read.FUNCTION_VALUES | read.CLASSES:
            qualname = read.name(value) or "default"
            if value.type in read.CLASSES:
                self.klass(qualname, value)
            else:
                self.function(qualname, value, line_node=line_node)
            self.exports[EXPORT_EQUALS] = qualname
