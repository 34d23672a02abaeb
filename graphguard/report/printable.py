"""What every renderer's text goes through: file names are bytes, reports are UTF-8 text.

git hands graphguard file names as bytes; a name that is not valid UTF-8 arrives as a
str with lone surrogates (`surrogateescape`), which no UTF-8 stream or file can take.
A file name may also hold a line break, which would split a line-based report.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

_T = TypeVar("_T")
_CONTROL = {c: f"\\x{c:02x}" for c in range(32) if chr(c) not in "\t"} | {10: "\\n", 13: "\\r", 127: "\\x7f"}


def printable(text: str) -> str:
    """`text` with each byte that was not UTF-8 shown as U+FFFD (the rest unchanged)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def one_line(record: _T) -> _T:
    """A copy of a result record whose strings are printable, line breaks and control characters escaped (`\\n`)."""
    return _map(record)  # type: ignore[no-any-return]


def _map(value: Any) -> Any:
    """`value` itself when nothing in it needs escaping (the common case costs no copy), else a copy."""
    if isinstance(value, str):
        return value if value.isprintable() else printable(value).translate(_CONTROL)
    if isinstance(value, (list, tuple)):
        items = [_map(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: new for f in dataclasses.fields(value) if f.init
                   if (new := _map(old := getattr(value, f.name))) is not old}
        return dataclasses.replace(value, **changed) if changed else value
    return value
