"""The calls a change writes: those of a file's new version that its old version did not make.

Asked through Overlay.written. Not in impact: the body-only path (check/calls) asks it, and must not
import libcst (impact -> binding -> signature).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from graphguard.model import CallSite, FileFacts


def written_calls(old: FileFacts | None, new: FileFacts, old_data: bytes | None = None,
                  new_data: bytes | None = None) -> frozenset[tuple[int, int]]:
    """(line, col) of the calls of a file's new version that its old version did not make.

    A call counts as the same when its scope, callee, argument shape and text (whitespace
    aside, when both sources are at hand) are: moving it (lines added above) keeps it; adding
    it, or changing its arguments, writes it, even when their count stays (ansible 7693c892fa:
    a parameter inserted and the call's arguments rewritten to match is a call written anew,
    not an old call whose arguments now land elsewhere).
    """
    def keys(facts: FileFacts, data: bytes | None) -> list[tuple[object, ...]]:
        texts = call_texts(data, facts.calls) if old_data is not None and new_data is not None and data is not None else None
        return [(c.scope, c.callee, c.n_positional, c.keywords, c.has_star, c.has_starstar, texts[i] if texts else b"")
                for i, c in enumerate(facts.calls)]

    before = Counter(keys(old, old_data)) if old is not None else Counter()
    out = set()
    for c, k in zip(new.calls, keys(new, new_data), strict=True):
        if before[k]:
            before[k] -= 1
        else:
            out.add((c.line, c.col))
    return frozenset(out)


#: The most bytes of a call's text compared (nested calls repeat their inner calls' text: bounded, not quadratic).
CALL_TEXT_BYTES = 512


def call_texts(data: bytes, calls: Sequence[CallSite]) -> list[bytes]:
    """Each call's source text, whitespace collapsed, at most CALL_TEXT_BYTES of it (lines 1-based, columns 0-based)."""
    lines = data.split(b"\n")
    out = []
    for c in calls:
        first, last = c.line - 1, c.end_line - 1
        if not 0 <= first <= last < len(lines):
            out.append(b"")
            continue
        if first == last:
            text = lines[first][c.col:c.end_col]
        else:
            parts = [lines[first][c.col:]]
            size = len(parts[0])
            for i in range(first + 1, last):
                if size > CALL_TEXT_BYTES:
                    break
                parts.append(lines[i])
                size += len(lines[i])
            parts.append(lines[last][:c.end_col])
            text = b" ".join(parts)
        out.append(b" ".join(text[:CALL_TEXT_BYTES * 2].split())[:CALL_TEXT_BYTES])
    return out
