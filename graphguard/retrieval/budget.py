"""Fit ranked files and their symbols into a token budget, choosing how much of each to show. Pure.

Three disclosure levels: `full` source, `signature` (the header and the first
line of the docstring) and `reference` (`path:line  symbol`). A token is
counted as 4 characters (`count_tokens`; the benchmark counts BM25's files the
same way). Seeds are always full (a seed larger than what is left of the
budget is cut to fit, with a marker saying so). Files come breadth first: every
listed file's best symbol by signature (by reference once the signatures took
half the budget), then the best symbols in rank order in full where each takes
at most half of what is left, then the files' next symbols (`select`).

Very long lines (generated code, an embedded bundle) are clamped in-band,
so one line cannot eat the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from graphguard.model import WireEnum

CHARS_PER_TOKEN = 4
#: Lines longer than this many characters are cut, with a marker of how much was left out.
MAX_LINE = 240
#: A non-seed symbol is shown in full only when it takes at most this share of the budget left.
FULL_SHARE = 0.5
#: The first pass shows the files' best symbols by signature until they take this share of the budget.
BREADTH_SHARE = 0.5


class Disclosure(WireEnum):
    FULL = "full"
    SIGNATURE = "signature"
    REFERENCE = "reference"


def count_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def clamp_lines(text: str, max_line: int = MAX_LINE) -> str:
    """Cut every line longer than `max_line` characters, saying how many were left out."""
    if len(text) <= max_line or all(len(line) <= max_line for line in text.split("\n")):
        return text
    out = []
    for line in text.split("\n"):
        if len(line) > max_line:
            line = f"{line[:max_line]} …[{len(line) - max_line} more characters]"
        out.append(line)
    return "\n".join(out)


def truncate(text: str, tokens: int, where: str) -> str:
    """The first lines of `text` that fit in `tokens`, and a marker naming where the rest is."""
    marker_room = count_tokens(f"…[cut to fit the budget; the rest at {where}]") + 1
    room = max(0, (tokens - marker_room) * CHARS_PER_TOKEN)
    kept: list[str] = []
    used = 0
    for line in text.split("\n"):
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join([*kept, f"…[cut to fit the budget; the rest at {where}]"])


class Item(NamedTuple):
    """One ranked symbol with its three renderings (texts already clamped)."""

    key: str  # unique: path and symbol
    location: str  # path:line
    full: str
    signature: str
    reference: str
    is_seed: bool = False


class Choice(NamedTuple):
    key: str
    disclosure: Disclosure
    text: str
    tokens: int
    truncated: bool = False


def select(files: Sequence[Sequence[Item]], budget: int | None, limit: int | None = None) -> list[list[Choice]]:
    """The choices of each file, in the given (rank) order; `files[i][0]` is a file's best symbol, the rest follow it.
    `budget` None is unlimited; `limit` None lists files until the breadth share of the budget is spent.

    Breadth first, then depth: an agent asking for 20 files should get 20, and its budget should show the best of
    them in full rather than one long file and nothing else. So (1) each file's best symbol in rank order, seeds full,
    the others by signature while the signatures take at most BREADTH_SHARE of the budget, by reference after that;
    (2) in rank order, a best symbol shown in full when it takes at most FULL_SHARE of what is left; (3) the files'
    next symbols, the richest level that fits (never a bare reference: the file is listed already)."""
    chosen: list[list[Choice]] = []
    left = budget
    breadth = None if budget is None else budget * BREADTH_SHARE
    for items in files:
        if (limit is not None and len(chosen) >= limit) or not items:
            break
        spent = 0 if budget is None or left is None else budget - left
        if limit is None and breadth is not None and spent >= breadth:
            break  # only the budget bounds the answer: the rest of it goes to the sources of the files listed
        choice = _first(items[0], left, signature=breadth is None or spent < breadth)
        if choice is None:
            if items[0].is_seed:
                continue  # no room for even a cut seed; a later seed may be smaller
            break
        chosen.append([choice])
        if left is not None:
            left -= choice.tokens
    for items, choices in zip(files, chosen):  # (2) the best symbols in full where they fit
        now, item = choices[0], items[0]
        if now.disclosure is Disclosure.FULL or not item.full:
            continue
        n = count_tokens(item.full)
        if left is None or n - now.tokens <= left * FULL_SHARE:
            choices[0] = Choice(item.key, Disclosure.FULL, item.full, n)
            if left is not None:
                left -= n - now.tokens
    for items, choices in zip(files, chosen):  # (3) the next symbols of each file
        for item in items[1:]:
            more = _richest(item, left, levels=(Disclosure.FULL, Disclosure.SIGNATURE))
            if more is not None:
                choices.append(more)
                if left is not None:
                    left -= more.tokens
    return chosen


def _first(item: Item, left: int | None, *, signature: bool) -> Choice | None:
    """A file's best symbol as the first pass lists it: a seed full (cut to what is left), the others by signature
    (when `signature`) or by reference."""
    if item.is_seed:
        text, truncated = item.full, False
        if left is not None and count_tokens(text) > left:
            if left < count_tokens(item.reference) + 8:
                return None
            text, truncated = truncate(text, left, item.location), True
        return Choice(item.key, Disclosure.FULL, text, count_tokens(text), truncated)
    levels = (Disclosure.SIGNATURE, Disclosure.REFERENCE) if signature else (Disclosure.REFERENCE,)
    return _richest(item, left, levels=levels, whole=True)


def _richest(item: Item, left: int | None, *, levels: Sequence[Disclosure] = tuple(Disclosure),
             whole: bool = False) -> Choice | None:
    """The richest of `levels` that fits: full only within FULL_SHARE of what is left (all of it with `whole`)."""
    texts = {Disclosure.FULL: item.full, Disclosure.SIGNATURE: item.signature, Disclosure.REFERENCE: item.reference}
    for level in levels:
        text = texts[level]
        if not text:
            continue
        n = count_tokens(text)
        share = 1.0 if whole or level is not Disclosure.FULL else FULL_SHARE
        if left is None or n <= left * share:
            return Choice(item.key, level, text, n)
    return None
