"""impact.decide against both signatures: blame only what the change broke, arguments that change
meaning, **kwargs forwarding, and methods of a removed or renamed class. Pure: tables, no git."""

from __future__ import annotations

import pytest

from graphguard.check.written import written_calls
from graphguard.impact import ChangeContext, Forward, ForwardKind, Found, Via, decide, forwards
from graphguard.index.facts import parse_blob
from graphguard.languages.python.binding import CallShape
from graphguard.languages.python.signature import Signature, extract
from graphguard.model import FileFacts, Resolution, UseKind
from graphguard.resolved import FileResolution, Site, Use
from graphguard.result import ChangeKind, Status
from tests.helpers import call_shape as shape
from tests.helpers import source

BROKEN, OK, UNKNOWN = Status.BROKEN, Status.OK, Status.UNKNOWN



def sig(text: str, qualname: str) -> Signature:
    return extract(source(text)).defs[qualname]


def change(before: str, after: str, qualname: str = "f", *, kind: str = "signature", new_qualname: str | None = None,
           forwards: tuple[Forward, ...] = (), class_gone: bool = False, breaking: tuple[str, ...] = ("changed",)) -> ChangeContext:
    """The change of `qualname` between two versions of a module (`after` "" for a removed one)."""
    old = sig(before, qualname)
    new = sig(after, new_qualname or qualname) if after else None
    is_method = old.kind == "method"
    return ChangeContext(ChangeKind(kind), f"pkg.mod.{qualname}", f"pkg.mod.{new_qualname or qualname}" if new else None, breaking,
                         new, is_method, qualname.split(".")[-2] if is_method else None,
                         before=old, forwards=forwards, class_gone=class_gone)


def call(text: str, args: str = "", *, via: Via = Via.SELF, resolution: Resolution = Resolution.EXACT, reaches_new: bool = True,
         written: bool = False, kind: UseKind = UseKind.CALL) -> Found:
    return Found(Use("app/use.py", 3, 3, 4, "app.use.g", kind, text, resolution, shape(args)), reaches_new, via, written)


def verdict(ctx: ChangeContext, use: Found) -> tuple[Status, str]:
    impact = decide(ctx, use)
    return impact.status, impact.reason


# --- blame only what the change broke --------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "use", "expected"),
    [
        pytest.param("def f(a, b): ...", "def f(a, b, c=None): ...", call("f", "1"),
                     (UNKNOWN, "did not bind before this change either: missing required argument 'b'"),
                     id="optional-added-call-broken-before"),
        pytest.param("def f(a, b): ...", "def f(a, b, c): ...", call("f", "1"),
                     (UNKNOWN, "did not bind before this change either (missing required argument 'b');"
                               " now: missing required arguments 'b' and 'c'"),
                     id="broken-both-ways-differently"),
        pytest.param("def f(a): ...", "def f(a, b): ...", call("f", "1"), (BROKEN, "missing required argument 'b'"),
                     id="bound-before-broken-now"),
        pytest.param("def f(a, b): ...", "def f(a, b, c=None): ...", call("f", "1", written=True),
                     (BROKEN, "missing required argument 'b'"), id="written-in-this-change-new-signature-only"),
        pytest.param("def f(a): ...", "def f(a, b): ...", call("f", "*xs"), (UNKNOWN, "*args/**kwargs forwarding"),
                     id="spread-unknown-as-before"),
    ],
)
def test_blame_functions(before: str, after: str, use: Found, expected: tuple[Status, str]) -> None:
    assert verdict(change(before, after), use) == expected


MIXIN_BEFORE = """
    class DynamicModelChoiceMixin:
        def __init__(self, queryset, *, selector=False, **kwargs):
            super().__init__(queryset, **kwargs)
"""
MIXIN_AFTER = """
    class DynamicModelChoiceMixin:
        def __init__(self, queryset, *, selector=False, extra_hint=None, **kwargs):
            super().__init__(queryset, **kwargs)
"""


def test_netbox_optional_parameter_on_a_mixin_blames_no_call_that_failed_before() -> None:
    """netbox customfields.py:628: `field_class(...)` typed by a later assignment, missing 'queryset' both ways."""
    ctx = change(MIXIN_BEFORE, MIXIN_AFTER, "DynamicModelChoiceMixin.__init__")
    found = call("field_class", "label=x, required=y", via=Via.INIT)
    assert verdict(ctx, found) == (UNKNOWN, "did not bind before this change either: missing required argument 'queryset'")
    assert verdict(ctx, call("DynamicModelChoiceField", "qs, label=x", via=Via.INIT)) == (OK, "binds")


SERVICE = """
    class Service:
        {decorator}
        def m({params}):
            ...
"""


def method(params: str, decorator: str = "") -> str:
    return SERVICE.format(decorator=decorator, params=params)


@pytest.mark.parametrize(
    ("before", "after", "use", "expected"),
    [
        # The implicit first argument is computed with each side's signature.
        pytest.param(method("self, a"), method("a", "@staticmethod"), call("obj.m", "1"), (OK, "binds"),
                     id="became-staticmethod-same-argument"),
        pytest.param(method("self, a"), method("cls, a", "@classmethod"), call("Service.m", "obj, 1"),
                     (BROKEN, "takes 2 positional arguments but 3 were given"), id="became-classmethod-on-class"),
        pytest.param(method("self, a, b"), method("self, a, b, c=None"), call("obj.m", "1"),
                     (UNKNOWN, "did not bind before this change either: missing required argument 'b'"),
                     id="method-broken-before"),
        pytest.param(method("self, a, b"), method("self, a, b, c=None"), call("Service.m", "obj, 1"),
                     (UNKNOWN, "did not bind before this change either: missing required argument 'b'"),
                     id="method-on-class-broken-before"),
    ],
)
def test_blame_methods(before: str, after: str, use: Found, expected: tuple[Status, str]) -> None:
    assert verdict(change(before, after, "Service.m"), use) == expected


# --- arguments that change meaning -------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "args", "expected"),
    [
        pytest.param("def f(a, b=None): ...", "def f(a, x=None, b=None): ...", "1, 2",
                     (BROKEN, "argument 2 now binds to 'x' (was 'b')"), id="inserted-before"),
        pytest.param("def f(a, b=None): ...", "def f(a, x=None, b=None): ...", "1, b=2", (OK, "binds"),
                     id="inserted-before-keyword-caller"),
        pytest.param("def f(a, b, c=0): ...", "def f(a, c=0): ...", "1, 2",
                     (BROKEN, "argument 2 now binds to 'c' (was 'b')"), id="removed-before"),
        pytest.param("def f(a, b): ...", "def f(a, bb): ...", "1, 2", (OK, "binds"), id="renamed-in-place"),
        pytest.param("def f(a, b, /): ...", "def f(x, y, /): ...", "1, 2", (OK, "binds"), id="positional-only-renamed"),
        pytest.param("def f(a, b, /): ...", "def f(b, a, /): ...", "1, 2",
                     (BROKEN, "argument 1 now binds to 'b' (was 'a'); argument 2 now binds to 'a' (was 'b')"),
                     id="positional-only-swapped"),
        pytest.param("def f(a, *rest): ...", "def f(a, b=None, *rest): ...", "1, 2",
                     (BROKEN, "argument 2 now binds to 'b' (was *rest)"), id="out-of-star-args"),
        pytest.param("def f(*args, **kwargs): ...", "def f(request, body, status): ...", "1, 2, 3", (OK, "binds"),
                     id="star-args-spelled-out"),
        pytest.param("def f(a, *rest): ...", "def f(a, b=None): ...", "1, 2", (OK, "binds"), id="star-args-dropped-for-a-name"),
        pytest.param("def f(a, *rest): ...", "def f(b, a): ...", "1, 2",
                     (BROKEN, "argument 1 now binds to 'b' (was 'a')"), id="star-args-spelled-out-named-moved"),
        pytest.param("def f(a, b=None, *rest): ...", "def f(a, *rest): ...", "1, 2",
                     (BROKEN, "argument 2 now falls into *rest (was 'b')"), id="into-star-args"),
        pytest.param("def f(a, *args): ...", "def f(a, *more): ...", "1, 2, 3", (OK, "binds"), id="star-args-renamed"),
        pytest.param("def f(a, selector=False, **kw): ...", "def f(a, show_selector=False, **kw): ...", "1, selector=True",
                     (BROKEN, "keyword 'selector' now falls into **kw (was parameter 'selector')"), id="keyword-into-kwargs"),
        pytest.param("def f(a, **kw): ...", "def f(a, x=None, **kw): ...", "1, x=2", (OK, "binds"),
                     id="keyword-out-of-kwargs"),
        pytest.param("def f(a, b=None): ...", "def f(a, b=None, c=None): ...", "1, 2", (OK, "binds"), id="appended"),
    ],
)
def test_meaning(before: str, after: str, args: str, expected: tuple[Status, str]) -> None:
    assert verdict(change(before, after), call("f", args)) == expected


def test_netbox_restrict_after_a_parameter_moved() -> None:
    """`restrict(request.user, 'add')` after `action` moved before `user`: it runs, with the user as the action."""
    ctx = change("""
        class RestrictedQuerySet:
            def restrict(self, user, action='view'):
                ...
    """, """
        class RestrictedQuerySet:
            def restrict(self, action='view', user=None):
                ...
    """, "RestrictedQuerySet.restrict")
    assert verdict(ctx, call("queryset.restrict", "request.user, 'add'")) == (
        BROKEN, "argument 1 now binds to 'action' (was 'user'); argument 2 now binds to 'user' (was 'action')")
    assert verdict(ctx, call("queryset.restrict", "user=u, action='add'")) == (OK, "binds")
    assert verdict(ctx, call("RestrictedQuerySet.restrict", "qs, u")) == (BROKEN, "argument 2 now binds to 'action' (was 'user')")


FIELD = sig("""
    class Field:
        def __init__(self, queryset, required=True):
            ...
""", "Field.__init__")
FIELD_TAKING = sig("""
    class Field:
        def __init__(self, queryset, selector=False):
            ...
""", "Field.__init__")
FIELD_KW = sig("""
    class Field:
        def __init__(self, queryset, **kwargs):
            ...
""", "Field.__init__")
SUPER_INIT = CallShape(1, (), False, True)  # super().__init__(queryset, **kwargs)


def forward(target: Signature | None, resolution: Resolution = Resolution.EXACT, shape: CallShape = SUPER_INIT,
            line: int = 4) -> Forward:
    return Forward(ForwardKind.CALL, "super().__init__", line, resolution, "pkg.fields.Field.__init__" if target else None,
                   target, shape, implicit_first=True)


RENAMED_BEFORE = """
    class Mixin:
        def __init__(self, queryset, *args, selector=False, **kwargs):
            ...
"""
RENAMED_AFTER = """
    class Mixin:
        def __init__(self, queryset, *args, show_selector=False, **kwargs):
            ...
"""
SAID = "keyword 'selector' now falls into **kwargs (was parameter 'selector')"


@pytest.mark.parametrize(
    ("forwards", "expected"),
    [
        pytest.param((), (BROKEN, SAID), id="kept-nowhere"),
        pytest.param((forward(None, Resolution.EXTERNAL),),
                     (UNKNOWN, f"{SAID}, passed on to 'super().__init__' (line 4), outside the repository"),
                     id="to-django-field"),
        pytest.param((forward(None, Resolution.UNRESOLVED),),
                     (UNKNOWN, f"{SAID}, passed on to 'super().__init__' (line 4), which graphguard could not follow"
                               " (a base outside the repository, or the class after a mixin)"),
                     id="unresolved-super"),
        pytest.param((Forward(ForwardKind.CALL, "self.build", 5),),
                     (UNKNOWN, f"{SAID}, passed on to 'self.build' (line 5), which graphguard could not follow"),
                     id="unresolved"),
        pytest.param((forward(FIELD),),
                     (BROKEN, f"{SAID}, passed on to 'super().__init__' (line 4): unexpected keyword argument 'selector'"),
                     id="rejected-there"),
        pytest.param((forward(FIELD_TAKING),),
                     (OK, "keyword 'selector' now passes through **kwargs to 'super().__init__' (line 4), which takes it"),
                     id="taken-there"),
        pytest.param((forward(FIELD_KW),),
                     (UNKNOWN, f"{SAID}, passed on to 'super().__init__' (line 4), whose **kwargs takes it: not followed further"),
                     id="collected-again"),
        pytest.param((forward(FIELD, shape=CallShape(3, (), False, True)),),
                     (UNKNOWN, f"{SAID}, passed on to 'super().__init__' (line 4), which does not bind either way"),
                     id="forwarding-call-broken-anyway"),
        pytest.param((forward(FIELD), forward(FIELD_TAKING, line=6)),
                     (UNKNOWN, f"{SAID}, passed on to 'super().__init__' (line 4): unexpected keyword argument 'selector';"
                               " keyword 'selector' now passes through **kwargs to 'super().__init__' (line 6), which takes it"),
                     id="two-paths-disagree"),
        pytest.param((Forward(ForwardKind.READ, "kwargs.pop", 3), forward(FIELD)),
                     (UNKNOWN, f"{SAID}, which the function reads itself (kwargs.pop, line 3)"), id="read-by-hand"),
    ],
)
def test_keyword_into_forwarded_kwargs(forwards: tuple[Forward, ...], expected: tuple[Status, str]) -> None:
    """netbox: `selector` renamed `show_selector`; 60 callers pass `selector=True` into **kwargs."""
    ctx = change(RENAMED_BEFORE, RENAMED_AFTER, "Mixin.__init__", forwards=forwards)
    assert verdict(ctx, call("DynamicModelChoiceField", "queryset=qs, selector=True", via=Via.INIT)) == expected


def test_positional_into_forwarded_star_args_is_not_followed() -> None:
    ctx = change("def f(a, b=None, *args, **kw): ...", "def f(a, *args, **kw): ...",
                 forwards=(forward(None, Resolution.EXTERNAL, shape=CallShape(0, (), True, True)),))
    assert verdict(ctx, call("f", "1, 2")) == (
        UNKNOWN, "argument 2 now falls into *args (was 'b'), passed on to 'super().__init__': not followed")


# --- a removed or renamed class ------------------------------------------------------------------

REPORTER = """
    class TerminalReporter:
        def write_line(self, line, **markup):
            ...
"""
RUNNER = """
    class {name}:
        def invoke(self, cli, {extra}):
            ...
"""


def removed_method() -> ChangeContext:
    return change(REPORTER, "", "TerminalReporter.write_line", kind="removed", breaking=("removed",), class_gone=True)


def renamed_method(extra: str = "args=None") -> ChangeContext:
    return change(RUNNER.format(name="CliRunner", extra="args=None"), RUNNER.format(name="Runner", extra=extra),
                  "CliRunner.invoke", kind="renamed", new_qualname="Runner.invoke", breaking=("renamed:Runner.invoke",),
                  class_gone=True)


DOWNSTREAM = "a method of 'TerminalReporter', which was removed: the sites that name the class are the breaks"


@pytest.mark.parametrize(
    ("ctx", "use", "expected"),
    [
        pytest.param(removed_method(), call("terminalreporter.write_line", "x", reaches_new=False), (OK, DOWNSTREAM),
                     id="removed-class-instance-call"),
        pytest.param(removed_method(), call("config.hook.write_line", "x", reaches_new=False, resolution=Resolution.BY_NAME),
                     (OK, DOWNSTREAM), id="removed-class-by-name"),
        pytest.param(removed_method(), call("TerminalReporter().write_line", "x", reaches_new=False), (OK, DOWNSTREAM),
                     id="removed-class-constructed-in-the-chain"),
        pytest.param(removed_method(), call("TerminalReporter.write_line", "r, x", reaches_new=False),
                     (BROKEN, "calls 'write_line', which no longer exists"), id="removed-class-named"),
        pytest.param(renamed_method(), call("runner.invoke", "cli", reaches_new=False), (OK, "binds"),
                     id="renamed-class-instance-call"),
        pytest.param(renamed_method(), call("CliRunner.invoke", "r, cli", reaches_new=False),
                     (BROKEN, "calls 'invoke', which no longer exists (renamed to 'Runner.invoke')"), id="renamed-class-named"),
        pytest.param(renamed_method("env, args=None"), call("runner.invoke", "cli", reaches_new=False),
                     (BROKEN, "missing required argument 'env'"), id="renamed-class-and-method-changed"),
        pytest.param(renamed_method("env, args=None"), call("r.invoke", "cli", reaches_new=False, resolution=Resolution.BY_NAME),
                     (UNKNOWN, "missing required argument 'env' (if the receiver is a 'CliRunner':"
                               " it is typed by this method name only)"), id="renamed-class-by-name-capped"),
    ],
)
def test_class_gone(ctx: ChangeContext, use: Found, expected: tuple[Status, str]) -> None:
    assert verdict(ctx, use) == expected


@pytest.mark.parametrize("text", ["testing.CliRunner", "Sub"])
def test_class_gone_constructor(text: str) -> None:
    """`CliRunner()` is reported under the class, `Sub()` under `class Sub(CliRunner)`: not again under `__init__`."""
    before = "class CliRunner:\n    def __init__(self, charset=None): ...\n"
    ctx = change(before, "", "CliRunner.__init__", kind="removed", breaking=("removed",), class_gone=True)
    assert verdict(ctx, call(text, via=Via.INIT, reaches_new=False)) == (
        OK, "a method of 'CliRunner', which was removed: the sites that name the class are the breaks")


# --- what the check stage computes for decide ----------------------------------------------------


def site(text: str, scope: str, *, starstar: bool = False, target: str | None = None,
         resolution: Resolution = Resolution.UNRESOLVED, n: int = 0) -> Site:
    name = text.rsplit(".", 1)[-1]
    return Site(UseKind.CALL, scope, text, name, resolution, target, "pkg/base.py" if target else None, None, 5, 5, 8, 20,
                CallShape(n, (), False, starstar))


def test_forwards_reads_the_function_body() -> None:
    new = sig(RENAMED_AFTER, "Mixin.__init__")
    base = sig("class Base:\n    def __init__(self, queryset, selector=False): ...\n", "Base.__init__")
    fr = FileResolution("pkg/fields.py", "pkg.fields", sites=[
        site("kwargs.pop", "pkg.fields.Mixin.__init__", n=2),
        site("super().__init__", "pkg.fields.Mixin.__init__", starstar=True, target="pkg.base.Base.__init__",
             resolution=Resolution.EXACT, n=1),
        site("helper", "pkg.fields.Mixin.__init__", starstar=True, resolution=Resolution.EXTERNAL),
        site("other", "pkg.fields.Mixin.clean", starstar=True),  # another function's body
        site("print", "pkg.fields.Mixin.__init__"),  # passes nothing on
    ])
    seen: list[tuple[str, str]] = []

    def signature_at(path: str, qualname: str) -> Signature | None:
        seen.append((path, qualname))
        return base

    found = forwards(fr, "pkg.fields.Mixin.__init__", new, signature_at)
    assert [(f.kind, f.text, f.resolution, f.signature, f.implicit_first) for f in found] == [
        (ForwardKind.READ, "kwargs.pop", Resolution.UNRESOLVED, None, False),
        (ForwardKind.CALL, "super().__init__", Resolution.EXACT, base, True),
        (ForwardKind.CALL, "helper", Resolution.EXTERNAL, None, False),
    ]
    assert seen == [("pkg/base.py", "pkg.base.Base.__init__")]
    assert found[1].shape == CallShape(1, (), False, True)
    assert forwards(fr, "pkg.fields.Mixin.__init__", sig(MIXIN_BEFORE.replace(", **kwargs", ""), "DynamicModelChoiceMixin.__init__"),
                    signature_at) == ()


def test_forwards_explicit_self_on_a_class() -> None:
    base = sig("class Base:\n    def __init__(self, queryset): ...\n", "Base.__init__")
    fr = FileResolution("pkg/fields.py", "pkg.fields", sites=[
        site("Base.__init__", "pkg.fields.Mixin.__init__", starstar=True, target="pkg.base.Base.__init__",
             resolution=Resolution.EXACT, n=2),
    ])
    (found,) = forwards(fr, "pkg.fields.Mixin.__init__", sig(RENAMED_AFTER, "Mixin.__init__"), lambda p, q: base)
    assert found.implicit_first is False


def facts(text: str) -> FileFacts:
    return FileFacts.from_json(parse_blob(source(text).encode()))


def test_written_calls() -> None:
    old = facts("""
        def g():
            f(1)
            f(1, 2)
            h(x=1)
    """)
    new = facts("""
        import os


        def g():
            f(1)
            f(1)
            f(1, 2, 3)
            h(x=1)
    """)
    assert written_calls(old, new) == {(6, 4), (7, 4)}  # the second f(1) and f(1, 2, 3)
    assert written_calls(None, new) == {(c.line, c.col) for c in new.calls}
