"""Comparing the signature model's two readers (ast and LibCST), and spans against whole modules.

Shared by tests/test_signature_readers.py and bench/signature_readers.py. Sources are data:
read as text, never imported.
"""

from __future__ import annotations

from graphguard.languages.python import fields, signature, spans
from graphguard.languages.python import parse as python
from graphguard.languages.python.sigread import ast_reader
from graphguard.languages.python.sigread.records import NotRead


def rows(ms: signature.ModuleSignatures) -> object:
    """Everything a ModuleSignatures holds, what equality ignores included (lines, texts, default texts)."""
    return ([(q, s, s.line, s.text, [p.default for p in s.params]) for q, s in ms.defs.items()], ms.all_names)


def whole(source: str, reader: str) -> signature.ModuleSignatures:
    """The module read whole by one reader ("ast" or "cst"); raises SignatureParseError."""
    module = signature.read(source, reader=ast_reader.read if reader == "ast" else signature.cst_read)
    builder = signature._Builder()
    builder.block(module.definitions)
    return signature.ModuleSignatures(builder.in_source_order(), fields._all_names(module.all_ops))


def readers_differ(source: str) -> str | None:
    """None when both readers give the same model (or neither reads the source, or `ast` cannot:
    then LibCST is the reader); else what differs."""
    outcomes = []
    for reader in ("ast", "cst"):
        try:
            outcomes.append(rows(whole(source, reader)))
        except signature.SignatureParseError as e:
            outcomes.append(f"error: {e}")
        except NotRead:
            return None
    if outcomes[0] == outcomes[1]:
        return None
    return _first_difference(outcomes[0], outcomes[1])


def spans_differ(source: str, *, one_by_one: bool = True) -> tuple[str | None, int]:
    """None when reading spans gives what reading the whole module gives, for all definitions at once
    and (one_by_one) for each alone; and how many span reads fell back to the whole module."""
    data = source.encode("utf-8", "surrogatepass")
    facts = python.parse(data)
    try:
        full = signature.extract(data)
    except signature.SignatureParseError:
        return None, 0
    names = [d.qualname for d in facts.definitions if "<locals>" not in d.qualname]
    groups = [set(names)] + ([{q} for q in dict.fromkeys(names)] if one_by_one else [])
    fallbacks = 0
    for wanted in groups:
        try:
            spans._read_spans(signature._text(data), facts, wanted, None)
        except spans._Whole:
            fallbacks += 1
        got = rows(spans.extract_spans(data, facts, wanted))
        expected = rows(signature.ModuleSignatures({q: s for q, s in full.defs.items() if q in wanted}, facts.all_names))
        if got != expected:
            return f"wanted {sorted(wanted)[:3]}: " + _first_difference(got, expected), fallbacks
    return None, fallbacks


def _first_difference(a: object, b: object) -> str:
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 2 and isinstance(a[0], list) and isinstance(b[0], list):
        for x, y in zip(a[0], b[0], strict=False):
            if x != y:
                return f"{x!r} != {y!r}"
        if len(a[0]) != len(b[0]):
            return f"{len(a[0])} definitions != {len(b[0])}: {[r[0] for r in a[0]]} / {[r[0] for r in b[0]]}"[:400]
        return f"__all__ {a[1]!r} != {b[1]!r}"
    return f"{str(a)[:200]} != {str(b)[:200]}"
