"""Calls a change writes in the files of a by-path language (TypeScript/JavaScript), bound to their target's signature.

Python's rule (check/calls): a call of a changed file's new version is new when the old version made no call with
its scope, callee, argument shape and text (`written.written_calls`); each new call that reaches a definition whose
interface did not change (those are judged with their change) is bound to that definition's signature in the new
version, through the `Language`. Targets with a broken new call are a `new-calls` entry listing the new calls to them.
A file whose new version does not parse writes no call the check blames.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from typing import NamedTuple

from graphguard.check.pathjudge import NewSigs
from graphguard.check.written import written_calls
from graphguard.languages import Language
from graphguard.model import FileFacts, UseKind
from graphguard.resolved import FileResolution, Site
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact


class Written(NamedTuple):
    """A changed file: its language, both versions' bytes, the new version's facts."""

    lang: Language
    kind: str  # Language.facts_kind of the path
    old: bytes | None
    new: bytes
    facts: FileFacts


def find(files: Mapping[str, Written], fresh: Mapping[str, FileResolution], changed_symbols: Collection[str],
         sigs: NewSigs) -> list[SymbolImpact]:
    """The `new-calls` entries: one per definition that a call written in this change fails to bind to."""
    by_target: dict[str, list[tuple[str, Site]]] = defaultdict(list)
    for path, f in sorted(files.items()):
        if f.facts.warnings or path not in fresh:
            continue  # a parse error may hide what the call is in: never blamed
        for site in _new_sites(f, fresh[path]):
            target = site.target
            if target is not None and target not in changed_symbols and site.init_target not in changed_symbols:
                by_target[target].append((path, site))
    out = []
    for target, sites in sorted(by_target.items()):
        sig = sigs.of(target)
        if sig is None:
            continue
        lang = files[sites[0][0]].lang
        callers = sorted((_bind(lang, sig, path, s) for path, s in sites), key=lambda k: (k.status is not Status.BROKEN, k.path, k.line))
        if any(k.status is Status.BROKEN for k in callers):
            out.append(SymbolImpact(symbol=target, path=target.partition("#")[0], line=sig.line, change=ChangeKind.NEW_CALLS,
                                    breaking=(), before=sig.text, after=sig.text, callers=tuple(callers)))
    return out


def _new_sites(f: Written, resolved: FileResolution) -> list[Site]:
    """The call sites of the new version that the old one did not make."""
    old = f.lang.parse(f.old, f.kind) if f.old is not None else None
    written = written_calls(old, f.facts, f.old, f.new)
    return [s for s in resolved.sites if s.kind is UseKind.CALL and (s.line, s.col) in written]


def _bind(lang: Language, sig: object, path: str, site: Site) -> CallerImpact:
    bound = lang.bind(site.shape, sig)  # type: ignore[arg-type]
    status, reason = bound.status, bound.reason
    if status is Status.BROKEN and site.resolution.value not in ("exact", "partial"):
        status, reason = Status.UNKNOWN, reason + f" (if the receiver is this class: resolved {site.resolution.value})"
    return CallerImpact(path, site.line, site.end_line, site.scope, status, reason,
                        UseKind.CALL, site.resolution)
