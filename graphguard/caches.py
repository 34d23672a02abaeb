"""What a long-lived process keeps between answers, owned by the open repository (`Repo.caches`).

The MCP server answers again and again from one Repo, so what it learned (docstrings of blobs, the working
tree's scan, blobs' bytes, proposed files' facts) is worth keeping; the CLI opens a new Repo per run and so
keeps nothing from one run to the next. The containers only: what goes in is decided (and typed) where it
is used, since this module sits below every layer that knows those types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: Roots whose working-tree scan and paths in conflict are kept (a server answers for one; tests open many).
MAX_ROOTS = 8
#: Blobs' bytes kept, in all (a blob never changes: only the bound makes one go).
MAX_BLOB_BYTES = 32 * 1024 * 1024
#: Parsed blobs' docstrings and decorators, for outlines (content-addressed: never stale).
MAX_EXTRAS = 4096
#: Facts of proposed files' blobs (a shadow check writes nothing to the blob cache).
MAX_PARSED = 256


class LRU(Generic[K, V]):
    """A mapping that forgets the least recently used entries beyond `most`: entries, or, with `weigh`, the sum of
    their weights (bytes). An entry heavier than the bound alone is not kept."""

    def __init__(self, most: int, weigh: Callable[[V], int] | None = None) -> None:
        self.most = most
        self._weigh = weigh
        self._weight = 0
        self._items: dict[K, V] = {}  # oldest first

    def get(self, key: K, default: V | None = None) -> V | None:
        if key not in self._items:
            return default
        value = self._items.pop(key)
        self._items[key] = value  # the newest last
        return value

    def __getitem__(self, key: K) -> V:
        if key not in self._items:
            raise KeyError(key)
        value = self._items.pop(key)
        self._items[key] = value
        return value

    def put(self, key: K, value: V) -> None:
        self.pop(key)
        self._items[key] = value
        self._weight += self._weight_of(value)
        while self._items and (self._weight if self._weigh else len(self._items)) > self.most:
            self._weight -= self._weight_of(self._items.pop(next(iter(self._items))))

    def pop(self, key: K) -> V | None:
        if key not in self._items:
            return None
        value = self._items.pop(key)
        self._weight -= self._weight_of(value)
        return value

    def values(self) -> list[V]:
        return list(self._items.values())

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def _weight_of(self, value: V) -> int:
        return self._weigh(value) if self._weigh else 0


@dataclass
class Caches:
    """One repository's caches. Values are typed where used: check.scan's kept scans, outline's docstrings
    (languages.python.docstrings.Extras), check.overlay's facts (model.FileFacts)."""

    extras: LRU[str, Any] = field(default_factory=lambda: LRU(MAX_EXTRAS))  # blob sha -> docstrings, decorators
    scans: LRU[str, Any] = field(default_factory=lambda: LRU(MAX_ROOTS))  # root -> kept scan (None: scanned once)
    unmerged: LRU[str, Any] = field(default_factory=lambda: LRU(MAX_ROOTS))  # root -> (index stat, paths in conflict)
    blobs: LRU[str, bytes] = field(default_factory=lambda: LRU(MAX_BLOB_BYTES, len))  # blob sha -> bytes
    parsed: LRU[str, Any] = field(default_factory=lambda: LRU(MAX_PARSED))  # blob sha -> facts of a proposed file
