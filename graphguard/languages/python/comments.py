"""An edit of comment lines only: which lines changed, and whether they were all comments before and after."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from graphguard.languages.limits import MAX_BYTES
from graphguard.languages.python import encoding
from graphguard.languages.python.parse import _comment_lines

# --- an edit of comment lines only ---------------------------------------------------------


class CommentEdit(NamedTuple):
    """Lines `first`..`last` of the old version (1-based; none when last < first: an insertion before
    `first`), each a comment or blank, were replaced by such lines, `delta` more of them; every other
    line is as it was."""

    first: int
    last: int
    delta: int


def comment_edit(old: bytes, new: bytes) -> CommentEdit | None:
    """How `new` differs from `old`, when only in whole lines that are comments or blank on both sides
    (strings skipped, as parse_tree blanks them): then both parse alike, line for line. None otherwise,
    or when the bytes around could make such lines mean more (a coding declaration, a backslash, a triple
    quote that would close a string the scanner missed)."""
    if old == new or len(new) > MAX_BYTES or encoding.declared(old) != encoding.declared(new):
        return None
    start, old_end, new_end = _changed_lines(old, new)
    was, now = old[start:old_end], new[start:new_end]
    if not _comment_or_blank(was) or not _comment_or_blank(now):
        return None
    if any(b"\\" in side or b'"""' in side or b"'''" in side for side in (was, now)) or old[:start].endswith((b"\\\n", b"\\\r\n")) or (not now.isascii() and not _utf8_as_declared(new, now)):
        return None
    if not (_really_comments(old, start, old_end) and _really_comments(new, start, new_end)):
        return None
    first = old.count(b"\n", 0, start) + 1
    return CommentEdit(first, first + was.count(b"\n") - 1, now.count(b"\n") - was.count(b"\n"))


def _changed_lines(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old end, new end): the smallest run of whole lines outside which both are alike."""
    short = min(len(old), len(new))
    same = _longest(lambda k: old[:k] == new[:k], short)
    start = old.rfind(b"\n", 0, same) + 1
    tail = _longest(lambda k: old[len(old) - k:] == new[len(new) - k:], short - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    if old_end > start and old[old_end - 1] != 0x0A or new_end > start and new[new_end - 1] != 0x0A:
        line_end = old.find(b"\n", old_end)  # the rest of the line, alike on both sides
        step = len(old) - old_end if line_end < 0 else line_end + 1 - old_end
        old_end, new_end = old_end + step, new_end + step
    return start, old_end, new_end


def _longest(alike: Any, most: int) -> int:
    """The largest k <= most with alike(k) (alike holds for 0 and is monotone): a bisection of C compares."""
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if alike(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _comment_or_blank(lines: bytes) -> bool:
    """Whole lines (each ends with a line break), each a comment or blank."""
    if lines and not lines.endswith(b"\n") or b"\0" in lines or lines.count(b"\r") != lines.count(b"\r\n"):
        return False
    return all(not (s := line.strip(b" \t\f\r")) or s.startswith(b"#") for line in lines.split(b"\n")[:-1])


def _really_comments(source: bytes, start: int, end: int) -> bool:
    """Every non-blank line of source[start:end] is a comment that parse_tree blanks (not text in a string)."""
    wanted = {start + i for i, line in _line_starts(source[start:end]) if line.strip(b" \t\f\r")}
    if not wanted:
        return True
    return wanted <= {s for s, _ in _comment_lines(source)}


def _line_starts(lines: bytes) -> Iterable[tuple[int, bytes]]:
    at = 0
    for line in lines.split(b"\n")[:-1]:
        yield at, line
        at += len(line) + 1


def _utf8_as_declared(source: bytes, part: bytes) -> bool:
    """Non-ASCII bytes of `part` read as the file reads them: UTF-8, declared so or by default."""
    name = encoding.declared(source)
    if name is not None and name.lower().replace("_", "-") not in ("utf-8", "utf8", "utf-8-sig"):
        return False
    try:
        part.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
