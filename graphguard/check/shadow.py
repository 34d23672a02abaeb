"""A method call that an instance attribute answers: `self.get_attr = directive.get_attr` in `__init__`.

On an instance, an attribute set by `self.NAME = value` (in `__init__`, `setUp`, `setup_method`,
any method of the class or of a class it inherits from) hides a method NAME: `self.NAME(...)`
runs the value. Such a call is decided against that value when it is known (a function or
method of the repository: bound to its signature), else `unknown` saying so; never against the
removed or changed method alone (sphinx `Documenter.get_attr`, scrapy's `setup_method`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from graphguard.check.overlay import Overlay
from graphguard.model import DefKind, UseKind
from graphguard.result import CallerImpact, Status

if TYPE_CHECKING:
    from graphguard.impact import Found
    from graphguard.languages.python.targets import Sym


class Shadow(NamedTuple):
    """`self.NAME = value`, found for the receiver of a call to a method NAME."""

    setter: str  # the method that sets it, class-qualified: "Documenter.__init__"
    line: int
    value: str  # the value as written, when it is a chain ("" when not)
    target: Sym | None  # what the value is, when it is a definition of the repository
    bound: bool  # the value is a method taken from an instance: Python supplies its first parameter


def find(overlay: Overlay, use: Found, name: str) -> Shadow | None:
    """The attribute that answers `use` (a call `receiver.NAME(...)` in the new version), if any."""
    from graphguard.languages.python.targets import Inst, Sym

    if use.kind is not UseKind.CALL or "." not in use.text:
        return None
    receiver, called = use.text.rsplit(".", 1)
    resolver = overlay.new_resolver
    info = resolver.info(use.path) if called == name and use.path in resolver.modmap.primary else None
    if info is None:
        return None
    scope = use.caller[len(info.module) + 1:] if use.caller.startswith(info.module + ".") else ""
    owner = resolver.chain(info, scope, receiver)
    if not isinstance(owner, Inst):
        return None
    found = resolver.instance_attribute(owner.cls, name)
    if found is None:
        return None
    where, b = found
    held = resolver.held(where, b)
    target = held if isinstance(held, Sym) else None
    bound = False
    if target is not None and target.kind is DefKind.METHOD and "." in b.value:
        bound = isinstance(resolver.chain(where, b.scope, b.value.rsplit(".", 1)[0], at=(b.line, b.col)), Inst)
    value = b.value if b.kind.value in ("value", "alias") else f"{b.value}(...)" if b.value else ""
    return Shadow(b.scope, b.line, value, target, bound)


def judge(overlay: Overlay, use: Found, shadow: Shadow) -> CallerImpact:
    """The call against what the attribute holds."""
    from graphguard.languages.python.binding import bind

    attr = use.text.rsplit(".", 1)[1]
    said = f"'self.{attr}' is set in {shadow.setter} (line {shadow.line})" + (f" to `{shadow.value}`" if shadow.value else "")
    sig = overlay.new_signature(shadow.target.path, shadow.target.qualname) if shadow.target is not None else None
    if shadow.target is None or sig is None:
        return _impact(use, Status.UNKNOWN, f"{said}: the call runs that value, whose signature is not known")
    binding = bind(use.shape, sig, implicit_first=shadow.bound)
    if binding.status is Status.BROKEN:
        return _impact(use, Status.BROKEN, f"{said}, {shadow.target.qualname}: {binding.reason}", raises="TypeError")
    return _impact(use, binding.status, f"{said}, {shadow.target.qualname}: {binding.reason}")


def _impact(use: Found, status: Status, reason: str, raises: str | None = None) -> CallerImpact:
    return CallerImpact(use.path, use.line, use.end_line, use.caller, status, reason, use.kind, use.resolution, raises)
