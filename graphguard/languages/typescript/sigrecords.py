"""The signature model of a TypeScript or JavaScript file, and how a signature is written. Pure records.

The records are the Python package's (`Signature`, `Param`, `ModuleSignatures`), extended where TypeScript
needs more, so the check reads one model: `TsSignature` adds the overload set, accessors, `static`, whether
the definition is exported and JavaScript's lenient arity; `TsParam` adds the properties of a destructured
object parameter typed by an inline type literal. TypeScript has no keyword arguments, so every parameter
is positional-only (its name is no interface), `?` and a default are both `has_default`, `...rest` is
var-positional, and a `this:` parameter is no parameter at all.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from graphguard.languages.python.signature import ModuleSignatures, Param, ParamKind, Signature
from graphguard.model import DefKind

#: The exported name of what `module.exports = X` (TypeScript's `export = X`) makes the module itself.
EXPORT_EQUALS = "export="


class Accessor(enum.Enum):
    GET = "get"
    SET = "set"


@dataclass(frozen=True)
class Shape:
    """The inline type literal of a destructured object parameter (`{a, b}: {a: string; b?: number}`):
    the properties an object literal passed there must have, and those it may have."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    open: bool = False  # an index signature (`[k: string]: T`): any other property is accepted too

    @property
    def known(self) -> frozenset[str]:
        return frozenset(self.required) | frozenset(self.optional)


@dataclass(frozen=True)
class TsParam(Param):
    #: A destructured object parameter with an inline type literal; None for any other parameter.
    shape: Shape | None = None


@dataclass(frozen=True)
class TsSignature(Signature):
    """A TS/JS callable. `params` is the first callable overload's; `overloads` every callable overload's
    parameters when there are two or more (the implementation signature is not callable from outside then)."""

    overloads: tuple[tuple[Param, ...], ...] = ()
    accessor: Accessor | None = None  # a getter or setter: read or assigned, never called
    is_static: bool = False
    exported: bool = False  # exported from the file under some name (TsModuleSignatures.exports says which)
    #: A JavaScript definition without JSDoc `@param`s: TypeScript lets a caller leave out any parameter
    #: (too many arguments still fail), as the runtime does.
    lenient: bool = False

    @property
    def callable_sets(self) -> tuple[tuple[Param, ...], ...]:
        """Each parameter list a call may bind to: the overloads, or the one signature."""
        return self.overloads or (self.params,)

    @property
    def is_property(self) -> bool:
        return self.accessor is not None

    @property
    def is_staticmethod(self) -> bool:
        return self.kind is DefKind.METHOD and self.is_static

    @property
    def is_classmethod(self) -> bool:
        return False


@dataclass(frozen=True)
class TsModuleSignatures(ModuleSignatures):
    #: Exported name -> the file's own top-level qualname it names (`export {f as g}`: "g" -> "f";
    #: `export default function () {}`: "default" -> "default"). Re-exports from other files are not here.
    exports: Mapping[str, str] = field(default_factory=dict)


def render(kind: DefKind, name: str, sets: tuple[tuple[Param, ...], ...], returns: str | None, is_async: bool,
            prefix: str = "") -> str:
    """`function f(a: string, b?: number): void`, `static async m(x)`; overloads joined by "; "."""
    head = {DefKind.CLASS: "class", DefKind.METHOD: prefix}.get(kind, "function")
    head = f"async {head}".strip() if is_async else head
    name = "" if name == "default" and kind is DefKind.FUNCTION else name
    tail = f": {returns}" if returns else ""
    return "; ".join(f"{head} {name}({', '.join(_param_text(p) for p in params)}){tail}".strip() for params in sets)


def _param_text(p: Param) -> str:
    text = f"...{p.name}" if p.kind is ParamKind.VAR_POSITIONAL else p.name
    if p.has_default and p.default is None:
        text += "?"
    if p.annotation:
        text += f": {p.annotation}"
    if p.default is not None:
        text += f" = {p.default}"
    return text
