"""Stage 6: sites the file itself says not to blame, read from the version being checked.

    f(1)  # graphguard: ignore[new-calls]     this site, for these codes (bare: all); no other site
    f(1)  # type: ignore[call-arg]            a type checker was told the call does not bind
    f(1)  # pyright: ignore                   (bare, or with a call code)
    with pytest.raises(TypeError):            a call that does not bind raises TypeError: the test
        f(1)                                  wants that (also `self.assertRaises(TypeError, f, 1)`)
    // @ts-expect-error                       TypeScript/JavaScript (Language.notes): every site of the next
    f(1);                                     line (`@ts-ignore` too); `// graphguard: ignore[...]` as above

A suppressed site is `ok` with `suppressed` saying why and its reason keeping what it would
have been; the report counts them. Only the files holding a site to blame are read (one
tree-sitter parse each).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphguard import codes
from graphguard.check.overlay import Overlay
from graphguard.languages import for_path
from graphguard.model import UseKind
from graphguard.result import CallerImpact, FileWarning, Status, Suppression, SymbolImpact

if TYPE_CHECKING:
    from graphguard.languages.python.notes import Notes


def apply(overlay: Overlay, changes: list[SymbolImpact]) -> tuple[list[SymbolImpact], list[FileWarning]]:
    """`changes` with their suppressed sites marked, and a warning per ignore that names an unknown code."""
    return marked(changes, lambda paths: _notes(overlay, paths))


def marked(changes: list[SymbolImpact], notes_of: Callable[[set[str]], dict[str, Notes]]) -> tuple[list[SymbolImpact], list[FileWarning]]:
    """The same, with each file's notes from `notes_of` (the by-path languages' check reads its new side itself)."""
    paths = {k.path for ch in changes for k in ch.callers if k.status is not Status.OK}
    if not paths:
        return changes, []
    read = notes_of(paths)
    out = []
    warned: set[tuple[str, int]] = set()
    warnings = []
    for ch in changes:
        callers = []
        for k in ch.callers:
            n = read.get(k.path)
            if k.status is Status.OK or n is None:
                callers.append(k)
                continue
            callers.append(_decide(ch, k, n))
            for w in _unknown_codes(k, n):
                if (k.path, w[0]) not in warned:
                    warned.add((k.path, w[0]))
                    warnings.append(FileWarning(k.path, w[1]))
        out.append(dataclasses.replace(ch, callers=tuple(callers)) if callers != list(ch.callers) else ch)
    return out, warnings


def notes_by(read: Callable[[str], bytes | None], paths: set[str]) -> dict[str, Notes]:
    """The notes of each file whose new version `read` gives, read through its `Language`."""
    return {p: lang.notes(data) for p in paths if (lang := for_path(p)) is not None and (data := read(p)) is not None}


def _notes(overlay: Overlay, paths: set[str]) -> dict[str, Notes]:
    """The notes of each file, in its new version: the changed files' bytes, the others' blobs."""
    new = overlay.sides.new.data
    out = {p: lang.notes(new[p]) for p in paths if p in new and (lang := for_path(p)) is not None}
    blobs = {overlay.new_entries[p]: p for p in paths if p not in new and p not in overlay.sides.paths and p in overlay.new_entries}
    for sha, data in overlay.read_blobs(list(blobs)):
        if (lang := for_path(blobs[sha])) is not None:
            out[blobs[sha]] = lang.notes(data)
    return out


def _decide(ch: SymbolImpact, k: CallerImpact, n: Notes) -> CallerImpact:
    is_call = k.kind is UseKind.CALL
    for ignore in n.ignores(k.line, k.end_line, call=is_call):
        if _accepts(ignore.codes, ch):
            return dataclasses.replace(k, status=Status.OK, suppressed=Suppression.IGNORED,
                                       reason=f"ignored (`{ignore.text}`): {k.reason}")
    if k.raises is not None:  # broken, or unknown (if the receiver is this class; if the stub is right): raises then
        expecting = n.expected(k.line, k.end_line, k.raises)
        if expecting is not None:
            return dataclasses.replace(k, status=Status.OK, suppressed=Suppression.EXPECTED_TO_FAIL,
                                       reason=f"expected to fail (inside `{expecting.text}`): {k.reason}")
    if k.kind is UseKind.REFERENCE and ch.after is not None:
        expecting = n.expected(k.line, k.end_line, "TypeError", passed=True)
        if expecting is not None:  # `assertRaises(TypeError, f, ...)`: whatever f's arguments, the test wants TypeError
            return dataclasses.replace(k, status=Status.OK, suppressed=Suppression.EXPECTED_TO_FAIL,
                                       reason=f"expected to fail (passed to `{expecting.text}`): {k.reason}")
    return k


def _accepts(named: tuple[str, ...] | None, ch: SymbolImpact) -> bool:
    """Does `# graphguard: ignore[named]` cover this change? Bare: yes; else its kind, or every code that can break."""
    if named is None:
        return True
    wanted = ch.breaking_codes or [ch.own_code]
    return ch.change.value in named or all(c in named or c.name in named for c in wanted)


def _unknown_codes(k: CallerImpact, n: Notes) -> list[tuple[int, str]]:
    return [(i.line, (f"line {i.line}: `{i.text}` names an unknown code: {', '.join(repr(c) for c in unknown)}"
                      " (the codes are listed in docs/contract.md)"))
            for i in n.ignores(k.line, k.end_line, call=False) if i.codes
            if (unknown := [c for c in i.codes if not codes.known(c)])]
