"""Imports and exports of one TypeScript/JavaScript file, as the walk meets their statements (`Modules`, a part of
`extract.Extractor`): ES imports and `import x = require()`, named, default, re-exports, `export *`, `export * as
ns`, `export =`, and CommonJS's `module.exports` / `exports.x` at module level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphguard.languages.typescript import nodes as n
from graphguard.languages.typescript.definitions import Kind, Walk
from graphguard.model import DefKind, Export, ExportKind, Import, ImportForm

if TYPE_CHECKING:
    from tree_sitter import Node

#: What `module.exports = X` makes the module itself (TypeScript's `export = X`; `sigrecords.EXPORT_EQUALS`).
EXPORT_EQUALS = "export="
_NOT_OWNERS = frozenset({"module", "exports", "this", "window", "globalThis", "self"})


class Modules(Walk):
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
