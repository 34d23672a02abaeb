"""Dataclass-like classes (dataclass, attrs, NamedTuple): the __init__ that the decorator or base generates, and `__all__`."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphguard.languages.python.sigread.records import (
    ATTRS,
    DATACLASS,
    FIELD_CALLS,
    AllOp,
    Call,
    Class,
    Param,
    ParamKind,
    Value,
)

# -- dataclass-like classes: the __init__ that the decorator or base generates ---------------

_Args = Mapping[str, Value]


class FieldStyle(enum.Enum):
    DATACLASS = "dataclass"
    ATTRS = "attrs"
    ATTRS_IB = "attrs-ib"  # classic `attr.s`: only `attr.ib()` fields
    NAMEDTUPLE = "namedtuple"


@dataclass(frozen=True)
class _Style:
    """How a class decorator or base generates __init__ from class-level fields."""

    kind: FieldStyle
    init: bool = True
    kw_only: bool = False


def _style(c: Class) -> _Style | None:
    for d in c.decorators:
        if d.name in DATACLASS or d.name in ATTRS:
            args = _keywords(d.call)
            kind = FieldStyle.DATACLASS if d.name in DATACLASS else FieldStyle.ATTRS
            if d.name in ("attr.s", "attr.attrs") and not _flag(args, "auto_attribs", False):
                kind = FieldStyle.ATTRS_IB
            return _Style(kind, _flag(args, "init", True), _flag(args, "kw_only", False))
    if any(b is not None and b.rpartition(".")[2] == "NamedTuple" for b in c.bases):
        return _Style(FieldStyle.NAMEDTUPLE)
    return None


def _keywords(call: Call | None) -> _Args:
    return call.keywords if call is not None else {}


def _flag(args: _Args, name: str, default: bool) -> bool:
    value = args.get(name)
    return default if value is None else value.is_true


def _fields(c: Class, style: _Style) -> list[Param]:
    """Fields in class-body order; a `_: KW_ONLY` sentinel makes the following ones keyword-only."""
    kw_only = style.kw_only
    found: list[Param] = []
    for stmt in c.fields:
        if _annotation_name(stmt.annotation) == "KW_ONLY":
            kw_only = True
        elif (param := _field(stmt.name, stmt.annotation, stmt.value, stmt.call, style, kw_only)) is not None:
            found.append(param)
    return found


def _field(name: str, annotation: Value | None, value: Value | None, call: Call | None, style: _Style, kw_only: bool) -> Param | None:
    """One class-level assignment as an __init__ parameter; None when it is not a field."""
    if call is not None and call.func not in FIELD_CALLS:
        call = None
    if _annotation_name(annotation) == "ClassVar" or (call is None and (annotation is None or style.kind is FieldStyle.ATTRS_IB)):
        return None  # a class attribute
    args = _keywords(call)
    if not _flag(args, "init", True):
        return None
    if call is None:
        has_default, default = value is not None, value.code if value is not None else None
    else:  # field(default=...), field(default_factory=...), attr.ib(5), attr.ib(factory=list)
        given = args["default"] if "default" in args else call.positional[0] if call.positional else None
        has_default = given is not None or not {"default_factory", "factory"}.isdisjoint(args)
        default = given.code if given is not None else "<factory>" if has_default else None
    if style.kind in (FieldStyle.ATTRS, FieldStyle.ATTRS_IB):  # attrs drops leading underscores, or takes alias=
        alias = args.get("alias")
        name = str(alias.string) if alias is not None and alias.string is not None else name.lstrip("_")
    kind = ParamKind.KEYWORD_ONLY if kw_only or _flag(args, "kw_only", False) else ParamKind.POSITIONAL_OR_KEYWORD
    return Param(name, kind, has_default, annotation.code if annotation is not None else None, default)


def _annotation_name(annotation: Value | None) -> str | None:
    """`ClassVar[int]`, `typing.ClassVar`, `"ClassVar[int]"` -> "ClassVar"."""
    if annotation is None:
        return None
    if annotation.string is not None:
        text = annotation.string
        if not isinstance(text, str):  # a bytes literal (`x: b"int"`) names no type
            return None
        return text.partition("[")[0].rpartition(".")[2].strip() or None
    name = annotation.name
    return name.rpartition(".")[2] if name else None


def _merge(base: Sequence[Param], own: Sequence[Param]) -> list[Param]:
    """A field redefined in a subclass keeps its place and takes the new definition."""
    out = list(base)
    for p in own:
        index = next((i for i, q in enumerate(out) if q.name == p.name), None)
        if index is None:
            out.append(p)
        else:
            out[index] = p
    return out


def _kw_only_last(fields: Sequence[Param]) -> tuple[Param, ...]:
    """The generated __init__ puts keyword-only fields after all the others."""
    return tuple(sorted(fields, key=lambda p: p.kind is ParamKind.KEYWORD_ONLY))


# -- __all__ ---------------------------------------------------------------------------------


def _all_names(ops: Sequence[AllOp]) -> tuple[str, ...] | None:
    """`__all__` when every module-level statement that builds it is a literal, else None."""
    names: list[str] | None = None  # None: not assigned yet, or not readable
    assigned = False
    for op in ops:
        if op.replace:
            names, assigned = (list(op.names) if op.names is not None else None), True
        else:
            names = None if names is None or op.names is None else names + list(op.names)
    return tuple(names) if assigned and names is not None else None
