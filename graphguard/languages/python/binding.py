"""Does a call, as written, bind to a signature? Pure.

This simulates CPython's argument binding (`initialize_locals` in ceval.c) on the
shape of a call: how many positional arguments, which keyword names, and whether
`*args` / `**kwargs` are spread into it. The checks run in CPython's order, so the
reason is the one Python would raise, minus the function name. A spread argument
hides how many values it brings: such a call is `unknown` when some expansion
binds, and `broken` only when none can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphguard.languages.python.signature import Param, ParamKind, Signature
from graphguard.model import CallShape, DefKind
from graphguard.result import Status

__all__ = ["FORWARDING", "Binding", "CallShape", "Landing", "Status", "bind", "landing"]


@dataclass(frozen=True)
class Binding:
    status: Status
    reason: str


FORWARDING = "*args/**kwargs forwarding"


def bind(call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Binding:
    """Bind `call` to `sig` as CPython would.

    `implicit_first`: the call goes through an instance or class binding (`obj.m()`,
    `self.m()`, `cls.m()` on a classmethod), so Python supplies the first parameter.
    It is ignored for a staticmethod, which is never bound.
    """
    if sig.opaque:
        return Binding(Status.UNKNOWN, "a decorator hides the real signature")
    if sig.kind is DefKind.CLASS and not sig.constructor_known:
        return Binding(Status.UNKNOWN, "the constructor is inherited from a class defined elsewhere")
    if sig.is_property:
        return Binding(Status.UNKNOWN, "a property: the call is made on the value it returns")
    implicit = 1 if implicit_first and sig.kind is DefKind.METHOD and not sig.is_staticmethod else 0
    n_positional = call.n_positional + implicit
    if not (call.has_star or call.has_starstar):
        error = _bind(sig.params, n_positional, call.keywords, spread_keywords=False)
        return Binding(Status.BROKEN, error[1]) if error else Binding(Status.OK, "binds")
    # `*args` may bring any number of values: try each count that can make a difference.
    n_slots = sum(1 for p in sig.params if p.kind.is_positional)
    extra_counts = range(max(n_slots - n_positional, 0) + 2) if call.has_star else range(1)
    errors = [_bind(sig.params, n_positional + k, call.keywords, spread_keywords=call.has_starstar)
              for k in extra_counts]
    failures = [e for e in errors if e is not None]
    if len(failures) < len(errors):
        return Binding(Status.UNKNOWN, FORWARDING)
    # No expansion binds: report the one that came closest (failed at the latest check).
    return Binding(Status.BROKEN, max(failures, key=lambda e: e[0])[1])


@dataclass(frozen=True)
class Landing:
    """Where the arguments written at a call land in one signature: each is a parameter,
    or the `*args` / `**kwargs` that collects it."""

    positional: tuple[Param, ...]  # one per positional argument written, in order
    keywords: tuple[tuple[str, Param], ...]  # (keyword as written, the parameter it reaches)


def landing(call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Landing | None:
    """Where each argument of `call` lands in `sig`, for a call that binds (`bind` says OK).

    None when `*args` or `**kwargs` is spread into the call (the positions behind them are
    unknown), or when an argument lands nowhere (the call does not bind).
    """
    if call.has_star or call.has_starstar:
        return None
    implicit = 1 if implicit_first and sig.kind is DefKind.METHOD and not sig.is_staticmethod else 0
    slots = [p for p in sig.params if p.kind.is_positional]
    var_positional = next((p for p in sig.params if p.kind is ParamKind.VAR_POSITIONAL), None)
    var_keyword = next((p for p in sig.params if p.kind is ParamKind.VAR_KEYWORD), None)
    by_keyword = {p.name: p for p in sig.params if p.kind in (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)}
    positional: list[Param] = []
    for i in range(implicit, implicit + call.n_positional):
        param = slots[i] if i < len(slots) else var_positional
        if param is None:
            return None
        positional.append(param)
    keywords: list[tuple[str, Param]] = []
    for name in call.keywords:
        param = by_keyword.get(name, var_keyword)
        if param is None:
            return None
        keywords.append((name, param))
    return Landing(tuple(positional), tuple(keywords))


def _bind(params: Sequence[Param], n_positional: int, keywords: Sequence[str], *,
          spread_keywords: bool) -> tuple[int, str] | None:
    """(check number, error) of the first check CPython fails for this call, or None when it binds.

    `spread_keywords`: a `**kwargs` at the call supplies whatever keyword-capable
    parameter is still missing (and nothing else).
    """
    positional = [p for p in params if p.kind.is_positional]
    var_positional = any(p.kind is ParamKind.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind is ParamKind.VAR_KEYWORD for p in params)
    by_keyword = {p.name: p for p in params if p.kind in (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)}
    filled = {p.name for p in positional[:n_positional]}

    # Duplicate keywords are a SyntaxError at the call; say so rather than guess.
    seen: set[str] = set()
    for name in keywords:
        if name in seen:
            return 0, f"keyword argument repeated: '{name}'"
        seen.add(name)

    # Keywords bind by name; positional-only parameters are not names for this purpose.
    for name in keywords:
        if name not in by_keyword:
            if var_keyword:
                continue  # collected by **kwargs, even when a positional-only parameter has that name
            posonly = [k for k in keywords if any(p.name == k and p.kind is ParamKind.POSITIONAL_ONLY for p in params)]
            if posonly:
                return 1, f"positional-only argument{'s' if len(posonly) > 1 else ''} {_names(posonly)} passed as keyword"
            return 1, f"unexpected keyword argument '{name}'"
        if name in filled:
            return 1, f"got multiple values for argument '{name}'"
        filled.add(name)

    # Too many positional arguments for the positional parameters, and no *args to take the rest.
    if n_positional > len(positional) and not var_positional:
        kwonly_given = sum(1 for k in keywords if k in by_keyword and by_keyword[k].kind is ParamKind.KEYWORD_ONLY)
        return 2, _too_many(positional, n_positional, kwonly_given)

    # Missing: required parameters that nothing filled (a spread **kwargs may fill keyword-capable ones).
    def missing(kinds: tuple[ParamKind, ...]) -> list[str]:
        return [p.name for p in params if p.kind in kinds and p.required and p.name not in filled
                and not (spread_keywords and p.kind is not ParamKind.POSITIONAL_ONLY)]

    if names := missing((ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)):
        return 3, f"missing required argument{'s' if len(names) > 1 else ''} {_names(names)}"
    if names := missing((ParamKind.KEYWORD_ONLY,)):
        return 4, f"missing required keyword-only argument{'s' if len(names) > 1 else ''} {_names(names)}"
    return None


def _too_many(positional: Sequence[Param], given: int, kwonly_given: int) -> str:
    """CPython's wording: "takes from 1 to 2 positional arguments but 3 were given"."""
    n_defaults = sum(1 for p in positional if p.has_default)
    if n_defaults:
        takes = f"from {len(positional) - n_defaults} to {len(positional)} positional arguments"
    else:
        takes = f"{len(positional)} positional argument{'' if len(positional) == 1 else 's'}"
    if kwonly_given:
        plural = "s" if kwonly_given != 1 else ""
        return f"takes {takes} but {given} positional argument{'s' if given != 1 else ''} " \
               f"(and {kwonly_given} keyword-only argument{plural}) were given"
    return f"takes {takes} but {given} {'was' if given == 1 else 'were'} given"


def _names(names: Sequence[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
