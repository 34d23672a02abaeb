"""Interface changes between two versions of a TS/JS file's signatures. Pure.

The records are the Python package's (`SymbolChange`, the codes of graphguard/codes.py), so the check
reads one kind of change. Definitions are paired by qualname, then as renames when their shape (all but
the name) is unchanged; the rest are removed. What other files see is the file's exports, so an export
dropped, renamed or pointed elsewhere is a change too, on the definition it named. Whether a change
breaks a caller is not decided here: `binding.bind` decides that against the new signature.

TypeScript passes arguments by position only: a parameter's name is no interface (a renamed parameter
is no change), its order and count are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial

from graphguard.codes import Code, CodeName
from graphguard.languages.python import sigdiff as python
from graphguard.languages.python.sigdiff import SymbolChange
from graphguard.languages.python.signature import ModuleSignatures, Param, Signature
from graphguard.languages.typescript.sigrecords import Accessor, Shape, TsModuleSignatures, TsSignature
from graphguard.result import ChangeKind

__all__ = ["SymbolChange", "added", "compare", "find_moves", "signature_changes"]


def compare(old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[SymbolChange]:
    """Changes of one file's interface, sorted by old qualname (Python's pairing, by TypeScript's rules).

    `kept`: top-level names the new file still binds otherwise (an import, a re-export): a definition
    under one of them is no rename's source (the check says where the name leads now).
    """
    kept_definition = partial(_kept_definition, old_exports=_exports(old), new_exports=_exports(new), new_defs=new.defs)
    return python.compare_with(old, new, kept, python.Rules(_shape_of, signature_changes, kept_definition))


def added(old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[Signature]:
    """Definitions new in `new`: not in `old` under their name, and not a rename's target."""
    return python.added_with(old, new, kept, _shape_of)


def find_moves(removed: Sequence[tuple[str, SymbolChange]],
               added: Sequence[tuple[str, Signature]]) -> list[tuple[str, SymbolChange]]:
    """Removals that another file gained with the same qualname and shape are moves (Python's rule); the
    module is a path here, so the code names the target as `path#qualname`."""
    out = []
    for module, ch in python.find_moves(removed, added):
        if ch.change is ChangeKind.MOVED and ch.new_module is not None:
            ch = replace(ch, breaking=(Code(CodeName.MOVED, f"{ch.new_module}#{ch.new_qualname}"),))
        out.append((module, ch))
    return out


def _kept_definition(qualname: str, before: Signature, after: Signature, old_exports: Mapping[str, set[str]],
                     new_exports: Mapping[str, set[str]], new_defs: Mapping[str, Signature]) -> Iterator[SymbolChange]:
    """A definition still there: its signature's changes, then what happened to the names it is exported as."""
    codes = tuple(signature_changes(before, after))
    was, now = old_exports.get(qualname, set()), new_exports.get(qualname, set())
    lost = sorted(was - now)
    if "default" in lost:
        lost.remove("default")
        # The default export names another definition: a default import gets that one now.
        target = next((q for q, names in new_exports.items() if "default" in names), None)
        if target is not None and target in new_defs:
            yield SymbolChange(qualname, ChangeKind.SIGNATURE,
                               (Code(CodeName.DEFAULT_EXPORT_CHANGED, target), *signature_changes(before, new_defs[target])),
                               before, new_defs[target], target)
            if not lost:
                return
        else:
            lost.append("default")
    if lost and not now:
        # Other files' imports of it fail; this file's own calls still bind to `after`.
        yield SymbolChange(qualname, ChangeKind.REMOVED, (Code(CodeName.EXPORT_REMOVED, ",".join(lost)), *codes), before, after)
    elif lost:
        renamed = (Code(CodeName.EXPORT_RENAMED, f"{n}->{','.join(sorted(now - was)) or '?'}") for n in lost)
        yield SymbolChange(qualname, ChangeKind.RENAMED, (*renamed, *codes), before, after, qualname)
    elif codes:
        yield SymbolChange(qualname, ChangeKind.SIGNATURE, codes, before, after)


def _exports(sigs: ModuleSignatures) -> dict[str, set[str]]:
    """Qualname -> the names other files import it by: a top-level definition's own, and those of the
    namespace or object that holds a member with no definition of its own (`N.f`, `api.get`); a class's
    members go with their class (reported on it)."""
    exports = sigs.exports if isinstance(sigs, TsModuleSignatures) else {}
    by_local: dict[str, set[str]] = defaultdict(set)
    for name, local in exports.items():
        by_local[local].add(name)
    out: dict[str, set[str]] = {}
    for q in sigs.defs:
        top = q.split(".", 1)[0]
        if (q == top or top not in sigs.defs) and top in by_local and (q == top or getattr(sigs.defs[q], "exported", False)):
            out[q] = by_local[top]
    return out


def signature_changes(before: Signature, after: Signature) -> Iterator[Code]:
    """Codes for what changed between two signatures of one definition, rule by rule."""
    # A function became a class or the reverse: `new` is required, or refused.
    if before.kind != after.kind:
        yield Code(CodeName.KIND_CHANGED, f"{before.kind.value}->{after.kind.value}")

    # A method became a getter (read, not called) or the reverse.
    if _accessor(before) is not _accessor(after):
        yield Code(CodeName.ACCESSOR_CHANGED, f"{_member_word(before)}->{_member_word(after)}")

    # A method became static (called on the class) or the reverse (on an instance).
    if _static(before) != _static(after):
        yield Code(CodeName.STATIC_CHANGED, "static" if _static(after) else "instance")

    # A class's constructor now comes from, or no longer comes from, a base this file does not define.
    if before.constructor_known and not after.constructor_known:
        yield Code(CodeName.CONSTRUCTOR_INHERITED)
    elif after.constructor_known and not before.constructor_known:
        yield Code(CodeName.CONSTRUCTOR_DEFINED)
    elif before.constructor_known and not (before.opaque or after.opaque):  # a header that does not parse: no guesses
        yield from _call_changes(before, after)

    # The return type, async, the decorators: Python's rules.
    yield from python.outer_changes(before, after)


def _call_changes(before: Signature, after: Signature) -> Iterator[Code]:
    """The parameter lists a call binds to: one each side, or an overload set on either."""
    old_sets, new_sets = _sets(before), _sets(after)
    if len(old_sets) == 1 and len(new_sets) == 1:
        yield from param_changes(old_sets[0], new_sets[0])
    elif old_sets != new_sets:
        # A call binds when some overload accepts it: `bind` tries each of the new ones.
        yield Code(CodeName.OVERLOADS_CHANGED, f"{len(old_sets)}->{len(new_sets)}")


def param_changes(old: Sequence[Param], new: Sequence[Param]) -> Iterator[Code]:
    """Python's rules over positional-only parameters (renames are silent), then the properties of
    destructured object parameters, paired by position."""
    yield from python.param_changes(old, new)
    for i, (p, q) in enumerate(zip(_positional(old), _positional(new), strict=False)):
        a, b = _shape(p), _shape(q)
        if a is not None and b is not None:
            yield from _shape_changes(i, a, b)


def _shape_changes(index: int, old: Shape, new: Shape) -> Iterator[Code]:
    # A property the object literal passed must now have: literals without it fail.
    for name in new.required:
        if name in old.optional:
            yield Code(CodeName.PROPERTY_MADE_REQUIRED, f"{index}.{name}")
        elif name not in old.required:
            yield Code(CodeName.REQUIRED_PROPERTY_ADDED, f"{index}.{name}")
    # A property the type no longer has: a literal that passes it fails the excess property check.
    if not new.open:
        for name in (*old.required, *old.optional):
            if name not in new.known:
                yield Code(CodeName.PROPERTY_REMOVED, f"{index}.{name}")


# -- readers ---------------------------------------------------------------------------------------


def _sets(sig: Signature) -> tuple[tuple[Param, ...], ...]:
    return sig.callable_sets if isinstance(sig, TsSignature) else (sig.params,)


def _accessor(sig: Signature) -> Accessor | None:
    return sig.accessor if isinstance(sig, TsSignature) else None


def _member_word(sig: Signature) -> str:
    accessor = _accessor(sig)
    return "getter" if accessor is Accessor.GET else "setter" if accessor is Accessor.SET else sig.kind.value


def _static(sig: Signature) -> bool:
    return isinstance(sig, TsSignature) and sig.is_static


def _positional(params: Sequence[Param]) -> list[Param]:
    return [p for p in params if not p.kind.is_variadic]


def _shape(p: Param) -> Shape | None:
    shape = getattr(p, "shape", None)
    return shape if isinstance(shape, Shape) else None


# -- the shape a rename keeps (python.sigdiff pairs the renames) -----------------------------------


def _shape_of(sig: Signature) -> tuple[object, ...]:
    """Everything a caller depends on except the name: equal shapes make a rename."""
    # Parameter names are left out: TypeScript passes by position, so they are no interface.
    sets = tuple(tuple((p.kind, p.has_default, p.annotation, _shape(p)) for p in params) for params in _sets(sig))
    return (sig.kind, sets, sig.returns, sig.decorators, sig.is_async, sig.constructor_known, sig.opaque, _accessor(sig),
            _static(sig))
