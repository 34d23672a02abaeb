"""The limits every parser of a repository's files keeps, whatever its language.

Apart from the package's `__init__`, which imports every language: a language's modules import this one only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

#: Files above this size are generated or vendored data, not code anyone calls into: not parsed.
MAX_BYTES = 2_000_000


def deeper_than(root: Node, depth: int) -> bool:
    """Does any node of a tree-sitter tree lie more than `depth` levels below `root`? (Either language's.)

    A subtree of n nodes is at most n - 1 levels deep, so only subtrees large enough
    to go past the limit are entered: a few nodes in ordinary code, about `depth`
    nodes on the way down in deep code (where it stops at the first node past it).
    """
    stack = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if level > depth:
            return True
        if level + node.descendant_count - 1 > depth:
            stack.extend((child, level + 1) for child in node.children)
    return False
