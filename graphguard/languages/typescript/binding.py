"""Does a call, as written, bind to a TS/JS signature? Pure.

TypeScript checks a call's arity against each parameter list it may bind to (every overload): too
few arguments for the required parameters, or too many without a rest, is a compiler error, worded here
as tsc words it (TS2554, TS2555, TS2575). TypeScript has no keyword arguments: a `CallShape` carries the
count of arguments and whether a spread (`f(...xs)`) hides how many there are; its `keywords` carry the
keys of object-literal arguments (`literal_keywords`), checked against a destructured parameter's type.
JavaScript callers are bound by the same rule: that is what tsc does not check without `checkJs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphguard.languages.python.binding import Binding, Landing
from graphguard.languages.python.signature import Param, ParamKind, Signature
from graphguard.languages.typescript.sigrecords import Shape, TsSignature
from graphguard.model import CallShape, DefKind
from graphguard.result import Status

__all__ = ["SPREAD", "Binding", "Landing", "bind", "landing", "literal_keys", "literal_keywords"]

SPREAD = "a spread argument: how many values it brings cannot be counted"
#: A key of an object literal whose keys are not all known (`{...rest, a: 1}`).
UNKNOWN_KEYS = "..."


def literal_keywords(index: int, keys: Iterable[str], *, spread: bool = False) -> tuple[str, ...]:
    """How a call's `CallShape.keywords` carries the keys of its object-literal argument at `index`
    (0-based): `"1:tz"` for `f(a, {tz: 1})`; a literal with a spread adds `"1:..."` (its keys are not all known).
    Python keywords never hold a colon, so the two uses cannot be confused."""
    return (*(f"{index}:{k}" for k in keys), *((f"{index}:{UNKNOWN_KEYS}",) if spread else ()))


def literal_keys(call: CallShape) -> dict[int, frozenset[str]]:
    """Argument index -> the keys of the object literal written there (with UNKNOWN_KEYS if it spreads)."""
    out: dict[int, set[str]] = {}
    for keyword in call.keywords:
        index, colon, key = keyword.partition(":")
        if colon and index.isdigit():
            out.setdefault(int(index), set()).add(key)
    return {i: frozenset(keys) for i, keys in out.items()}


def bind(call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Binding:
    """Bind `call` to `sig` as tsc checks a call's arity: OK when some overload accepts it.

    `implicit_first` is the core's Python question (is `self` supplied?): a TS method has no such
    parameter, so it is ignored here.
    """
    del implicit_first
    if sig.opaque:
        return Binding(Status.UNKNOWN, "its parameter list does not parse")
    if sig.kind is DefKind.CLASS and not sig.constructor_known:
        return Binding(Status.UNKNOWN, "the constructor is inherited from a class defined elsewhere")
    if sig.is_property:
        return Binding(Status.UNKNOWN, "a getter or setter: the call is made on the value it returns")
    sets = sig.callable_sets if isinstance(sig, TsSignature) else (sig.params,)
    lenient = isinstance(sig, TsSignature) and sig.lenient
    arities = [_Arity.of(params, lenient=lenient) for params in sets]
    if call.has_star:
        # `f(...xs)`: tsc needs a rest parameter, or a tuple type it cannot see here.
        if any(a.at_least(call.n_positional) for a in arities):
            return Binding(Status.UNKNOWN, SPREAD)
        return Binding(Status.BROKEN, _arity_error(arities, call.n_positional))
    fitting = [params for params, a in zip(sets, arities, strict=True) if a.accepts(call.n_positional)]
    if not fitting:
        return Binding(Status.BROKEN, _arity_error(arities, call.n_positional))
    errors = [_literal_error(params, literal_keys(call)) for params in fitting]
    if any(e is None for e in errors):
        return Binding(Status.OK, "binds")
    return Binding(Status.BROKEN, next(e for e in errors if e is not None))


def landing(call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Landing | None:
    """The parameter each written argument reaches, for a call that binds (the core asks whether an argument
    now lands elsewhere). None with a spread, with overloads (which one tsc picks depends on the types), or
    when an argument reaches nothing. `implicit_first` is ignored, as in `bind`."""
    del implicit_first
    if call.has_star or (isinstance(sig, TsSignature) and sig.overloads):
        return None
    slots = [p for p in sig.params if p.kind is not ParamKind.VAR_POSITIONAL]
    rest = next((p for p in sig.params if p.kind is ParamKind.VAR_POSITIONAL), None)
    positional = [slots[i] if i < len(slots) else rest for i in range(call.n_positional)]
    if any(p is None for p in positional):
        return None
    return Landing(tuple(p for p in positional if p is not None), ())


@dataclass(frozen=True)
class _Arity:
    """How many arguments one parameter list takes: from `low` to `high` (None: any number, a rest)."""

    low: int
    high: int | None

    @classmethod
    def of(cls, params: Sequence[Param], *, lenient: bool) -> _Arity:
        positional = [p for p in params if p.kind is not ParamKind.VAR_POSITIONAL]
        rest = len(positional) < len(params)
        # A default before a required parameter does not make it optional: `f(a = 1, b)` needs two.
        low = 0 if lenient else max((i + 1 for i, p in enumerate(positional) if not p.has_default), default=0)
        return cls(low, None if rest else len(positional))

    def accepts(self, n: int) -> bool:
        return self.low <= n and (self.high is None or n <= self.high)

    def at_least(self, n: int) -> bool:
        """Can `n` written arguments plus a spread of any length fit?"""
        return self.high is None or n <= self.high


def _arity_error(arities: Sequence[_Arity], got: int) -> str:
    """tsc's wording: TS2554 "Expected 1-2 arguments, but got 3.", TS2555 "Expected at least 2 arguments,
    but got 1.", and for overloads on both sides of the count TS2575."""
    if len(arities) > 1:
        below = [a.high for a in arities if a.high is not None and a.high < got]
        above = [a.low for a in arities if a.low > got]
        if below and above:
            return (f"No overload expects {got} arguments, but overloads do exist that expect either "
                    f"{max(below)} or {min(above)} arguments.")
    low = min(a.low for a in arities)
    if got < low and any(a.high is None for a in arities):
        return f"Expected at least {low} arguments, but got {got}."
    high = max(a.low if a.high is None else a.high for a in arities)
    expected = str(low) if low == high else f"{low}-{high}"
    return f"Expected {expected} arguments, but got {got}."


def _literal_error(params: Sequence[Param], literals: dict[int, frozenset[str]]) -> str | None:
    """An object literal passed to a destructured parameter typed by an inline literal: every required
    property present (TS2741), no property the type does not have (TS2353)."""
    for index, keys in literals.items():
        shape = _shape_at(params, index)
        if shape is None or UNKNOWN_KEYS in keys:
            continue
        missing = [name for name in shape.required if name not in keys]
        if missing:
            return f"Property '{missing[0]}' is missing in the object literal but required in the type of parameter {index + 1}."
        extra = sorted(keys - shape.known)
        if extra and not shape.open:
            return f"Object literal may only specify known properties, and '{extra[0]}' does not exist in the type of parameter {index + 1}."
    return None


def _shape_at(params: Sequence[Param], index: int) -> Shape | None:
    positional = [p for p in params if p.kind is not ParamKind.VAR_POSITIONAL]
    shape = getattr(positional[index], "shape", None) if index < len(positional) else None
    return shape if isinstance(shape, Shape) else None
