"""What a name resolves to: a symbol, a module, an instance, something external, a limit, or several of these."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass, field

from graphguard.model import DefKind, Resolution

BUILTINS = frozenset(dir(builtins))
MAX_DEPTH = 24  # re-export chains and alias loops end here
MAX_INHERITANCE = 64  # classes walked up from one class looking for a member (a base costs no MAX_DEPTH step)
#: A name bound more often than this in one scope is resolved as if every binding reached every use
#: (the reaching sets cost the square of the bindings).
MAX_FLOW = 64

# --- targets ------------------------------------------------------------------------


@dataclass(frozen=True)
class Sym:
    path: str
    qualname: str  # full dotted name: module + local qualname
    local: str  # module-relative qualname
    kind: DefKind


@dataclass(frozen=True)
class Mod:
    name: str
    path: str | None  # None for a namespace package folder


@dataclass(frozen=True)
class Inst:
    """An instance of `cls`. Declared: its type comes from an annotation (a parameter's, a variable's,
    a return's), so it may be a subclass's instance; not compared, so that resolution is as before."""

    cls: Sym
    declared: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Ext:
    name: str


@dataclass(frozen=True)
class Partial:
    """A callable from functools.partial: arguments were bound earlier."""

    func: Sym


@dataclass(frozen=True)
class Data:
    """A name the repository defines whose value we do not follow (`HORIZONTAL = 1`)."""

    path: str
    qualname: str


@dataclass(frozen=True)
class Limit:
    """Resolution stopped at a limit: the name may well reach a definition (never memoised: depth-dependent)."""

    resolution: Resolution  # TOO_DEEP (inheritance) or TOO_LONG (imports and aliases)


@dataclass(frozen=True)
class OneOf:
    """Several targets: the name holds a different one on different paths (`if c: k = A` / `else: k = B`).

    Its options are targets that can be followed (never None, Data, Limit or another OneOf),
    distinct, at least two.
    """

    options: tuple[Sym | Mod | Inst | Partial | Ext, ...]


TOO_LONG = Limit(Resolution.TOO_LONG)
TOO_DEEP = Limit(Resolution.TOO_DEEP)

#: Why a limited site is undecidable, by its resolution value.
LIMIT_REASONS = {
    Resolution.TOO_DEEP.value: f"inheritance deeper than {MAX_INHERITANCE} levels",
    Resolution.TOO_LONG.value: f"more than {MAX_DEPTH} steps of imports, aliases and attributes",
}

Target = Sym | Mod | Inst | Ext | Partial | Data | Limit | OneOf | None
#: What one reaching binding can contribute to a OneOf.
_FOLLOWED = (Sym, Mod, Inst, Partial, Ext)


def one_of(targets: Sequence[Target]) -> Target:
    """The targets a name can hold, joined: the followed ones (one, or a OneOf of several), else the first."""
    options: list[Sym | Mod | Inst | Partial | Ext] = []
    for t in targets:
        for o in t.options if isinstance(t, OneOf) else (t,):
            if isinstance(o, _FOLLOWED) and o not in options:
                options.append(o)
    if len(options) > 1:
        return OneOf(tuple(options))
    if options:
        return options[0]
    # Nothing to follow: a limit says more than data, data more than nothing.
    return next((t for t in targets if isinstance(t, Limit)), next((t for t in targets if t is not None), None))


def options_of(t: Target) -> tuple[Target, ...]:
    return t.options if isinstance(t, OneOf) else (t,)
