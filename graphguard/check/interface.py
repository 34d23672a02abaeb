"""Stage 3: what the change did to the interface of the changed files.

    files that no longer parse          -> a SYNTAX_ERROR impact, with their importers
    names a package no longer re-exports -> a REMOVED impact, with their importers
    definitions whose header changed     -> their signatures on both sides (spans.extract_spans:
                                            those definitions' source spans only) -> sigdiff
                                            -> InterfaceChange records (and moves across files)

A definition whose header, decorators and class-level fields are as they were changed
only its body: tree-sitter's facts show it, and it is not parsed again. A file with no
other change is not parsed at all.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from graphguard.check import bound
from graphguard.check.overlay import Overlay
from graphguard.codes import Code, CodeName
from graphguard.config import Config
from graphguard.model import DefKind, FileFacts, UseKind
from graphguard.result import SYNTAX_ERROR, CallerImpact, ChangeKind, FileWarning, Status, SymbolImpact

if TYPE_CHECKING:
    from graphguard.check.sides import Side
    from graphguard.languages.python import sigdiff, signature


@dataclass(frozen=True)
class InterfaceChange:
    """One changed definition, named as the old version of the repository knew it."""

    path: str  # the file that held it
    change: sigdiff.SymbolChange
    qualname: str  # old full name
    new_qualname: str | None  # full name now (a rename, a move, a new signature), None when removed
    unknown_before: bool = False  # the old version did not parse: every use is checked against the new signature
    class_gone: bool = False  # a method whose class was removed, renamed or moved
    holds: bound.Held | None = None  # moved: what its old name holds now, when that is no repository definition (bound.rebind)
    alias: bool = False  # its old name leads to another definition now (bound.Bound.alias)

    @property
    def kind(self) -> ChangeKind:
        return self.change.change

    @property
    def is_method(self) -> bool:
        sig = self.change.before or self.change.after
        return sig is not None and sig.kind is DefKind.METHOD

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


def line_now(new: bytes | None, line: int) -> int | None:
    """A line of the new version of a file near `line` of the old one (None: the file is gone).
    A viewer can mark only lines that exist (SARIF, code scanning): the old line, or the last one."""
    if new is None:
        return None
    return max(1, min(line, new.count(b"\n") + (0 if new.endswith(b"\n") else 1)))


class Interface(NamedTuple):
    changes: list[InterfaceChange]  # each gets its uses gathered and decided
    impacts: list[SymbolImpact]  # decided already: lost re-exports, files that no longer parse
    warnings: list[FileWarning]
    unparsable: frozenset[str] = frozenset()  # changed files whose new version is not Python


def find(overlay: Overlay, config: Config) -> Interface:
    sides = overlay.sides
    # The old versions' facts, loaded once (a big file's take tens of milliseconds to decode).
    # A file whose comment lines alone changed keeps its interface: neither version is decoded (overlay.commented).
    olds = {p: overlay.old_facts(p) for p in sorted(sides.paths) if p in sides.old.data and p not in overlay.commented}
    impacts = lost_reexports(overlay, config, olds)
    warnings: list[FileWarning] = []
    # A new version that is not Python breaks every importer, whatever tree-sitter made of it.
    # (Files tree-sitter skipped as too large or too nested are not parsed again; binary ones are.)
    # (A file whose comment lines alone changed parses as it did.)
    readable = [p for p in sorted(sides.new.data) if p not in overlay.commented and (overlay.new_facts[p].parsed or b"\0" in sides.new.data[p])]
    unparsable: dict[str, tuple[int, str]] = {}
    unreadable: set[str] = set()  # Python, but too deeply nested to read: no interface to compare
    for p in readable:
        outcome = _readability(sides.new.data[p])
        if isinstance(outcome, tuple):
            unparsable[p] = outcome
        elif outcome is not None:
            unreadable.add(p)
            warnings.append(FileWarning(p, f"{outcome}; file not checked"))
    for p, (line, why) in unparsable.items():
        warnings.append(FileWarning(p, f"{why} (line {line}); file not checked"))
        if SYNTAX_ERROR in config.block_on:
            module = overlay.new_map.primary.get(p) or overlay.old_map.primary.get(p, p)
            impacts.append(_syntax_impact(overlay, config, p, line, why, module))
    shaped = {p: changed for p in sorted(sides.paths) if p not in unparsable and p not in unreadable and p not in overlay.commented
              and (changed := _changed(olds.get(p), overlay.new_facts.get(p))) != set()}
    changes = _signature_changes(overlay, shaped, olds, warnings) if shaped else []
    return Interface(changes, impacts, warnings, frozenset(unparsable))


def _signature_changes(overlay: Overlay, shaped: dict[str, set[str] | None], olds: dict[str, FileFacts | None],
                       warnings: list[FileWarning]) -> list[InterfaceChange]:
    """sigdiff over the signatures of both versions of the changed definitions (of those files only), then moves across files.

    Only the definitions whose header changed are read (with what their signatures depend
    on): a removed one and the one it was renamed to, or that another file gained, are
    among them, so sigdiff's renames and moves see what they need.
    """
    from graphguard.languages.python import sigdiff, spans

    sides = overlay.sides
    per_file: list[tuple[str, sigdiff.SymbolChange]] = []
    kept: dict[str, frozenset[str]] = {}
    gained: list[tuple[str, signature.Signature]] = []
    unknown_before: set[str] = set()
    for path, changed in shaped.items():
        old_facts = olds.get(path)
        new_facts = overlay.new_facts.get(path)
        wanted = None if changed is None else set().union(*(spans.dependents(f, changed) for f in (old_facts, new_facts) if f))
        before, after = _sigs(sides.old, path, old_facts, wanted, None), _sigs(sides.new, path, new_facts, wanted, warnings)
        if after is None:
            continue
        if before is None:
            warnings.append(FileWarning(path, f"its version in {sides.old.rev[:12]} does not parse: its interface there is unknown;"
                                        " every use was checked against the new signatures"))
            unknown_before.add(path)
            after = _sigs(sides.new, path, new_facts, None, None) or after  # every definition, not only the changed ones
            per_file += [(path, sigdiff.SymbolChange(q, ChangeKind.SIGNATURE, (sigdiff.OLD_UNPARSABLE,), None, sig))
                         for q, sig in sorted(after.defs.items())]
            continue
        kept[path] = bound.kept_names(new_facts)
        per_file += [(path, ch) for ch in sigdiff.compare(before, after, kept[path])]
        gained += [(path, sig) for sig in sigdiff.added(before, after, kept[path])]
    # Modules are keyed by path here; a removal that another file gained is a move. A definition whose
    # name its module still binds (an import back, an assignment) moved to what the name holds now.
    changes = [(path, bound.rebind(overlay, path, ch) if bound.is_kept(ch, kept.get(path, frozenset())) else bound.Bound(ch))
               for path, ch in sigdiff.find_moves(per_file, gained)]
    gone = {(path, b.change.qualname) for path, b in changes if b.change.change is not ChangeKind.SIGNATURE}
    return [_named(overlay, path, ch, unknown_before=path in unknown_before,
                   class_gone=(ch.before or ch.after) is not None and (ch.before or ch.after).kind is DefKind.METHOD  # type: ignore[union-attr]
                   and (path, ch.qualname.rsplit(".", 1)[0]) in gone, bound_to=b)
            for path, b in changes for ch in (b.change,)]


def _named(overlay: Overlay, path: str, ch: sigdiff.SymbolChange, *, unknown_before: bool, class_gone: bool,
           bound_to: bound.Bound | None = None) -> InterfaceChange:
    old_module = overlay.old_map.primary.get(path) or overlay.new_map.primary.get(path, "")
    new_q = None
    if ch.change in (ChangeKind.RENAMED, ChangeKind.SIGNATURE):
        new_q = f"{overlay.new_map.primary.get(path, old_module)}.{ch.new_qualname or ch.qualname}"
    elif ch.change is ChangeKind.MOVED and ch.new_module is not None:
        new_q = f"{overlay.new_map.primary.get(ch.new_module, '')}.{ch.new_qualname}"
        ch = dataclasses.replace(ch, breaking=(Code(CodeName.MOVED, new_q), *ch.breaking[1:]))
    held, alias = (bound_to.held, bound_to.alias) if bound_to is not None else (None, False)
    return InterfaceChange(path, ch, f"{old_module}.{ch.qualname}", new_q, unknown_before, class_gone, held, alias)


def _sigs(side: Side, path: str, facts: FileFacts | None, wanted: set[str] | None,
          warnings: list[FileWarning] | None) -> signature.ModuleSignatures | None:
    """A file's signatures: of the `wanted` definitions, read from their spans, or (None) of all; none when the
    file does not exist. None when it does not parse (a warning for the new side: `warnings` given)."""
    from graphguard.languages.python import signature, spans

    data = side.data.get(path)
    if data is None:
        return signature.ModuleSignatures(defs={}, all_names=None)
    try:
        if wanted is None or facts is None:
            return signature.extract(data)
        return spans.extract_spans(data, facts, wanted)
    except signature.SignatureParseError as e:
        if warnings is not None:
            warnings.append(FileWarning(path, f"{e}; file not checked"))
        return None


def syntax_error(data: bytes) -> tuple[int, str] | None:
    """(line, why) when the bytes are not Python; None when they parse, or when that cannot be told."""
    outcome = _readability(data)
    return outcome if isinstance(outcome, tuple) else None


def _readability(data: bytes) -> tuple[int, str] | str | None:
    """(line, why) when the bytes are not Python; a message when they are too deeply nested to
    read; None when they parse.

    Python's own parser answers fast; a failure is confirmed by libcst (imported only then),
    so that syntax newer than the running interpreter is not taken for an error. The bytes are
    compiled first (never run): that parses them as ast.parse does without building Python's
    tree of them (a file of 80,000 calls: 0.8 s, against 2.4 s and 100 MB more); the compiler's
    own refusals (`return` outside a function, a limit) are asked of ast.parse.
    """
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, "<checked>", "exec", dont_inherit=True)
        return None
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, SystemError):
        pass
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
        return "too deeply nested to parse"
    from graphguard.languages.python import signature

    try:
        signature.extract(data)
        return None
    except signature.SignatureParseError as e:
        if not str(e).startswith("syntax error"):
            return str(e)
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
        for q, q_line, graph_module in overlay.graph.importers_of_module(path)
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


def _changed(old: FileFacts | None, new: FileFacts | None) -> set[str] | None:
    """The definitions whose signature model may have changed, as tree-sitter saw them: those whose
    header, decorators or class-level fields changed, or that one side lacks (module-relative qualnames).
    None: every definition (the facts of a side are partial, or the file stopped or started parsing)."""
    before, after = _shapes(old), _shapes(new)
    if any(f is not None and (not f.parsed or f.warnings) for f in (old, new)):
        return set() if before == after and _state(old) == _state(new) else None
    return {q for q in before.keys() | after.keys() if before.get(q) != after.get(q)}


def _state(facts: FileFacts | None) -> object:
    return None if facts is None else (facts.parsed, facts.warnings)


def _shapes(facts: FileFacts | None) -> dict[str, object]:
    """qualname -> what its signature is built from: every definition of that name (overloads, a
    redefinition), with a class's class-level bindings (dataclass and NamedTuple fields)."""
    if facts is None:
        return {}
    out: dict[str, list[object]] = {}
    for d in facts.definitions:
        if "<locals>" not in d.qualname:
            out.setdefault(d.qualname, []).append((d.kind, d.signature, d.decorators, d.bases, d.is_async))
    for b in facts.bindings:
        if b.scope in out:
            out[b.scope].append((b.target, b.kind, b.value))
    return {q: tuple(shape) for q, shape in out.items()}


def _module_names(facts: FileFacts) -> dict[str, int]:
    """Names a module binds at its top level by import or assignment (what others can import) -> line."""
    names = {i.bound_name: i.line for i in facts.imports if not i.scope and i.name != "*"}
    names.update({b.target: b.line for b in facts.bindings if not b.scope and "." not in b.target})
    return names


def lost_reexports(overlay: Overlay, config: Config, olds: dict[str, FileFacts | None]) -> list[SymbolImpact]:
    """Names a module re-exported (`from .clock import stamp` in a package `__init__`) and no longer binds.

    sigdiff compares definitions; a dropped import line is no definition, yet every
    `from pkg import stamp` elsewhere now fails. `olds`: the changed files' old facts (not those of a
    comment edit: overlay.commented).
    """
    sides, old_map = overlay.sides, overlay.old_map
    out: list[SymbolImpact] = []
    for path in sorted(p for p in olds if p in sides.new.data and p in old_map.primary):
        before, after = olds[path], overlay.new_facts.get(path)
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
                                    breaking=(Code(CodeName.REMOVED),), before=f"{name} (re-exported by {module})", after=None,
                                    callers=tuple(callers), public=config.is_public(f"{module}.{name}"),
                                    line_now=line_now(sides.new.data.get(path), line)))
    return out


def _importers(overlay: Overlay, config: Config, path: str, module: str, name: str) -> list[CallerImpact]:
    """Every `from module import name`: stored ones in unchanged files, and in the changed files' new versions."""
    reason = f"imports a name that no longer exists: '{name}'"
    callers = []
    for q, q_line, q_end in overlay.graph.importers_by_name(module, name):
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
