from __future__ import annotations

import textwrap

import pytest

from graphguard.languages.python.signature import ModuleSignatures, Param, ParamKind, Signature, SignatureParseError, extract

POK, PO, KO = ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.POSITIONAL_ONLY, ParamKind.KEYWORD_ONLY
VP, VK = ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD


def sigs(source: str) -> ModuleSignatures:
    return extract(textwrap.dedent(source))


# -- functions and methods: the rendered text shows names, kinds (/ and *) and defaults -----

@pytest.mark.parametrize(
    ("source", "qualname", "text"),
    [
        ("def f(): ...", "f", "def f()"),
        ("def f(a, b=1, *args, c, d=2, **kw): ...", "f", "def f(a, b=1, *args, c, d=2, **kw)"),
        ("def f(a, /, b, *, c): ...", "f", "def f(a, /, b, *, c)"),
        ("def f(a=1, /): ...", "f", "def f(a=1, /)"),
        ("def f(*, a): ...", "f", "def f(*, a)"),
        ("def f(*args): ...", "f", "def f(*args)"),
        ("def f(a: int, b: 'str' = \"x\") -> list[int]: ...", "f", "def f(a: int, b: 'str' = 'x') -> list[int]"),
        # Layout, comments and quotes are not interface: one canonical spelling.
        ("def f(a: dict[str,int]={ 'k' :1 }) -> 'X': ...", "f", "def f(a: dict[str, int] = {'k': 1}) -> 'X'"),
        ("def f(\n    a,  # the a\n    b = (1 +\n      2),\n): ...", "f", "def f(a, b=1 + 2)"),
        ("async def f(url): ...", "f", "async def f(url)"),
        ("class C:\n    def m(self, x): ...", "C.m", "def m(self, x)"),
        ("class C:\n    async def m(self): ...", "C.m", "async def m(self)"),
        ("class A:\n    class B:\n        def m(self, y=None): ...", "A.B.m", "def m(self, y=None)"),
        # Conditional definitions: the last one wins, as when the module runs top to bottom.
        ("if X:\n    def f(a): ...\nelse:\n    def f(a, b): ...", "f", "def f(a, b)"),
        ("try:\n    from x import f\nexcept ImportError:\n    def f(a): ...", "f", "def f(a)"),
        ("class C:\n    def m(self, a): ...\n    def n(self): ...\nclass C:\n    def m(self, b): ...", "C.m", "def m(self, b)"),
        # Overload stubs are skipped: the implementation is the interface.
        ("from typing import overload\nclass C:\n    @overload\n    def m(self, a: int) -> int: ...\n"
         "    @typing.overload\n    def m(self, a: str) -> str: ...\n    def m(self, a, b=0): ...", "C.m", "def m(self, a, b=0)"),
    ],
)
def test_function_signatures(source: str, qualname: str, text: str) -> None:
    assert sigs(source).defs[qualname].text == text


def test_params_are_modelled_one_by_one() -> None:
    sig = sigs("def f(a, b: int = 1, /, c=2, *rest, d, e=3, **kw) -> None: ...").defs["f"]
    assert sig.params == (
        Param("a", PO, False), Param("b", PO, True, "int"), Param("c", POK, True),
        Param("rest", VP, False), Param("d", KO, False), Param("e", KO, True), Param("kw", VK, False),
    )
    assert [p.required for p in sig.params] == [True, False, False, False, True, False, False]
    assert (sig.kind, sig.returns, sig.is_async, sig.decorators, sig.line) == ("function", "None", False, (), 1)


@pytest.mark.parametrize(
    ("source", "qualname", "kind", "flags"),
    [
        ("def f(): ...", "f", "function", ()),
        ("class C:\n    def m(self): ...", "C.m", "method", ()),
        ("class C:\n    @staticmethod\n    def m(a): ...", "C.m", "method", ("static",)),
        ("class C:\n    @classmethod\n    def m(cls): ...", "C.m", "method", ("class",)),
        ("class C:\n    @property\n    def m(self): ...", "C.m", "method", ("property",)),
        ("class C:\n    @functools.cached_property\n    def m(self): ...", "C.m", "method", ("property",)),
        ("class C:\n    @builtins.staticmethod\n    def m(): ...", "C.m", "method", ("static",)),
        ("class C: ...", "C", "class", ()),
    ],
)
def test_kinds_and_decorator_flags(source: str, qualname: str, kind: str, flags: tuple[str, ...]) -> None:
    sig = sigs(source).defs[qualname]
    assert sig.kind == kind
    assert (sig.is_staticmethod, sig.is_classmethod, sig.is_property) == ("static" in flags, "class" in flags, "property" in flags)


def test_decorators_line_and_what_is_not_interface() -> None:
    ms = sigs(
        """\
        import functools

        @functools.wraps( f )
        @register.filter(name="x")
        def g(a):
            def inner(b): ...
            class Local:
                def m(self): ...
            return inner

        class C:
            @property
            def p(self): ...
            @p.setter
            def p(self, value): ...
            @p.deleter
            def p(self): ...
            def m(self):
                def helper(): ...
        """
    )
    assert list(ms.defs) == ["g", "C", "C.p", "C.m"]
    assert ms.defs["g"].decorators == ("functools.wraps(f)", "register.filter(name='x')")
    assert ms.defs["g"].line == 5  # the `def` line, after the decorators
    assert ms.defs["C.p"].params == (Param("self", POK, False),)  # the getter, not the setter
    assert not any(s.opaque for s in ms.defs.values())


def test_equality_ignores_line_and_text() -> None:
    a = sigs("def f(a, b=1): ...").defs["f"]
    b = sigs("\n\n# moved down\ndef f(a,\n      b=2):\n    return 1\n").defs["f"]
    assert (a.line, b.line) == (1, 4)
    assert a.text != b.text  # the default's value is shown, but is not interface
    assert a == b
    assert isinstance(a, Signature) and hash(a) == hash(b)


# -- classes: the constructor's parameters, self left out ------------------------------------

@pytest.mark.parametrize(
    ("source", "text", "known"),
    [
        ("class C:\n    def __init__(self, a, *, b=1): ...", "class C(a, *, b=1)", True),
        ("class C:\n    def __new__(cls, a, b=0): ...", "class C(a, b=0)", True),
        ("class C:\n    def __new__(cls, x): ...\n    def __init__(self, a): ...", "class C(a)", True),
        ("class C:\n    def __init__(*args, **kwargs): ...", "class C(*args, **kwargs)", True),
        # No constructor anywhere: object's, which takes no arguments.
        ("class C: ...", "class C()", True),
        ("class C(object, Generic[T]): x = 1", "class C()", True),
        # Inherited from a class in this file, also through a class without one of its own.
        ("class B:\n    def __init__(self, a): ...\nclass C(B): ...", "class C(a)", True),
        ("class A:\n    def __init__(self, a): ...\nclass B(A): ...\nclass C(B): ...", "class C(a)", True),
        ("class M: ...\nclass B:\n    def __init__(self, a): ...\nclass C(M, B): ...", "class C(a)", True),
        # From a base defined elsewhere, or a metaclass: not known here.
        ("class C(Exception): ...", "class C", False),
        ("class C(models.Model):\n    name = models.CharField()", "class C", False),
        ("class M: ...\nclass C(M, Base): ...", "class C", False),
        ("class C(metaclass=Meta): ...", "class C", False),
        ("class C(*bases): ...", "class C()", True),
        # A decorator we do not know may generate __init__; so may an assignment.
        ("@strawberry.type\nclass C:\n    a: int", "class C", False),
        ("@functools.total_ordering\nclass C: ...", "class C()", True),
        ("class C:\n    __init__ = make_init()", "class C", False),
        ("@strawberry.type\nclass C:\n    def __init__(self, a): ...", "class C(a)", True),
        # dataclasses: fields in order, defaults, factories, init=False, ClassVar, kw_only, KW_ONLY.
        ("@dataclass\nclass C:\n    a: int\n    b: str = 'x'\n    c: list = field(default_factory=list)\n"
         "    d: int = field(init=False)\n    e: ClassVar[int] = 0\n    f: 'typing.ClassVar[int]' = 0\n    g = 3",
         "class C(a: int, b: str = 'x', c: list = <factory>)", True),
        ("@dataclasses.dataclass(frozen=True, kw_only=True)\nclass C:\n    a: int\n    b: int = 0",
         "class C(*, a: int, b: int = 0)", True),
        ("@dataclass\nclass C:\n    a: int\n    _: KW_ONLY\n    b: int\n    c: int = 1", "class C(a: int, *, b: int, c: int = 1)", True),
        ("@dataclass\nclass C:\n    a: int = field(kw_only=True)\n    b: int = 1", "class C(b: int = 1, *, a: int)", True),
        ("@dataclass\nclass C:\n    a: int = field(default=5)\n    b: InitVar[int] = 0", "class C(a: int = 5, b: InitVar[int] = 0)", True),
        ("@dataclass\nclass B:\n    a: int\n    b: int = 0\n@dataclass\nclass C(B):\n    c: int = 1\n    a: int = 2",
         "class C(a: int = 2, b: int = 0, c: int = 1)", True),
        ("@dataclass\nclass C:\n    a: int\n    def __init__(self, x): ...", "class C(x)", True),
        ("@dataclass(init=False)\nclass C:\n    a: int", "class C()", True),
        ("@dataclass\nclass C(Base):\n    a: int", "class C(a: int)", True),
        # NamedTuple: fields, positional-or-keyword.
        ("class P(NamedTuple):\n    x: int\n    y: int = 0", "class P(x: int, y: int = 0)", True),
        ("class P(typing.NamedTuple):\n    x: int\n    def m(self): ...", "class P(x: int)", True),
        # attrs: classic attr.ib, auto_attribs, define; private names lose their underscore.
        ("@attr.s\nclass C:\n    _x = attr.ib()\n    y = attr.ib(5)\n    z: int = 3\n    w = attr.ib(init=False)",
         "class C(x, y=5)", True),
        ("@attr.s(auto_attribs=True)\nclass C:\n    x: int\n    y: list = attr.Factory(list)", "class C(x: int, y: list = attr.Factory(list))", True),
        ("@attrs.define\nclass C:\n    _x: int\n    y: int = attrs.field(kw_only=True, factory=list)\n"
         "    z: int = attrs.field(alias='zed', default=0)", "class C(x: int, zed: int = 0, *, y: int = <factory>)", True),
        ("@define(kw_only=True)\nclass C:\n    a: int", "class C(*, a: int)", True),
    ],
)
def test_class_constructors(source: str, text: str, known: bool) -> None:
    ms = sigs(source)
    cls = ms.defs[[q for q, s in ms.defs.items() if s.kind == "class"][-1]]
    assert (cls.text, cls.constructor_known) == (text, known)


def test_class_params_and_nested_classes() -> None:
    ms = sigs(
        """\
        class Outer:
            class Inner:
                def __init__(self, a, b=1): ...
                def m(self): ...
            class Child(Inner):
                pass
        """
    )
    assert list(ms.defs) == ["Outer", "Outer.Inner", "Outer.Inner.__init__", "Outer.Inner.m", "Outer.Child"]
    inner = ms.defs["Outer.Inner"]
    assert inner.params == (Param("a", POK, False), Param("b", POK, True))
    assert (inner.kind, inner.line, inner.returns, inner.is_async) == ("class", 2, None, False)
    assert ms.defs["Outer.Child"].params == inner.params  # the base is looked up in the enclosing class body
    assert ms.defs["Outer.Inner.__init__"].params[0].name == "self"


# -- __all__ -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = 1", None),
        ("__all__ = ['a', 'b']", ("a", "b")),
        ("__all__ = ('a',)", ("a",)),
        ("__all__ = []", ()),
        ("__all__: list[str] = ['a']", ("a",)),
        ("__all__ = ['a']\n__all__ += ['b']\n__all__ += ('c',)", ("a", "b", "c")),
        ("__all__ = ['a']\n__all__.extend(['b'])\n__all__.append('c')", ("a", "b", "c")),
        ("__all__ = ['a' 'b']", ("ab",)),
        ("__all__ = ['a', name]", None),
        ("__all__ = other.__all__ + ['a']", None),
        ("__all__ = ['a']\n__all__ += other.__all__", None),
        ("__all__ = ['a']\n__all__ = ['b']", ("b",)),
        ("__all__ = [f'a{x}']", None),
        ("a = __all__ = ['x']", None),
        ("__all__ += ['a']", None),
        ("if X:\n    __all__ = ['a']", None),
    ],
)
def test_all_names(source: str, expected: tuple[str, ...] | None) -> None:
    assert sigs(source).all_names == expected


# -- input that is not Python, or too deep to parse ---------------------------------------------

@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = = 1\n", "syntax error at line 1"),
        ("x = 1\ny = 2\ndef f(a\n", "syntax error at line 3"),
        ("  x = 1\n", "syntax error at line 1"),
        (b"x = 1\x00\n", "syntax error at line 1"),
        (b"\xff\xfe x = 1\n", "syntax error at line 1"),  # read as UTF-8, the bytes replaced
        (b"x = 1\n" * 400_000, "2 MB file; over the 2 MB limit"),
        ("x = " + "(" * 500 + "1" + ")" * 500 + "\n", "too deeply nested to parse"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "too deeply nested to parse"),
        # Deep but bracket-free: LibCST's recursion limit, wrapped in its own exceptions.
        ("if a:\n    pass\n" + "elif a:\n    pass\n" * 1000, "too deeply nested to parse"),
        ("x = " + "-" * 3000 + "1\n", "too deeply nested to parse"),
        ("x = " + " + ".join(["a"] * 3000) + "\n", "too deeply nested to parse"),
    ],
)
def test_unparseable_source(source: str | bytes, message: str) -> None:
    with pytest.raises(SignatureParseError) as excinfo:
        extract(source)
    assert str(excinfo.value) == message
    assert isinstance(excinfo.value, ValueError)


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "(" * 150 + "1" + ")" * 150 + "\ndef f(a): ...\n",
        "x = " + " + ".join(["a"] * 200) + "\ndef f(a): ...\n",
        b"\xef\xbb\xbfdef f(a): ...\r\n",  # BOM, CRLF
        b"# coding: latin-1\nx = '\xe9'\ndef f(a): ...\n",
        # A declared codec that is no text encoding, or none at all: read as UTF-8.
        b"# -*- coding: bogus -*-\nx = 1\ndef f(a): ...\n",
        b"# coding: rot13\ndef f(a): ...\n",
        b"# coding: undefined\nx = '\xff'\ndef f(a): ...\n",
    ],
)
def test_unusual_but_valid_source(source: str | bytes) -> None:
    assert extract(source).defs["f"].text == "def f(a)"


def test_empty_module() -> None:
    assert extract(b"") == ModuleSignatures(defs={}, all_names=None)
