"""Fit ranked symbols into a token budget, choosing how much of each to show. Pure.

Three disclosure levels: `full` source, `signature` (the header and the first
line of the docstring) and `reference` (`path:line  symbol`). A token is about
4 characters. Seeds are always full (a seed larger than what is left of the
budget is cut to fit, with a marker saying so). Every other symbol, in rank
order, gets the richest level that fits: full when it takes at most half of
what is left, else its signature, else a reference; the selection stops at the
first symbol for which not even a reference fits.

Very long lines (generated code, an embedded bundle) are clamped in-band,
so one line cannot eat the budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from graphguard.model import WireEnum

CHARS_PER_TOKEN = 4
#: Lines longer than this many characters are cut, with a marker of how much was left out.
MAX_LINE = 240
#: A non-seed symbol is shown in full only when it takes at most this share of the budget left.
FULL_SHARE = 0.5


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


def select(items: Iterable[Item], budget: int | None, limit: int | None = None) -> list[Choice]:
    """Greedy, in the given (rank) order: seeds full, then the richest level that fits; `budget` None is unlimited."""
    out: list[Choice] = []
    left = budget if budget is not None else None
    for item in items:
        if limit is not None and len(out) >= limit:
            break
        choice: Choice | None
        if item.is_seed:
            text, truncated = item.full, False
            if left is not None and count_tokens(text) > left:
                if left < count_tokens(item.reference) + 8:
                    continue  # no room for even a cut seed; a later seed may be smaller
                text, truncated = truncate(text, left, item.location), True
            choice = Choice(item.key, Disclosure.FULL, text, count_tokens(text), truncated)
        else:
            choice = _richest(item, left)
            if choice is None:
                break
        out.append(choice)
        if left is not None:
            left -= choice.tokens
    return out


def _richest(item: Item, left: int | None) -> Choice | None:
    levels: Sequence[tuple[Disclosure, str]] = (
        (Disclosure.FULL, item.full), (Disclosure.SIGNATURE, item.signature), (Disclosure.REFERENCE, item.reference),
    )
    for level, text in levels:
        if not text:
            continue
        n = count_tokens(text)
        if left is None or (n <= left * FULL_SHARE if level is Disclosure.FULL else n <= left):
            return Choice(item.key, level, text, n)
    return None
