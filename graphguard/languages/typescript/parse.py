"""Facts of one TypeScript/JavaScript file: `parse(data, dialect) -> FileFacts`. Pure; never raises.

Every node a fact is read from is found by one tree-sitter query run in C (`nodes.PATTERNS`), so Python touches
only those nodes, in document order (`extract`). A file with syntax errors is indexed for what parses: its facts
hold the regions that did not (`FileFacts.errors`) and no call inside one, with a warning.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from graphguard.languages.limits import MAX_BYTES, deeper_than
from graphguard.languages.typescript import grammar
from graphguard.languages.typescript.extract import Extractor
from graphguard.languages.typescript.nodes import MAX_DEPTH, PATTERNS, span
from graphguard.model import FileFacts, Region

if TYPE_CHECKING:
    from tree_sitter import Node


def skipped(reason: str) -> FileFacts:
    return FileFacts(warnings=(reason,), parsed=False)


def parse(data: bytes, dialect: grammar.Dialect, *, declaration: bool = False) -> FileFacts:
    """A file's definitions, imports, exports, calls, references and receiver bindings. `declaration`: a `.d.ts`
    file, read by the typescript grammar (it declares; nothing in it runs, and it has no calls to judge)."""
    if b"\x00" in data[:8192]:
        return skipped("binary file; not parsed")
    if len(data) > MAX_BYTES:
        return skipped(f"{len(data) // 1_000_000} MB file; over the {MAX_BYTES // 1_000_000} MB limit, not parsed")
    root = grammar.parser(dialect).parse(data).root_node
    walk = Extractor(data, grammar.captures(dialect, PATTERNS, root, max_start_depth=MAX_DEPTH), has_errors=root.has_error)
    walk.run()
    warnings: list[str] = []
    if walk.recursion:
        warnings.append("too deeply nested to read whole; facts are partial")
    if deeper_than(root, MAX_DEPTH):
        warnings.append(f"nested more than {MAX_DEPTH} levels deep; facts are partial")
    if root.has_error:
        walk.errors += _missing(root)
        warnings.append(_syntax_warning(walk))
    facts = FileFacts(definitions=tuple(walk.defs), imports=tuple(walk.imports), calls=tuple(walk.calls),
                      references=tuple(walk.refs), bindings=tuple(walk.bindings), exports=tuple(walk.exports),
                      errors=tuple(walk.errors))
    return dataclasses.replace(facts, warnings=tuple(warnings), calls=() if declaration else facts.calls)


def _missing(root: Node) -> list[Region]:
    """The nodes around the tokens tree-sitter had to make up (`f(a` has a missing `)`): their calls are not judged."""
    out: list[Region] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children:
            if child.is_missing:
                out.append(Region(*span(node)))
            elif child.has_error and child.type != "ERROR":
                stack.append(child)
    return out


def _syntax_warning(walk: Extractor) -> str:
    lines = sorted({r.line for r in walk.errors})
    where = ", ".join(str(x) for x in lines[:5]) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    return f"syntax error at line{'s' if len(lines) > 1 else ''} {where}; indexed what parses, no use there is judged"
