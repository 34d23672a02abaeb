"""A source file's bytes as text. Pure.

The encoding a file declares (PEP 263: `# -*- coding: latin-1 -*-` on one of its
first two lines) is data from the repository, not an instruction: a codec that does
not exist, that is not a text encoding (`rot13`, `hex`, `zlib_codec` ...) or that
fails on the bytes gives a warning, and the file is read as UTF-8 with undecodable
bytes replaced. Nothing here raises on any input.
"""

from __future__ import annotations

import codecs
import re

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
#: As in `tokenize.detect_encoding`: a declaration on the second line counts after a blank or comment line only.
_BLANK_OR_COMMENT = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)")
_BOM = b"\xef\xbb\xbf"
_UTF8 = {"utf-8", "utf8", "utf-8-sig"}  # as normalised by _is_utf8


def declared(source: bytes) -> str | None:
    """The encoding named by a coding declaration, as written; None without one."""
    lines = source.split(b"\n", 2)[:2]
    for i, line in enumerate(lines):
        m = _CODING.match(line)
        if m:
            return m.group(1).decode("ascii")
        if i == 0 and not _BLANK_OR_COMMENT.match(line):
            break
    return None


def to_text(source: bytes) -> tuple[str, str | None]:
    """The file's text and a warning when it could not be read as it declares."""
    source = source.removeprefix(_BOM)
    name = declared(source)
    if name is None or _is_utf8(name):
        return _utf8(source, "not valid UTF-8")
    try:
        is_text = codecs.lookup(name)._is_text_encoding
    except LookupError:
        return _utf8(source, f"unknown encoding '{name}' declared; read as UTF-8", always=True)
    if not is_text:
        return _utf8(source, f"'{name}' is not a text encoding; read as UTF-8", always=True)
    try:
        return source.decode(name), None
    except (UnicodeError, ValueError, LookupError):  # 'undefined' raises a bare UnicodeError
        return _utf8(source, f"not valid '{name}' as declared; read as UTF-8", always=True)


def to_utf8(source: bytes) -> tuple[bytes, str | None]:
    """The file as UTF-8 bytes (what tree-sitter reads) and a warning, as `to_text`."""
    try:  # the common case: UTF-8 with no other declaration, kept as it is
        source.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        name = declared(source)
        if not source.startswith(_BOM) and (name is None or _is_utf8(name)):
            return source, None
    text, warning = to_text(source)
    return text.encode("utf-8", "replace"), warning


def _is_utf8(name: str) -> bool:
    """Whether a declared encoding is UTF-8, in any of its spellings."""
    return name.lower().replace("_", "-") in _UTF8


def _utf8(source: bytes, problem: str, *, always: bool = False) -> tuple[str, str | None]:
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return source.decode("utf-8", "replace"), f"{problem}; undecodable bytes replaced"
    return text, problem if always else None
