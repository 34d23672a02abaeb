"""What an outline shows beside a definition's signature: its docstring's first line and its decorators. Pure.

The graph stores no docstrings (nothing it checks needs them); an outline reads them from the file's blob.
The standard library's `ast` parses without running anything, and faster than LibCST.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass

#: A longer file is outlined from the graph alone (ast holds the whole tree in memory).
MAX_PARSED_BYTES = 2 << 20
#: A docstring's first line is cut to this many characters.
MAX_DOC_CHARS = 200


@dataclass(frozen=True)
class Extras:
    """Per file: the module docstring's first line, and per definition (keyed by its `def`/`class` line) the rest."""

    module_doc: str | None
    docs: dict[int, str]
    decorators: dict[int, tuple[str, ...]]


NONE = Extras(None, {}, {})


def first_line(doc: str | None) -> str | None:
    """The docstring's summary: its first paragraph on one line, cut after its first sentence and to
    MAX_DOC_CHARS (a summary wrapped over two lines is still one summary); None when there is none."""
    if not doc or not doc.strip():
        return None
    paragraph = []
    for line in doc.strip().splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    end = text.find(". ")
    if end != -1:
        text = text[: end + 1]
    return text if len(text) <= MAX_DOC_CHARS else text[: MAX_DOC_CHARS - 3] + "..."


def extract(source: bytes) -> Extras:
    """The docstrings' first lines and decorators of a Python file; nothing for a file ast cannot parse
    (a syntax error, Python 2, too large): the outline then shows what the graph has."""
    if len(source) > MAX_PARSED_BYTES:
        return NONE
    try:
        with warnings.catch_warnings():  # invalid escape sequences in the analysed code are not our warnings
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return NONE
    docs: dict[int, str] = {}
    decorators: dict[int, tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = first_line(ast.get_docstring(node, clean=True))
            if doc:
                docs[node.lineno] = doc
            if node.decorator_list:
                decorators[node.lineno] = tuple(_decorator(d) for d in node.decorator_list)
    return Extras(first_line(ast.get_docstring(tree, clean=True)), docs, decorators)


def _decorator(node: ast.expr) -> str:
    """`@name` as written (normalised), without its arguments when they are long."""
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - ast.unparse of a parsed tree
        return "?"
    if len(text) > 80 and isinstance(node, ast.Call):
        return ast.unparse(node.func) + "(...)"
    return text
