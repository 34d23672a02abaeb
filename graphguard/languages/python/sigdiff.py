"""Interface changes between two versions of a module's signatures. Pure.

The logic: definitions are paired by qualname. Those left over on either side are
paired as renames when their shape (everything but the name) is unchanged, and
cross-module as moves by `find_moves`; the rest are removed. Each pair of
signatures goes through `signature_changes`, a generator with one commented rule
per check, yielding stable codes such as "param-removed:at". A change to the body
only yields nothing. Whether a change breaks a given caller is not decided here:
`binding.bind` decides that against the new signature.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from graphguard.codes import Code, CodeName, name_of
from graphguard.languages.python.signature import ModuleSignatures, Param, ParamKind, Signature
from graphguard.model import DefKind
from graphguard.result import INFORMATIONAL, ChangeKind

#: The code of every definition of a file whose old version did not parse: its old signature is unknown.
OLD_UNPARSABLE = Code(CodeName.OLD_VERSION_UNPARSABLE)


@dataclass(frozen=True)
class SymbolChange:
    qualname: str  # the old module-relative qualname
    change: ChangeKind
    breaking: tuple[Code, ...]  # stable codes, in rule order (informational ones included)
    before: Signature | None
    after: Signature | None  # the new signature (renamed: the new def; moved: the def in its new module)
    new_qualname: str | None = None  # renamed / moved: the module-relative qualname it has now
    new_module: str | None = None  # moved: the module key it went to, as given to find_moves


def is_informational(code: str) -> bool:
    """A code that, by itself, leaves every existing call working (result.INFORMATIONAL)."""
    return name_of(code) in INFORMATIONAL


def compare(old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[SymbolChange]:
    """Changes of one module's interface, sorted by old qualname.

    `compare(extract("def f(a): ..."), extract("def f(a, b): ..."))` is one SIGNATURE
    change of "f" with the codes ("required-param-added:b",).

    `kept`: top-level names the new module still binds otherwise (an import, an assignment).
    A definition under one of them is no rename's source: its name leads somewhere still,
    and it stays REMOVED here for the caller to say where (check.bound).
    """
    return compare_with(old, new, kept, _PYTHON)


def added(old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[Signature]:
    """Definitions new in `new`: not in `old` under their name, and not the target of a rename (`kept`: as for compare)."""
    return added_with(old, new, kept, _PYTHON.shape)


@dataclass(frozen=True)
class Rules:
    """What one language decides when two versions of a module are compared; the pairing is the same for both
    (TypeScript's sigdiff passes its own: shapes without parameter names, and its exports' changes)."""

    #: Everything a caller depends on except the name: equal shapes make a rename.
    shape: Callable[[Signature], tuple[object, ...]]
    #: The codes of what changed between two signatures of one definition.
    signature_changes: Callable[[Signature, Signature], Iterator[Code]]
    #: The changes of a definition still there under its name (qualname, before, after).
    kept_definition: Callable[[str, Signature, Signature], Iterable[SymbolChange]]


def compare_with(old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str], rules: Rules) -> list[SymbolChange]:
    """`compare` by a language's rules: definitions paired by qualname, then as renames, the rest removed."""
    renames = _renames(old.defs, new.defs, kept, rules.shape)
    changes: list[SymbolChange] = []
    for qualname, before in old.defs.items():
        after = new.defs.get(qualname)
        if after is not None:
            changes += rules.kept_definition(qualname, before, after)
        elif qualname in renames:
            target = renames[qualname]
            codes = (Code(CodeName.RENAMED, target), *rules.signature_changes(before, new.defs[target]))
            changes.append(SymbolChange(qualname, ChangeKind.RENAMED, codes, before, new.defs[target], target))
        else:
            changes.append(SymbolChange(qualname, ChangeKind.REMOVED, (Code(CodeName.REMOVED),), before, None))
    return sorted(changes, key=lambda c: c.qualname)


def added_with(old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str],
               shape: Callable[[Signature], tuple[object, ...]]) -> list[Signature]:
    """`added` by a language's rename shape."""
    targets = set(_renames(old.defs, new.defs, kept, shape).values())
    return [sig for q, sig in new.defs.items() if q not in old.defs and q not in targets]


def _kept_definition(qualname: str, before: Signature, after: Signature) -> Iterator[SymbolChange]:
    codes = tuple(signature_changes(before, after))
    if codes:
        yield SymbolChange(qualname, ChangeKind.SIGNATURE, codes, before, after)


def find_moves(
    removed: Sequence[tuple[str, SymbolChange]], added: Sequence[tuple[str, Signature]]
) -> list[tuple[str, SymbolChange]]:
    """Turn removals into moves across modules.

    `removed` holds (module, change) for the changes of every module (other kinds pass
    through untouched); `added` holds (module, signature) from `added()` of every module.
    Modules are dotted names. A REMOVED def becomes MOVED when exactly one other module
    gained a def with the same qualname, kind and parameters, and no other removal
    claims it. The result is `removed` in order, with those changes replaced.
    """
    gained: dict[tuple[str, tuple[object, ...]], list[tuple[str, Signature]]] = defaultdict(list)
    for module, sig in added:
        gained[(sig.qualname, _move_shape(sig))].append((module, sig))
    lost: dict[tuple[str, tuple[object, ...]], int] = defaultdict(int)
    for module, ch in removed:
        if ch.change is ChangeKind.REMOVED and ch.before is not None:
            lost[(ch.qualname, _move_shape(ch.before))] += 1
    out = []
    for module, ch in removed:
        if ch.change is ChangeKind.REMOVED and ch.before is not None:
            key = (ch.qualname, _move_shape(ch.before))
            candidates = [(m, sig) for m, sig in gained.get(key, ()) if m != module]
            if len(candidates) == 1 and lost[key] == 1:
                target_module, sig = candidates[0]
                code = Code(CodeName.MOVED, f"{target_module}.{sig.qualname}" if target_module else sig.qualname)
                ch = replace(ch, change=ChangeKind.MOVED, breaking=(code,), after=sig,
                             new_qualname=sig.qualname, new_module=target_module)
        out.append((module, ch))
    return out


def signature_changes(before: Signature, after: Signature) -> Iterator[Code]:
    """Codes for what changed between two signatures of one definition, rule by rule."""
    # The definition changed kind: a function became a class, or the reverse.
    if before.kind != after.kind:
        yield Code(CodeName.KIND_CHANGED, f"{before.kind.value}->{after.kind.value}")

    # A class's constructor moved to, or came back from, a base outside this file:
    # its parameters cannot be compared here.
    if before.constructor_known and not after.constructor_known:
        yield Code(CodeName.CONSTRUCTOR_INHERITED)
    elif after.constructor_known and not before.constructor_known:
        yield Code(CodeName.CONSTRUCTOR_DEFINED)
    elif before.constructor_known:  # an opaque signature's changes are still listed: its calls are unknown (binding)
        yield from param_changes(callable_params(before), callable_params(after))

    yield from outer_changes(before, after)


def outer_changes(before: Signature, after: Signature) -> Iterator[Code]:
    """The rules both languages share, after the parameters': the return annotation, async, the decorators."""
    # The return annotation (TypeScript: type) changed: informational, it breaks no call.
    if before.returns != after.returns:
        yield Code(CodeName.RETURN_ANNOTATION_CHANGED)

    # async <-> sync: every caller (TypeScript: that uses the result) must start or stop awaiting.
    if before.is_async != after.is_async:
        yield Code(CodeName.BECAME_ASYNC if after.is_async else CodeName.BECAME_SYNC)

    # The decorators changed: they may wrap (TypeScript: replace) the definition in anything.
    if before.decorators != after.decorators:
        yield Code(CodeName.DECORATOR_CHANGED)


def callable_params(sig: Signature) -> tuple[Param, ...]:
    """What a caller passes: a bound method's self/cls is supplied by Python, so its name is no interface."""
    params = sig.params
    if sig.kind is DefKind.METHOD and not sig.is_staticmethod and params and params[0].kind.is_positional:
        return params[1:]
    return params


def param_changes(old: Sequence[Param], new: Sequence[Param]) -> Iterator[Code]:
    """Codes for the parameter lists of one callable, as a caller sees them."""
    old_named = [p for p in old if not p.kind.is_variadic]
    new_named = [p for p in new if not p.kind.is_variadic]
    old_by = {p.name: p for p in old_named}
    new_by = {p.name: p for p in new_named}
    gone = [p for p in old_named if p.name not in new_by]
    fresh = [p for p in new_named if p.name not in old_by]

    # Pair a parameter that disappeared with one that appeared at the same index, of the same kind: a rename.
    renamed: dict[str, Param] = {}
    for p in gone:
        i = old_named.index(p)
        q = new_named[i] if i < len(new_named) else None
        if q is not None and q in fresh and q.kind is p.kind and q not in renamed.values():
            renamed[p.name] = q

    # Renamed in place: keyword callers break. A positional-only name is invisible to callers.
    for old_name, q in renamed.items():
        if q.kind is not ParamKind.POSITIONAL_ONLY:
            yield Code(CodeName.PARAM_RENAMED, f"{old_name}->{q.name}")

    # Removed: callers passing it, by position or by keyword, break (unless *args/**kwargs absorb it).
    for p in gone:
        if p.name not in renamed:
            yield Code(CodeName.PARAM_REMOVED, p.name)

    # Added: a required one breaks every existing call; an optional one none.
    for q in fresh:
        if q not in renamed.values():
            yield Code(CodeName.REQUIRED_PARAM_ADDED if q.required else CodeName.OPTIONAL_PARAM_ADDED, q.name)

    pairs = [(p, new_by[p.name]) for p in old_named if p.name in new_by] + [(old_by[o], q) for o, q in renamed.items()]

    # Kind changed: positional-or-keyword -> keyword-only (a `*` inserted) and the like.
    for p, q in pairs:
        if p.kind is not q.kind:
            yield Code(CodeName.PARAM_KIND_CHANGED, q.name)

    # Default removed: callers that omitted the argument break. Default added: none do.
    for p, q in pairs:
        if p.has_default and not q.has_default:
            yield Code(CodeName.DEFAULT_REMOVED, q.name)
        elif q.has_default and not p.has_default:
            yield Code(CodeName.DEFAULT_ADDED, q.name)

    # Annotation changed (informational).
    for p, q in pairs:
        if p.annotation != q.annotation:
            yield Code(CodeName.PARAM_ANNOTATION_CHANGED, q.name)

    # Positional order: the same parameters in another order bind positional calls to the
    # wrong names; a shift (a parameter inserted or removed before) does the same, silently.
    new_name = {o: q.name for o, q in renamed.items()}
    old_pos = [new_name.get(p.name, p.name) for p in old_named if p.kind.is_positional]
    new_pos = [q.name for q in new_named if q.kind.is_positional]
    common = set(old_pos) & set(new_pos)
    old_order = [n for n in old_pos if n in common]
    new_order = [n for n in new_pos if n in common]
    if old_order != new_order:
        yield Code(CodeName.PARAMS_REORDERED)
    else:
        for name in old_order:
            if old_pos.index(name) != new_pos.index(name):
                yield Code(CodeName.PARAM_POSITION_CHANGED, name)

    # *args / **kwargs removed or added; their own names are no interface.
    for kind, star in ((ParamKind.VAR_POSITIONAL, "*"), (ParamKind.VAR_KEYWORD, "**")):
        before = next((p for p in old if p.kind is kind), None)
        after = next((p for p in new if p.kind is kind), None)
        if before is not None and after is None:
            yield Code(CodeName.PARAM_REMOVED, f"{star}{before.name}")
        elif after is not None and before is None:
            yield Code(CodeName.OPTIONAL_PARAM_ADDED, f"{star}{after.name}")


def _shape(sig: Signature) -> tuple[object, ...]:
    """Everything a caller depends on except the name: equal shapes make a rename."""
    return (sig.kind, callable_params(sig), sig.returns, sig.decorators, sig.is_async,
            sig.constructor_known, sig.opaque)


def _move_shape(sig: Signature) -> tuple[object, ...]:
    return (sig.kind, callable_params(sig), sig.constructor_known)


def _renames(old: Mapping[str, Signature], new: Mapping[str, Signature], kept: Collection[str],
             shape: Callable[[Signature], tuple[object, ...]]) -> dict[str, str]:
    """Old qualname -> new qualname, for definitions renamed within the module (TypeScript's too: its `shape`).

    Shallow names first, so that a renamed class carries its members: `Cart.total`
    pairs with `Basket.total` whatever its shape (its own changes are reported too).
    Otherwise a pair needs the same parent and the same shape, and must be the only
    candidate both ways: `def a(): ...` and `def b(): ...` both gone and `c`, `d` new
    stay removed rather than guessed. A definition under a `kept` name is no source.
    """
    gone = [q for q in old if q not in new and q.split(".", 1)[0] not in kept]
    fresh = {q for q in new if q not in old}
    mapping: dict[str, str] = {}
    for depth in sorted({q.count(".") for q in gone}):
        by_key: dict[tuple[str, tuple[object, ...]], list[str]] = defaultdict(list)
        for q in (q for q in gone if q.count(".") == depth):
            parent, _, name = q.rpartition(".")
            if parent in mapping:
                target = f"{mapping[parent]}.{name}"
                if target in fresh:
                    mapping[q] = target
                    fresh.discard(target)
                    continue
            by_key[(mapping.get(parent, parent), shape(old[q]))].append(q)
        targets: dict[tuple[str, tuple[object, ...]], list[str]] = defaultdict(list)
        for f in sorted(fresh):
            if f.count(".") == depth:
                targets[(f.rpartition(".")[0], shape(new[f]))].append(f)
        for key, sources in by_key.items():
            if len(sources) == 1 and len(targets.get(key, ())) == 1:
                mapping[sources[0]] = targets[key][0]
                fresh.discard(targets[key][0])
    return mapping


_PYTHON = Rules(_shape, signature_changes, _kept_definition)
