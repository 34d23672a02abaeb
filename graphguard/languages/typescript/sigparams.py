"""Reading one TS/JS definition off the tree: its parameters, JavaScript's arity rules (JSDoc `@param`s,
`arguments`), and the readers of one node the signature reader uses. Pure: nodes in, records out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from graphguard.languages.python.signature import Param, ParamKind
from graphguard.languages.typescript.sigrecords import Shape, TsParam

if TYPE_CHECKING:
    from tree_sitter import Node

FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
#: Nodes whose own `arguments` hides the enclosing function's.
_OWN_ARGUMENTS = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                            "function", "generator_function", "method_definition", "class_body"})
_SPACE = re.compile(r"\s+")


# -- parameters ---------------------------------------------------------------------------------


def params(node: Node) -> tuple[Param, ...]:
    single = node.child_by_field_name("parameter")  # `x => x`
    if single is not None:
        return (TsParam(text(single), ParamKind.POSITIONAL_ONLY, False),)
    formal = node.child_by_field_name("parameters")
    if formal is None:
        return ()
    out: list[Param] = []
    for p in formal.named_children:
        param = _param(p)
        if param is not None:
            out.append(param)
    return tuple(out)


def _param(node: Node) -> Param | None:
    """One formal parameter; None for `this: T` (it types `this`, callers pass nothing for it)."""
    kind = node.type
    if kind in ("comment", "decorator", "accessibility_modifier", "override_modifier", "ERROR"):
        return None
    if kind in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        if pattern is None or pattern.type == "this":
            return None
        value = node.child_by_field_name("value")
        annotation = type_text(node.child_by_field_name("type"))
        has_default = kind == "optional_parameter" or value is not None or annotation == "void"
        return _pattern_param(pattern, has_default, annotation, value, node.child_by_field_name("type"))
    if kind == "assignment_pattern":  # JavaScript: `b = 2`
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return _pattern_param(left, True, None, right, None) if left is not None else None
    return _pattern_param(node, False, None, None, None)


def _pattern_param(pattern: Node, has_default: bool, annotation: str | None, value: Node | None,
                   type_node: Node | None) -> Param:
    default = text(value) if value is not None else None
    if pattern.type == "rest_pattern":
        inner = next(iter(pattern.named_children), None)
        return TsParam(text(inner) if inner is not None else "rest", ParamKind.VAR_POSITIONAL, False, annotation)
    shape = _shape(type_node) if pattern.type == "object_pattern" else None
    return TsParam(text(pattern), ParamKind.POSITIONAL_ONLY, has_default, annotation, default, shape)


def _shape(type_node: Node | None) -> Shape | None:
    """The properties of an inline type literal (`{a: string; b?: number}`); None for a named type."""
    literal = next(iter(type_node.named_children), None) if type_node is not None else None
    if literal is None or literal.type != "object_type":
        return None
    required: list[str] = []
    optional: list[str] = []
    is_open = False
    for member in literal.named_children:
        if member.type == "index_signature":
            is_open = True
        elif member.type in ("property_signature", "method_signature"):
            name = member.child_by_field_name("name")
            if name is not None:
                optional_mark = any(c.type == "?" for c in member.children)
                (optional if optional_mark else required).append(text(name).strip("'\""))
    return Shape(tuple(required), tuple(optional), is_open)


# -- JavaScript's arity rules --------------------------------------------------------------------

_JSDOC_PARAM = re.compile(r"@(?:param|arg|argument)\s+(?:\{([^}]*)\}\s*)?(\[?)\s*([\w$.]+)")


def jsdoc(node: Node, params: tuple[Param, ...]) -> tuple[tuple[Param, ...], bool]:
    """TypeScript's rule for .js files: every parameter may be left out, unless JSDoc `@param`s say which may
    (`[name]`, `{T=}`); `{...T}` is a rest. Returns the parameters and whether the lenient rule applies."""
    doc = _leading_jsdoc(node)
    tags = _JSDOC_PARAM.findall(doc) if doc else []
    if not tags:
        return params, True
    optional = {name for type_, bracket, name in tags if bracket or type_.rstrip().endswith("=")}
    rest = {name for type_, _, name in tags if type_.lstrip().startswith("...")}
    out: list[Param] = []
    for p in params:
        if p.name in rest and p.kind is ParamKind.POSITIONAL_ONLY:
            p = TsParam(p.name, ParamKind.VAR_POSITIONAL, False, p.annotation)
        elif p.name in optional and not p.has_default:
            p = TsParam(p.name, p.kind, True, p.annotation, p.default, getattr(p, "shape", None))
        out.append(p)
    return tuple(out), False


def _leading_jsdoc(node: Node) -> str | None:
    """The `/** ... */` comment just before a definition (or before the statement that holds it)."""
    here: Node | None = node
    while here is not None:
        before = here.prev_sibling
        if before is not None and before.type == "comment":
            comment = text(before)
            return comment if comment.startswith("/**") else None
        parent = here.parent
        if parent is None or parent.type not in ("export_statement", "lexical_declaration", "variable_declaration",
                                                 "variable_declarator"):
            return None
        here = parent
    return None


def uses_arguments(body: Node | None) -> bool:
    if body is None:
        return False
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text == b"arguments":
            return True
        if node.type not in _OWN_ARGUMENTS:
            stack.extend(node.named_children)
    return False


# -- readers of one node -------------------------------------------------------------------------


def text(node: Node) -> str:
    return _SPACE.sub(" ", (node.text or b"").decode("utf-8", "replace")).strip()


def name(node: Node) -> str | None:
    name = node.child_by_field_name("name")
    return text(name) if name is not None else None


def type_text(annotation: Node | None) -> str | None:
    """`: string` -> "string"."""
    if annotation is None:
        return None
    inner = annotation.named_children
    return text(inner[0]) if len(inner) == 1 else text(annotation).lstrip(":").strip()


def assignment_chain(node: Node) -> tuple[list[str], Node]:
    """`a = b = value`: (["a", "b"], value)."""
    targets: list[str] = []
    while node.type == "assignment_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            break
        targets.append(text(left))
        node = unwrapped(right)
    return targets, node


def unwrapped(node: Node) -> Node:
    """`(x => x)`, `f as T`, `f satisfies T`: the value inside."""
    while node.type in ("parenthesized_expression", "as_expression", "satisfies_expression") and node.named_children:
        node = node.named_children[0]
    return node


def decorators(node: Node) -> tuple[str, ...]:
    return tuple(text(c) for c in node.children if c.type == "decorator")


def base(node: Node) -> str | None:
    heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
    if heritage is None:
        return None
    clause = next((c for c in heritage.named_children if c.type == "extends_clause"), None)
    if clause is None:  # JavaScript: `class_heritage` holds the expression itself
        clause = heritage if heritage.named_children and heritage.named_children[0].type != "implements_clause" else None
    if clause is None:
        return None
    value = clause.child_by_field_name("value") or next(iter(clause.named_children), None)
    return text(value) if value is not None and value.type == "identifier" else ""


def declared_names(node: Node) -> Iterator[str]:
    """The top-level names an `export <declaration>` binds."""
    if node.type == "ambient_declaration":
        for child in node.named_children:
            yield from declared_names(child)
    elif node.type in ("lexical_declaration", "variable_declaration"):
        for d in node.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None and name.type == "identifier":
                yield text(name)
    else:
        name = node.child_by_field_name("name")
        if name is not None:
            yield text(name)

