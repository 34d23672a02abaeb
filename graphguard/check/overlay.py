"""Stage 2: the repository on both sides of the change, without touching the stored graph.

The stored graph describes one commit; the changed files' new versions are laid over it
(an overlay): facts are loaded per file on demand, and resolvers answer for either side.
An Overlay is made of fields: a CodeGraph, a source of facts by blob, both sides' entries
and module maps. It reads no SQL but the graph's and holds no Indexer nor Store: check.assemble
builds one over the repository's store, a test over an in-memory graph (index.memory).
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphguard.check.sides import Sides
from graphguard.check.written import written_calls
from graphguard.languages import for_path
from graphguard.languages.python.modules import ModuleMap
from graphguard.model import FileFacts, UseKind
from graphguard.store.reads import CodeGraph

if TYPE_CHECKING:
    from graphguard.languages.python.resolver import InfoCache, Resolver
    from graphguard.languages.python.signature import Signature
    from graphguard.resolved import FileResolution, Site


def _no_blobs(shas: list[str]) -> Iterable[tuple[str, bytes]]:
    return ()


@dataclass
class Overlay:
    """Both versions of the repository: the stored graph's, and with the changed files in their new version."""

    sides: Sides
    graph: CodeGraph
    facts: Callable[[str], FileFacts | None]  # facts by blob: the indexer's (its blob cache), or an in-memory graph's
    stored_head: str | None  # the commit the stored graph describes
    new_facts: Mapping[str, FileFacts]  # tree-sitter facts of the changed files' new versions (newfacts.Facts)
    old_entries: Mapping[str, str]  # path -> blob, old side, every Python file
    new_entries: Mapping[str, str]
    old_map: ModuleMap
    new_map: ModuleMap
    # The contents of blobs, (sha, bytes) of each found (git.read_blobs over the work tree; an in-memory graph's).
    read_blobs: Callable[[list[str]], Iterable[tuple[str, bytes]]] = _no_blobs
    commented: frozenset[str] = frozenset()  # changed files whose edit is comment or blank lines only (newfacts.comment_edits)
    # Uses in the changed files only (conflicts: a site in a file neither branch changed fails as it does on one side).
    changed_sites_only: bool = False
    # The files whose sites are wanted, None: every file's (conflicts: a side alone is asked only about the files
    # where the merged tree fails; resolving the unchanged files elsewhere against the merge base was most of its time).
    sites_in: frozenset[str] | None = None
    shared_infos: InfoCache | None = None  # the old side's ModuleInfo, when comparisons share it (check.assemble.OldSides)
    _stored: dict[str, str] | None = None
    _resolved_new: dict[str, FileResolution] = field(default_factory=dict)
    _old_resolver: Resolver | None = None
    _new_signatures: dict[tuple[str, str], Signature | None] = field(default_factory=dict)  # (path, qualname in it) ->

    @functools.cached_property
    def new_resolver(self) -> Resolver:
        from graphguard.languages.python.resolver import Resolver

        return Resolver(self.new_map, self.new_facts_of, self.infos)

    @functools.cached_property
    def infos(self) -> InfoCache:
        """The files' ModuleInfo, shared by every resolver of this check (each file's facts are one object)."""
        from graphguard.languages.python.resolver import InfoCache

        return self.shared_infos if self.shared_infos is not None else InfoCache()

    @functools.cached_property
    def fresh_new(self) -> dict[str, FileResolution]:
        """The changed files' new versions, resolved against the new repository."""
        return {p: self.new_resolver.resolve_file(p) for p in self.sides.new.data if p in self.new_map.primary}

    @functools.cached_property
    def fresh_old(self) -> dict[str, FileResolution]:
        """The changed files' new versions, resolved against the old repository (each alone in it)."""
        from graphguard.languages.python.resolver import Resolver

        out = {}
        for p in self.sides.new.data:
            if p not in self.old_map.primary and p not in self.new_map.primary:
                continue
            if self._resolves_alike(p):
                out[p] = self.fresh_new[p]
                continue
            hybrid_map = self.old_map if p in self.old_map.primary else self.old_map.with_changes({p}, frozenset())
            out[p] = Resolver(hybrid_map, hybrid_loader(p, self.new_facts[p], self.old_facts), self.infos).resolve_file(p)
        return out

    @functools.cached_property
    def fresh_old_sites(self) -> SiteIndex:
        return SiteIndex(self.fresh_old)

    @functools.cached_property
    def fresh_new_sites(self) -> SiteIndex:
        return SiteIndex(self.fresh_new)

    def _resolves_alike(self, path: str) -> bool:
        """Whether `path`'s new version resolves the same against the old repository as against the new one:
        when it is the only file changed, no file came or went and it dropped no definition, the two
        repositories differ in nothing its resolution reads (one resolution of a 6,000-line file: ~0.14 s)."""
        new = self.new_facts.get(path)
        return (self.sides.paths == [path] and self.new_map is self.old_map and path in self.new_map.primary
                and new is not None and with_old_definitions(new, self.old_facts(path)) is new)

    @property
    def changed(self) -> set[str]:
        return set(self.sides.paths)

    @property
    def graph_is_old(self) -> bool:
        """The stored graph describes the old side (the hook's case): unchanged files' uses are stored."""
        return self.stored_head == self.sides.old.rev

    def stored_files(self) -> dict[str, str]:
        """path -> blob of the stored graph (read once, when the old side is another commit)."""
        if self._stored is None:
            self._stored = self.graph.blobs_by_path()
        return self._stored

    def old_facts(self, path: str) -> FileFacts | None:
        from graphguard.index.facts import parse_blob

        old = self.sides.old
        if path in old.data:
            return self.facts(old.blobs[path]) or FileFacts.from_json(parse_blob(old.data[path]))
        return self._cached(path, self.old_entries)

    def new_facts_of(self, path: str) -> FileFacts | None:
        return self.new_facts.get(path) or (None if path in self.sides.paths else self._cached(path, self.new_entries))

    def _cached(self, path: str, entries: Mapping[str, str]) -> FileFacts | None:
        sha = entries.get(path)
        return self.facts(sha) if sha else None

    def old_resolver(self) -> Resolver:
        """One for the whole check, as new_resolver: what it memoises (a module's attributes, a class's members)
        serves every file it resolves (a merge's 20 changed files' old versions each made their own)."""
        if self._old_resolver is None:
            from graphguard.languages.python.resolver import Resolver

            self._old_resolver = Resolver(self.old_map, self.old_facts, self.infos)
        return self._old_resolver

    @functools.cached_property
    def written(self) -> dict[str, frozenset[tuple[int, int]]]:
        """path -> (line, col) of the calls each changed file's new version makes and its old version (a renamed
        file's: the file it was renamed from) did not."""
        old, renamed = self.sides.old, self.sides.renamed
        return {p: frozenset() if p in self.commented  # comments write no call
                else written_calls(self.old_facts(o) if (o := renamed.get(p, p)) in old.data else None, self.new_facts[p],
                                   old.data.get(o), self.sides.new.data.get(p))
                for p in self.new_facts}

    def new_signature(self, path: str, qualname: str) -> Signature | None:
        """The signature of a definition (full qualname) in the new version; None when it cannot be read.

        Only that definition's source span is parsed (with the same-file bases of a class)."""
        from graphguard.languages.python import signature, spans

        module = self.new_map.primary.get(path)
        if module is None or not qualname.startswith(f"{module}."):
            return None
        local = qualname[len(module) + 1:]
        key = (path, local)
        if key not in self._new_signatures:
            data = self.sides.new.data.get(path)
            if data is None and path not in self.sides.paths and path in self.new_entries:
                data = next((d for _, d in self.read_blobs([self.new_entries[path]])), None)
            facts = self.new_facts_of(path)
            try:
                sigs = None if data is None or facts is None else spans.extract_spans(data, facts, {local})
            except signature.SignatureParseError:
                sigs = None
            self._new_signatures[key] = sigs.defs.get(local) if sigs is not None else None
        return self._new_signatures[key]

    def resolved_new(self, path: str) -> FileResolution:
        """An unchanged file re-read against the new version of the repository (once each)."""
        if path not in self._resolved_new:
            self._resolved_new[path] = self.new_resolver.resolve_file(path)
        return self._resolved_new[path]


class SiteIndex:
    """The sites of resolved files, found by what they may reach: each change asks for its own
    (a moved folder of 300 files moves 3,000 definitions: one walk over all sites for each was 12 s)."""

    def __init__(self, files: Mapping[str, FileResolution]):
        self.sites = [(p, s) for p, fr in files.items() for s in fr.sites]
        self._at: dict[str, list[int]] = defaultdict(list)
        for i, (_, s) in enumerate(self.sites):
            for target in {s.target, s.init_target} - {None}:
                self._at[target].append(i)  # type: ignore[index]
            if s.kind is UseKind.CALL and s.resolution.limited:
                self._at[_NAMED + s.name].append(i)

    def reaching(self, qualname: str) -> list[tuple[str, Site]]:
        """(path, site) of the sites whose target or constructor is `qualname`, or that are calls of its
        name whose resolution a limit stopped; in the files' and sites' order."""
        at = set(self._at.get(qualname, ())) | set(self._at.get(_NAMED + qualname.rsplit(".", 1)[-1], ()))
        return [self.sites[i] for i in sorted(at)]


_NAMED = "\0"  # a key of SiteIndex that is a name, not a qualname


def lay_over(sides: Sides, graph: CodeGraph, facts: Callable[[str], FileFacts | None], stored_head: str | None,
             new_facts: Mapping[str, FileFacts], old_entries: Mapping[str, str], old_map: ModuleMap, *,
             read_blobs: Callable[[list[str]], Iterable[tuple[str, bytes]]] = _no_blobs, commented: frozenset[str] = frozenset()) -> Overlay:
    """The Overlay of the changed files' new versions (`sides`, `new_facts`) over the old side (`old_entries`:
    path -> blob, `old_map`), whose uses `graph` holds when `stored_head` is the old side's commit."""
    new_entries = _Overlaid(old_entries, sides.new.blobs, frozenset(sides.paths))
    # Module names depend only on the set of paths: most changes add or remove no file.
    added = {p for p in sides.new.blobs if for_path(p) is not None and p not in old_entries}
    removed = {p for p in sides.paths if p not in sides.new.blobs and p in old_entries}
    new_map = old_map.with_changes(added, removed) if added or removed else old_map
    return Overlay(sides, graph, facts, stored_head, new_facts, old_entries, new_entries, old_map, new_map, read_blobs=read_blobs,
                   commented=commented)


class _Overlaid(Mapping[str, str]):
    """path -> blob of the new side: the old side's, with the changed paths in their new version (or gone)."""

    def __init__(self, base: Mapping[str, str], changed_blobs: Mapping[str, str], changed: frozenset[str]):
        self.base, self.changed_blobs, self.changed = base, changed_blobs, changed

    def __getitem__(self, path: str) -> str:
        if path in self.changed:
            return self.changed_blobs[path]
        return self.base[path]

    def __contains__(self, path: object) -> bool:
        return path in self.changed_blobs if path in self.changed else path in self.base

    def __iter__(self) -> Iterator[str]:
        yield from (p for p in self.base if p not in self.changed)
        yield from (p for p in self.changed_blobs if p in self.changed)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def hybrid_loader(path: str, new: FileFacts, old_loader: Callable[[str], FileFacts | None]) -> Callable[[str], FileFacts | None]:
    """The old repository, with `path` in its new version (and the definitions it dropped)."""
    def load(q: str) -> FileFacts | None:
        return with_old_definitions(new, old_loader(path)) if q == path else old_loader(q)
    return load


def with_old_definitions(new: FileFacts, old: FileFacts | None) -> FileFacts:
    """The new version of a file, with the definitions it dropped put back.

    Resolved against the old repository, a call in the new version to a function of
    the same file that was removed or renamed must still reach the old definition:
    that is how the call is found, and then reported as broken.
    """
    if old is None:
        return new
    kept = {d.qualname for d in new.definitions}
    dropped = tuple(d for d in old.definitions if d.qualname not in kept)
    return dataclasses.replace(new, definitions=new.definitions + dropped) if dropped else new
