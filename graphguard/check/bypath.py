"""The check of the files of a language whose symbols are named by path (TypeScript/JavaScript: `src/cart.ts#Cart.total`),
through the `Language` interface alone.

    signatures of both versions (Language.signatures) -> changes (Language.diff)
    -> each change's uses: the stored graph's (it describes the old side), but for files the change touches
       their new version resolved against the new tree (Language.resolver over the new facts)
    -> each call bound to the new signature (Language.bind); a use of a definition that is gone is broken
    -> SymbolImpact records in the report's shape (the Python pipeline's, beside it)

A file whose new version does not parse keeps what parses: its warning is said, and a definition missing
from it is not taken for removed (the check never blames what a parse error hid).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from graphguard import git
from graphguard.check.revisions import Commits, Staged, Target
from graphguard.check.sides import Sides
from graphguard.index.plan import facts_key, is_config
from graphguard.languages import Language, Tree, for_path
from graphguard.model import FileFacts, FileResolution, Use, UseKind
from graphguard.result import CallerImpact, ChangeKind, FileWarning, Status, SymbolImpact
from graphguard.store.reads import CodeGraph


def by_path(path: str) -> bool:
    lang = for_path(path)
    return lang is not None and lang.by_path


def assess(root: str, graph: CodeGraph, load_raw: Callable[[str], str | None], sides: Sides,
           target: Target) -> tuple[list[SymbolImpact], list[FileWarning]]:
    """The changes of the by-path files of `sides` and what they do to each use (`load_raw`: the blob cache's facts)."""
    warnings: list[FileWarning] = []
    new_facts: dict[str, FileFacts] = {}
    for path in sides.paths:
        lang = for_path(path)
        data = sides.new.data.get(path)
        if lang is None or data is None:
            continue
        facts = new_facts[path] = lang.parse(data, lang.facts_kind(path))
        warnings += [FileWarning(path, w) for w in facts.warnings]
    fresh = _fresh(root, graph, load_raw, sides, target, new_facts)
    impacts: list[SymbolImpact] = []
    for path in sides.paths:
        lang = for_path(path)
        if lang is None:
            continue
        broken_parse = path in new_facts and bool(new_facts[path].warnings)
        for change in _changes(lang, path, sides):
            if change.change is ChangeKind.REMOVED and broken_parse:
                continue  # hidden by a parse error, perhaps: not blamed
            impacts.append(_impact(lang, path, change, graph, fresh, set(sides.paths)))
    return impacts, warnings


def _changes(lang: Language, path: str, sides: Sides) -> list[Any]:
    """The language's SymbolChange records between the file's two versions (a side without the file: no definitions)."""
    kind = lang.facts_kind(path)
    before = lang.signatures(sides.old.data.get(path) or b"", kind=kind)
    after = lang.signatures(sides.new.data.get(path) or b"", kind=kind)
    return list(lang.diff(before, after))


def _fresh(root: str, graph: CodeGraph, load_raw: Callable[[str], str | None], sides: Sides, target: Target,
           new_facts: dict[str, FileFacts]) -> dict[str, FileResolution]:
    """The changed files of each by-path language in their new version, resolved against the new tree."""
    stored = graph.parsed_blobs()
    gone = {p for p in sides.paths if p not in sides.new.data}
    read = _reader(root, sides.new.rev, target)
    configs, links, assets = _configs(root, sides.new.rev, target)
    out: dict[str, FileResolution] = {}
    langs: dict[str, tuple[Language, list[str]]] = {}
    for path in new_facts:
        lang = for_path(path)
        assert lang is not None
        langs.setdefault(lang.name, (lang, []))[1].append(path)
    for lang, changed in langs.values():
        paths = sorted({p for p in stored if lang.claims(p) and p not in gone} | set(changed))

        def load(path: str, lang: Language = lang) -> FileFacts | None:
            if path in new_facts:
                return new_facts[path]
            blob = stored.get(path)
            return _stored_facts(root, load_raw, path, blob, lang) if blob is not None else None

        resolver = lang.resolver(Tree(paths, _memo(load), read, configs=configs, links=links, assets=assets))
        for path in changed:
            out[path] = lang.resolve_file(resolver, path)
    return out


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


def _configs(root: str, rev: str, target: Target) -> tuple[list[str], list[str], list[str]]:
    """The new side's config files of module resolution, its symlinks and its other files: the commit's, else the index's."""
    entries = git.ls_tree(root, rev) if isinstance(target, Commits) else git.ls_index(root)
    links = [e.path for e in entries if e.mode == git.MODE_SYMLINK and for_path(e.path) is not None]
    assets = [e.path for e in entries if e.mode not in (git.MODE_SYMLINK, git.MODE_SUBMODULE) and for_path(e.path) is None]
    return [e.path for e in entries if is_config(e.path)], links, assets


def _reader(root: str, rev: str, target: Target) -> Callable[[str], bytes | None]:
    """A tracked file's bytes on the new side: from git for a commit or the index, else from the work tree."""
    cache: dict[str, bytes | None] = {}

    def read(path: str) -> bytes | None:
        if path not in cache:
            if isinstance(target, (Commits, Staged)):
                cache[path] = git.read_at(root, rev, path)
            else:
                full = os.path.join(root, path)
                cache[path] = open(full, "rb").read() if os.path.isfile(full) and not os.path.islink(full) else None  # noqa: SIM115
        return cache[path]

    return read


def _uses(graph: CodeGraph, symbol: str, changed: set[str], fresh: dict[str, FileResolution]) -> list[Use]:
    """Every use of `symbol`: the graph's in unchanged files, the new versions' in changed ones."""
    uses = [u for u in graph.uses_of(symbol) if u.path not in changed]
    for r in fresh.values():
        for s in r.sites:
            if s.target == symbol or s.init_target == symbol:
                uses.append(Use(r.path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, s.resolution, s.shape))
    return sorted(set(uses), key=lambda u: (u.path, u.line, u.col, u.kind))


def _impact(lang: Language, path: str, change: Any, graph: CodeGraph, fresh: dict[str, FileResolution],
            changed: set[str]) -> SymbolImpact:
    symbol = f"{path}#{change.qualname}"
    uses = _uses(graph, symbol, changed, fresh)
    if change.before is not None and change.before.kind.value == "class":
        # `new C(...)` binds to the class's constructor: the graph's init edge names `C.constructor`.
        uses += [u for u in _uses(graph, symbol + ".constructor", changed, fresh) if u not in uses]
    callers = tuple(_judge(lang, change, u, written=u.path in changed) for u in uses)
    line = change.before.line if change.before is not None else change.after.line if change.after is not None else 1
    return SymbolImpact(symbol, path, line, change.change, change.breaking, change.before.text if change.before else None,
                        change.after.text if change.after else None, tuple(c for c in callers if c is not None))


def _judge(lang: Language, change: Any, use: Use, *, written: bool) -> CallerImpact | None:
    """A use against the change (`written`: in a file the change touches, read in its new version)."""

    def impact(status: Status, reason: str) -> CallerImpact:
        return CallerImpact(use.path, use.line, use.end_line, use.caller, status, reason, use.kind, use.resolution)

    name = change.qualname.rpartition(".")[2]
    if change.after is None or change.change in (ChangeKind.REMOVED, ChangeKind.RENAMED, ChangeKind.MOVED):
        what = {ChangeKind.RENAMED: f"renamed to '{change.new_qualname}'", ChangeKind.MOVED: "moved"}.get(change.change, "removed")
        return impact(Status.BROKEN, f"'{name}' was {what}: this use names what is no longer there")
    if use.kind is not UseKind.CALL:
        return impact(Status.OK, "imports it" if use.kind is UseKind.IMPORT else "names it; calls nothing here")
    bound = lang.bind(use.shape, change.after)
    if bound.status is Status.BROKEN and change.before is not None and not written:
        then = lang.bind(use.shape, change.before)
        if then.status is Status.BROKEN:  # broken already: fixing it is not this change's to ask
            return impact(Status.UNKNOWN, f"did not bind before this change either: {bound.reason}")
    reason = bound.reason
    if use.resolution.value == "by-name" and bound.status is Status.BROKEN:
        reason += " (receiver typed by the only class defining this method name)"
    elif use.resolution.value not in ("exact", "partial") and bound.status is Status.BROKEN:
        return impact(Status.UNKNOWN, reason + f" (if the receiver is this class: resolved {use.resolution.value})")
    return impact(bound.status, reason)


def split(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """(Python's paths, the by-path languages' paths)."""
    py: list[str] = []
    other: list[str] = []
    for p in paths:
        (other if by_path(p) else py).append(p)
    return py, other
