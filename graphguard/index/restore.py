"""Snapshots of the graph at recent commits: save the one being left on a big move, start from the nearest."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from graphguard import git
from graphguard.errors import GraphguardError
from graphguard.index.plan import Planning
from graphguard.model import IndexResult
from graphguard.store.rows import warnings_by_path

if TYPE_CHECKING:
    from graphguard.index.progress import Phases

#: A move of HEAD that changes at least this many indexed files saves the graph being left as a snapshot first.
SNAPSHOT_FROM = 100


class Restore(Planning):
    """The snapshot half of `Indexer` (a mixin over `Planning`)."""

    if TYPE_CHECKING:
        phases: Phases

    def _from_snapshot(self, head: str, changes: list[git.RawChange] | None) -> bool:
        """On a big move (a checkout of another branch or release), save the graph being left, then start from
        the saved snapshot nearest to `head` if it is nearer than the graph: True when that is `head` itself.
        A small move (a commit) neither saves nor looks."""
        stored = self.store.meta("head")
        if not stored or self.store.meta("config") != self.config.digest():
            return False
        distance = None if changes is None else sum(1 for c in changes if self._indexed(c.path))
        if distance is not None and distance < SNAPSHOT_FROM:
            return False
        with self.phases("snapshots", "saving and looking for snapshots of the graph"):
            if distance is not None and stored not in self.store.snapshots():
                self.store.save_snapshot(stored)
            else:
                self.store.prune_snapshots()  # the age bound holds when nothing new is saved too
            # Where the graph's own distance is unknown (its commit is gone), only a near snapshot is a better start.
            best, best_distance = None, distance if distance is not None else SNAPSHOT_FROM
            for other in self.store.snapshots():
                meta = self.store.snapshot_meta(other, ("head", "config"))
                if meta is None or meta.get("head") != other or meta.get("config") != self.config.digest():
                    continue
                d = 0 if other == head else self._distance(other, head)
                if d is not None and d < best_distance:
                    best, best_distance = other, d
            if best is None or not self.store.restore_snapshot(best):
                return False
        return best == head

    def _distance(self, a: str, b: str) -> int | None:
        """How many indexed files differ between two commits; None when git does not know one of them."""
        try:
            changes = git.diff(self.root, a, b)
        except GraphguardError:
            return None
        return sum(1 for c in changes if self._indexed(c.path))

    def _restored(self, head: str) -> IndexResult:
        """What an index of `head` reports, read from the restored graph: its files and their warnings."""
        warnings = [tuple(w) for w in json.loads(self.store.meta("snapshot_warnings") or "[]")]
        files = 0
        for path, raw in warnings_by_path(self.store.graph):
            files += 1
            warnings.extend((path, w) for w in (json.loads(raw) if raw else ()))
        return IndexResult(head, files=files, warnings=[(str(p), str(w)) for p, w in warnings])

