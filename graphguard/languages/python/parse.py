"""Facts of one Python file from tree-sitter: definitions, imports, calls, references.

Pure: `parse(source) -> FileFacts`. Every interesting node is found by one
tree-sitter query run in C, so Python only touches the nodes it keeps; a
recursive walk over all nodes would be several times slower and would hit the
recursion limit on deeply nested expressions.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings as warnings_module
from typing import Any

from graphguard.languages.limits import MAX_BYTES, deeper_than
from graphguard.languages.python import encoding, treesitter
from graphguard.languages.python.extract import _Extractor
from graphguard.languages.python.nodes import (
    _BOM,
    _COMMENT_LINE,
    _COMMENT_OR_QUOTE,
    _CONTINUED_INTO_COMMENT,
    _DEPTH_BUDGET,
    _LONG_RUN,
    _MAX_ROUNDS,
    _SINGLE_QUOTED,
    _STRING_NODES,
    MAX_DEPTH,
    MIN_DEPTH,
    PATTERNS,
    QUERY,
)
from graphguard.model import (
    FileFacts,
)


def skipped(reason: str) -> FileFacts:
    return FileFacts(warnings=(reason,), parsed=False)


def parse(source: bytes) -> FileFacts:
    if b"\x00" in source[:8192]:
        return skipped("binary file; not parsed")
    if len(source) > MAX_BYTES:
        return skipped(f"{len(source) // 1_000_000} MB file; over the {MAX_BYTES // 1_000_000} MB limit, not parsed")
    text, warning = encoding.to_utf8(source)
    tree = parse_tree(text)
    grouped: dict[str, list[dict[str, Any]]] = {key: [] for key, _ in PATTERNS}
    # Query matching costs each node time in proportion to its depth (8,000 nested calls:
    # a minute): matches start no deeper than a limit that keeps nodes x depth in a budget.
    depth = max(MIN_DEPTH, min(MAX_DEPTH, _DEPTH_BUDGET // max(1, tree.root_node.descendant_count)))
    for index, caps in treesitter.matches(QUERY, tree.root_node, max_start_depth=depth):
        grouped[PATTERNS[index][0]].append({name: nodes[0] for name, nodes in caps.items()})
    facts = _Extractor(grouped).facts()
    warnings: list[str] = []
    if warning:
        warnings.append(warning)
    if deeper_than(tree.root_node, depth):
        warnings.append(f"nested more than {depth} levels deep; facts are partial")
    doubt = bool(warning or grouped["py2"]) or _bom_and_other_declaration(source) or _CONTINUED_INTO_COMMENT.search(text) is not None
    syntax = _syntax_warning(source, tree.root_node, doubt=doubt)
    if syntax:
        warnings.append(syntax)
    return dataclasses.replace(facts, warnings=tuple(warnings))


def _syntax_warning(source: bytes, root: Any, *, doubt: bool) -> str | None:
    """The warning about the syntax of the file, if any, as Python's own parser sees it.

    tree-sitter's grammar is not Python's: it fails on some valid code (a dedent inside
    brackets) and reads some invalid code (Python 2's `print x`, a file Python cannot
    decode). Where it has an error, or the file gives another doubt, `ast.parse` of the
    bytes as they are decides (only then: it would add half again to every parse).
    """
    if not root.has_error and not doubt:
        return None
    python_line = _python_error_line(source)
    if root.has_error:
        line = _first_error_line(root)
        if python_line is None:
            return f"tree-sitter could not read line {line}, which Python parses; facts are partial"
        return f"syntax error at line {line}; facts are partial"
    if python_line:
        return f"syntax error at line {python_line}"
    return None


def _python_error_line(source: bytes) -> int | None:
    """The line of Python's syntax error; None when the file parses; 0 when Python cannot tell (too deep)."""
    try:
        with warnings_module.catch_warnings():
            warnings_module.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(source)
    except SyntaxError as e:  # an undecodable file or a bad coding declaration too
        return e.lineno or 1
    except ValueError:  # a NUL byte (Python < 3.12)
        return 1
    except (RecursionError, MemoryError):
        return 0
    return None


def _bom_and_other_declaration(source: bytes) -> bool:
    """A UTF-8 byte order mark with a coding declaration: Python accepts only `utf-8` itself."""
    return source.startswith(_BOM) and encoding.declared(source[len(_BOM):]) is not None


def parse_tree(source: bytes) -> Any:
    """The tree of `source`, parsed with its comment-only lines blanked (same offsets).

    tree-sitter-python's scanner is quadratic in a run of comment lines after a statement
    (20,000 lines: 15 s), while blank lines cost nothing; a comment line and a blank line
    mean the same to Python. A line that starts with `#` inside a string (`    #12207\"\"\"`
    in a docstring) is text, not a comment: `_comment_lines` skips strings, and the tree of
    the blanked text is checked too. Up to the first wrongly blanked line both texts read
    the same, so that line lands in a string (or the text no longer parses): then the text
    is parsed as it is, which is exact. Only when that would take long (a run of over
    _LONG_RUN comment lines) are the lines found in strings given back instead, until no
    blanked line is in a string (after _MAX_ROUNDS, the text is parsed as it is). A text
    that still has an error is judged by Python's own parser (`_syntax_warning`): a
    tree-sitter error alone is never reported as a syntax error.
    """
    comments = _comment_lines(source)
    if not comments:
        return treesitter.parse(source)
    for _ in range(_MAX_ROUNDS):
        tree = treesitter.parse(_blanked(source, comments))
        root = tree.root_node
        suspect = {(start, end) for start, end in comments if _in_string(root, start, end)}
        if not suspect and not root.has_error:
            return tree
        if _longest_run(comments) < _LONG_RUN:
            break
        if not suspect:
            return tree
        comments = [c for c in comments if c not in suspect]
    return treesitter.parse(source)


def _blanked(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


def _longest_run(spans: list[tuple[int, int]]) -> int:
    """The most comment lines in a row (spans in order; a line break or CRLF between two)."""
    longest = run = 0
    previous_end = -10
    for start, end in spans:
        run = run + 1 if start - previous_end <= 2 else 1
        longest = max(longest, run)
        previous_end = end
    return longest


def comment_lines(source: bytes) -> list[tuple[int, int]]:
    """Spans of the comments that start their line, strings skipped (parse_tree blanks them)."""
    return _comment_lines(source)


def _comment_lines(source: bytes) -> list[tuple[int, int]]:
    """Spans of the comments that start their line, strings skipped."""
    if _COMMENT_LINE.search(source) is None:
        return []
    out: list[tuple[int, int]] = []
    pos = 0
    while (m := _COMMENT_OR_QUOTE.search(source, pos)) is not None:
        quote = m.group(1)
        if quote is None:
            line_start = source.rfind(b"\n", 0, m.start()) + 1
            if not source[line_start:m.start()].strip(b" \t\f"):
                out.append((line_start, m.end()))
            pos = m.end()
        elif len(quote) == 3:
            pos = _triple_end(source, m.end(), quote)
        else:
            pos = _SINGLE_QUOTED[quote].match(source, m.end()).end()  # type: ignore[union-attr]
    return out


def _triple_end(source: bytes, pos: int, quote: bytes) -> int:
    """Where a triple-quoted string that opened before `pos` ends (a backslash escapes a quote)."""
    while (end := source.find(quote, pos)) >= 0:
        first = end
        while first > pos and source[first - 1] == 0x5C:  # a backslash
            first -= 1
        if (end - first) % 2 == 0:
            return end + 3
        pos = end + 1
    return len(source)


def _in_string(root: Any, start: int, end: int) -> bool:
    node = root.named_descendant_for_byte_range(start, end)
    return node is not None and node.type in _STRING_NODES


def _first_error_line(root: Any) -> int:
    # Iterative: an error deep in a 500-level expression must not recurse.
    cursor = root.walk()
    while True:
        node = cursor.node
        if node.type == "ERROR" or node.is_missing:
            return int(node.start_point[0]) + 1
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return int(root.start_point[0]) + 1


