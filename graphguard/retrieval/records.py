"""The records of a retrieval: the request, and the result with its items."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.retrieval import budget as budgeting
from graphguard.retrieval.kinds import Via

DEFAULT_BUDGET = 8000
#: The distance of a candidate no walk reached (a text match is at 0, a co-changed file at 1).
UNREACHED = 1 << 30
DEFAULT_LIMIT = 20
#: Files an answer lists at most when only a budget bounds it (`--budget` without `--limit`).
MAX_FILES = 100


class Request(NamedTuple):
    text: str | None = None  # context: the task
    seeds: tuple[str, ...] = ()  # related: paths or dotted symbols
    limit: int | None = DEFAULT_LIMIT  # files; None: as many as the budget holds (at most MAX_FILES)
    budget: int | None = DEFAULT_BUDGET
    depth: int = 1
    profile: str = "auto"


class ContextSymbol(NamedTuple):
    """One more symbol of a result's file, after its best one (nested in the result)."""

    symbol: str
    line: int
    end_line: int
    disclosure: budgeting.Disclosure
    tokens: int
    text: str
    truncated: bool = False


class ContextItem(NamedTuple):
    """One file of the answer: its best symbol, and its next best ones in `symbols`."""

    path: str
    symbol: str
    line: int
    end_line: int
    score: float
    distance: int
    via: Via
    disclosure: budgeting.Disclosure
    tokens: int
    text: str
    signals: Mapping[str, float] = {}  # shared by every instance: never mutated
    truncated: bool = False
    symbols: tuple[ContextSymbol, ...] = ()


@dataclass
class ContextResult:
    command: str  # context | related
    query: str | list[str]
    profile: str
    head: str
    items: list[ContextItem] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    candidates: int = 0
    stale: int = 0  # returned paths the index had but HEAD does not: dropped
    budget: int | None = None
    elapsed_ms: int = 0

    @property
    def tokens(self) -> int:
        return sum(i.tokens + sum(s.tokens for s in i.symbols) for i in self.items)

