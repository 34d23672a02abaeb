"""impact.decide and impact.implicit_first: one use meets the new signature. Pure: tables, no git."""

from __future__ import annotations

import pytest

from graphguard.impact import ChangeContext, Found, decide, implicit_first
from graphguard.languages.python.binding import CallShape
from graphguard.languages.python.signature import Signature, extract
from graphguard.resolved import Use
from graphguard.result import Status
from tests.helpers import source

MODULE = source(
    """
    def stamp(ts, tz):
        return ts


    async def fetch(url):
        return url


    class Service:
        def __init__(self, url, token):
            self.url = url

        def get(self, key, strict):
            return key

        @classmethod
        def create(cls, url):
            return cls(url, None)

        @staticmethod
        def parse(text, strict):
            return text
    """
)
SIGS = extract(MODULE).defs


def sig(qualname: str) -> Signature:
    return SIGS[qualname]


def ctx(qualname: str, *, kind: str = "signature", breaking: tuple[str, ...] = ("required-param-added:x",),
        new_qualname: str | None = None, after: Signature | None = None) -> ChangeContext:
    s = sig(qualname)
    is_method = s.kind == "method"
    return ChangeContext(kind, f"pkg.mod.{qualname}", new_qualname, breaking, s if after is None else after,
                         is_method, qualname.split(".")[-2] if is_method else None)


def use(text: str, n: int = 0, keywords: tuple[str, ...] = (), *, kind: str = "call", via: str = "self",
        reaches_new: bool = True, resolution: str = "exact", star: bool = False, starstar: bool = False) -> Found:
    return Found(Use("app/use.py", 3, 3, 4, "app.use.f", kind, text, resolution, CallShape(n, keywords, star, starstar)),
                 reaches_new, via)


@pytest.mark.parametrize(
    ("qualname", "found", "expected"),
    [
        pytest.param("stamp", use("stamp", 2), False, id="function"),
        pytest.param("Service.get", use("obj.get", 2), True, id="instance"),
        pytest.param("Service.get", use("self.get", 2), True, id="self"),
        pytest.param("Service.get", use("super().get", 2), True, id="super"),
        pytest.param("Service.get", use("Service().get", 2), True, id="fresh-instance"),
        pytest.param("Service.get", use("Service.get", 3), False, id="on-its-class"),
        pytest.param("Service.get", use("mod.Service.get", 3), False, id="on-its-class-dotted"),
        pytest.param("Service.get", use("cls.get", 3), False, id="cls-plain-method"),
        pytest.param("Service.get", use("Sub.get", 3, via="class"), False, id="on-a-subclass"),
        pytest.param("Service.create", use("Service.create", 1), True, id="classmethod-on-class"),
        pytest.param("Service.create", use("cls.create", 1), True, id="classmethod-cls"),
        pytest.param("Service.create", use("Sub.create", 1, via="class"), True, id="classmethod-on-subclass"),
        pytest.param("Service.parse", use("obj.parse", 2), False, id="staticmethod-on-instance"),
        pytest.param("Service.parse", use("Service.parse", 2), False, id="staticmethod-on-class"),
        pytest.param("Service.__init__", use("Service", 2, via="init"), True, id="instantiation"),
        pytest.param("Service.__init__", use("Sub", 2, via="init"), True, id="subclass-instantiation"),
        pytest.param("Service.__init__", use("super().__init__", 2), True, id="super-init"),
        pytest.param("Service.__init__", use("Service.__init__", 3), False, id="explicit-init"),
    ],
)
def test_implicit_first(qualname: str, found: Found, expected: bool) -> None:
    assert implicit_first(ctx(qualname), found, sig(qualname)) is expected


@pytest.mark.parametrize(
    ("change", "found", "expected"),
    [
        # Calls that reach the new signature: CPython's binding decides.
        pytest.param(ctx("stamp"), use("stamp", 1), (Status.BROKEN, "missing required argument 'tz'"), id="missing"),
        pytest.param(ctx("stamp"), use("stamp", 1, ("tz",)), (Status.OK, "binds"), id="binds"),
        pytest.param(ctx("stamp"), use("stamp", 3), (Status.BROKEN, "takes 2 positional arguments but 3 were given"),
                     id="too-many"),
        pytest.param(ctx("stamp"), use("stamp", star=True, starstar=True), (Status.UNKNOWN, "*args/**kwargs forwarding"),
                     id="forwarding"),
        pytest.param(ctx("Service.get"), use("c.get", 1), (Status.BROKEN, "missing required argument 'strict'"),
                     id="method-on-instance"),
        pytest.param(ctx("Service.get"), use("Service.get", 2), (Status.BROKEN, "missing required argument 'strict'"),
                     id="method-on-class"),
        pytest.param(ctx("Service.get"), use("Sub.get", 3, via="class"), (Status.OK, "binds"), id="method-on-subclass"),
        pytest.param(ctx("Service.__init__"), use("Service", 1, via="init"), (Status.BROKEN, "missing required argument 'token'"),
                     id="init-missing"),
        pytest.param(ctx("Service.__init__"), use("Sub", 2, via="init"), (Status.OK, "binds"), id="init-binds"),
        pytest.param(ctx("Service.__init__"), use("Service", 3, via="init"),
                     (Status.BROKEN, "takes 3 positional arguments but 4 were given"), id="init-too-many"),
        # What is gone.
        pytest.param(ctx("stamp", kind="removed", breaking=("removed",)), use("stamp", 2, reaches_new=False),
                     (Status.BROKEN, "calls 'stamp', which no longer exists"), id="removed-call"),
        pytest.param(ctx("stamp", kind="removed", breaking=("removed",)), use("pkg.mod.stamp", kind="import", reaches_new=False),
                     (Status.BROKEN, "imports a name that no longer exists: 'stamp'"), id="removed-import"),
        pytest.param(ctx("Service", kind="removed", breaking=("removed",)), use("Service", kind="inherit", reaches_new=False),
                     (Status.BROKEN, "subclasses 'Service', which no longer exists"), id="removed-base"),
        pytest.param(ctx("stamp", kind="removed", breaking=("removed",)), use("stamp", kind="reference", reaches_new=False),
                     (Status.BROKEN, "refers to 'stamp', which no longer exists"), id="removed-reference"),
        pytest.param(ctx("stamp", kind="renamed", breaking=("renamed:make",), new_qualname="pkg.mod.make"),
                     use("stamp", 2, reaches_new=False),
                     (Status.BROKEN, "calls 'stamp', which no longer exists (renamed to 'make')"), id="renamed-old-name"),
        pytest.param(ctx("Service.get", kind="renamed", breaking=("renamed:Klient.get",), new_qualname="pkg.mod.Klient.get"),
                     use("Service.get", 3, reaches_new=False),
                     (Status.BROKEN, "calls 'get', which no longer exists (renamed to 'Klient.get')"), id="renamed-class-method"),
        pytest.param(ctx("stamp", kind="moved", breaking=("moved:pkg.other.stamp",), new_qualname="pkg.other.stamp"),
                     use("stamp", 2, reaches_new=False),
                     (Status.BROKEN, "calls 'stamp', which no longer exists (moved to 'pkg.other.stamp')"), id="moved-old-name"),
        # Uses that reach the new definition after a rename or move: the shape decides, not the name.
        pytest.param(ctx("stamp", kind="renamed", breaking=("renamed:make",), new_qualname="pkg.mod.make"),
                     use("make", 2), (Status.OK, "binds"), id="renamed-new-name"),
        pytest.param(ctx("stamp", kind="renamed", breaking=("renamed:make",), new_qualname="pkg.mod.make"),
                     use("make", kind="reference"), (Status.OK, "used as a value; the change keeps its calls working"),
                     id="renamed-alias-reference"),
        pytest.param(ctx("stamp", kind="moved", breaking=("moved:pkg.other.stamp",), new_qualname="pkg.other.stamp"),
                     use("pkg.other.stamp", kind="import"), (Status.OK, "imports it"), id="moved-new-import"),
        # Values, partials, async.
        pytest.param(ctx("stamp", breaking=("optional-param-added:tz", "default-added:ts")), use("stamp", kind="reference"),
                     (Status.OK, "used as a value; the change keeps its calls working"), id="reference-informational"),
        pytest.param(ctx("stamp", breaking=("became-async",)), use("stamp", 2),
                     (Status.UNKNOWN, "now async: the call must be awaited"), id="became-async"),
        pytest.param(ctx("fetch", breaking=("became-async", "required-param-added:url")), use("fetch"),
                     (Status.BROKEN, "missing required argument 'url'"), id="became-async-and-broken"),
        pytest.param(ctx("stamp"), use("p", 1, resolution="partial"),
                     (Status.UNKNOWN, "called through functools.partial: some arguments were bound elsewhere"), id="partial"),
        pytest.param(ctx("Service.get"), use("c.get", 1, resolution="by-name"),
                     (Status.BROKEN, "missing required argument 'strict' (receiver typed by the only class defining this method name)"),
                     id="by-name"),
        pytest.param(ctx("Service.get"), use("c.get", 2, resolution="by-name"), (Status.OK, "binds"), id="by-name-ok"),
    ],
)
def test_decide(change: ChangeContext, found: Found, expected: tuple[Status, str]) -> None:
    impact = decide(change, found)
    assert (impact.status, impact.reason) == expected
    assert (impact.path, impact.line, impact.caller, impact.kind) == ("app/use.py", 3, "app.use.f", found.kind)


def test_reference_with_a_breaking_change_is_unknown_and_leaves_the_signature_to_the_change() -> None:
    impact = decide(ctx("stamp"), use("stamp", kind="reference"))
    assert impact.status is Status.UNKNOWN
    # The change carries the new signature (`after`): a report prints it once, not on every such site.
    assert impact.reason == "used as a value (a callback?): its calls cannot be seen"


def test_unreadable_new_signature_is_unknown() -> None:
    change = ChangeContext("signature", "pkg.mod.stamp", None, ("required-param-added:tz",), None, False, None)
    assert decide(change, use("stamp", 1)).status is Status.UNKNOWN
