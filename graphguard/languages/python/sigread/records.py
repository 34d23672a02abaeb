"""What a reader found in a module, before any rule of the signature model is applied. Pure records.

Expression texts are canonical (`ast.unparse`), so two readers of one source give equal
records, and reformatting a file changes none of them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


class SignatureParseError(ValueError):
    """The source could not be read as Python; the message is one line."""


class ParamKind(enum.Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "var-positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "var-keyword"

    @property
    def is_positional(self) -> bool:
        return self in (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)

    @property
    def is_variadic(self) -> bool:
        return self in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD)


@dataclass(frozen=True)
class Param:
    name: str
    kind: ParamKind
    has_default: bool
    annotation: str | None = None
    #: The default's source text, for rendering only: a changed default value breaks no call.
    default: str | None = field(default=None, compare=False)

    @property
    def required(self) -> bool:
        return not self.has_default and not self.kind.is_variadic


#: Class decorators that generate __init__ from fields (their keyword arguments are read).
DATACLASS = frozenset({"dataclass", "dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
ATTRS = frozenset({"attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable",
                   "attrs.define", "attrs.frozen", "attrs.mutable", "define", "frozen", "mutable"})
#: Calls that declare a field of such a class (their arguments are read).
FIELD_CALLS = frozenset({"field", "dataclasses.field", "attr.ib", "attr.attrib", "attr.field",
                         "attrib", "attrs.field", "pydantic.Field", "Field"})


class Value(NamedTuple):
    """An expression, as the rules read it."""

    code: str  # canonical text
    name: str | None  # dotted name (a call's or subscript's: of what is called or subscripted), else None
    string: str | bytes | None  # the value of a string or bytes literal (implicitly concatenated too)
    is_true: bool  # the literal True


class Call(NamedTuple):
    func: str | None  # dotted name of what is called
    positional: tuple[Value, ...]
    keywords: Mapping[str, Value]


class Decorator(NamedTuple):
    code: str
    name: str | None  # dotted name (of the called function for `@d(...)`)
    call: Call | None  # its arguments, for a dataclass-like decorator (DATACLASS, ATTRS) called with some


class Field(NamedTuple):
    """A class-level `name = value`, `name: annotation` or `name: annotation = value` statement of a class body."""

    name: str
    annotation: Value | None
    value: Value | None
    call: Call | None  # the value, when it is a call of FIELD_CALLS


class Function(NamedTuple):
    name: str
    line: int  # of `def` (after the decorators)
    params: tuple[Param, ...]
    returns: str | None
    is_async: bool
    decorators: tuple[str, ...]


class Class(NamedTuple):
    name: str
    line: int  # of `class` (after the decorators)
    decorators: tuple[Decorator, ...]
    bases: tuple[str | None, ...]  # positional bases (no `*bases`), by dotted name
    metaclass: bool  # a `metaclass=` keyword
    fields: tuple[Field, ...]  # the class body's simple statements that may declare a field, in order
    assigns_constructor: bool  # `__init__ = ...` or `__new__ = ...` in the class body
    body: tuple[Definition, ...]  # functions and classes of its body (in compound statements too), in order


Definition = Function | Class


class AllOp(NamedTuple):
    """A module-level statement that builds `__all__`: `= [...]` (replace) or `+= [...]`, `.extend`, `.append`."""

    replace: bool
    names: tuple[str, ...] | None  # None: not a literal list of strings


class Module(NamedTuple):
    definitions: tuple[Definition, ...]  # of the module body (in compound statements too), in source order
    all_ops: tuple[AllOp, ...]


class TooDeep(Exception):
    """A reader met code nested too deeply for it."""


class NotRead(Exception):
    """The fast reader could not read the source (a syntax error, or syntax newer than this Python)."""
