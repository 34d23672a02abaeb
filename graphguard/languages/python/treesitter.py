"""The one module that imports tree_sitter: a parser, compiled queries, matches.

Kept apart so that an API change of the bindings (they changed between 0.21,
0.22 and 0.23) touches one file, and so that commands that never parse do not
pay for loading the grammar.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import tree_sitter
import tree_sitter_python


@cache
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_python.language())


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(_language())


@cache
def _query(source: str) -> tree_sitter.Query:
    return tree_sitter.Query(_language(), source)


def parse(source: bytes) -> tree_sitter.Tree:
    return _parser().parse(source)


def matches(query: str, node: Any, *, max_start_depth: int | None = None) -> list[tuple[int, dict[str, list[Any]]]]:
    """(pattern index, captures) for every match of `query` under `node`, in document order.

    With `max_start_depth`, only matches that start at most that many levels below `node`:
    the cursor's work per node grows with the depth (and the bindings' progress
    callback, the other way to stop it, crashes tree-sitter 0.26.1).
    """
    cursor = tree_sitter.QueryCursor(_query(query))
    if max_start_depth is not None:
        cursor.set_max_start_depth(max_start_depth)
    return cursor.matches(node)
