"""How fresh an answer is: the commit the graph it was read from describes, and whether that graph was already
current, was brought current for this answer, or is stale (and why). Made where the graph is brought current
(repo.ensure_fresh), carried to the output unchanged; every JSON answer ends with it as `freshness`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from graphguard.model import WireEnum


class State(WireEnum):
    CURRENT = "current"      # the graph already described HEAD (or the commit asked for)
    REFRESHED = "refreshed"  # this answer brought it there (an update here, or a wait for the background refresher)
    STALE = "stale"          # answered from the graph of an earlier commit: `reason` says why


@dataclass(frozen=True)
class Freshness:
    head: str | None  # the commit the graph that answered describes (None before the first commit)
    state: State
    refresh_ms: int = 0  # what bringing it current cost this answer (0 when current)
    reason: str = ""     # what happened (refreshed) or why it is stale; "" when current

    def to_json(self) -> dict[str, Any]:
        return {"head": self.head, "state": self.state.value, "refresh_ms": self.refresh_ms, "reason": self.reason}

    def moved(self, now: str | None) -> Freshness:
        """The same answer, found stale afterwards: HEAD is at `now`, no longer at the graph's commit."""
        if now == self.head or self.state is State.STALE:
            return self
        was = (self.head or "no commit")[:12]
        return replace(self, state=State.STALE,
                       reason=f"HEAD moved to {(now or 'no commit')[:12]} while answering from the graph of {was}")


def current(head: str | None) -> Freshness:
    return Freshness(head, State.CURRENT)


def with_freshness(doc: dict[str, Any], fresh: Freshness | None) -> dict[str, Any]:
    """`doc` with `freshness` as its last key (a document answered without one is returned as it is)."""
    if fresh is None:
        return doc
    return {**doc, "freshness": fresh.to_json()}
