"""Stage 2's assembly: the Overlay of a check over the repository's stored graph.

Everything here is where the overlay's fields come from: the stored graph (read path by path when it
describes the old side, the hook's case), the old commit's tree otherwise, the indexer's facts by blob,
the new versions' facts (check.newfacts). The Overlay itself (check.overlay) takes only those fields.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from graphguard import git
from graphguard.check.newfacts import comment_edits, parse_new
from graphguard.check.overlay import Overlay, lay_over
from graphguard.check.sides import Sides
from graphguard.config import Config
from graphguard.languages.python.modules import Layout, ModuleMap
from graphguard.languages.python.probed import ProbedModuleMap
from graphguard.repo import Repo
from graphguard.store.paths import StoredPaths
from graphguard.store.reads import CodeGraph
from graphguard.store.schema import MetaKey, head

if TYPE_CHECKING:
    from graphguard.index.update import Indexer
    from graphguard.languages.python.resolver import InfoCache


class OldSides:
    """The old commits' sides built so far, for comparisons that share one (conflicts: the merged tree, HEAD and the
    branch, each from the merge base): its tree's entries, module map, the indexer whose facts by blob it decoded,
    and the files' ModuleInfo. All of them are functions of the commit (and the folders of test data) alone."""

    def __init__(self) -> None:
        self.built: dict[tuple[str, tuple[str, ...]], tuple[Indexer, dict[str, str], ModuleMap, InfoCache]] = {}


def build(repo: Repo, sides: Sides, config: Config, *, cache_facts: bool = True, old_sides: OldSides | None = None) -> Overlay:
    """`config`: the folders of test data it names decide the module names. `cache_facts`: keep the new versions' facts in the blob cache (a shadow check of proposed
    contents writes nothing, and most proposals are never committed). `old_sides`: where an old commit's side
    built by an earlier comparison is kept (else it is built for this one)."""
    from graphguard.index.update import Indexer

    store = repo.store
    key = (sides.old.rev, tuple(config.test_data))
    reused = old_sides.built.get(key) if old_sides is not None else None
    indexer = reused[0] if reused is not None else Indexer(repo.paths, store)
    infos: InfoCache | None = None  # the old commit's ModuleInfo, kept with its side
    commented = comment_edits(store, sides)
    new_facts = parse_new(store, sides, cache_facts, commented, repo.caches.parsed)
    # The snapshots around the changed files: the stored graph when it describes the old commit
    # (the hook), asked path by path; else the old commit's tree.
    stored_head = head(store)
    old_entries: Mapping[str, str]
    if stored_head == sides.old.rev:
        stored = StoredPaths(store.graph)
        old_entries = _StoredEntries(stored)
        # The folders' layout decides the module names: kept by the indexer, or derived from every path (one read of the index of paths).
        kept = Layout.from_json(store.meta(MetaKey.MODULE_LAYOUT.value)) if store.meta(MetaKey.MODULE_LAYOUT_HEAD.value) == stored_head else None
        if kept is not None and kept.test_data != config.test_data:  # kept under another setting
            kept = None
        layout = kept or Layout.of(stored.all(), config.test_data)
        old_map: ModuleMap = ProbedModuleMap(layout, stored)
    elif reused is not None:
        _, old_entries, old_map, infos = reused
    else:
        from graphguard.languages.python.resolver import InfoCache

        entries, _ = indexer.snapshot(sides.old.rev)
        indexer.ensure_facts(entries)
        old_entries = {e.path: e.blob for e in entries}
        old_map = ModuleMap.build(old_entries, config.test_data)
        infos = InfoCache()
        if old_sides is not None:
            old_sides.built[key] = (indexer, dict(old_entries), old_map, infos)
    over = lay_over(sides, CodeGraph(store.graph), indexer.facts, stored_head, new_facts, old_entries, old_map,
                    read_blobs=functools.partial(git.read_blobs, repo.root), commented=frozenset(commented))
    over.shared_infos = infos
    return over


class _StoredEntries(Mapping[str, str]):
    """path -> blob of the stored snapshot, read path by path (iterating reads them all)."""

    def __init__(self, stored: StoredPaths):
        self.stored = stored

    def __getitem__(self, path: str) -> str:
        blob = self.stored.blob(path)
        if blob is None:
            raise KeyError(path)
        return blob

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.stored.blob(path) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.stored.all())

    def __len__(self) -> int:
        return len(self.stored.all())
