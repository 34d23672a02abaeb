"""Signatures of the definitions asked for, each read alone from its source span, and what depends on them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from graphguard.languages.python.signature import ModuleSignatures, Signature, _Builder, _text, read
from graphguard.languages.python.sigread.records import (
    Definition,
    Function,
    Module,
    SignatureParseError,
)
from graphguard.model import DefKind as ModelDefKind

if TYPE_CHECKING:
    from graphguard.model import Definition as FactsDefinition
    from graphguard.model import FileFacts


# -- spans: the definitions asked for, read alone -------------------------------------------


_CONSTRUCTORS = frozenset({"__init__", "__new__"})


class _Whole(Exception):
    """A span cannot be read alone: the whole module is read instead."""


def extract_spans(source: bytes | str, facts: FileFacts, wanted: Collection[str], *,
                  reader: Callable[[str], Module] | None = None) -> ModuleSignatures:
    """The signatures of the definitions named in `wanted` (module-relative qualnames) that the module has.

    Only their source spans are parsed (tree-sitter's `facts` of the same source give them),
    with the same-file bases a class's constructor may come from; the result holds the
    wanted definitions only, and `all_names` from the facts. When a span cannot be read
    alone (facts that are partial, a class defined twice around a method, a span that
    does not parse by itself), the whole module is read. Raises SignatureParseError.
    """
    text = _text(source)
    try:
        defs = _read_spans(text, facts, wanted, reader)
    except _Whole:
        builder = _Builder()
        builder.block(read(text, reader=reader).definitions)
        defs = builder.in_source_order()
    return ModuleSignatures({q: sig for q, sig in defs.items() if q in wanted}, facts.all_names)


def _read_spans(text: str, facts: FileFacts, wanted: Collection[str], reader: Callable[[str], Module] | None) -> dict[str, Signature]:
    if not facts.parsed or facts.warnings:
        raise _Whole  # tree-sitter's facts may be partial: their spans are not to be trusted
    by_name: dict[str, list[FactsDefinition]] = {}
    for d in facts.definitions:
        if "<locals>" not in d.qualname:
            by_name.setdefault(d.qualname, []).append(d)
    methods: dict[str, list[FactsDefinition]] = {}
    for d in facts.definitions:
        if d.kind is ModelDefKind.METHOD:
            methods.setdefault(d.qualname.rpartition(".")[0], []).append(d)
    needed = _with_bases({q for q in wanted if q in by_name}, by_name)
    spans = sorted((d for q in needed for d in by_name[q]), key=lambda d: (d.line, -d.end_line))
    lines = text.split("\n")
    builder = _Builder()
    covered = 0  # last line of the span read last: a span inside it (a method of a class read whole) was read with it
    for d in spans:
        if d.end_line <= covered:
            continue
        parent = d.qualname.rpartition(".")[0]
        if parent and any(len(by_name.get(p, ())) > 1 for p in _ancestors(parent)):
            raise _Whole  # a class defined twice: which one holds the method is decided by the whole module
        # A class is read for its constructor: its other methods (unless wanted) are left out.
        skipped = [m for m in methods.get(d.qualname, ()) if d.line < m.line <= d.end_line
                   and m.qualname not in wanted and m.qualname.rpartition(".")[2] not in _CONSTRUCTORS]
        module = _read_span(lines, d, reader, skipped)
        builder.stack = parent.split(".") if parent else []
        builder.block(module.definitions)
        covered = d.end_line
    return builder.in_source_order()


def _read_span(lines: list[str], d: FactsDefinition, reader: Callable[[str], Module] | None,
               skipped: Sequence[FactsDefinition] = ()) -> Module:
    """One definition, decorators included, parsed alone; its records carry the file's line numbers."""
    cut = _span_text(lines, d, skipped)
    if cut is None:
        raise _Whole
    span, offset = cut
    try:
        module = read(span, reader=reader)
    except SignatureParseError:
        raise _Whole from None
    found = tuple(_shifted(f, offset) for f in module.definitions)
    if (len(found) != 1 or found[0].name != d.qualname.rpartition(".")[2] or found[0].line != d.line
            or len(found[0].decorators) != len(d.decorators)):
        raise _Whole
    return module._replace(definitions=found)


def _span_text(lines: Sequence[str], d: FactsDefinition, skipped: Sequence[FactsDefinition] = ()) -> tuple[str, int] | None:
    """The source of one definition (tree-sitter's), decorators included, as a module of its own, and
    how many lines of the file precede that module's first; None when its lines cannot be told.
    `lines`: the file's, split at "\n". `skipped`: methods of a class `d` left out (each becomes `pass`)."""
    first = _span_start(lines, d)
    if first is None:
        return None
    indent = lines[d.line - 1][:d.col]
    body = list(lines[first:d.end_line])
    for m in skipped:
        start = _span_start(lines, m)
        if start is None or not first < start <= m.end_line <= d.end_line:
            continue
        body[start - first:m.end_line - first] = [lines[m.line - 1][:m.col] + "pass"] + [""] * (m.end_line - start - 1)
    text = "\n".join(body)
    # A method's lines are indented: an `if 1:` block takes them as they are (strings and
    # continuation lines keep their text).
    return (text, first) if not indent else ("if 1:\n" + text, first - 1)


def _span_start(lines: Sequence[str], d: FactsDefinition) -> int | None:
    """The 0-based index of a definition's first line, its decorators'; None when it cannot be told."""
    first = d.line - 1  # the `def` / `class` line
    indent = lines[first][:d.col] if first < len(lines) else "x"
    if indent.strip():
        return None
    need = len(d.decorators)
    while need and first > 0:  # the decorator lines above, at the same indentation
        first -= 1
        if lines[first].startswith(indent) and lines[first][len(indent):].startswith("@"):
            need -= 1
    return None if need else first


def _shifted(d: Definition, offset: int) -> Definition:
    """A definition read from a span, at the file's line numbers."""
    if not offset:
        return d
    if isinstance(d, Function):
        return d._replace(line=d.line + offset)
    return d._replace(line=d.line + offset, body=tuple(_shifted(m, offset) for m in d.body))


def _ancestors(qualname: str) -> Iterable[str]:
    parts = qualname.split(".")
    return (".".join(parts[:i]) for i in range(1, len(parts) + 1))


def _with_bases(qualnames: set[str], by_name: Mapping[str, Sequence[FactsDefinition]]) -> set[str]:
    """The classes named, with the same-file classes their constructors may come from (bases, transitively)."""
    out = set(qualnames)
    todo = list(qualnames)
    while todo:
        q = todo.pop()
        parent = q.rpartition(".")[0]
        for d in by_name.get(q, ()):
            for base in d.bases:
                for candidate in (f"{parent}.{base}" if parent else base, base):
                    if candidate in by_name and candidate not in out:
                        out.add(candidate)
                        todo.append(candidate)
    return out


def dependents(facts: FileFacts, qualnames: Collection[str]) -> set[str]:
    """`qualnames`, with the definitions of the same file whose signature follows from theirs.

    A class's signature is its constructor's: it follows from its `__init__` and `__new__`,
    and a same-file subclass inherits it (and a dataclass's fields), transitively.
    """
    classes = {d.qualname: d for d in facts.definitions if d.kind is ModelDefKind.CLASS}
    out = set(qualnames)
    for q in qualnames:
        parent, _, name = q.rpartition(".")
        if name in ("__init__", "__new__") and parent in classes:
            out.add(parent)
    subclasses: dict[str, set[str]] = {}
    for q, d in classes.items():
        for base in d.bases:  # by last name: a few too many is harmless, one too few is not
            subclasses.setdefault(base.rpartition(".")[2], set()).add(q)
    todo = [q for q in out if q in classes]
    while todo:
        for sub in subclasses.get(todo.pop().rpartition(".")[2], ()):
            if sub not in out:
                out.add(sub)
                todo.append(sub)
    return out
