"""Decide, for every use of a changed symbol, whether it still works. Pure.

The walk itself (finding the uses) happens in check/uses.py over the
graph; here each use meets the new signature: Python's argument binding is
simulated, and what cannot be decided statically is `unknown` with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphguard.binding import CallShape, bind
from graphguard.model import Resolution, UseKind, WireEnum
from graphguard.resolve import LIMIT_REASONS
from graphguard.result import INFORMATIONAL, CallerImpact, ChangeKind, Status
from graphguard.signature import Signature


class Via(WireEnum):
    """How a use reaches the changed definition."""

    SELF = "self"  # the symbol itself
    INIT = "init"  # a constructor run by instantiating (a subclass of) its class
    CLASS = "class"  # a method called on a class (`Sub.method(obj, ...)`), which passes self itself


@dataclass(frozen=True)
class Found:
    """A use of a changed symbol, found in the old or the new version of the repository."""

    path: str
    line: int
    end_line: int
    col: int
    caller: str
    kind: UseKind
    text: str  # callee chain or name as written
    resolution: Resolution  # exact | partial | by-name | by-name-weak | too-deep | too-long
    shape: CallShape
    reaches_new: bool  # in the new version it resolves to the changed symbol's new definition
    via: Via = Via.SELF


@dataclass(frozen=True)
class ChangeContext:
    kind: ChangeKind
    qualname: str  # old full name
    new_qualname: str | None
    breaking: tuple[str, ...]
    after: Signature | None  # new signature of the symbol (a class: its constructor)
    is_method: bool
    class_name: str | None  # for a method: its class's name
    before: Signature | None = None  # old signature (None: the symbol is new, or its old version did not parse)
    class_gone: bool = False  # a method whose class was removed or renamed




def _gone(ctx: ChangeContext, use: Found) -> str:
    name = ctx.qualname.rsplit(".", 1)[-1]
    where = ""
    if ctx.kind == ChangeKind.RENAMED and ctx.new_qualname:
        # The part that changed: `make_stamp`, or `Klient.get` for a method of a renamed class.
        old_parts, new_parts = ctx.qualname.split("."), ctx.new_qualname.split(".")
        same = 0
        while same < min(len(old_parts), len(new_parts)) - 1 and old_parts[same] == new_parts[same]:
            same += 1
        where = f" (renamed to '{'.'.join(new_parts[same:])}')"
    elif ctx.kind == ChangeKind.MOVED and ctx.new_qualname:
        where = f" (moved to '{ctx.new_qualname}')"
    if use.kind == UseKind.IMPORT:
        return f"imports a name that no longer exists: '{name}'{where}"
    if use.kind == UseKind.CALL:
        return f"calls '{name}', which no longer exists{where}"
    if use.kind == UseKind.INHERIT:
        return f"subclasses '{name}', which no longer exists{where}"
    return f"refers to '{name}', which no longer exists{where}"


def implicit_first(ctx: ChangeContext, use: Found, sig: Signature) -> bool:
    """Does Python supply the first parameter at this call?"""
    if not ctx.is_method or sig.is_staticmethod:
        return False
    if use.via == Via.INIT:
        return True  # `Class(...)` runs __init__ bound to the new instance
    if use.via == Via.CLASS:
        return sig.is_classmethod
    if sig.is_classmethod:
        return True
    receiver = use.text.rsplit(".", 1)[0] if "." in use.text else ""
    # `Class.method(obj, ...)` passes self explicitly; `obj.method()`, `self.m()`, `super().m()` do not.
    last = receiver.rsplit(".", 1)[-1]
    return not (receiver == "cls" or (ctx.class_name is not None and last == ctx.class_name))


def decide(ctx: ChangeContext, use: Found) -> CallerImpact:
    def impact(status: Status, reason: str) -> CallerImpact:
        if use.resolution == Resolution.BY_NAME and status is not Status.OK:
            reason += " (receiver typed by the only class defining this method name)"
        elif use.resolution == Resolution.BY_NAME_WEAK and status is not Status.OK:
            # Overrides in the hierarchy, or builtin types, have this method too: the receiver decides.
            status = Status.UNKNOWN
            reason += " (if the receiver is this class: other classes or builtin types have a method of this name)"
        elif use.resolution in LIMIT_REASONS and status is not Status.OK:
            # Resolution stopped at a limit: this call may or may not reach the changed definition.
            status = Status.UNKNOWN
            reason = f"{LIMIT_REASONS[use.resolution]}: not followed to the end; if this calls it: {reason}"
        return CallerImpact(use.path, use.line, use.end_line, use.caller, status, reason, use.kind, use.resolution)

    if ctx.kind != ChangeKind.SIGNATURE and not use.reaches_new:
        return impact(Status.BROKEN, _gone(ctx, use))
    sig = ctx.after
    if use.kind == UseKind.IMPORT:
        return impact(Status.OK, "imports it")
    if use.kind == UseKind.INHERIT:
        return impact(Status.OK, "subclasses it")
    # A use that reaches the new definition is past the rename or move: only the shape counts.
    breaking = [c for c in ctx.breaking if c.partition(":")[0] not in (*INFORMATIONAL, "renamed", "moved")]
    if use.kind == UseKind.REFERENCE:
        if breaking and sig is not None:
            return impact(Status.UNKNOWN, f"used as a value (a callback?): its calls cannot be seen; new signature: {sig.text}")
        return impact(Status.OK, "used as a value; the change keeps its calls working")
    if sig is None:
        return impact(Status.UNKNOWN, "the new signature could not be read")
    if use.resolution == Resolution.PARTIAL:
        return impact(Status.UNKNOWN, "called through functools.partial: some arguments were bound elsewhere")
    if any(c in ("became-async", "became-sync") for c in ctx.breaking):
        code = next(c for c in ctx.breaking if c in ("became-async", "became-sync"))
        binding = bind(use.shape, sig, implicit_first=implicit_first(ctx, use, sig))
        if binding.status is Status.BROKEN:
            return impact(Status.BROKEN, binding.reason)
        return impact(Status.UNKNOWN, "now async: the call must be awaited" if code == "became-async" else "no longer async: awaiting it fails")
    binding = bind(use.shape, sig, implicit_first=implicit_first(ctx, use, sig))
    return impact(binding.status, binding.reason)
