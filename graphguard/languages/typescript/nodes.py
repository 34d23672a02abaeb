"""The tree-sitter query of a TypeScript/JavaScript file's facts, the limits of reading it, and what is read off one
node (its text, a string literal's value, a callee chain, the class a type annotation names, a header).

Nothing here recurses: a chain or a type is read with a loop, so a deeply nested file cannot exhaust Python's stack.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

#: Query matches start no deeper than this (generated code nests thousands deep; ordinary code stays under 60).
MAX_DEPTH = 256
#: A definition's header is cut after this many bytes (a parameter list of generated code).
MAX_HEADER = 2000
#: Longer name chains keep a "?" root: `?.c.d`.
MAX_CHAIN = 32

#: (key, pattern): one pattern per kind of fact, its node captured as `node` (a call's parts too: fewer lookups). A pattern naming a node its grammar lacks (`interface_declaration`
#: in JavaScript) is left out of that grammar's query (`grammar.query`).
PATTERNS: tuple[tuple[str, str], ...] = (
    ("function", "(function_declaration) @node"),
    ("function", "(generator_function_declaration) @node"),
    ("function", "(function_signature) @node"),
    ("class", "(class_declaration) @node"),
    ("class", "(abstract_class_declaration) @node"),
    ("member", "(method_definition) @node"),
    ("member", "(method_signature) @node"),
    ("member", "(abstract_method_signature) @node"),
    ("member", "(property_signature) @node"),
    ("field", "(public_field_definition) @node"),
    ("field", "(field_definition) @node"),
    ("declarator", "(variable_declarator) @node"),
    ("interface", "(interface_declaration) @node"),
    ("type", "(type_alias_declaration) @node"),
    ("enum", "(enum_declaration) @node"),
    ("namespace", "(internal_module) @node"),
    ("namespace", "(module name: (identifier)) @node"),
    ("namespace", "(module name: (string)) @node"),
    ("import", "(import_statement) @node"),
    ("export", "(export_statement) @node"),
    ("call", "(call_expression function: (_) @callee arguments: (arguments)? @args) @node"),
    ("call", "(new_expression constructor: (_) @callee arguments: (arguments)? @args) @node"),
    ("jsx", "(jsx_self_closing_element name: (_) @node)"),
    ("jsx", "(jsx_opening_element name: (_) @node)"),
    ("decorator", "(decorator) @node"),
    ("param", "(required_parameter) @node"),
    ("param", "(optional_parameter) @node"),
    ("assign", "(assignment_expression) @node"),
    ("typeref", "(type_annotation [(type_identifier) (nested_type_identifier) (generic_type)] @node)"),
    ("typeref", "(type_arguments [(type_identifier) (nested_type_identifier) (generic_type)] @node)"),
    ("typeref", "(union_type [(type_identifier) (nested_type_identifier) (generic_type)] @node)"),
    ("typeref", "(type_alias_declaration value: [(type_identifier) (nested_type_identifier) (generic_type)] @node)"),
    ("typeref", "(array_type [(type_identifier) (nested_type_identifier) (generic_type)] @node)"),
    ("value", "(arguments [(identifier) (member_expression)] @node)"),
    ("value", "(jsx_expression [(identifier) (member_expression)] @node)"),
    ("argument", "(arguments [(spread_element) (comment)] @node)"),
    ("error", "(ERROR) @node"),
)

FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
CLASS_VALUES = frozenset({"class", "class_declaration", "abstract_class_declaration"})
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                       "type_assertion"})
_SIMPLE_CHAIN = re.compile(rb"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*){0,31}")
_ASYNC = re.compile(rb"(?:(?:export|default|declare|public|private|protected|static|override|readonly|abstract)\s+)*async\b")
_SIMPLE_TYPE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_NULLISH = frozenset({"undefined", "null", "void"})


def text(node: Node | None) -> str:
    raw = node.text if node is not None else None  # (each read of `.text` copies the bytes)
    return raw.decode("utf-8", "replace") if raw is not None else ""


def span(node: Node) -> tuple[int, int, int, int]:
    """1-based lines, 0-based columns, as `model` keeps them."""
    (line, col), (end_line, end_col) = node.start_point, node.end_point
    return line + 1, col, end_line + 1, end_col


def string(node: Node | None) -> str | None:
    """A string literal's value (a template without substitutions too); None for anything else."""
    if node is None or node.type not in ("string", "template_string"):
        return None
    if any(c.type == "template_substitution" for c in node.named_children):
        return None
    return "".join(text(c) for c in node.named_children if c.type == "string_fragment")


def unwrapped(node: Node) -> Node:
    """`(x)`, `x as T`, `x satisfies T`, `x!`, `<T>x`: the expression inside."""
    while node.type in _WRAPPERS and node.named_child_count:
        node = node.named_children[0] if node.type != "type_assertion" else node.named_children[-1]
    return node


def chain(node: Node | None) -> str:
    """A callee as a chain of names (`a.b.c`, `this.m`, `super.m`, `f().g`, `z.string().min().nullable`: a part
    called is marked `()`, its arguments left out); `?` for an unnameable part."""
    if node is None:
        return "?"
    if node.type == "identifier":
        return text(node)
    raw = node.text
    if raw is not None and len(raw) < 256 and _SIMPLE_CHAIN.fullmatch(raw):  # most callees: their text is the chain
        return raw.decode()
    parts: list[str] = []
    called = ""  # "()" when the node is the function of a call: the next part is a call's result
    while node is not None and len(parts) < MAX_CHAIN:
        t = node.type
        if t in ("identifier", "property_identifier", "type_identifier", "this", "private_property_identifier"):
            parts.append(text(node) + called)
            break
        if t == "super":
            parts.append("super" + called)
            break
        if t in ("member_expression", "nested_identifier", "nested_type_identifier"):
            prop = node.child_by_field_name("property") or node.child_by_field_name("name") or node.named_children[-1]
            parts.append(text(prop) + called)
            called = ""
            node = node.child_by_field_name("object") or node.child_by_field_name("module") or node.named_children[0]
        elif t == "call_expression" and not called:
            # The receiver is a call's result (`a.b().c`): the resolver types it by the callee's return annotation.
            node, called = node.child_by_field_name("function"), "()"
        elif t in _WRAPPERS and node.named_child_count:
            node = unwrapped(node)
        else:
            parts.append("?")
            break
    else:
        parts.append("?")
    return ".".join(reversed(parts))


def type_name(annotation: Node | None) -> str | None:
    """`C` of `: C`, `: C | undefined`, `: ns.C<T>`; None for any other type."""
    if annotation is None:
        return None
    pending = list(annotation.named_children) if annotation.type == "type_annotation" else [annotation]
    found: str | None = None
    while pending:
        n = pending.pop()
        if n.type == "union_type":
            pending.extend(n.named_children)
        elif n.type in ("literal_type", "predefined_type") and text(n) in _NULLISH:
            continue
        elif n.type in ("type_identifier", "nested_type_identifier", "generic_type") and found is None:
            found = text(n.child_by_field_name("name")) if n.type == "generic_type" else text(n)
        else:
            return None
    return found


def returned_type(returns: str | None) -> str | None:
    """The class a return annotation's text names (`C`, `C | undefined`, `ns.C<T>`); None for another type."""
    if not returns:
        return None
    names = [p.strip() for p in returns.lstrip(":").split("|")]
    named = [n.split("<", 1)[0].strip() for n in names if n not in _NULLISH]
    return named[0] if len(named) == 1 and _SIMPLE_TYPE.fullmatch(named[0]) else None


def header(data: bytes, node: Node, inner: Node) -> str:
    """A definition as written from `node` up to the body (the value: `const x = ...`) of `inner`, whitespace
    collapsed, at most MAX_HEADER bytes. Sliced from the file's bytes: a node's text would copy the whole body."""
    body = inner.child_by_field_name("body") or (inner.child_by_field_name("value") if inner is node else None)
    end = body.start_byte if body is not None else inner.end_byte
    raw = data[node.start_byte:min(end, node.start_byte + MAX_HEADER)].decode("utf-8", "replace")
    return " ".join(raw.split()).rstrip(" {=>")


def name_of(node: Node) -> str | None:
    """A declaration's name as importers write it (a quoted member name unquoted); None for a computed or private one."""
    found = node.child_by_field_name("name") or node.child_by_field_name("property") or node.child_by_field_name("key")
    if found is None or found.type in ("computed_property_name", "private_property_identifier"):
        return None
    return text(found).strip("'\"")


def is_async(data: bytes, node: Node) -> bool:
    """`async function`, `async () =>`, `static async m()`: read off the bytes (a node's children cost more)."""
    return _ASYNC.match(data, node.start_byte) is not None


def has_child(node: Node, kind: str) -> bool:
    return any(c.type == kind for c in node.children)
