"""Stage 3: what the change did to the interface of the changed files.

    files that no longer parse          -> a SYNTAX_ERROR impact, with their importers
    names a package no longer re-exports -> a REMOVED impact, with their importers
    definitions whose header changed     -> libcst signatures of both versions -> sigdiff
                                            -> InterfaceChange records (and moves across files)

A file whose definitions' headers, decorators and class-level fields are as they were
changed only bodies: tree-sitter's facts show it, and libcst (slow to import and to run)
is not needed for it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from graphguard.check.overlay import Overlay
from graphguard.config import Config
from graphguard.model import DefKind, FileFacts, UseKind
from graphguard.result import SYNTAX_ERROR, CallerImpact, ChangeKind, FileWarning, Status, SymbolImpact

if TYPE_CHECKING:
    from graphguard import sigdiff, signature
    from graphguard.check.revisions import Side


@dataclass(frozen=True)
class InterfaceChange:
    """One changed definition, named as the old version of the repository knew it."""

    path: str  # the file that held it
    change: sigdiff.SymbolChange
    qualname: str  # old full name
    new_qualname: str | None  # full name now (a rename, a move, a new signature), None when removed
    unknown_before: bool = False  # the old version did not parse: every use is checked against the new signature
    class_gone: bool = False  # a method whose class was removed, renamed or moved

    @property
    def kind(self) -> ChangeKind:
        return self.change.change

    @property
    def is_method(self) -> bool:
        sig = self.change.before or self.change.after
        return sig is not None and sig.kind == "method"

    @property
    def class_name(self) -> str | None:
        """For a method: its class's name."""
        return self.change.qualname.rsplit(".", 2)[-2] if self.is_method and "." in self.change.qualname else None

    @property
    def line(self) -> int:
        ch = self.change
        return ch.after.line if ch.after is not None else (ch.before.line if ch.before is not None else 1)

    @property
    def where(self) -> str:
        """The file it is reported in: a move is reported where the definition is now."""
        ch = self.change
        return ch.new_module if ch.change is ChangeKind.MOVED and ch.new_module is not None else self.path


class Interface(NamedTuple):
    changes: list[InterfaceChange]  # each gets its uses gathered and decided
    impacts: list[SymbolImpact]  # decided already: lost re-exports, files that no longer parse
    warnings: list[FileWarning]
    unparsable: frozenset[str] = frozenset()  # changed files whose new version is not Python


def find(overlay: Overlay, config: Config) -> Interface:
    impacts = lost_reexports(overlay, config)
    warnings: list[FileWarning] = []
    sides = overlay.sides
    # A new version that is not Python breaks every importer, whatever tree-sitter made of it.
    # (Files tree-sitter skipped as too large or too nested are not parsed again; binary ones are.)
    readable = [p for p in sorted(sides.new.data) if overlay.new_facts[p].parsed or b"\0" in sides.new.data[p]]
    unparsable = {p: err for p in readable if (err := syntax_error(sides.new.data[p])) is not None}
    for p, (line, why) in unparsable.items():
        warnings.append(FileWarning(p, f"{why} (line {line}); file not checked"))
        if SYNTAX_ERROR in config.block_on:
            module = overlay.new_map.primary.get(p) or overlay.old_map.primary.get(p, p)
            impacts.append(_syntax_impact(overlay, config, p, line, why, module))
    shaped = [p for p in sorted(sides.paths) if p not in unparsable
              and _shape(overlay.old_facts(p) if p in sides.old.data else None) != _shape(overlay.new_facts.get(p))]
    changes = _signature_changes(overlay, shaped, warnings) if shaped else []
    return Interface(changes, impacts, warnings, frozenset(unparsable))


def _signature_changes(overlay: Overlay, shaped: list[str], warnings: list[FileWarning]) -> list[InterfaceChange]:
    """sigdiff over libcst signatures of both versions of each file (these files only), then moves across files."""
    from graphguard import sigdiff

    sides = overlay.sides
    per_file: list[tuple[str, sigdiff.SymbolChange]] = []
    gained: list[tuple[str, signature.Signature]] = []
    unknown_before: set[str] = set()
    for path in shaped:
        before, after = _sigs(sides.old, path, None), _sigs(sides.new, path, warnings)
        if after is None:
            continue
        if before is None:
            warnings.append(FileWarning(path, f"its version in {sides.old.rev[:12]} does not parse: its interface there is unknown;"
                                        " every use was checked against the new signatures"))
            unknown_before.add(path)
            per_file += [(path, sigdiff.SymbolChange(q, ChangeKind.SIGNATURE, (sigdiff.OLD_UNPARSABLE,), None, sig))
                         for q, sig in sorted(after.defs.items())]
            continue
        per_file += [(path, ch) for ch in sigdiff.compare(before, after)]
        gained += [(path, sig) for sig in sigdiff.added(before, after)]
    # Modules are keyed by path here; a removal that another file gained is a move.
    changes = sigdiff.find_moves(per_file, gained)
    gone = {(path, ch.qualname) for path, ch in changes if ch.change is not ChangeKind.SIGNATURE}
    return [_named(overlay, path, ch, unknown_before=path in unknown_before,
                   class_gone=(ch.before or ch.after) is not None and (ch.before or ch.after).kind == "method"  # type: ignore[union-attr]
                   and (path, ch.qualname.rsplit(".", 1)[0]) in gone)
            for path, ch in changes]


def _named(overlay: Overlay, path: str, ch: sigdiff.SymbolChange, *, unknown_before: bool, class_gone: bool) -> InterfaceChange:
    old_module = overlay.old_map.primary.get(path) or overlay.new_map.primary.get(path, "")
    new_q = None
    if ch.change in (ChangeKind.RENAMED, ChangeKind.SIGNATURE):
        new_q = f"{overlay.new_map.primary.get(path, old_module)}.{ch.new_qualname or ch.qualname}"
    elif ch.change is ChangeKind.MOVED and ch.new_module is not None:
        new_q = f"{overlay.new_map.primary.get(ch.new_module, '')}.{ch.new_qualname}"
        ch = dataclasses.replace(ch, breaking=(f"moved:{new_q}",))
    return InterfaceChange(path, ch, f"{old_module}.{ch.qualname}", new_q, unknown_before, class_gone)


def _sigs(side: Side, path: str, warnings: list[FileWarning] | None) -> signature.ModuleSignatures | None:
    """A file's signatures (none when it does not exist); None when it does not parse
    (a warning for the new side: `warnings` given)."""
    from graphguard import signature

    data = side.data.get(path)
    if data is None:
        return signature.ModuleSignatures(defs={}, all_names=None)
    try:
        return signature.extract(data)
    except signature.SignatureParseError as e:
        if warnings is not None:
            warnings.append(FileWarning(path, f"{e}; file not checked"))
        return None


def syntax_error(data: bytes) -> tuple[int, str] | None:
    """(line, why) when the bytes are not Python; None when they parse, or when that cannot be told.

    Python's own parser answers fast; a failure is confirmed by libcst, so that syntax
    newer than the running interpreter is not taken for an error.
    """
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(data)
        return None
    except SyntaxError as e:
        line, why = e.lineno or 1, f"syntax error: {e.msg}"
    except ValueError as e:  # a NUL byte (Python < 3.12)
        line, why = 1, f"syntax error: {e}"
    except (RecursionError, MemoryError):
        return None  # too deeply nested to tell: libcst's warning says so
    from graphguard import signature

    try:
        signature.extract(data)
        return None
    except signature.SignatureParseError as e:
        if not str(e).startswith("syntax error"):
            return None
    for i, text in enumerate(data.splitlines(), 1):
        if text.startswith((b"<<<<<<< ", b">>>>>>> ")) or text in (b"<<<<<<<", b">>>>>>>", b"======="):
            return i, "merge conflict markers"
    if b"\0" in data:
        return data[: data.index(b"\0")].count(b"\n") + 1, "a NUL byte: not Python source"
    return line, why


def _syntax_impact(overlay: Overlay, config: Config, path: str, line: int, why: str, module: str) -> SymbolImpact:
    """A file that does not parse, as a change that blocks (block_on "syntax-error"), with its importers."""
    reason = f"imports {module}, which does not parse: {why} (line {line})"
    changed = overlay.changed
    callers = [
        CallerImpact(q, q_line, q_line, graph_module, Status.BROKEN, reason, UseKind.IMPORT)
        for q, q_line, graph_module in overlay.graph.db.execute(
            "SELECT f.path, min(i.line), f.module FROM imports i JOIN files f ON f.id = i.file_id JOIN files t ON t.id = i.target_file"
            " WHERE t.path = ? GROUP BY f.path", (path,))
        if q not in changed and not config.is_generated(q)
    ]
    resolver = overlay.new_resolver
    for q in sorted(changed - {path}):
        facts = overlay.new_facts.get(q)
        for imp in facts.imports if facts is not None and q in resolver.modmap.primary else ():
            absolute = resolver.absolute(imp, q)
            if module in (absolute, f"{absolute}.{imp.name}"):
                callers.append(CallerImpact(q, imp.line, imp.end_line, resolver.modmap.primary[q], Status.BROKEN, reason, UseKind.IMPORT))
                break
    callers.sort(key=lambda c: (c.path, c.line))
    return SymbolImpact(symbol=module, path=path, line=line, change=ChangeKind.SYNTAX_ERROR, breaking=(SYNTAX_ERROR,),
                        before=None, after=None, callers=tuple(callers))


def _shape(facts: FileFacts | None) -> object:
    """What libcst's signature model is built from, as tree-sitter saw it; None for no file."""
    if facts is None:
        return None
    classes = {d.qualname for d in facts.definitions if d.kind is DefKind.CLASS}
    return (
        [(d.qualname, d.kind, d.signature, d.decorators, d.bases, d.is_async) for d in facts.definitions],
        [(b.scope, b.target, b.kind, b.value) for b in facts.bindings if b.scope in classes],  # dataclass and NamedTuple fields
        facts.all_names,
        facts.warnings,  # a file that stopped (or started) parsing must go through libcst to say so
    )


def _module_names(facts: FileFacts) -> dict[str, int]:
    """Names a module binds at its top level by import or assignment (what others can import) -> line."""
    names = {i.bound_name: i.line for i in facts.imports if not i.scope and i.name != "*"}
    names.update({b.target: b.line for b in facts.bindings if not b.scope and "." not in b.target})
    return names


def lost_reexports(overlay: Overlay, config: Config) -> list[SymbolImpact]:
    """Names a module re-exported (`from .clock import stamp` in a package `__init__`) and no longer binds.

    sigdiff compares definitions; a dropped import line is no definition, yet every
    `from pkg import stamp` elsewhere now fails.
    """
    sides, old_map = overlay.sides, overlay.old_map
    out: list[SymbolImpact] = []
    for path in sorted(p for p in sides.paths if p in sides.old.data and p in sides.new.data and p in old_map.primary):
        before, after = overlay.old_facts(path), overlay.new_facts.get(path)
        if before is None or after is None:
            continue
        defined = {d.qualname for d in after.definitions}
        kept = _module_names(after)
        module = old_map.primary[path]
        for name, line in sorted(_module_names(before).items()):
            if name in kept or name in defined or overlay.new_resolver.module_attr(path, name) is not None:
                continue
            callers = _importers(overlay, config, path, module, name)
            if not callers and not config.is_public(f"{module}.{name}"):
                continue  # nobody imported it: an internal tidy-up
            out.append(SymbolImpact(symbol=f"{module}.{name}", path=path, line=line, change=ChangeKind.REMOVED,
                                    breaking=("removed",), before=f"{name} (re-exported by {module})", after=None,
                                    callers=tuple(callers), public=config.is_public(f"{module}.{name}")))
    return out


def _importers(overlay: Overlay, config: Config, path: str, module: str, name: str) -> list[CallerImpact]:
    """Every `from module import name`: stored ones in unchanged files, and in the changed files' new versions."""
    reason = f"imports a name that no longer exists: '{name}'"
    callers = []
    for q, q_line, q_end in overlay.graph.db.execute(
        "SELECT f.path, i.line, i.line FROM imports i JOIN files f ON f.id = i.file_id WHERE i.module = ? AND i.name = ?",
        (module, name),
    ):
        if q in overlay.sides.paths or config.is_generated(q):
            continue  # a changed importer is judged on its new version, below
        callers.append(CallerImpact(q, q_line, q_end, overlay.old_map.primary.get(q, q), Status.BROKEN, reason, UseKind.IMPORT))
    resolver = overlay.new_resolver
    for q in sorted(p for p in overlay.sides.new.data if p != path):
        facts = overlay.new_facts.get(q)
        for imp in facts.imports if facts else ():
            absolute = resolver.absolute(imp, q) if q in resolver.modmap.primary else None
            if absolute == module and imp.name == name:
                callers.append(CallerImpact(q, imp.line, imp.end_line, resolver.modmap.primary.get(q, q), Status.BROKEN,
                                            reason, UseKind.IMPORT))
    callers.sort(key=lambda c: (c.path, c.line))
    return callers
