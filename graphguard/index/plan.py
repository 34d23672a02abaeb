"""What an update has to do: the indexed files of a commit, the delta from the graph's commit, and whether
a rebuild is cheaper than the plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphguard import git
from graphguard.errors import GraphguardError
from graphguard.languages import for_path
from graphguard.languages.python.modules import importable_spelling

if TYPE_CHECKING:
    from graphguard.config import Config
    from graphguard.store import Store


#: Files a language's module resolution reads (TypeScript's tsconfig.json/jsconfig.json and their `extends`, package.json,
#: pnpm-workspace.yaml): a change to one re-resolves the files of that language.
_CONFIG_NAMES = ("package.json", "pnpm-workspace.yaml")


def is_config(path: str) -> bool:
    """Also a `.json` file under a name with `tsconfig` in it (`tsconfig.base.json`, `configs/tsconfig/node.json`):
    the files an `extends` names in practice."""
    name = path.rpartition("/")[2]
    return name in _CONFIG_NAMES or (name.endswith(".json") and ("tsconfig" in path or name.startswith("jsconfig")))


def facts_key(path: str, blob: str) -> str:
    """What a file's facts are cached under: its blob, and for a language whose facts depend on more than the
    bytes (TypeScript: the grammar its suffix picks) `<blob>:<language>/<kind>`. Python's are the bare blob."""
    lang = for_path(path)
    kind = lang.facts_kind(path) if lang is not None else ""
    return f"{blob}:{lang.name}/{kind}" if lang is not None and kind else blob


def blob_of_key(key: str) -> str:
    return key.partition(":")[0]


@dataclass(frozen=True)
class Entry:
    path: str
    blob: str



#: An update whose plan re-resolves more than this share of the stored files (and at least REBUILD_FROM of
#: them) rebuilds the graph instead: every file resolved from a module map in memory into emptied tables costs
#: less than that many resolved through the stored map with their rows replaced one by one. Measured on
#: ansible (1,554 files): 375 files re-resolved in 10.5 s, all 1,554 rebuilt in 7.2 s; even at 0.16.
REBUILD_SHARE = 0.15
#: Below this many files to re-resolve an update is quick whichever way it goes: it keeps its plan.
REBUILD_FROM = 100


def rebuild_is_cheaper(dirty: int, files: int) -> bool:
    """Would re-resolving `dirty` of `files` cost more than a rebuild? Measured by the plan's size."""
    return dirty >= REBUILD_FROM and dirty > REBUILD_SHARE * files


#: Above this many modified files, an update lists the whole tree (reading row by row would cost more).
DELTA_MAX = 2000


@dataclass(frozen=True)
class Plan:
    """What an update does to the graph: the files added, modified and removed since the graph's commit, those
    to re-resolve (`dirty`: the added and modified among them), and whether that is every file (`rebuild`: the
    tables are emptied and written whole)."""

    added: list[str]
    modified: list[str]
    removed: list[str]
    dirty: set[str]
    rebuild: bool = False

    @property
    def changed(self) -> set[str]:
        """The files that get a new row and symbols: on a rebuild, every file."""
        return self.dirty if self.rebuild else set(self.added) | set(self.modified)


class Planning:
    """The planning half of `Indexer` (a mixin: the root, config and store are the indexer's)."""

    if TYPE_CHECKING:
        root: str
        config: Config
        store: Store
        _stored_head: str | None

    # the snapshot

    def snapshot(self, rev: str) -> tuple[list[Entry], list[tuple[str, str]]]:
        entries: list[Entry] = []
        warnings: list[tuple[str, str]] = []
        for e in git.ls_tree(self.root, rev):
            lang = for_path(e.path)
            if lang is None or self.config.is_excluded(e.path):
                continue
            if not git.is_utf8_name(e.path):
                shown = e.path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                warnings.append((shown, "file name is not valid UTF-8; not indexed"))
                continue
            if not lang.by_path and not importable_spelling(e.path):
                warnings.append((e.path, (f"file name not in NFKC form ({e.path!a}): Python NFKC-normalises the names"
                                          " of an import, so no import statement finds this file")))
            if e.mode == git.MODE_SYMLINK:
                warnings.append((e.path, "symlink; not followed"))
            elif e.mode == git.MODE_SUBMODULE:
                continue
            else:
                entries.append(Entry(e.path, e.sha))
        return entries, warnings


    def _changes(self, head: str) -> list[git.RawChange] | None:
        """What differs between the graph's commit and `head`; None when there is no such diff to trust: no graph,
        another configuration, or a commit git no longer has (gc'd after a rebase, a shallow clone)."""
        stored = self._stored_head = self.store.meta("head")
        if not stored or self.store.meta("config") != self.config.digest():
            return None
        try:
            return git.diff_raw(self.root, stored, head)
        except GraphguardError:
            return None

    def _indexed(self, path: str) -> bool:
        return for_path(path) is not None and git.is_utf8_name(path) and not (self.config.exclude and self.config.is_excluded(path))

    def _delta(self, changes: list[git.RawChange] | None) -> dict[str, Entry] | None:
        """The indexed files `changes` modify, when that is all they do to indexed files (nothing added, removed,
        turned into a link; not too many): then the module map stays as stored, and the update reads only rows
        of the files concerned. None otherwise: the whole tree is listed and compared."""
        if changes is None:
            return None
        modified: dict[str, Entry] = {}
        for c in changes:
            lang = for_path(c.path)
            if lang is None and is_config(c.path):
                return None  # a tsconfig.json or package.json: the whole tree is listed, and its files re-resolved (dirty)
            if not (lang is not None and git.is_utf8_name(c.path)):
                if lang is not None:
                    return None
                continue
            if self.config.exclude and self.config.is_excluded(c.path):
                continue
            if c.status is not git.ChangeStatus.MODIFIED or c.old is None or c.new is None or not (c.old.mode.startswith("100") and c.new.mode.startswith("100")):
                return None
            modified[c.path] = Entry(c.path, c.new.sha)
        return modified if len(modified) <= DELTA_MAX else None

