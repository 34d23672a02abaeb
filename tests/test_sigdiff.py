from __future__ import annotations

import textwrap

import pytest

from graphguard.languages.python.sigdiff import ChangeKind, SymbolChange, added, compare, find_moves, is_informational
from graphguard.languages.python.signature import extract

Row = tuple[str, str, tuple[str, ...]]


def changes(before: str, after: str) -> list[Row]:
    old, new = extract(textwrap.dedent(before)), extract(textwrap.dedent(after))
    return [(c.qualname, c.change.value, c.breaking) for c in compare(old, new)]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # -- nothing a caller can see ------------------------------------------------------------
        ("def f(a):\n    return 1", "def f(a):\n    x = 2\n    return x", []),
        ("def f(a,b=1): ...", "# comment\n\ndef f(\n    a,  # first\n    b = 1,\n):\n    pass", []),
        ("def f(a=1): ...", "def f(a=2): ...", []),  # a default's value
        ("def f(x: 'int'): ...", 'def f(x: "int"): ...', []),
        ("def f():\n    def inner(a): ...", "def f():\n    def inner(a, b): ...", []),
        ("class C:\n    def m(self, x): ...", "class C:\n    def m(this, x): ...", []),
        ("class C:\n    @classmethod\n    def m(cls, x): ...", "class C:\n    @classmethod\n    def m(klass, x): ...", []),
        ("def f(a, /): ...", "def f(b, /): ...", []),  # a positional-only name is invisible
        ("def f(*args, **kw): ...", "def f(*rest, **options): ...", []),
        ("def f(a): ...", "def f(a): ...\ndef g(b): ...", []),  # additions are not changes
        # -- removed, renamed ---------------------------------------------------------------------
        ("def f(): ...\ndef g(): ...", "def g(): ...", [("f", "removed", ("removed",))]),
        ("def f(a): ...", "def g(a): ...", [("f", "renamed", ("renamed:g",))]),
        ("def f(a): ...", "def g(a, b): ...", [("f", "removed", ("removed",))]),
        ("def f(a) -> int: ...", "def g(a) -> str: ...", [("f", "removed", ("removed",))]),
        ("def f(a): ...", "@cache\ndef g(a): ...", [("f", "removed", ("removed",))]),
        # Ambiguous: two gone, two new, same shape: not guessed.
        ("def a(): ...\ndef b(): ...", "def c(): ...\ndef d(): ...", [("a", "removed", ("removed",)), ("b", "removed", ("removed",))]),
        ("class C:\n    def m(self, x): ...", "class C:\n    def n(self, y): ...", [("C.m", "removed", ("removed",))]),
        ("class C:\n    def m(self, x): ...", "class C:\n    def n(me, x): ...", [("C.m", "renamed", ("renamed:C.n",))]),
        ("class A:\n    def m(self): ...\nclass B: ...", "class A: ...\nclass B:\n    def m(self): ...", [("A.m", "removed", ("removed",))]),
        # A renamed class carries its members, whatever their own changes.
        ("class Cart:\n    def __init__(self, items): ...\n    def total(self): ...",
         "class Basket:\n    def __init__(self, items): ...\n    def total(self, tax): ...",
         [("Cart", "renamed", ("renamed:Basket",)), ("Cart.__init__", "renamed", ("renamed:Basket.__init__",)),
          ("Cart.total", "renamed", ("renamed:Basket.total", "required-param-added:tax"))]),
        # -- parameters ---------------------------------------------------------------------------
        ("def f(a): ...", "def f(a, tz): ...", [("f", "signature", ("required-param-added:tz",))]),
        ("def f(a): ...", "def f(a, *, tz): ...", [("f", "signature", ("required-param-added:tz",))]),
        ("def f(a): ...", "def f(a, tz=None): ...", [("f", "signature", ("optional-param-added:tz",))]),
        ("def f(a, at): ...", "def f(a): ...", [("f", "signature", ("param-removed:at",))]),
        ("def f(sub, at): ...", "def f(sub, when): ...", [("f", "signature", ("param-renamed:at->when",))]),
        ("def f(*, at=1): ...", "def f(*, when): ...", [("f", "signature", ("param-renamed:at->when", "default-removed:when"))]),
        ("def f(a, at): ...", "def f(a, *, when): ...", [("f", "signature", ("param-removed:at", "required-param-added:when"))]),
        ("def f(items, tax_rate): ...", "def f(items, *, tax_rate): ...", [("f", "signature", ("param-kind-changed:tax_rate",))]),
        ("def f(a, b): ...", "def f(a, b, /): ...", [("f", "signature", ("param-kind-changed:a", "param-kind-changed:b"))]),
        ("def f(a, x=1): ...", "def f(a, x): ...", [("f", "signature", ("default-removed:x",))]),
        ("def f(a, x): ...", "def f(a, x=1): ...", [("f", "signature", ("default-added:x",))]),
        ("def f(a, b): ...", "def f(b, a): ...", [("f", "signature", ("params-reordered",))]),
        ("def f(a, b=1): ...", "def f(a, c=2, b=1): ...", [("f", "signature", ("optional-param-added:c", "param-position-changed:b"))]),
        ("def f(a, b): ...", "def f(b): ...", [("f", "signature", ("param-removed:a", "param-position-changed:b"))]),
        ("def f(a: int): ...", "def f(a: str): ...", [("f", "signature", ("param-annotation-changed:a",))]),
        ("def f(*args): ...", "def f(): ...", [("f", "signature", ("param-removed:*args",))]),
        ("def f(): ...", "def f(*args, **kw): ...", [("f", "signature", ("optional-param-added:*args", "optional-param-added:**kw"))]),
        ("def f(a, **kw): ...", "def f(a): ...", [("f", "signature", ("param-removed:**kw",))]),
        ("def total(items, tax_rate=0.1): ...", "def total(items, *, tax_rate, tz): ...",
         [("total", "signature", ("required-param-added:tz", "param-kind-changed:tax_rate", "default-removed:tax_rate"))]),
        # -- return, async, decorators, kind ------------------------------------------------------
        ("def f() -> int: ...", "def f() -> str: ...", [("f", "signature", ("return-annotation-changed",))]),
        ("def f(): ...", "def f() -> None: ...", [("f", "signature", ("return-annotation-changed",))]),
        ("def f(): ...", "async def f(): ...", [("f", "signature", ("became-async",))]),
        ("async def f(): ...", "def f(): ...", [("f", "signature", ("became-sync",))]),
        ("def f(): ...", "@functools.cache\ndef f(): ...", [("f", "signature", ("decorator-changed",))]),
        ("@a\n@b\ndef f(): ...", "@b\n@a\ndef f(): ...", [("f", "signature", ("decorator-changed",))]),
        ("class C:\n    def m(self, x): ...", "class C:\n    @staticmethod\n    def m(x): ...", [("C.m", "signature", ("decorator-changed",))]),
        ("def Cart(items): ...", "class Cart:\n    def __init__(self, items): ...", [("Cart", "signature", ("kind-changed:function->class",))]),
        # -- classes: constructor changes are reported on the class ------------------------------
        ("class Cart:\n    def __init__(self, items): ...", "class Cart:\n    def __init__(self, items, owner): ...",
         [("Cart", "signature", ("required-param-added:owner",)), ("Cart.__init__", "signature", ("required-param-added:owner",))]),
        ("class Cart:\n    def __init__(self, items): ...", "class Cart:\n    def __init__(self, items, owner=None): ...",
         [("Cart", "signature", ("optional-param-added:owner",)), ("Cart.__init__", "signature", ("optional-param-added:owner",))]),
        ("@dataclass\nclass P:\n    x: int", "@dataclass\nclass P:\n    x: int\n    y: int", [("P", "signature", ("required-param-added:y",))]),
        ("@dataclass\nclass P:\n    x: int", "@dataclass(kw_only=True)\nclass P:\n    x: int",
         [("P", "signature", ("param-kind-changed:x", "decorator-changed"))]),
        ("class B:\n    def __init__(self, a): ...\nclass C(B): ...", "class B:\n    def __init__(self, a, b): ...\nclass C(B): ...",
         [("B", "signature", ("required-param-added:b",)), ("B.__init__", "signature", ("required-param-added:b",)),
          ("C", "signature", ("required-param-added:b",))]),
        ("class C:\n    def __init__(self, a): ...", "class C(Base): ...",
         [("C", "signature", ("constructor-inherited",)), ("C.__init__", "removed", ("removed",))]),
        ("class C(Base): ...", "class C(Base):\n    def __init__(self, a): ...", [("C", "signature", ("constructor-defined",))]),
        ("class C(Base): ...", "class C(Other): ...", []),
        ("class A:\n    class B:\n        def m(self, x): ...", "class A:\n    class B:\n        def m(self): ...",
         [("A.B.m", "signature", ("param-removed:x",))]),
    ],
)
def test_compare(before: str, after: str, expected: list[Row]) -> None:
    assert changes(before, after) == expected


def test_change_records() -> None:
    old = extract("def b(x): ...\ndef a(x): ...\ndef c(x, z): ...\n")
    new = extract("def b(x, y): ...\ndef renamed(x): ...\n")
    result = compare(old, new)
    assert [c.qualname for c in result] == ["a", "b", "c"]  # sorted by qualname
    a, b, c = result
    assert a == SymbolChange("a", ChangeKind.RENAMED, ("renamed:renamed",), old.defs["a"], new.defs["renamed"], "renamed")
    assert (b.before, b.after, b.new_qualname) == (old.defs["b"], new.defs["b"], None)
    assert (c.change, c.after) == (ChangeKind.REMOVED, None)
    assert added(old, new) == []
    assert added(new, old) == [old.defs["c"]]  # "a" is the rename's target


def test_added_leaves_out_rename_targets() -> None:
    old = extract("def f(a): ...\n")
    new = extract("def g(a): ...\ndef h(a, b): ...\n")
    assert [s.qualname for s in added(old, new)] == ["h"]


@pytest.mark.parametrize(
    ("code", "informational"),
    [("optional-param-added:x", True), ("default-added:x", True), ("return-annotation-changed", True),
     ("param-annotation-changed:x", True), ("required-param-added:x", False), ("removed", False),
     ("decorator-changed", False), ("param-position-changed:b", False)],
)
def test_is_informational(code: str, informational: bool) -> None:
    assert is_informational(code) is informational


# -- moves across modules -----------------------------------------------------------------------

def module_changes(modules: dict[str, tuple[str, str]]) -> tuple[list[tuple[str, SymbolChange]], list[tuple[str, object]]]:
    removed, gained = [], []
    for name, (before, after) in modules.items():
        old, new = extract(textwrap.dedent(before)), extract(textwrap.dedent(after))
        removed += [(name, c) for c in compare(old, new)]
        gained += [(name, s) for s in added(old, new)]
    return removed, gained


@pytest.mark.parametrize(
    ("modules", "expected"),
    [
        # Same name, same parameters, in another module: moved.
        ({"pkg.a": ("def f(x): ...\ndef g(): ...", "def g(): ..."), "pkg.b": ("", "def f(y_renamed_is_fine=None): ...")},
         [("pkg.a", "f", "removed", ("removed",))]),
        ({"pkg.a": ("def f(x): ...\ndef g(): ...", "def g(): ..."), "pkg.b": ("", "def f(x): ...")},
         [("pkg.a", "f", "moved", ("moved:pkg.b.f",))]),
        ({"pkg.a": ("def f(x): ...", ""), "pkg.b": ("", "def f(x, y): ...")}, [("pkg.a", "f", "removed", ("removed",))]),
        # A class moves with its methods.
        ({"a": ("class C:\n    def m(self): ...", ""), "b": ("", "class C:\n    def m(self): ...")},
         [("a", "C", "moved", ("moved:b.C",)), ("a", "C.m", "moved", ("moved:b.C.m",))]),
        # Two modules gained it: ambiguous, left removed.
        ({"a": ("def f(x): ...", ""), "b": ("", "def f(x): ..."), "c": ("", "def f(x): ...")}, [("a", "f", "removed", ("removed",))]),
        # Other changes pass through.
        ({"a": ("def f(x): ...", "def f(x, y): ...")}, [("a", "f", "signature", ("required-param-added:y",))]),
    ],
)
def test_find_moves(modules: dict[str, tuple[str, str]], expected: list[tuple[str, str, str, tuple[str, ...]]]) -> None:
    removed, gained = module_changes(modules)
    result = find_moves(removed, gained)  # type: ignore[arg-type]
    assert [(m, c.qualname, c.change.value, c.breaking) for m, c in result] == expected


def test_moved_record() -> None:
    removed, gained = module_changes({"pkg.a": ("def f(x): ...", ""), "pkg.b": ("", "\n\ndef f(x): ...")})
    [(module, change)] = find_moves(removed, gained)  # type: ignore[arg-type]
    assert module == "pkg.a"
    assert (change.change, change.new_qualname, change.new_module) == (ChangeKind.MOVED, "f", "pkg.b")
    assert change.after is not None and change.after.line == 3
    assert change.before is not None and change.before.line == 1


def test_every_code_sigdiff_can_yield_is_a_valid_block_on_value() -> None:
    # `block_on` is validated against result.CODES, a list kept by hand: it must not drift from sigdiff.
    import re
    from pathlib import Path

    from graphguard.languages.python import sigdiff
    from graphguard.result import CODES

    text = Path(sigdiff.__file__).read_text(encoding="utf-8")
    literals = set(re.findall(r"[\"'{]([a-z]+(?:-[a-z]+)+)[\"':]", text)) - {"param-added"}
    assert literals and literals <= set(CODES), sorted(literals - set(CODES))


def test_a_definition_whose_name_the_module_still_binds_is_no_rename_source() -> None:
    """`html.py` moved its class to `base.py`, imports it back, and gained a subclass of the same shape."""
    old = extract(textwrap.dedent("""
        class RootPage:
            def __init__(self, content=None): ...
        """))
    new = extract(textwrap.dedent("""
        from .base import RootPage

        class HTMLRootPage(RootPage):
            def __init__(self, content=None): ...
        """))
    assert [(c.qualname, c.change) for c in compare(old, new)] == [
        ("RootPage", ChangeKind.RENAMED), ("RootPage.__init__", ChangeKind.RENAMED)]
    kept = compare(old, new, kept={"RootPage"})
    assert [(c.qualname, c.change) for c in kept] == [("RootPage", ChangeKind.REMOVED), ("RootPage.__init__", ChangeKind.REMOVED)]
    assert [s.qualname for s in added(old, new, kept={"RootPage"})] == ["HTMLRootPage", "HTMLRootPage.__init__"]
