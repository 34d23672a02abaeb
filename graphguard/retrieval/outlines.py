"""A definition or a module in brief, from its source lines: the header as written and the docstring's first
line; a module's docstring and the headers of its top-level definitions (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphguard.retrieval import graphdata

_DOC_START = re.compile(r"""^\s*[rRbBuU]{0,2}(\"\"\"|'''|"|')""")


def docstring_first_line(lines: Sequence[str], start: int) -> str | None:
    """The first line of text of a docstring beginning on line index `start` (0-based) or just after it."""
    for i in range(start, min(start + 3, len(lines))):
        if not lines[i].strip():
            continue
        m = _DOC_START.match(lines[i])
        if not m:
            return None
        quote = m.group(1)
        inner = lines[i][m.end():].split(quote, 1)[0].strip()
        if inner:
            return inner
        for j in range(i + 1, min(i + 4, len(lines))):
            text = lines[j].strip()
            if text:
                return text.split(quote, 1)[0].strip() or None
        return None
    return None


def signature_text(lines: Sequence[str], line: int, end_line: int, signature: str) -> str:
    """The definition's header as written (up to the line ending in ':') and its docstring's first line."""
    header_end = line - 1
    for i in range(line - 1, min(end_line, line + 20, len(lines))):
        header_end = i
        if lines[i].rstrip().endswith(":"):
            break
    header = "\n".join(lines[line - 1 : header_end + 1]) if line - 1 < len(lines) else signature
    doc = docstring_first_line(lines, header_end + 1)
    if doc:
        indent = re.match(r"\s*", lines[header_end + 1] if header_end + 1 < len(lines) else "").group(0) or "    "  # type: ignore[union-attr]
        header += f'\n{indent}"""{doc}"""'
    return header


#: Top-level definitions listed in a module's outline.
OUTLINE = 40


def module_outline(lines: Sequence[str], module: str, defs: Sequence[graphdata.Symbol]) -> str:
    """A module in brief: its docstring's first line, then the headers of its top-level definitions."""
    out = []
    doc = docstring_first_line(lines, 0)
    if doc:
        out.append(f'"""{doc}"""')
    top = [d for d in defs if d.qualname.rpartition(".")[0] == module]
    for d in top[:OUTLINE]:
        out.append(f"{d.signature}  # line {d.line}")
    if len(top) > OUTLINE:
        out.append(f"... {len(top) - OUTLINE} more")
    return "\n".join(out)
