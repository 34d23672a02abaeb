"""A module map that asks for paths as a lookup needs them (`PathProbe`), never reading the whole tree."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Protocol, TypeVar

from graphguard.languages.python.modules import _INIT, Layout, ModuleMap, is_python, names_of


class PathProbe(Protocol):
    """A stored set of Python paths, asked by index lookups (graph.StoredPaths)."""

    def existing(self, paths: Collection[str]) -> set[str]:
        """Those of `paths` that are in the set."""

    def under(self, folders: Collection[str], limit: int) -> list[str]:
        """Up to `limit` of the paths under any of `folders` (`folder/...`), in one lookup."""

    def all(self) -> list[str]:
        """Every path (a whole read: only for what asks for the whole map)."""


class ProbedModuleMap(ModuleMap):
    """The module map of a stored snapshot, with files added and removed, without reading every path.

    Each question costs a few index lookups, whatever the size of the repository: a name's
    files are the candidates `root/a/b.py`, `root/a/b.pyi`, `root/a/b/__init__.py(i)` under
    each import root (the layout, which the snapshot's folders determine), kept when the file
    exists and has that name; files with a dot in their path are indexed apart, as a name does
    not tell their path. Only iterating over the whole map (nothing on the check's path does)
    builds it in full. Answers are those of `ModuleMap.build` over the same paths.
    """

    def __init__(self, layout: Layout, probe: PathProbe, added: AbstractSet[str] = frozenset(), removed: AbstractSet[str] = frozenset()):
        self.layout, self.probe = layout, probe
        self.added, self.removed = frozenset(added), frozenset(removed)
        self._root_set = frozenset(layout.roots)
        self._full: ModuleMap | None = None
        dotted = [p for p in layout.dotted if p not in self.removed]
        self._dotted_names = {p: names_of(p, self._root_set) for p in sorted(dotted)}
        super().__init__(
            paths=_OnDemandSet(self._exists, lambda: self.full().paths),
            roots=layout.roots,
            by_name=_OnDemandMap(self._files_named, lambda: self.full().by_name),
            primary=_OnDemandMap(self._primary, lambda: self.full().primary),
            top_names=_OnDemandSet(self._is_top, lambda: self.full().top_names),
            prefixes=_OnDemandSet(self._is_prefix, lambda: self.full().prefixes),
            test_data=layout.test_data,
        )

    def with_changes(self, added: AbstractSet[str], removed: AbstractSet[str]) -> ProbedModuleMap:
        """The map of the same snapshot with other files added and removed."""
        present = self._existing(added | removed)
        really_added, really_removed = frozenset(added) - present, frozenset(removed) & present
        layout = self.layout.changed(really_added, really_removed)
        return ProbedModuleMap(layout, self.probe, (self.added | really_added) - really_removed, (self.removed | really_removed) - really_added)

    def full(self) -> ModuleMap:
        if self._full is None:
            self._full = ModuleMap.build([*(p for p in self.probe.all() if p not in self.removed), *self.added], self.layout.test_data)
        return self._full

    def _exists(self, path: str) -> bool:
        return path in self.added or path not in self.removed and bool(self.probe.existing([path]))

    def _existing(self, paths: Collection[str]) -> set[str]:
        found = {p for p in paths if p in self.added}
        found |= {p for p in self.probe.existing([p for p in paths if p not in found]) if p not in self.removed}
        return found

    def _holding(self, folders: list[str], *, besides_own_init: bool) -> bool:
        """Does any of `folders` hold a path (under it; with `besides_own_init`, other than its own __init__)?"""
        def witness(p: str) -> bool:
            return any(p.startswith(f + "/") and not (besides_own_init and p.rpartition("/")[0] == f and p.rpartition("/")[2] in _INIT)
                       for f in folders)

        if any(witness(p) for p in self.added):
            return True
        # Enough rows to get past those left out: the removed paths, and the folders' own __init__ files.
        limit = len(self.removed) + 2 * len(folders) + 1
        return any(p not in self.removed and witness(p) for p in self.probe.under(folders, limit))

    def _primary(self, path: str) -> str | None:
        return names_of(path, self._root_set)[0] if is_python(path) and self._exists(path) else None

    def _files_named(self, name: str) -> list[str] | None:
        found = {p for p, names in self._dotted_names.items() if name in names}
        if _plain(name):  # a file without a dot in its path has a name of non-empty parts, each a folder or its stem
            rel = name.replace(".", "/")
            candidates: set[str] = set()
            for root in self.layout.roots:
                base = f"{root}/{rel}" if root else rel
                candidates.update((base + ".py", base + ".pyi", base + "/__init__.py", base + "/__init__.pyi"))
            found.update(p for p in self._existing(candidates) if p not in self._dotted_names and name in names_of(p, self._root_set))
        return sorted(found) or None

    def _is_prefix(self, name: str) -> bool:
        """A name that another extends: a folder `root/a/b/` holding a file besides its own __init__."""
        if any(n.startswith(name + ".") for names in self._dotted_names.values() for n in names):
            return True
        if not _plain(name):
            return False
        rel = name.replace(".", "/")
        return self._holding([f"{root}/{rel}" if root else rel for root in self.layout.roots], besides_own_init=True)

    def _is_top(self, top: str) -> bool:
        if any(n.split(".", 1)[0] == top for names in self._dotted_names.values() for n in names):
            return True
        if not _plain(top):
            return False
        bases = [f"{root}/{top}" if root else top for root in self.layout.roots]
        return bool(self._existing([b + suffix for b in bases for suffix in (".py", ".pyi")])) or self._holding(bases, besides_own_init=False)


def _plain(name: str) -> bool:
    return all(name.split("."))


_V = TypeVar("_V")


class _OnDemandMap(Mapping[str, _V]):
    """A mapping whose values are computed when asked (None: absent), and whose whole is built only to iterate over it."""

    def __init__(self, compute: Callable[[str], _V | None], whole: Callable[[], Mapping[str, _V]]):
        self._compute, self._whole = compute, whole
        self._known: dict[str, _V | None] = {}

    def _get(self, key: str) -> _V | None:
        if key not in self._known:
            self._known[key] = self._compute(key)
        return self._known[key]

    def __getitem__(self, key: str) -> _V:
        value = self._get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._get(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


class _OnDemandSet(AbstractSet[str]):
    """A set whose membership is computed when asked, and whose whole is built only to iterate over it."""

    def __init__(self, test: Callable[[str], bool], whole: Callable[[], AbstractSet[str]]):
        self._test, self._whole = test, whole
        self._known: dict[str, bool] = {}

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        if key not in self._known:
            self._known[key] = self._test(key)
        return self._known[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())
