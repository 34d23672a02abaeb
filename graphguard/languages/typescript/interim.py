"""A stand-in, until the module that owns it lands (issue 21): a file's facts (`extract.parse`, ts-facts). Same
name and signature as the brief gives it, so that `language.py` switches by an import. Pure; tree-sitter through
`grammar` only. (Module resolution is `resolution`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphguard.languages.limits import MAX_BYTES
from graphguard.languages.typescript.grammar import Dialect, parser
from graphguard.model import Binding as NameBinding
from graphguard.model import (
    BindKind,
    CallSite,
    Definition,
    DefKind,
    Export,
    FileFacts,
    Import,
    Reference,
    RefKind,
)

if TYPE_CHECKING:
    from tree_sitter import Node

#: Deeper trees are not walked further (a generated file): what lies below is not read.
MAX_DEPTH = 400
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_signature"})


def parse(data: bytes, dialect: Dialect, *, declaration: bool = False) -> FileFacts:
    """A file's definitions, imports, exports, calls, JSX uses and receiver bindings; never raises."""
    if len(data) > MAX_BYTES:
        return FileFacts(warnings=(f"larger than {MAX_BYTES} bytes; not parsed",), parsed=False)
    tree = parser(dialect).parse(data)
    walk = _Walk()
    walk.node(tree.root_node, "", "", 0)
    warnings: tuple[str, ...] = ()
    if tree.root_node.has_error:
        first = _first_error(tree.root_node)
        warnings = (f"syntax error at line {first}; parsed what parses",)
    return FileFacts(definitions=tuple(walk.defs), imports=tuple(walk.imports), calls=tuple(walk.calls),
                     references=tuple(walk.refs), bindings=tuple(walk.bindings), warnings=warnings, exports=tuple(walk.exports))


def _first_error(node: Node) -> int:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n.start_point[0] + 1
        stack.extend(reversed([c for c in n.children if c.has_error or c.type == "ERROR" or c.is_missing]))
    return node.start_point[0] + 1


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _string(node: Node | None) -> str | None:
    """A string literal's value; None for anything else (a template, an expression)."""
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.children if c.type == "string_fragment")


def _header(node: Node) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    raw = (node.text or b"")[: end - node.start_byte].decode("utf-8", "replace")
    return " ".join(raw.split()).rstrip(" {=>")


def chain(node: Node | None) -> str:
    """A callee as a chain of names (`a.b.c`, `this.m`, `super().m`); `?` for an unnameable part."""
    if node is None:
        return "?"
    t = node.type
    if t in ("identifier", "property_identifier", "type_identifier", "this"):
        return _text(node)
    if t == "super":
        return "super()"
    if t == "member_expression":
        return chain(node.child_by_field_name("object")) + "." + _text(node.child_by_field_name("property"))
    if t == "parenthesized_expression" and node.named_child_count == 1:
        return chain(node.named_children[0])
    if t == "non_null_expression" and node.named_child_count == 1:
        return chain(node.named_children[0])
    if t == "call_expression":
        return chain(node.child_by_field_name("function")) + "()"
    return "?"


def _type_name(annotation: Node | None) -> str | None:
    """`C` of `: C`, `: C | undefined`, `: ns.C<T>`; None for other types."""
    if annotation is None:
        return None
    names = [n for n in annotation.named_children] if annotation.type == "type_annotation" else [annotation]
    while names:
        n = names.pop(0)
        if n.type == "union_type":
            names[:0] = n.named_children
        elif n.type in ("type_identifier", "nested_type_identifier"):
            return _text(n)
        elif n.type == "generic_type":
            return _text(n.child_by_field_name("name"))
        elif n.type in ("literal_type", "predefined_type", "undefined", "null"):
            continue
        else:
            return None
    return None


class _Walk:
    def __init__(self) -> None:
        self.defs: list[Definition] = []
        self.imports: list[Import] = []
        self.exports: list[Export] = []
        self.calls: list[CallSite] = []
        self.refs: list[Reference] = []
        self.bindings: list[NameBinding] = []

    def node(self, node: Node, scope: str, cls: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        t = node.type
        if t == "import_statement":
            self._import(node, scope)
            return
        if t == "export_statement":
            self._export(node, scope, cls, depth)
            return
        if t in _FUNCTIONS and not scope:
            name = _text(node.child_by_field_name("name"))
            self._define(node, name, DefKind.FUNCTION)
            self._children(node, name, "", depth)
            return
        if t in _CLASSES and not scope and node.child_by_field_name("name") is not None:
            self._class(node, _text(node.child_by_field_name("name")), depth)
            return
        if t == "variable_declarator":
            self._declarator(node, scope, cls, depth)
            return
        if t in ("call_expression", "new_expression"):
            self._call(node, scope)
        elif t in ("jsx_self_closing_element", "jsx_opening_element"):
            tag = node.child_by_field_name("name")
            if tag is not None and _text(tag)[:1].isupper():
                self.refs.append(Reference(chain(tag), RefKind.VALUE, scope, *_span(tag)))
        elif t in ("required_parameter", "optional_parameter"):
            self._parameter(node, scope)
        elif t == "assignment_expression":
            self._assignment(node, scope, cls)
        self._children(node, scope, cls, depth)

    def _children(self, node: Node, scope: str, cls: str, depth: int) -> None:
        for child in node.children:
            self.node(child, scope, cls, depth + 1)

    def _define(self, node: Node, qualname: str, kind: DefKind, bases: tuple[str, ...] = ()) -> None:
        at = node
        self.defs.append(Definition(qualname, kind, at.start_point[0] + 1, at.end_point[0] + 1, _header(at), (), bases,
                                    None, any(c.type == "async" for c in at.children), at.start_point[1]))

    def _class(self, node: Node, name: str, depth: int) -> None:
        bases: list[str] = []
        for heritage in (c for c in node.children if c.type == "class_heritage"):
            for clause in heritage.named_children:
                bases += [chain(v) for v in clause.named_children if v.type in ("identifier", "member_expression")]
        self._define(node, name, DefKind.CLASS, tuple(bases))
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            if member.type in ("method_definition", "method_signature", "abstract_method_signature"):
                key = _text(member.child_by_field_name("name"))
                if key.startswith("#"):
                    self._children(member, name, name, depth)
                    continue
                self._define(member, f"{name}.{key}", DefKind.METHOD)
                self._children(member, f"{name}.{key}", name, depth + 1)
            elif member.type in ("public_field_definition", "field_definition"):
                value = member.child_by_field_name("value")
                key = _text(member.child_by_field_name("name") or member.child_by_field_name("property"))
                if value is not None and value.type in _FUNCTION_VALUES and not key.startswith("#"):
                    self._define(member, f"{name}.{key}", DefKind.METHOD)
                    self._children(value, f"{name}.{key}", name, depth + 1)
                else:
                    self._children(member, name, name, depth + 1)
            else:
                self._children(member, name, name, depth + 1)

    def _declarator(self, node: Node, scope: str, cls: str, depth: int) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None and name.type == "identifier" and value is not None:
            if value.type in _FUNCTION_VALUES and not scope:
                self._define(node, _text(name), DefKind.FUNCTION)
                self._children(value, _text(name), "", depth + 1)
                return
            if value.type == "new_expression":
                self.bindings.append(NameBinding(scope, _text(name), BindKind.CALL, chain(value.child_by_field_name("constructor")),
                                                 *_span(node)))
            elif value.type in ("identifier", "member_expression"):
                self.bindings.append(NameBinding(scope, _text(name), BindKind.ALIAS, chain(value), *_span(node)))
        if name is not None and name.type == "identifier":
            typed = _type_name(node.child_by_field_name("type"))
            if typed:
                self.bindings.append(NameBinding(scope, _text(name), BindKind.ANNOTATION, typed, *_span(node)))
        self._children(node, scope, cls, depth)

    def _parameter(self, node: Node, scope: str) -> None:
        pattern = node.child_by_field_name("pattern")
        typed = _type_name(node.child_by_field_name("type"))
        if pattern is not None and pattern.type == "identifier" and typed:
            self.bindings.append(NameBinding(scope, _text(pattern), BindKind.ANNOTATION, typed, *_span(node)))

    def _assignment(self, node: Node, scope: str, cls: str) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and right.type == "new_expression" and chain(left).startswith("this.") and cls:
            self.bindings.append(NameBinding(cls, chain(left), BindKind.CALL, chain(right.child_by_field_name("constructor")),
                                             *_span(node)))

    def _call(self, node: Node, scope: str) -> None:
        callee = node.child_by_field_name("function" if node.type == "call_expression" else "constructor")
        if callee is None or callee.type == "import":
            return
        args = node.child_by_field_name("arguments")
        named = [a for a in args.named_children if a.type != "comment"] if args is not None and args.type == "arguments" else []
        spread = sum(1 for a in named if a.type == "spread_element")
        line, col, end_line, end_col = _span(node)
        self.calls.append(CallSite(chain(callee), scope, line, col, end_line, end_col, len(named) - spread, (), spread > 0, False))

    def _import(self, node: Node, scope: str) -> None:
        spec = _string(node.child_by_field_name("source"))
        if spec is None:
            return
        type_only = any(c.type == "type" for c in node.children)
        line, col, end_line, _ = _span(node)
        clause = next((c for c in node.children if c.type == "import_clause"), None)
        if clause is None:
            self.imports.append(Import(spec, 0, None, None, line, end_line, scope, type_only, col))
            return
        for part in clause.named_children:
            if part.type == "identifier":
                self.imports.append(Import(spec, 0, "default", _text(part), line, end_line, scope, type_only, col))
            elif part.type == "namespace_import":
                alias = next((c for c in part.named_children if c.type == "identifier"), None)
                self.imports.append(Import(spec, 0, "*", _text(alias), line, end_line, scope, type_only, col))
            elif part.type == "named_imports":
                for s in (c for c in part.named_children if c.type == "import_specifier"):
                    name, alias = s.child_by_field_name("name"), s.child_by_field_name("alias")
                    typed = type_only or any(c.type == "type" for c in s.children)
                    self.imports.append(Import(spec, 0, _text(name), _text(alias) or None, line, end_line, scope, typed, col))

    def _export(self, node: Node, scope: str, cls: str, depth: int) -> None:
        line = node.start_point[0] + 1
        spec = _string(node.child_by_field_name("source"))
        decl = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        default = any(c.type == "default" for c in node.children)
        if decl is not None:
            before = len(self.defs)
            self.node(decl, scope, cls, depth + 1)
            names = [d.qualname for d in self.defs[before:] if "." not in d.qualname]
            if decl.type == "lexical_declaration":
                names += [_text(v.child_by_field_name("name")) for v in decl.named_children if v.type == "variable_declarator"]
            for name in dict.fromkeys(names):
                self.exports.append(Export("default" if default else name, name, None, line))
            return
        if default:
            if value is not None and value.type in _CLASSES | _FUNCTION_VALUES | {"function_declaration"}:
                named = value.child_by_field_name("name")
                local = _text(named) if named is not None else "default"
                if value.type in _CLASSES:
                    self._class(value, local, depth)
                else:
                    self._define(value, local, DefKind.FUNCTION)
                    self._children(value, local, "", depth)
                self.exports.append(Export("default", local, None, line))
            elif value is not None:
                self.exports.append(Export("default", chain(value) if value.type == "identifier" else None, None, line))
                self._children(node, scope, cls, depth)
            return
        clause = next((c for c in node.children if c.type == "export_clause"), None)
        star = next((c for c in node.children if c.type == "namespace_export"), None)
        if clause is not None:
            for s in (c for c in clause.named_children if c.type == "export_specifier"):
                name, alias = _text(s.child_by_field_name("name")), _text(s.child_by_field_name("alias"))
                self.exports.append(Export(alias or name, name, spec, line))
        elif star is not None:
            ns = next((c for c in star.named_children if c.type in ("identifier", "string")), None)
            self.exports.append(Export(_text(ns), "*", spec, line))
        elif spec is not None:
            self.exports.append(Export("*", None, spec, line))


def _span(node: Node) -> tuple[int, int, int, int]:
    return node.start_point[0] + 1, node.start_point[1], node.end_point[0] + 1, node.end_point[1]
