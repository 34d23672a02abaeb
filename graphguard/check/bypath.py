"""The check of the files of a language whose symbols are named by path (TypeScript/JavaScript: `src/cart.ts#Cart.total`),
through the `Language` interface alone.

    signatures of both versions (Language.signatures) -> changes (Language.diff)
    -> removals another changed file gained unchanged are moves (Language.moves)
    -> each change's uses: the stored graph's (it describes the old side), but for files the change touches
       their new version resolved against the new tree (Language.resolver over the new facts); the unchanged
       users of a definition now gone are resolved again (a re-export left behind still leads them to it)
    -> each use judged (check/pathjudge): a call bound to the new signature (Language.bind), a use of a
       definition that is gone broken
    -> the calls the change writes to definitions it did not change, bound the same way (check/pathcalls)
    -> the sites each file says not to blame (Language.notes: `// @ts-expect-error`), as Python's (check/suppress)
    -> SymbolImpact records in the report's shape (the Python pipeline's, beside it)

A file whose new version does not parse keeps what parses: its warning is said, and a definition missing
from it is not taken for removed (the check never blames what a parse error hid).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any

from graphguard import git
from graphguard.check.revisions import Commits, Staged, Target
from graphguard.check.sides import Sides
from graphguard.index.plan import facts_key, is_config
from graphguard.languages import Language, Tree, for_path
from graphguard.model import FileFacts
from graphguard.resolved import FileResolution
from graphguard.result import ChangeKind, FileWarning, SymbolImpact
from graphguard.store.reads import CodeGraph

if TYPE_CHECKING:
    from graphguard.check import pathcalls

# pathjudge, pathcalls, pathconfig and suppress are imported by `assess`: every check asks `split`, most change no
# TypeScript or JavaScript file.


def by_path(path: str) -> bool:
    lang = for_path(path)
    return lang is not None and lang.by_path


def assess(root: str, graph: CodeGraph, load_raw: Callable[[str], str | None], sides: Sides,
           target: Target) -> tuple[list[SymbolImpact], list[FileWarning]]:
    """The changes of the by-path files of `sides` and what they do to each use (`load_raw`: the blob cache's facts)."""
    from graphguard.check import pathcalls, pathconfig, pathjudge, suppress

    files = _written(sides)
    warnings = [FileWarning(path, w) for path, f in files.items() for w in f.facts.warnings]
    found = _changes(sides, files)
    changed = set(sides.paths)
    # The unchanged files that used a definition now gone are resolved again: a re-export left behind, or the
    # name imported from elsewhere, may lead them to it still.
    gone = {f"{path}#{c.qualname}" for path, _, c in found if c.change in pathjudge.GONE}
    importers = {u.path for symbol in sorted(gone) for u in graph.uses_of(symbol)} - changed
    configs = [p for p in sides.paths if for_path(p) is None]  # revisions.Changes.configs
    if configs:  # every import of every unchanged file may lead elsewhere now
        importers |= {p for p in graph.parsed_blobs() if by_path(p)} - changed
    reader = _Reader(root, sides.new.rev, target)
    read = _new_side(sides, reader)
    fresh = _fresh(root, graph, load_raw, sides, target, read, {p: f.facts for p, f in files.items()}, importers, reader)
    sigs = pathjudge.NewSigs(sides.new.data, read)
    impacts = [pathjudge.impact(lang, path, c, graph, fresh, changed, sigs) for path, lang, c in found]
    symbols = {f"{path}#{q}" for path, _, c in found for q in (c.qualname, c.new_qualname) if q is not None}
    symbols |= {f"{c.new_module}#{c.new_qualname}" for _, _, c in found if c.change is ChangeKind.MOVED}
    impacts += pathcalls.find(files, fresh, symbols, sigs)
    if configs:
        unchanged = {p: r for p, r in fresh.items() if p not in changed}
        impacts += pathconfig.assess(configs, graph.import_rows(set(unchanged)), unchanged)
    # What each file says not to blame (`// @ts-expect-error` on the line before), read from its new version.
    impacts, ignored = suppress.marked(impacts, lambda paths: suppress.notes_by(read, reader.prefetched(paths, changed)))
    return impacts, warnings + ignored


def _new_side(sides: Sides, read: Callable[[str], bytes | None]) -> Callable[[str], bytes | None]:
    """The new side's bytes: a changed file's (a proposed tsconfig.json among them) from `sides`, the rest by `read`."""
    changed = set(sides.paths)
    return lambda path: sides.new.data.get(path) if path in changed else read(path)


def _written(sides: Sides) -> dict[str, pathcalls.Written]:
    """The changed files that have a new version: both versions' bytes and the new one's facts."""
    from graphguard.check.pathcalls import Written

    out = {}
    for path in sides.paths:
        lang = for_path(path)
        data = sides.new.data.get(path)
        if lang is not None and data is not None:
            kind = lang.facts_kind(path)
            out[path] = Written(lang, kind, sides.old.data.get(path), data, lang.parse(data, kind))
    return out


def _changes(sides: Sides, files: dict[str, pathcalls.Written]) -> list[tuple[str, Language, Any]]:
    """(path, language, SymbolChange) of each changed file's interface: its two versions' signatures diffed, then
    the removals that another changed file gained unchanged made moves (Language.moves)."""
    per_lang: dict[str, tuple[Language, list[tuple[str, Any]], list[tuple[str, Any]]]] = {}
    for path in sides.paths:
        lang = for_path(path)
        if lang is None:
            continue
        kind = lang.facts_kind(path)
        before = lang.signatures(sides.old.data.get(path) or b"", kind=kind)
        after = lang.signatures(sides.new.data.get(path) or b"", kind=kind)
        changes = lang.diff(before, after)
        if path in files and files[path].facts.warnings:
            changes = [c for c in changes if c.change is not ChangeKind.REMOVED]  # hidden by a parse error, perhaps: not blamed
        targets = {c.new_qualname for c in changes}
        _, removed, added = per_lang.setdefault(lang.name, (lang, [], []))
        removed += [(path, c) for c in changes]
        added += [(path, sig) for q, sig in after.defs.items() if q not in before.defs and q not in targets]
    return [(path, lang, c) for lang, removed, added in per_lang.values() for path, c in lang.moves(removed, added)]


def _fresh(root: str, graph: CodeGraph, load_raw: Callable[[str], str | None], sides: Sides, target: Target,
           read: Callable[[str], bytes | None], new_facts: dict[str, FileFacts], importers: set[str],
           reader: _Reader) -> dict[str, FileResolution]:
    """The changed files (and `importers`) of each by-path language in their new version, resolved against the new tree."""
    stored = graph.parsed_blobs()
    gone = {p for p in sides.paths if p not in sides.new.data}
    out: dict[str, FileResolution] = {}
    langs: dict[str, tuple[Language, list[str]]] = {}
    for path in sorted(set(new_facts) | importers):
        lang = for_path(path)
        if lang is not None and lang.by_path:
            langs.setdefault(lang.name, (lang, []))[1].append(path)
    for lang, wanted in langs.values():
        paths = sorted({p for p in stored if lang.claims(p) and p not in gone} | {p for p in new_facts if lang.claims(p)})

        def load(path: str, lang: Language = lang) -> FileFacts | None:
            if path in new_facts:
                return new_facts[path]
            blob = stored.get(path)
            return _stored_facts(root, load_raw, path, blob, lang) if blob is not None else None

        resolver = lang.resolver(_tree(root, sides, target, paths, _memo(load), read, reader))
        for path in wanted:
            out[path] = lang.resolve_file(resolver, path)
    return out


def _tree(root: str, sides: Sides, target: Target, paths: list[str], load: Callable[[str], FileFacts | None],
          read: Callable[[str], bytes | None], reader: _Reader) -> Tree:
    """The new side's tree as a language's resolver reads it: one place, where what it is given grows."""
    configs, links, assets = _configs(root, sides.new.rev, target, reader.shas)
    # A config the change adds, deletes or proposes is as the new side has it (the index lists neither an
    # untracked nor a proposed one).
    changed = {p for p in sides.paths if is_config(p)}
    configs = sorted((set(configs) - changed) | {p for p in changed if p in sides.new.data})
    return Tree(paths, load, read, configs=configs, links=links, assets=assets, prefetch=reader.prefetch)


def _memo(load: Callable[[str], FileFacts | None]) -> Callable[[str], FileFacts | None]:
    seen: dict[str, FileFacts | None] = {}

    def memo(path: str) -> FileFacts | None:
        if path not in seen:
            seen[path] = load(path)
        return seen[path]

    return memo


def _stored_facts(root: str, load_raw: Callable[[str], str | None], path: str, blob: str, lang: Language) -> FileFacts | None:
    """An unchanged file's facts: from the blob cache by their key, else parsed from its blob."""
    raw = load_raw(facts_key(path, blob))
    if raw is not None:
        try:
            return FileFacts.from_json(raw)
        except (ValueError, TypeError, IndexError):
            pass
    for _, data in git.read_blobs(root, [blob]):
        return lang.parse(data, lang.facts_kind(path))
    return None


def _configs(root: str, rev: str, target: Target, shas: dict[str, str]) -> tuple[list[str], list[str], list[str]]:
    """The new side's config files of module resolution, its symlinks and its other files: the commit's, else the
    index's (`shas` gets each file's blob there)."""
    entries = git.ls_tree(root, rev) if isinstance(target, Commits) else git.ls_index(root)
    shas.update((e.path, e.sha) for e in entries)
    links = [e.path for e in entries if e.mode == git.MODE_SYMLINK and for_path(e.path) is not None]
    assets = [e.path for e in entries if e.mode not in (git.MODE_SYMLINK, git.MODE_SUBMODULE) and for_path(e.path) is None]
    return [e.path for e in entries if is_config(e.path)], links, assets


class _Reader:
    """A tracked file's bytes on the new side: from git for a commit or the index, else from the work tree; read
    once each. `prefetch` reads many in one `git cat-file` by the blobs the new side's listing names (`shas`):
    a monorepo's hundreds of package.json, tsconfig.json and vite.config.ts cost one process, not one each."""

    def __init__(self, root: str, rev: str, target: Target):
        self.root, self.rev = root, rev
        self.from_git = isinstance(target, (Commits, Staged))
        self.cache: dict[str, bytes | None] = {}
        self.shas: dict[str, str] = {}  # path -> blob on the new side (filled by _configs' listing)

    def __call__(self, path: str) -> bytes | None:
        if path not in self.cache:
            if self.from_git:
                self.cache[path] = git.read_at(self.root, self.rev, path)
            else:
                full = os.path.join(self.root, path)
                self.cache[path] = open(full, "rb").read() if os.path.isfile(full) and not os.path.islink(full) else None  # noqa: SIM115
        return self.cache[path]

    def prefetched(self, paths: set[str], changed: set[str]) -> set[str]:
        """`paths`, once the bytes of those not `changed` are read in one go (the callers whose notes the check reads)."""
        self.prefetch(sorted(paths - changed))
        return paths

    def prefetch(self, paths: Collection[str]) -> None:
        if not self.from_git:
            return  # the work tree's files are read as cheaply one by one
        wanted = {p: self.shas[p] for p in paths if p not in self.cache and p in self.shas}
        data = dict(git.read_blobs(self.root, set(wanted.values())))
        for path, sha in wanted.items():
            if sha in data:
                self.cache[path] = data[sha]


def split(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """(Python's paths, the by-path languages' paths)."""
    py: list[str] = []
    other: list[str] = []
    for p in paths:
        (other if by_path(p) else py).append(p)
    return py, other
