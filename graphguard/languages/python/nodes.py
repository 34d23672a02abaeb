"""The tree-sitter query, the parser's limits, and what is read off one node (its text, a name chain, a type position)."""

from __future__ import annotations

import re
from typing import Any

from graphguard.model import (
    ArmKind,
)

#: Query matches start no deeper in the tree than this; deeper code gets a warning.
MAX_DEPTH = 1024
#: ... and, in a big file, no deeper than this budget of nodes x levels allows (a few seconds:
#: 2 MB of calls nested 120 deep took 41 s at 256 levels, 3.5 s at 64), but never under MIN_DEPTH
#: (ordinary code is under 40 levels deep).
_DEPTH_BUDGET = 200_000_000
MIN_DEPTH = 64
#: Longer name chains keep their last parts and a "?" root.
MAX_CHAIN = 32

_SIMPLE_CHAIN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_COMMENT_LINE = re.compile(rb"^[ \t\f]*#[^\r\n]*", re.MULTILINE)
#: Comment lines in a row that tree-sitter parses in about 0.1 s (20,000 take 15 s: the square).
_LONG_RUN = 1000
#: Rounds of giving back the blanked lines found in strings before the text is parsed as it is.
_MAX_ROUNDS = 8
#: Nodes in which a blanked comment line would have been text.
_STRING_NODES = frozenset({"string", "string_content", "string_start", "string_end", "interpolation", "format_specifier", "escape_sequence", "concatenated_string"})
_COMMENT_OR_QUOTE = re.compile(rb"""#[^\r\n]*|(\"\"\"|'''|"|')""")
#: The rest of a one-line string: up to its closing quote or an unescaped line end.
_SINGLE_QUOTED = {q: re.compile(rb"(?:[^%s\\\r\n]|\\(?:\r\n|[\s\S]))*%s?" % (q, q)) for q in (b'"', b"'")}
_BOM = b"\xef\xbb\xbf"
#: A backslash continuation into a comment line: an error Python sees and tree-sitter's grammar does not.
_CONTINUED_INTO_COMMENT = re.compile(rb"\\\r?\n[ \t\f]*#")
_PARTIAL = {"partial", "functools.partial"}
_TYPE_CHECKING = {b"TYPE_CHECKING", b"typing.TYPE_CHECKING", b"t.TYPE_CHECKING"}


#: (key, pattern): one pattern per kind of fact; matches are grouped by key.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("def", "(function_definition) @def"),
    ("def", "(class_definition) @def"),
    ("decorator", "(decorated_definition (decorator) @decorator definition: (_) @target)"),
    ("import", "(import_statement) @import"),
    ("import", "(import_from_statement) @import"),
    ("py2", "[(print_statement) (exec_statement)] @statement"),
    ("tc", "(if_statement condition: (_) @cond consequence: (block) @block)"),
    ("call", "(call function: (_) @callee arguments: (_) @args) @call"),
    ("ref.value", "(argument_list [(identifier) (attribute)] @ref)"),
    ("ref.value", "(keyword_argument value: [(identifier) (attribute)] @ref)"),
    ("ref.base", "(class_definition superclasses: (argument_list [(identifier) (attribute)] @ref))"),
    ("ref.decorator", "(decorator [(identifier) (attribute)] @ref)"),
    ("attr", "(attribute object: (identifier) @root) @ref"),
    ("ref.value", "(return_statement [(identifier) (attribute)] @ref)"),
    ("ref.value", "(raise_statement [(identifier) (attribute)] @ref)"),
    ("ref.value", "(except_clause [(identifier) (attribute)] @ref)"),
    ("ref.value", "(except_clause (tuple [(identifier) (attribute)] @ref))"),
    ("kw", "(argument_list (keyword_argument name: (identifier) @kw) @arg) @args"),
    ("splat", "(argument_list [(list_splat) (dictionary_splat)] @splat) @args"),
    ("comment", "(argument_list (comment) @comment) @args"),
    ("assign", "(assignment left: (_)) @assign"),
    ("augassign", "(augmented_assignment left: (identifier) @left right: (_) @right)"),
    ("with", "(with_item value: (as_pattern (call function: (_) @callee) alias: (as_pattern_target (identifier) @target)))"),
    ("param", "(function_definition parameters: (parameters [(typed_parameter (identifier) @name type: (type) @type) (typed_default_parameter name: (identifier) @name type: (type) @type)]) body: (block) @body)"),
    # The arms of compound statements: which assignments reach a line (resolve.py, reaching.py).
    ("arm.branch", "(if_statement consequence: (block) @arm) @stmt"),
    ("arm.branch", "(if_statement alternative: (elif_clause consequence: (block) @arm)) @stmt"),
    ("arm.else", "(if_statement alternative: (else_clause body: (block) @arm)) @stmt"),
    ("arm.branch", "(match_statement body: (block (case_clause consequence: (block) @arm))) @stmt"),
    ("arm.loop", "[(for_statement body: (block) @arm) (while_statement body: (block) @arm)] @stmt"),
    ("arm.loop_else", "[(for_statement alternative: (else_clause body: (block) @arm)) (while_statement alternative: (else_clause body: (block) @arm))] @stmt"),
    ("arm.try", "(try_statement body: (block) @arm) @stmt"),
    ("arm.handler", "[(try_statement (except_clause (block) @arm)) (try_statement (else_clause body: (block) @arm))] @stmt"),
    ("global", "(global_statement (identifier) @name) @global"),
)
#: Arm patterns by key; "else" is a branch that makes its `if` exhaustive.
_ARM_KINDS = {
    "arm.branch": ArmKind.BRANCH, "arm.else": ArmKind.BRANCH, "arm.loop": ArmKind.LOOP,
    "arm.loop_else": ArmKind.LOOP_ELSE, "arm.try": ArmKind.TRY, "arm.handler": ArmKind.HANDLER,
}
QUERY = "\n".join(p for _, p in PATTERNS)


def _text(node: Any) -> str:
    """A node's source text, its names as Python reads them: NFKC-normalised (PEP 3131), so `import café`
    written with a combining accent names the module `café` (and its file café.py in NFC), as CPython's
    parser has it. String contents are read with _literal instead."""
    text: bytes = node.text
    decoded = text.decode("utf-8", "replace")
    if text.isascii():
        return decoded
    import unicodedata  # only for a text that is not ASCII

    return unicodedata.normalize("NFKC", decoded)


def _literal(node: Any) -> str:
    """A string's content as written (Python does not normalise strings)."""
    text: bytes = node.text
    return text.decode("utf-8", "replace")


def chain(node: Any) -> str:
    """Name chain of an expression: `a.b(x).c` -> "a.b().c"; unnameable parts -> "?"."""
    # Short texts only: in a generated `a.b().b()...` every call's callee is the whole
    # prefix, so copying texts or walking whole chains would be quadratic.
    if node.end_byte - node.start_byte <= 256:
        text: bytes = node.text
        if _SIMPLE_CHAIN.fullmatch(text):
            return text.decode()
    parts: list[str] = []
    called = False
    while True:
        if len(parts) >= MAX_CHAIN:  # the root of a longer chain is not nameable
            parts.append("?")
            break
        kind = node.type
        if kind == "identifier":
            parts.append(_text(node) + ("()" if called else ""))
            break
        if kind == "attribute":
            parts.append(_text(node.child_by_field_name("attribute")) + ("()" if called else ""))
            called = False
            node = node.child_by_field_name("object")
        elif kind == "call":
            if called:  # f()() : the inner result is not nameable
                parts.append("?")
                break
            function = node.child_by_field_name("function")
            first = _first_argument(node) if function.type == "identifier" and function.text == b"super" else None
            if first is not None:
                # `super(Named, self)`: the lookup starts after Named, which the chain must keep ("super(Named)()").
                parts.append(f"super({_text(first)})()" if first.type == "identifier" else "?")
                break
            called = True
            node = function
        elif kind == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        else:
            parts.append("?")
            break
    return ".".join(reversed(parts))


def _first_argument(call: Any) -> Any:
    """The first argument node of a call, or None."""
    args = call.child_by_field_name("arguments")
    return args.named_children[0] if args is not None and args.named_child_count else None


#: Where an annotation ends: past these, a name is an expression's, not a type's.
_NOT_TYPE = frozenset({"call", "lambda", "block", "module", "expression_statement", "argument_list", "default_parameter",
                       "typed_default_parameter", "assignment", "function_definition", "class_definition"})


def _in_annotation(node: Any) -> bool:
    """Is `node` part of a type annotation (a `type` node: `x: T`, `def f(x: T) -> T`, `list[T]` inside one)?"""
    parent = node.parent
    while parent is not None and parent.type not in _NOT_TYPE:
        if parent.type == "type":
            return True
        parent = parent.parent
    return False


#: Calls whose argument at this position is a type, checked or named, never called.
_TYPE_ARGUMENT = {b"isinstance": 1, b"issubclass": 1, b"cast": 0, b"typing.cast": 0}


def _type_argument(node: Any) -> bool:
    """Is `node` the type argument of `isinstance(x, T)`, `issubclass(c, T)` or `cast(T, x)`?"""
    args = node.parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    if call is None or call.type != "call":
        return False
    function = call.child_by_field_name("function")
    at = _TYPE_ARGUMENT.get(function.text if function is not None else b"")
    positional = [a for a in args.named_children if a.type not in ("comment", "keyword_argument")]
    return at is not None and at < len(positional) and positional[at].id == node.id


def _alternatives(node: Any) -> list[Any]:
    """The values an expression can have: both sides of `a if c else b` (nested ones too), else itself."""
    out: list[Any] = []
    stack = [node]
    while stack and len(out) < 16:
        n = stack.pop()
        while n.type == "parenthesized_expression" and n.named_child_count == 1:
            n = n.named_children[0]
        if n.type == "conditional_expression" and n.named_child_count == 3:
            stack += [n.named_children[2], n.named_children[0]]  # popped in source order
        else:
            out.append(n)
    return out


def _dotted_and_alias(item: Any) -> tuple[str, str | None]:
    if item.type == "aliased_import":
        return "".join(_text(item.child_by_field_name("name")).split()), _text(item.child_by_field_name("alias"))
    return "".join(_text(item).split()), None


def _string_list(node: Any, previous: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """`__all__ = [...]` of string literals; `previous` when it is computed."""
    if node.type not in ("list", "tuple"):
        return previous
    names: list[str] = []
    for item in node.named_children:
        if item.type != "string":
            return previous
        content = [c for c in item.named_children if c.type == "string_content"]
        if len(content) > 1:
            return previous
        names.append(_literal(content[0]) if content else "")
    return tuple(names)
