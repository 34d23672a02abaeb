"""The records of a check, as the contract names them (../shared/contract.md)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Status(enum.Enum):
    BROKEN = "broken"
    OK = "ok"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class CallerImpact:
    path: str
    line: int
    end_line: int
    caller: str
    status: Status
    reason: str
    kind: str = "call"  # call | import | reference | inherit
    resolution: str = "exact"


@dataclass(frozen=True)
class TestHit:
    path: str
    line: int
    direct: bool


@dataclass(frozen=True)
class SymbolImpact:
    symbol: str
    path: str
    line: int
    change: str  # removed | renamed | signature | moved
    breaking: tuple[str, ...]
    before: str | None
    after: str | None
    callers: tuple[CallerImpact, ...] = ()
    tests: tuple[TestHit, ...] = ()
    ignored: tuple[str, ...] = ()  # codes accepted by an inline `# graphguard: ignore[...]`

    @property
    def broken(self) -> list[CallerImpact]:
        return [c for c in self.callers if c.status is Status.BROKEN]


@dataclass(frozen=True)
class FileWarning:
    path: str
    message: str


@dataclass
class CheckResult:
    base: str
    head: str  # a commit, "INDEX" or "WORKTREE"
    compared: str  # staged | worktree | commits | nothing
    changes: list[SymbolImpact] = field(default_factory=list)
    warnings: list[FileWarning] = field(default_factory=list)
    files_changed: int = 0
    elapsed_ms: int = 0
    blocking_kinds: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        for change in self.changes:
            if change.broken:
                return "block"
            if self.blocking_kinds and any(code.split(":", 1)[0] in self.blocking_kinds for code in change.breaking if code not in change.ignored):
                return "block"
        return "pass"
