"""The answers as typed records, and what every answer shares: the commit the graph describes.

Each record is what one question answers (the CLI's `--format json`, the MCP server's tool result) and
`to_json()` is its document: the schema first, then the fields in the order declared here (that order is
the JSON's key order). Entries inside (a caller, a test, a file of an outline) stay JSON objects: what the
compact form and the contract describe key by key. commands/printing.write_json prints every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from graphguard.repo import Repo

CALLERS_SCHEMA = "graphguard.callers/1"
IMPACT_SCHEMA = "graphguard.impact/1"
OUTLINE_SCHEMA = "graphguard.outline/1"
STATS_SCHEMA = "graphguard.stats/1"
INDEX_SCHEMA = "graphguard.index/1"
IMPORTS_SCHEMA = "graphguard.imports/1"

Entry = dict[str, Any]  # one JSON object of an answer's list


def graph_head(repo: Repo) -> str | None:
    """The commit the stored graph describes (None before the first commit)."""
    return repo.store.meta("head") or None


class _Answer:
    schema: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The document: `schema`, then each field in declaration order (tuples as lists)."""
        out: dict[str, Any] = {"schema": self.schema}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class CallersAnswer(_Answer):
    """graphguard.callers/1: every call site and reference of a symbol."""

    schema: ClassVar[str] = CALLERS_SCHEMA
    head: str | None
    symbol: str
    path: str
    line: int
    signature: str
    callers: tuple[Entry, ...]
    #: Uses left out of `callers` (the CLI lists them all; an MCP answer lists the first `limit`).
    callers_omitted: int = 0
    # When no call or reference resolved to the symbol: what still might reach it (answers/reach); None otherwise.
    no_resolved_callers: Entry | None = None


@dataclass(frozen=True)
class ImpactAnswer(_Answer):
    """graphguard.impact/1: the callers of a symbol to some depth, and the tests that reach it."""

    schema: ClassVar[str] = IMPACT_SCHEMA
    head: str | None
    symbol: str
    path: str
    line: int
    signature: str
    depth: int
    callers: tuple[Entry, ...]
    callers_omitted: int
    tests: tuple[Entry, ...]
    tests_omitted: int
    notes: tuple[str, ...]
    no_resolved_callers: Entry | None = None  # as CallersAnswer's, of the distance-1 uses


@dataclass(frozen=True)
class OutlineAnswer(_Answer):
    """graphguard.outline/1: per file its definitions, no bodies."""

    schema: ClassVar[str] = OUTLINE_SCHEMA
    head: str | None
    files: tuple[Entry, ...]
    files_omitted: int
    definitions_omitted: int
    notes: tuple[str, ...]
    warnings: tuple[Entry, ...]


@dataclass(frozen=True)
class StatsAnswer(_Answer):
    """graphguard.stats/1: what the graph holds (CodeGraph.stats, its keys in its order), and the rest."""

    schema: ClassVar[str] = STATS_SCHEMA
    head: str  # "" before the first commit
    graph: dict[str, Any]
    config_warnings: tuple[Entry, ...]
    retrieval_profile: dict[str, Any]
    languages: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "head": self.head, **self.graph, "config_warnings": list(self.config_warnings),
                "retrieval_profile": self.retrieval_profile, "languages": self.languages}


@dataclass(frozen=True)
class ImportsAnswer(_Answer):
    """graphguard.imports/1: per import statement (per imported name) where it led."""

    schema: ClassVar[str] = IMPORTS_SCHEMA
    head: str | None
    imports: tuple[Entry, ...]


@dataclass(frozen=True)
class IndexAnswer(_Answer):
    """graphguard.index/1: what bringing the graph to HEAD did."""

    schema: ClassVar[str] = INDEX_SCHEMA
    head: str | None
    files: int
    parsed: int
    resolved: int
    noop: bool
    elapsed_ms: int
    warnings: tuple[Entry, ...]
