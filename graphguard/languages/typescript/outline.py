"""What `outline` shows of a TypeScript/JavaScript file besides signatures: JSDoc summaries and decorators. Pure.

A definition's doc is the `/** ... */` comment right before it (before its `export`, or its decorators), cut to
its summary as Python's docstrings are (`docstrings.first_line`: the first sentence of the first paragraph, up
to the first `@tag`); the file's is a leading JSDoc block that says `@file`, `@fileoverview` or `@module`.
Keyed by the line the definition's facts start on (the declaration's), as `docstrings.Extras` wants.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphguard.languages.limits import MAX_BYTES
from graphguard.languages.python.docstrings import NONE, Extras, first_line
from graphguard.languages.typescript.grammar import Dialect, parser

if TYPE_CHECKING:
    from tree_sitter import Node

#: The nodes a JSDoc block documents (a declaration, an export of one, a class member).
_DOCUMENTED = frozenset({
    "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration",
    "lexical_declaration", "variable_declaration", "export_statement", "method_definition", "public_field_definition",
    "method_signature", "abstract_method_signature", "function_signature", "interface_declaration", "type_alias_declaration",
})
_FILE_TAG = re.compile(r"@(file|fileoverview|module)\b")


def extract(data: bytes, dialect: Dialect) -> Extras:
    """The file's JSDoc summaries and decorators; NONE for a file too large to read."""
    if len(data) > MAX_BYTES:
        return NONE
    root = parser(dialect).parse(data).root_node
    docs: dict[int, str] = {}
    decorators: dict[int, tuple[str, ...]] = {}
    module_doc = None
    stack = [root]
    while stack:
        node = stack.pop()
        children = node.children
        for i, child in enumerate(children):
            if child.type == "comment" and (child.text or b"").startswith(b"/**") and i + 1 < len(children):
                after = [c for c in children[i + 1:] if c.type != "decorator"]  # `/** doc */ @Get() m() {}`
                target = after[0] if after else children[i + 1]
                text = _jsdoc((child.text or b"").decode("utf-8", "replace"))
                if node is root and i == 0 and _FILE_TAG.search(text):
                    module_doc = first_line(_FILE_TAG.sub("", text))
                elif target.type in _DOCUMENTED and (summary := first_line(text.split("\n@", 1)[0])):
                    docs[_line(target)] = summary
            if child.type in _DOCUMENTED:
                found = tuple((d.text or b"").decode("utf-8", "replace").lstrip("@") for d in _decorators(node, i, child))
                if found:
                    decorators[_line(child)] = found
        stack.extend(children)
    return Extras(module_doc, docs, decorators)


def _jsdoc(comment: str) -> str:
    """A `/** ... */` block's text: the delimiters and each line's leading `*` gone."""
    body = comment.removeprefix("/**").removesuffix("*/")
    return "\n".join(line.strip().removeprefix("*").strip() for line in body.splitlines()).strip()


def _line(node: Node) -> int:
    """The line the facts give the definition: an export's declaration's, else the node's own (1-based)."""
    decl = node.child_by_field_name("declaration") if node.type == "export_statement" else None
    return (decl or node).start_point[0] + 1


def _decorators(parent: Node, index: int, node: Node) -> list[Node]:
    """The decorators of a class or member: its own `decorator` children, or those right before it in a class body."""
    own = [c for c in node.children if c.type == "decorator"]
    before: list[Node] = []
    for sibling in reversed(parent.children[:index]):
        if sibling.type != "decorator":
            break
        before.insert(0, sibling)
    return own + before
