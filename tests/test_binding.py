from __future__ import annotations

import inspect
import itertools

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from graphguard.languages.python.binding import FORWARDING, Binding, CallShape, Status, bind, landing
from graphguard.languages.python.signature import Param, ParamKind, Signature, extract
from tests.helpers import call_shape as shape

BROKEN, OK, UNKNOWN = Status.BROKEN, Status.OK, Status.UNKNOWN



def last_def(source: str) -> Signature:
    """The last definition, dunder methods left out: a class's __init__ is called through the class."""
    return [s for s in extract(source).defs.values() if not s.name.startswith("__")][-1]


@pytest.mark.parametrize(
    ("source", "args", "implicit_first", "expected"),
    [
        # -- positional and keyword arguments, CPython's checks and wording --------------------
        ("def f(a, b): ...", "1, 2", False, (OK, "binds")),
        ("def f(a, b): ...", "1, b=2", False, (OK, "binds")),
        ("def f(a, b): ...", "b=1, a=2", False, (OK, "binds")),
        ("def f(a, b): ...", "1", False, (BROKEN, "missing required argument 'b'")),
        ("def f(a, b, c): ...", "", False, (BROKEN, "missing required arguments 'a', 'b' and 'c'")),
        ("def f(a, b): ...", "1, 2, 3", False, (BROKEN, "takes 2 positional arguments but 3 were given")),
        ("def f(a): ...", "1, 2", False, (BROKEN, "takes 1 positional argument but 2 were given")),
        ("def f(): ...", "1", False, (BROKEN, "takes 0 positional arguments but 1 was given")),
        ("def f(a, b=1): ...", "1, 2, 3", False, (BROKEN, "takes from 1 to 2 positional arguments but 3 were given")),
        ("def f(a, *, k): ...", "1, 2, k=0", False,
         (BROKEN, "takes 1 positional argument but 2 positional arguments (and 1 keyword-only argument) were given")),
        ("def f(a): ...", "1, a=1", False, (BROKEN, "got multiple values for argument 'a'")),
        ("def f(a): ...", "1, at=1", False, (BROKEN, "unexpected keyword argument 'at'")),
        ("def f(a): ...", "1, 2, zz=1", False, (BROKEN, "unexpected keyword argument 'zz'")),  # keywords first
        ("def f(a, **kw): ...", "1, at=1", False, (OK, "binds")),
        ("def f(a): ...", "a=1, a=2", False, (BROKEN, "keyword argument repeated: 'a'")),
        # -- positional-only, keyword-only, variadic -----------------------------------------------
        ("def f(a, /): ...", "a=1", False, (BROKEN, "positional-only argument 'a' passed as keyword")),
        ("def f(a, b, /): ...", "1, 2, a=1, b=2", False, (BROKEN, "positional-only arguments 'a' and 'b' passed as keyword")),
        ("def f(a, /, **kw): ...", "1, a=2", False, (OK, "binds")),  # the keyword goes to **kw
        ("def f(a, /, **kw): ...", "a=2", False, (BROKEN, "missing required argument 'a'")),
        # CPython binds this (a=0, kw={'a': 2}); inspect.Signature.bind on 3.11 refuses it.
        ("def f(a=0, /, **kw): ...", "a=2", False, (OK, "binds")),
        ("def f(*, tz): ...", "", False, (BROKEN, "missing required keyword-only argument 'tz'")),
        ("def f(*, a, b): ...", "", False, (BROKEN, "missing required keyword-only arguments 'a' and 'b'")),
        ("def f(*, tz): ...", "1", False, (BROKEN, "takes 0 positional arguments but 1 was given")),
        ("def f(*, tz=None): ...", "tz=1", False, (OK, "binds")),
        ("def f(*args): ...", "1, 2, 3", False, (OK, "binds")),
        ("def f(a, *args, b): ...", "1, 2, 3, b=0", False, (OK, "binds")),
        ("def f(*args): ...", "args=1", False, (BROKEN, "unexpected keyword argument 'args'")),
        ("def f(**kw): ...", "kw=1", False, (OK, "binds")),
        # -- methods: Python supplies self/cls when called through a binding -----------------------
        ("class C:\n    def m(self, x): ...", "1", True, (OK, "binds")),
        ("class C:\n    def m(self, x): ...", "", True, (BROKEN, "missing required argument 'x'")),
        ("class C:\n    def m(self, x): ...", "1, 2", True, (BROKEN, "takes 2 positional arguments but 3 were given")),
        ("class C:\n    def m(self, x): ...", "obj, 1", False, (OK, "binds")),  # C.m(obj, 1)
        ("class C:\n    def m(self, x): ...", "1", False, (BROKEN, "missing required argument 'x'")),
        ("class C:\n    @classmethod\n    def m(cls, x): ...", "1", True, (OK, "binds")),
        ("class C:\n    @staticmethod\n    def m(x): ...", "1", True, (OK, "binds")),  # never bound
        ("class C:\n    def m(*args): ...", "", True, (OK, "binds")),
        ("class C:\n    def m(): ...", "", True, (BROKEN, "takes 0 positional arguments but 1 was given")),
        # -- classes: the constructor, self already left out ---------------------------------------
        ("class C:\n    def __init__(self, a): ...", "1", False, (OK, "binds")),
        ("class C:\n    def __init__(self, a): ...", "", False, (BROKEN, "missing required argument 'a'")),
        ("@dataclass\nclass C:\n    a: int\n    b: int = 0", "1, b=2", False, (OK, "binds")),
        ("class C: ...", "1", False, (BROKEN, "takes 0 positional arguments but 1 was given")),
        ("class C(Base): ...", "1", False, (UNKNOWN, "the constructor is inherited from a class defined elsewhere")),
        ("class C:\n    @property\n    def p(self): ...", "", True, (UNKNOWN, "a property: the call is made on the value it returns")),
        # -- *args / **kwargs at the call: unknown when some expansion binds -----------------------
        ("def f(a, b): ...", "*args", False, (UNKNOWN, FORWARDING)),
        ("def f(a, b): ...", "**kw", False, (UNKNOWN, FORWARDING)),
        ("def f(a, b): ...", "1, *args, **kw", False, (UNKNOWN, FORWARDING)),
        ("def f(*args, **kw): ...", "*a, **k", False, (UNKNOWN, FORWARDING)),
        ("def f(a, *, k): ...", "*args, k=1", False, (UNKNOWN, FORWARDING)),
        ("def f(a): ...", "1, 2, *args", False, (BROKEN, "takes 1 positional argument but 2 were given")),
        ("def f(a): ...", "*args, zz=1", False, (BROKEN, "unexpected keyword argument 'zz'")),
        ("def f(a): ...", "1, a=1, **kw", False, (BROKEN, "got multiple values for argument 'a'")),
        ("def f(a, /, *, k): ...", "**kw", False, (BROKEN, "missing required argument 'a'")),  # not from **kw
        ("def f(a, /, *, k): ...", "*args", False, (BROKEN, "missing required keyword-only argument 'k'")),
        ("def f(a, /, *, k): ...", "*args, **kw", False, (UNKNOWN, FORWARDING)),
        ("def f(a, b): ...", "*args, a=1", False, (BROKEN, "missing required argument 'b'")),
        ("class C:\n    def m(self): ...", "*args", True, (UNKNOWN, FORWARDING)),
    ],
)
def test_bind(source: str, args: str, implicit_first: bool, expected: tuple[Status, str]) -> None:
    assert bind(shape(args), last_def(source), implicit_first=implicit_first) == Binding(*expected)


def test_opaque_signature_is_unknown() -> None:
    sig = Signature("f", "function", (), None, False, ("magic",), 1, "def f()", opaque=True)
    assert bind(CallShape(0, (), False, False), sig) == Binding(UNKNOWN, "a decorator hides the real signature")


# -- property: bind() agrees with inspect.Signature.bind on every signature and call ---------------

NAMES = ("a", "b", "c", "d", "e", "f", "g", "h", "i")
KINDS = {
    ParamKind.POSITIONAL_ONLY: inspect.Parameter.POSITIONAL_ONLY,
    ParamKind.POSITIONAL_OR_KEYWORD: inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ParamKind.VAR_POSITIONAL: inspect.Parameter.VAR_POSITIONAL,
    ParamKind.KEYWORD_ONLY: inspect.Parameter.KEYWORD_ONLY,
    ParamKind.VAR_KEYWORD: inspect.Parameter.VAR_KEYWORD,
}


@st.composite
def signatures(draw: st.DrawFn) -> Signature:
    """Valid parameter lists: kinds in order, positional defaults trailing, names unique."""
    names = iter(draw(st.permutations(NAMES)))
    n_posonly, n_pok, n_kwonly = (draw(st.integers(0, 3)) for _ in range(3))
    n_defaults = draw(st.integers(0, n_posonly + n_pok))
    params = [Param(next(names), ParamKind.POSITIONAL_ONLY, False) for _ in range(n_posonly)]
    params += [Param(next(names), ParamKind.POSITIONAL_OR_KEYWORD, False) for _ in range(n_pok)]
    for i in range(len(params) - n_defaults, len(params)):
        params[i] = Param(params[i].name, params[i].kind, True)
    if draw(st.booleans()):
        params.append(Param("args", ParamKind.VAR_POSITIONAL, False))
    params += [Param(next(names), ParamKind.KEYWORD_ONLY, draw(st.booleans())) for _ in range(n_kwonly)]
    if draw(st.booleans()):
        params.append(Param("kwargs", ParamKind.VAR_KEYWORD, False))
    is_method = draw(st.booleans())
    if is_method:  # a method called through an instance: bind() must count self like CPython
        params.insert(0, Param("self", ParamKind.POSITIONAL_ONLY if n_posonly else ParamKind.POSITIONAL_OR_KEYWORD, False))
    return Signature("C.m" if is_method else "f", "method" if is_method else "function", tuple(params), None, False, (), 1, "")


def oracle(sig: Signature, n_positional: int, keywords: tuple[str, ...]) -> bool:
    """Does inspect bind it? Values are placeholders: only the shape is bound."""
    parameters = [inspect.Parameter(p.name, KINDS[p.kind], default=0 if p.has_default else inspect.Parameter.empty)
                  for p in sig.params]
    try:
        inspect.Signature(parameters).bind(*range(n_positional), **{k: 0 for k in keywords})
    except TypeError:
        return False
    return True


def inspect_diverges(sig: Signature, n_positional: int, keywords: tuple[str, ...]) -> bool:
    """inspect (3.11) refuses a keyword named like an unfilled positional-only parameter even when
    **kwargs would collect it; CPython does not (see the table above)."""
    has_var_keyword = any(p.kind is ParamKind.VAR_KEYWORD for p in sig.params)
    return has_var_keyword and any(
        p.kind is ParamKind.POSITIONAL_ONLY and p.name in keywords and i >= n_positional for i, p in enumerate(sig.params))


def implicit(sig: Signature) -> int:
    return 1 if sig.kind == "method" else 0


@settings(max_examples=1500, deadline=None)
@given(sig=signatures(), n_positional=st.integers(0, 6),
       keywords=st.lists(st.sampled_from((*NAMES, "args", "kwargs", "self", "zz")), unique=True, max_size=5))
@pytest.mark.slow
def test_bind_agrees_with_inspect(sig: Signature, n_positional: int, keywords: list[str]) -> None:
    total = n_positional + implicit(sig)
    assume(not inspect_diverges(sig, total, tuple(keywords)))
    binding = bind(CallShape(n_positional, tuple(keywords), False, False), sig, implicit_first=bool(implicit(sig)))
    event(binding.status.value)
    assert binding.status is (OK if oracle(sig, total, tuple(keywords)) else BROKEN), binding.reason


@settings(max_examples=500, deadline=None)
@given(sig=signatures(), n_positional=st.integers(0, 4), spread=st.sampled_from([(True, False), (False, True), (True, True)]),
       keywords=st.lists(st.sampled_from((*NAMES, "zz")), unique=True, max_size=3))
@pytest.mark.slow
def test_spread_arguments_are_unknown_exactly_when_some_expansion_binds(
    sig: Signature, n_positional: int, spread: tuple[bool, bool], keywords: list[str]
) -> None:
    has_star, has_starstar = spread
    total = n_positional + implicit(sig)
    # Every expansion that can matter: extra positionals up to one past the slots, and any set of
    # extra keywords naming keyword-capable parameters not written at the call.
    slots = sum(1 for p in sig.params if p.kind.is_positional)
    counts = range(max(slots - total, 0) + 2) if has_star else range(1)
    spare = [p.name for p in sig.params if p.kind in (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)
             and p.name not in keywords]
    extras = [c for r in range(len(spare) + 1) for c in itertools.combinations(spare, r)] if has_starstar else [()]
    expansions = [(total + k, (*keywords, *extra)) for k in counts for extra in extras]
    assume(not any(inspect_diverges(sig, n, kws) for n, kws in expansions))
    binds_somehow = any(oracle(sig, n, kws) for n, kws in expansions)
    binding = bind(CallShape(n_positional, tuple(keywords), has_star, has_starstar), sig, implicit_first=bool(implicit(sig)))
    event(binding.status.value)
    assert binding.status is (UNKNOWN if binds_somehow else BROKEN), binding.reason


def landed(sig: Signature, n_positional: int, keywords: tuple[str, ...]) -> tuple[list[str], list[str]] | None:
    """inspect's answer to "which parameter does each argument reach?", by marking each argument."""
    parameters = [inspect.Parameter(p.name, KINDS[p.kind], default=0 if p.has_default else inspect.Parameter.empty)
                  for p in sig.params]
    try:
        bound = inspect.Signature(parameters).bind(*(f"p{i}" for i in range(n_positional)), **{k: f"k:{k}" for k in keywords})
    except TypeError:
        return None
    where: dict[str, str] = {}
    for name, value in bound.arguments.items():
        for v in value if isinstance(value, tuple) else value.values() if isinstance(value, dict) else [value]:
            where[v] = name
    return [where[f"p{i}"] for i in range(n_positional)], [where[f"k:{k}"] for k in keywords]


@settings(max_examples=1000, deadline=None)
@given(sig=signatures(), n_positional=st.integers(0, 6),
       keywords=st.lists(st.sampled_from((*NAMES, "args", "kwargs", "zz")), unique=True, max_size=4))
@pytest.mark.slow
def test_landing_agrees_with_inspect(sig: Signature, n_positional: int, keywords: list[str]) -> None:
    """Each argument of a call that binds reaches the parameter inspect.Signature.bind gives it."""
    total = n_positional + implicit(sig)
    assume(not inspect_diverges(sig, total, tuple(keywords)))
    expected = landed(sig, total, tuple(keywords))
    assume(expected is not None)
    assert expected is not None
    found = landing(CallShape(n_positional, tuple(keywords), False, False), sig, implicit_first=bool(implicit(sig)))
    assert found is not None
    assert [p.name for p in found.positional] == expected[0][implicit(sig):]
    assert [p.name for _, p in found.keywords] == expected[1]


@pytest.mark.parametrize(
    ("source", "args", "expected"),
    [
        ("def f(a, b=0, *rest, k=0, **kw): ...", "1, 2, 3, k=1, z=2", (["a", "b", "rest"], ["k", "kw"])),
        ("def f(a, /, **kw): ...", "1, a=2", (["a"], ["kw"])),  # a keyword named like a positional-only one: **kw
        ("def f(a): ...", "1, 2", None),  # does not bind
        ("def f(a, *rest): ...", "*xs", None),  # a spread hides the positions
    ],
)
def test_landing(source: str, args: str, expected: tuple[list[str], list[str]] | None) -> None:
    found = landing(shape(args), last_def(source))
    assert (None if found is None else ([p.name for p in found.positional], [p.name for _, p in found.keywords])) == expected
