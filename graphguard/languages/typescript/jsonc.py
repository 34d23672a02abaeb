"""JSON with comments and trailing commas (tsconfig.json, jsconfig.json; package.json read the same way): pure.

tsc reads tsconfig files with its own lenient parser, so `//` and `/* */` comments and a comma before `}` or `]`
are common in real configs; a file that still does not parse is `None` (its folder then has no config), never an error.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: A string literal, a comment, or a comma that only whitespace and comments separate from a closing bracket.
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]])', re.DOTALL)


def _strip(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.startswith('"'):
        return token
    return " " if token.startswith("/") else ""


def loads(data: bytes) -> Any:
    """The value of a JSONC document; None when it does not parse (or is not UTF-8)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return json.loads(_TOKENS.sub(_strip, text))
    except (ValueError, RecursionError):
        return None


def loads_object(data: bytes | None) -> dict[str, Any] | None:
    """A JSONC document that must be an object (a config, a manifest); None for anything else."""
    value = loads(data) if data is not None else None
    return value if isinstance(value, dict) else None
