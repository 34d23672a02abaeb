"""Decide, for every use of a changed symbol, whether it still works. Pure.

The walk itself (finding the uses) happens in check/uses.py over the
graph; here each use meets the signatures: Python's argument binding is
simulated against the old signature and the new one, and what cannot be
decided statically is `unknown` with a reason.

Three rules beyond "does it bind now":
- a call is this change's break only if it bound before (a call that fails both
  ways was broken already: `unknown`, never blamed on the change);
- a call that binds both ways is broken when an argument now lands in another
  parameter (or only in `**kwargs`): it runs, with the wrong meaning;
- a method whose class was removed or renamed is still there on every object
  made before; the sites that name the class are the breaks, not each method call.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from graphguard.codes import Code, CodeName, name_of
from graphguard.languages.python.binding import Binding, CallShape, bind, landing
from graphguard.languages.python.signature import Param, ParamKind, Signature
from graphguard.languages.python.targets import LIMIT_REASONS
from graphguard.model import DefKind, Resolution, UseKind, WireEnum
from graphguard.resolved import FileResolution, Use
from graphguard.result import INFORMATIONAL, CallerImpact, ChangeKind, Status


class Via(WireEnum):
    """How a use reaches the changed definition."""

    SELF = "self"  # the symbol itself
    INIT = "init"  # a constructor run by instantiating (a subclass of) its class
    CLASS = "class"  # a method called on a class (`Sub.method(obj, ...)`), which passes self itself


@dataclass(frozen=True)
class Found:
    """A use of a changed symbol, found in the old or the new version of the repository."""

    use: Use  # where, in which definition, as written, and how it resolved
    reaches_new: bool  # in the new version it resolves to the changed symbol's new definition
    via: Via = Via.SELF
    #: The call was written, or its arguments changed, in this change (`check.written.written_calls`): it was
    #: never made against the old signature, so only the new one judges it.
    written: bool = False
    #: A reference used as a type (`x: mod.Cls`, `isinstance(x, Cls)`): it names the definition and never calls it.
    annotation: bool = False

    # The use's fields, read through: most readers of a Found ask where it is and how it is written.
    @property
    def path(self) -> str:
        return self.use.path

    @property
    def line(self) -> int:
        return self.use.line

    @property
    def end_line(self) -> int:
        return self.use.end_line

    @property
    def col(self) -> int:
        return self.use.col

    @property
    def caller(self) -> str:
        return self.use.caller

    @property
    def kind(self) -> UseKind:
        return self.use.kind

    @property
    def text(self) -> str:
        return self.use.text

    @property
    def resolution(self) -> Resolution:
        return self.use.resolution

    @property
    def shape(self) -> CallShape:
        return self.use.shape


class ForwardKind(enum.Enum):
    CALL = "call"  # `other(**kwargs)`, `super().__init__(q, **kwargs)`: the collected keywords are passed on
    READ = "read"  # `kwargs.pop("x")`, `kwargs.get("x")`: the function takes keywords out itself


#: The shape of a bare `f(**kwargs)`.
SPREAD_ONLY = CallShape(0, (), False, True)


@dataclass(frozen=True)
class Forward:
    """Where a function sends what its `**kwargs` collected (see `forwards`)."""

    kind: ForwardKind
    text: str  # as written: "super().__init__", "kwargs.pop"
    line: int
    resolution: Resolution = Resolution.UNRESOLVED  # of the call: EXACT in the repository, EXTERNAL outside it
    target: str | None = None  # full qualname of the definition called, in the repository
    signature: Signature | None = None  # its signature; None outside the repository, or unreadable
    shape: CallShape = SPREAD_ONLY  # the forwarding call's own arguments
    implicit_first: bool = False  # Python supplies the target's first parameter (`super().__init__`)


#: The codes of a rename or move: a use that reaches the new definition is past them.
_PAST = (CodeName.RENAMED, CodeName.MOVED)
#: What a call that still binds meets when its target became async, or stopped being so.
_ASYNC = {CodeName.BECAME_ASYNC: "now async: the call must be awaited", CodeName.BECAME_SYNC: "no longer async: awaiting it fails"}

@dataclass(frozen=True)
class ChangeContext:
    kind: ChangeKind
    qualname: str  # old full name
    new_qualname: str | None
    breaking: tuple[Code, ...]
    after: Signature | None  # new signature of the symbol (a class: its constructor)
    is_method: bool
    class_name: str | None  # for a method: its class's name
    before: Signature | None = None  # old signature (None: the symbol is new, or its old version did not parse)
    #: Where the new definition (a class: its `__init__`) passes its `**kwargs` on, or reads them.
    forwards: tuple[Forward, ...] = ()
    class_gone: bool = False  # a method whose class was removed or renamed


def forwards(resolution: FileResolution, function: str, sig: Signature,
             signature_at: Callable[[str, str], Signature | None]) -> tuple[Forward, ...]:
    """Where `function` (full qualname; for a class, its `__init__`) sends its `**kwargs`.

    `resolution` is the fresh resolution of the changed file's new version, `sig` the
    new signature (it names the `**kwargs` parameter), and `signature_at(path, qualname)`
    reads the signature of a definition in the repository (None when it cannot).
    A call spreading `**` in the function's body passes the collected keywords on (any
    `**` spread is taken for this one); a method called on the `**kwargs` name reads them.
    """
    var_keyword = next((p.name for p in sig.params if p.kind is ParamKind.VAR_KEYWORD), None)
    if var_keyword is None:
        return ()
    out = []
    for site in resolution.sites:
        if site.kind != UseKind.CALL or site.scope != function:
            continue
        if site.text.startswith(f"{var_keyword}."):
            out.append(Forward(ForwardKind.READ, site.text, site.line, site.resolution))
        elif site.shape.has_starstar:
            target_sig = signature_at(site.target_path, site.target) if site.target and site.target_path else None
            receiver = site.text.rsplit(".", 1)[0] if "." in site.text else ""
            implicit = target_sig is not None and _implicit(receiver, target_sig, class_name=target_sig.qualname.rsplit(".", 2)[-2]
                                                            if "." in target_sig.qualname else None)
            out.append(Forward(ForwardKind.CALL, site.text, site.line, site.resolution, site.target, target_sig,
                               site.shape, implicit))
    return tuple(out)


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
    """Does Python supply the first parameter at this call (of `sig`: the old or the new signature)?"""
    if not ctx.is_method or sig.is_staticmethod:
        return False
    if use.via == Via.INIT:
        return True  # `Class(...)` runs __init__ bound to the new instance
    if use.via == Via.CLASS:
        return sig.is_classmethod
    receiver = use.text.rsplit(".", 1)[0] if "." in use.text else ""
    return _implicit(receiver, sig, class_name=ctx.class_name)


def _implicit(receiver: str, sig: Signature, *, class_name: str | None) -> bool:
    """For a method called on `receiver`: is its first parameter supplied by Python?"""
    if sig.kind is not DefKind.METHOD or sig.is_staticmethod:
        return False
    if sig.is_classmethod:
        return True
    # `Class.method(obj, ...)` passes self explicitly; `obj.method()`, `self.m()`, `super().m()` do not.
    last = receiver.rsplit(".", 1)[-1]
    return not (receiver == "cls" or (class_name is not None and last == class_name))


def _names_class(ctx: ChangeContext, use: Found) -> bool:
    """Does this use of a method name its class (`Runner.invoke(r)`, `Runner()`, an import)?

    A call on an instance (`runner.invoke()`, `make_runner().invoke()`) does not: the
    object was made by a site that names the class. Nor does a constructor call as a
    use of `__init__`: `Runner()` is reported under the class, `Sub()` under `class Sub(Runner)`.
    """
    if use.kind not in (UseKind.CALL, UseKind.REFERENCE):
        return True
    if use.via == Via.INIT:
        return False
    receiver = use.text.rsplit(".", 1)[0] if "." in use.text else ""
    return not receiver.endswith("()") and receiver.rsplit(".", 1)[-1] == ctx.class_name


def decide(ctx: ChangeContext, use: Found) -> CallerImpact:
    def impact(status: Status, reason: str, raises: str | None = None) -> CallerImpact:
        if use.resolution in (Resolution.BY_NAME, Resolution.BY_NAME_WEAK) and status is not Status.OK and ctx.class_gone:
            # The class that typed the receiver by this method's name is gone: a guess, at most.
            status = Status.UNKNOWN
            reason += f" (if the receiver is a '{ctx.class_name}': it is typed by this method name only)"
        elif use.resolution == Resolution.BY_NAME and status is not Status.OK:
            reason += " (receiver typed by the only class defining this method name)"
        elif use.resolution == Resolution.BY_NAME_WEAK and status is not Status.OK:
            # Overrides in the hierarchy, or builtin types, have this method too: the receiver decides.
            status = Status.UNKNOWN
            reason += " (if the receiver is this class: other classes or builtin types have a method of this name)"
        elif use.resolution == Resolution.ONE_OF and status is Status.BROKEN:
            # The name holds another class or function on other paths: broken only if broken for each.
            status = Status.UNKNOWN
            reason += " (if it holds this one: on other paths the name holds another class or function)"
        elif use.resolution in LIMIT_REASONS and status is not Status.OK:
            # Resolution stopped at a limit: this call may or may not reach the changed definition.
            status = Status.UNKNOWN
            reason = f"{LIMIT_REASONS[use.resolution]}: not followed to the end; if this calls it: {reason}"
        return CallerImpact(use.path, use.line, use.end_line, use.caller, status, reason, use.kind, use.resolution, raises)

    if ctx.kind != ChangeKind.SIGNATURE and not use.reaches_new:
        if not (ctx.class_gone and not _names_class(ctx, use)):
            return impact(Status.BROKEN, _gone(ctx, use))
        # A method of a removed or renamed class, called on an instance: the object was made
        # by a site that names the class, and that site is the break (reported under the
        # class). Reported as ok with this reason rather than dropped, so that the count of
        # uses stays whole and the report says why these calls are not blamed.
        if ctx.after is None:
            return impact(Status.OK, f"a method of '{ctx.class_name}', which was removed:"
                                     " the sites that name the class are the breaks")
        # Renamed or moved with its class: the method is the same one, judged on its shape below.
    sig = ctx.after
    if use.kind == UseKind.IMPORT:
        return impact(Status.OK, "imports it")
    if use.kind == UseKind.INHERIT:
        return impact(Status.OK, "subclasses it")
    # A use that reaches the new definition is past the rename or move: only the shape counts.
    breaking = [c for c in ctx.breaking if name_of(c) not in INFORMATIONAL and name_of(c) not in _PAST]
    if use.kind == UseKind.REFERENCE:
        if use.annotation:  # past the gone-name check above: the name still binds, and a type is not called
            return impact(Status.OK, "used as a type (an annotation, isinstance, cast): it names the definition and calls nothing")
        if breaking and sig is not None:
            # The signature is the change's own (`after`): a report prints it once, not on every such site.
            return impact(Status.UNKNOWN, "used as a value (a callback?): its calls cannot be seen")
        return impact(Status.OK, "used as a value; the change keeps its calls working")
    if sig is None:
        return impact(Status.UNKNOWN, "the new signature could not be read")
    if use.resolution == Resolution.PARTIAL:
        return impact(Status.UNKNOWN, "called through functools.partial: some arguments were bound elsewhere")
    now = bind(use.shape, sig, implicit_first=implicit_first(ctx, use, sig))
    status, reason = _judge(ctx, use, sig, now)
    code = next((n for c in ctx.breaking if (n := name_of(c)) in _ASYNC), None)
    if code is not None and status is not Status.BROKEN:
        return impact(Status.UNKNOWN, _ASYNC[code])
    # A call that does not bind raises TypeError when it runs (an argument landing elsewhere raises nothing).
    fails = status is Status.BROKEN and now.status is Status.BROKEN
    return impact(status, reason, "TypeError" if fails else None)


def _judge(ctx: ChangeContext, use: Found, sig: Signature, now: Binding) -> tuple[Status, str]:
    """A call against the new signature (`now`: its binding), and against the old one when the call was made before."""
    old_sig = ctx.before if not use.written else None
    if old_sig is None:
        return now.status, now.reason
    then = bind(use.shape, old_sig, implicit_first=implicit_first(ctx, use, old_sig))
    if now.status is Status.BROKEN and then.status is Status.BROKEN:
        # Broken already: fixing it is not this change's to ask (netbox: a mixin gained an optional parameter).
        if then.reason == now.reason:
            return Status.UNKNOWN, f"did not bind before this change either: {now.reason}"
        return Status.UNKNOWN, f"did not bind before this change either ({then.reason}); now: {now.reason}"
    if now.status is Status.OK and then.status is Status.OK:
        return _meaning(ctx, use, old_sig, sig)
    return now.status, now.reason


def _meaning(ctx: ChangeContext, use: Found, old_sig: Signature, sig: Signature) -> tuple[Status, str]:
    """A call that binds both ways: does each argument still reach the parameter it reached?"""
    old = landing(use.shape, old_sig, implicit_first=implicit_first(ctx, use, old_sig))
    new = landing(use.shape, sig, implicit_first=implicit_first(ctx, use, sig))
    if old is None or new is None:
        return Status.OK, "binds"
    findings = [_moved_argument(ctx, i, p, q, old_sig, sig)
                for i, (p, q) in enumerate(zip(old.positional, new.positional, strict=True), 1)
                if not _same_slot(p, q, old_sig, sig)]
    for (name, p), (_, q) in zip(old.keywords, new.keywords, strict=True):
        # A keyword that only **kwargs took before and a parameter takes now was asked for: not flagged.
        if q.kind is ParamKind.VAR_KEYWORD and p.kind is not ParamKind.VAR_KEYWORD:
            findings.append(_into_kwargs(ctx, name, q))
    for status in (Status.BROKEN, Status.UNKNOWN, Status.OK):
        reasons = [r for s, r in findings if s is status]
        if reasons:
            return status, "; ".join(reasons)
    return Status.OK, "binds"


def _same_slot(p: Param, q: Param, old_sig: Signature, sig: Signature) -> bool:
    """Do an argument's old and new parameters mean the same?

    The same name; both `*args`; an old `*args` spelled out as named parameters (the new
    signature has no `*args`: an argument that had no name cannot have changed meaning);
    or the old parameter renamed in place: its name is gone, the new one is fresh, and the
    kind is kept (sigdiff's `param-renamed` pairing, which positional-only parameters also
    follow though it yields no code for them).
    """
    if p.kind is ParamKind.VAR_POSITIONAL and q.kind is not ParamKind.VAR_POSITIONAL:
        # With `*args` kept, a parameter inserted before it takes what `*args` took: moved.
        return all(x.kind is not ParamKind.VAR_POSITIONAL for x in sig.params)
    if p.kind is ParamKind.VAR_POSITIONAL or q.kind is ParamKind.VAR_POSITIONAL:
        return p.kind is q.kind
    if p.name == q.name:
        return True
    return p.kind is q.kind and all(x.name != p.name for x in sig.params) and all(x.name != q.name for x in old_sig.params)


def _param(p: Param) -> str:
    return f"*{p.name}" if p.kind is ParamKind.VAR_POSITIONAL else f"'{p.name}'"


def _moved_argument(ctx: ChangeContext, i: int, p: Param, q: Param, old_sig: Signature, sig: Signature) -> tuple[Status, str]:
    """Argument `i` (1-based, as written) reached `p` and reaches `q` now."""
    if q.kind is ParamKind.VAR_POSITIONAL:
        reason = f"argument {i} now falls into {_param(q)} (was {_param(p)})"
        passed = [f for f in ctx.forwards if f.kind is ForwardKind.CALL and f.shape.has_star]
        if passed:  # *args passed on: where it lands there is not followed
            return Status.UNKNOWN, f"{reason}, passed on to '{passed[0].text}': not followed"
        return Status.BROKEN, reason
    return Status.BROKEN, f"argument {i} now binds to {_param(q)} (was {_param(p)})"


def _into_kwargs(ctx: ChangeContext, name: str, q: Param) -> tuple[Status, str]:
    """Keyword `name` bound a parameter of that name and now only reaches `**q`."""
    said = f"keyword '{name}' now falls into **{q.name} (was parameter '{name}')"
    reads = [f for f in ctx.forwards if f.kind is ForwardKind.READ]
    if reads:  # `kwargs.pop('selector', ...)`: perhaps the old name, kept working by hand
        return Status.UNKNOWN, f"{said}, which the function reads itself ({reads[0].text}, line {reads[0].line})"
    calls = [f for f in ctx.forwards if f.kind is ForwardKind.CALL]
    if not calls:
        return Status.BROKEN, said
    verdicts = [_forwarded(said, name, f) for f in calls]
    statuses = {s for s, _ in verdicts}
    # Each forwarding call may be the one that runs: broken only if broken through each.
    status = statuses.pop() if len(statuses) == 1 else Status.UNKNOWN
    return status, "; ".join(dict.fromkeys(r for _, r in verdicts))


def _forwarded(said: str, name: str, f: Forward) -> tuple[Status, str]:
    """Keyword `name`, passed on by the forwarding call `f` with the rest of **kwargs."""
    where = f"'{f.text}' (line {f.line})"
    if f.signature is None:
        if f.resolution is Resolution.EXTERNAL:
            return Status.UNKNOWN, f"{said}, passed on to {where}, outside the repository"
        if f.text.startswith("super()"):  # a base outside the repository, or whatever follows a mixin in a subclass's MRO
            return Status.UNKNOWN, (f"{said}, passed on to {where}, which graphguard could not follow"
                                    " (a base outside the repository, or the class after a mixin)")
        return Status.UNKNOWN, f"{said}, passed on to {where}, which graphguard could not follow"
    # The rest of **kwargs may fill what the target still needs: has_starstar stays.
    rest = f.shape._replace(has_starstar=True)
    passed = bind(rest._replace(keywords=(*rest.keywords, name)), f.signature, implicit_first=f.implicit_first)
    if passed.status is Status.BROKEN:
        if bind(rest, f.signature, implicit_first=f.implicit_first).status is Status.BROKEN:
            return Status.UNKNOWN, f"{said}, passed on to {where}, which does not bind either way"
        return Status.BROKEN, f"{said}, passed on to {where}: {passed.reason}"
    takes = any(p.name == name and p.kind in (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)
                for p in f.signature.params)
    if takes:
        return Status.OK, f"keyword '{name}' now passes through **kwargs to {where}, which takes it"
    return Status.UNKNOWN, f"{said}, passed on to {where}, whose **kwargs takes it: not followed further"
