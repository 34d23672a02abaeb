"""Facts of one Python file, as tree-sitter sees them: definitions, imports, calls, references, bindings."""

from __future__ import annotations

import pytest

from graphguard.languages.python.parse import MAX_BYTES, parse
from graphguard.model import BindKind, DefKind, FileFacts, RefKind
from tests.helpers import source


def facts(text: str) -> FileFacts:
    return parse(source(text).encode())


def defs(text: str) -> dict[str, tuple[DefKind, int, int]]:
    return {d.qualname: (d.kind, d.line, d.end_line) for d in facts(text).definitions}


# --- definitions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            """
            def total(items):
                return sum(items)
            """,
            {"total": (DefKind.FUNCTION, 1, 2)},
            id="function",
        ),
        pytest.param(
            """
            class Cart:
                def checkout(self):
                    pass

                class Line:
                    def price(self):
                        pass
            """,
            {
                "Cart": (DefKind.CLASS, 1, 7),
                "Cart.checkout": (DefKind.METHOD, 2, 3),
                "Cart.Line": (DefKind.CLASS, 5, 7),
                "Cart.Line.price": (DefKind.METHOD, 6, 7),
            },
            id="nested-class",
        ),
        pytest.param(
            """
            def outer():
                def helper():
                    pass
                class Local:
                    def m(self):
                        def deep():
                            pass
                return Local
            """,
            {
                "outer": (DefKind.FUNCTION, 1, 8),
                "outer.<locals>.helper": (DefKind.FUNCTION, 2, 3),
                "outer.<locals>.Local": (DefKind.CLASS, 4, 7),
                "outer.<locals>.Local.m": (DefKind.METHOD, 5, 7),
                "outer.<locals>.Local.m.<locals>.deep": (DefKind.FUNCTION, 6, 7),
            },
            id="locals",
        ),
        pytest.param(
            """
            @decorator
            def decorated():
                pass
            """,
            # The definition starts at `def`, not at its decorator.
            {"decorated": (DefKind.FUNCTION, 2, 3)},
            id="decorated-line",
        ),
        pytest.param(
            """
            class A:
                pass
            def after():
                pass
            """,
            {"A": (DefKind.CLASS, 1, 2), "after": (DefKind.FUNCTION, 3, 4)},
            id="siblings-do-not-nest",
        ),
    ],
)
def test_definitions_have_qualnames_kinds_and_lines(text: str, expected: dict[str, tuple[DefKind, int, int]]) -> None:
    assert defs(text) == expected


@pytest.mark.parametrize(
    ("text", "signature"),
    [
        ("def f(a, b=1, *args, c, **kw): pass", "def f(a, b=1, *args, c, **kw)"),
        ("def f(a, /, b, *, c): pass", "def f(a, /, b, *, c)"),
        ("def f(\n    a: int,\n    b: str = 'x',\n) -> None:\n    pass", "def f( a: int, b: str = 'x', ) -> None"),
        ("async def fetch(url): pass", "async def fetch(url)"),
        ("class C(Base, metaclass=Meta): pass", "class C(Base, metaclass=Meta)"),
        ("class C: pass", "class C"),
    ],
)
def test_signature_is_the_header_with_whitespace_collapsed(text: str, signature: str) -> None:
    (d,) = parse(text.encode()).definitions
    assert d.signature == signature


def test_decorators_are_recorded_as_written_in_order() -> None:
    f = facts(
        """
        @functools.lru_cache(maxsize=None)
        @register
        def cached(): pass

        class Thing:
            @property
            def value(self): pass
            @staticmethod
            def make(): pass

        def plain(): pass
        """
    )
    decorators = {d.qualname: d.decorators for d in f.definitions}
    assert decorators == {
        "cached": ("functools.lru_cache(maxsize=None)", "register"),
        "Thing": (),
        "Thing.value": ("property",),
        "Thing.make": ("staticmethod",),
        "plain": (),
    }


def test_class_bases_are_name_chains_without_keywords() -> None:
    (d,) = facts("class Order(models.Model, Mixin, metaclass=Meta):\n    pass\n").definitions
    assert d.bases == ("models.Model", "Mixin")


def test_returns_and_async() -> None:
    f = facts(
        """
        def make() -> "Client": pass
        async def fetch() -> Optional[Session]: pass
        def nothing(): pass
        """
    )
    assert [(d.qualname, d.returns, d.is_async) for d in f.definitions] == [
        ("make", '"Client"', False),
        ("fetch", "Optional[Session]", True),
        ("nothing", None, False),
    ]


def test_async_method_is_a_method() -> None:
    f = facts(
        """
        class Worker:
            async def run(self): pass
        """
    )
    assert [(d.qualname, d.kind, d.is_async) for d in f.definitions] == [
        ("Worker", DefKind.CLASS, False),
        ("Worker.run", DefKind.METHOD, True),
    ]


# --- imports -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # (module, level, name, alias, bound name)
        ("import os", [("os", 0, None, None, "os")]),
        ("import a.b", [("a.b", 0, None, None, "a")]),
        ("import a.b as c", [("a.b", 0, None, "c", "c")]),
        ("import os.path as osp, sys", [("os.path", 0, None, "osp", "osp"), ("sys", 0, None, None, "sys")]),
        ("from x import y", [("x", 0, "y", None, "y")]),
        ("from .x import y as z", [("x", 1, "y", "z", "z")]),
        ("from ..pkg.mod import thing", [("pkg.mod", 2, "thing", None, "thing")]),
        ("from . import sibling", [("", 1, "sibling", None, "sibling")]),
        ("from ... import up", [("", 3, "up", None, "up")]),
        ("from x import *", [("x", 0, "*", None, "*")]),
        ("from .x import *", [("x", 1, "*", None, "*")]),
        ("from x import (a,\n    b as c)", [("x", 0, "a", None, "a"), ("x", 0, "b", "c", "c")]),
    ],
)
def test_import_forms(text: str, expected: list[tuple[str, int, str | None, str | None, str]]) -> None:
    imports = parse(text.encode()).imports
    assert [(i.module, i.level, i.name, i.alias, i.bound_name) for i in imports] == expected


def test_multiline_import_spans_its_lines() -> None:
    (imp,) = facts(
        """
        from x import (
            a,
        )
        """
    ).imports
    assert (imp.line, imp.end_line) == (1, 3)


def test_type_checking_imports_are_flagged() -> None:
    f = facts(
        """
        import typing
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from client import Client
        if typing.TYPE_CHECKING:
            import heavy
        else:
            import light
        """
    )
    assert {i.bound_name: i.type_checking for i in f.imports} == {
        "typing": False,
        "TYPE_CHECKING": False,
        "Client": True,
        "heavy": True,
        "light": False,
    }


def test_function_level_imports_carry_their_scope() -> None:
    f = facts(
        """
        import os
        def f():
            import json
        class C:
            def m(self):
                from .x import y
        """
    )
    assert {i.bound_name: i.scope for i in f.imports} == {"os": "", "json": "f", "y": "C.m"}


# --- calls -------------------------------------------------------------------------------------


def calls(text: str) -> list[tuple[str, str]]:
    return [(c.callee, c.scope) for c in facts(text).calls]


@pytest.mark.parametrize(
    ("expr", "callees"),
    [
        ("total(x)", ["total"]),
        ("self.a.b()", ["self.a.b"]),
        ("client.get_session().close()", ["client.get_session", "client.get_session().close"]),
        ("super().save()", ["super", "super().save"]),
        ('"".join(items)', ["?.join"]),
        ("obj[0].method()", ["?.method"]),
        ("(a or b).c()", ["?.c"]),
        ("(client).close()", ["client.close"]),
        ("f()()", ["f", "f()"]),
        ("pkg.mod.Class()", ["pkg.mod.Class"]),
    ],
)
def test_callee_is_a_name_chain(expr: str, callees: list[str]) -> None:
    assert sorted(c.callee for c in parse(expr.encode()).calls) == sorted(callees)


@pytest.mark.parametrize(
    ("expr", "n_positional", "keywords", "star", "starstar"),
    [
        ("f()", 0, (), False, False),
        ("f(a, b, c,)", 3, (), False, False),
        ("f(a, key=1, other=2)", 1, ("key", "other"), False, False),
        ("f(*args, **kwargs)", 0, (), True, True),
        ("f(a, *rest, c=1)", 1, ("c",), True, False),
        ("f(**opts)", 0, (), False, True),
        ("f(x for x in y)", 1, (), False, False),
        ("f(a, # a comment\n  b)", 2, (), False, False),
    ],
)
def test_call_arguments(expr: str, n_positional: int, keywords: tuple[str, ...], star: bool, starstar: bool) -> None:
    (c,) = parse(expr.encode()).calls
    assert (c.n_positional, c.keywords, c.has_star, c.has_starstar) == (n_positional, keywords, star, starstar)


def test_calls_have_scope_and_span() -> None:
    f = facts(
        """
        setup()
        class C:
            registry = make_registry()
            def m(self):
                return compute(
                    1,
                )
        """
    )
    got = [(c.callee, c.scope, c.line, c.col, c.end_line, c.end_col) for c in f.calls]
    assert got == [
        ("setup", "", 1, 0, 1, 7),
        ("make_registry", "C", 3, 15, 3, 30),
        ("compute", "C.m", 5, 15, 7, 9),
    ]


def test_decorator_and_default_are_evaluated_in_the_enclosing_scope() -> None:
    f = facts(
        """
        class C:
            @cached(ttl())
            def m(self, x=default()):
                inner()
        """
    )
    assert {c.callee: c.scope for c in f.calls} == {"cached": "C", "ttl": "C", "default": "C", "inner": "C.m"}


def test_call_name_drops_the_receiver() -> None:
    assert [c.name for c in facts("client.get_session().close()\nf()()\n").calls] == ["get_session", "close", "f", "f"]


# --- references --------------------------------------------------------------------------------


def refs(text: str) -> set[tuple[str, RefKind, str]]:
    return {(r.target, r.kind, r.scope) for r in facts(text).references}


def test_decorators_and_bases_rooted_in_known_names_are_references() -> None:
    got = refs(
        """
        import mod
        from deco import register
        from models import Model

        @register
        class Thing(mod.Base, Model, Unknown):
            pass

        @mod.decorate
        def g():
            pass

        @unknown_decorator
        def h():
            pass
        """
    )
    assert got == {
        ("register", RefKind.DECORATOR, ""),
        ("mod.Base", RefKind.BASE, ""),
        ("Model", RefKind.BASE, ""),
        ("mod.decorate", RefKind.DECORATOR, ""),
    }


def test_callbacks_passed_as_values_are_references() -> None:
    got = refs(
        """
        from tasks import on_done
        def handler(): pass
        def run(fut, local_name):
            fut.add_done_callback(on_done)
            schedule(callback=handler)
            schedule(local_name)
            alias = handler
        """
    )
    assert got == {
        ("on_done", RefKind.VALUE, "run"),
        ("handler", RefKind.VALUE, "run"),
    }
    assert sum(1 for r in facts("from t import cb\nf(cb)\ng = cb\n").references if r.target == "cb") == 2


def test_module_attribute_read_is_a_reference() -> None:
    got = refs(
        """
        from django.utils import timezone
        def f():
            print(timezone.now)
            return timezone.now()
        """
    )
    # The read is a reference; the call is a call site, not also a reference.
    assert got == {("timezone.now", RefKind.VALUE, "f")}
    got = refs("import settings\nif settings.DEBUG:\n    pass\n")
    assert got == {("settings.DEBUG", RefKind.ATTRIBUTE, "")}


# --- bindings -----------------------------------------------------------------------------------


def bindings(text: str) -> list[tuple[str, str, BindKind, str]]:
    return [(b.scope, b.target, b.kind, b.value) for b in facts(text).bindings]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("from m import Client\nc = Client()", [("", "c", BindKind.CALL, "Client")]),
        ("from m import Class\nAlias = Class", [("", "Alias", BindKind.ALIAS, "Class")]),
        ("def other_fn(): pass\nfn = other_fn", [("", "fn", BindKind.ALIAS, "other_fn")]),
        ("import functools\nfn = functools.partial(target, 1)", [("", "fn", BindKind.PARTIAL, "target")]),
        ("from functools import partial\nfn = partial(mod.target)", [("", "fn", BindKind.PARTIAL, "mod.target")]),
        ("HORIZONTAL = 1", [("", "HORIZONTAL", BindKind.VALUE, "")]),
        ("x = unknown_name", [("", "x", BindKind.VALUE, "")]),
        ("a, b = 1, 2", [("", "a", BindKind.VALUE, ""), ("", "b", BindKind.VALUE, "")]),
        ("session: Session", [("", "session", BindKind.ANNOTATION, "Session")]),
        ("s = client.get_session()", [("", "s", BindKind.CALL, "client.get_session")]),
        ("x = y = Client()", [("", "x", BindKind.CALL, "Client"), ("", "y", BindKind.CALL, "Client")]),
    ],
)
def test_module_level_bindings(text: str, expected: list[tuple[str, str, BindKind, str]]) -> None:
    assert bindings(text) == expected


def test_instance_class_and_parameter_bindings() -> None:
    got = bindings(
        """
        class Service:
            session: Session
            default = Session()
            def __init__(self, client: Client, other: Optional[Client] = None):
                self.client = client
                self.typed: Client = make()
                self.a.b = 1
            @classmethod
            def build(cls):
                cls.registry = Registry()
        def f(x: "Client", y: Client | None = None):
            with open(path) as fh, Client() as c:
                pass
        """
    )
    assert set(got) == {
        ("Service", "session", BindKind.ANNOTATION, "Session"),
        ("Service", "default", BindKind.CALL, "Session"),
        ("Service.__init__", "client", BindKind.ANNOTATION, "Client"),
        ("Service.__init__", "other", BindKind.ANNOTATION, "Optional[Client]"),
        ("Service.__init__", "self.client", BindKind.VALUE, "client"),  # the chain it is set to: check/shadow reads it
        ("Service.__init__", "self.typed", BindKind.ANNOTATION, "Client"),
        ("Service.__init__", "self.typed", BindKind.CALL, "make"),
        ("Service.__init__", "self.a.b", BindKind.VALUE, ""),
        ("Service.build", "cls.registry", BindKind.CALL, "Registry"),
        ("f", "x", BindKind.ANNOTATION, '"Client"'),
        ("f", "y", BindKind.ANNOTATION, "Client | None"),
        ("f", "fh", BindKind.WITH, "open"),
        ("f", "c", BindKind.WITH, "Client"),
    }


# --- __all__ ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "all_names"),
    [
        ("x = 1", None),
        ('__all__ = ["a", "b"]', ("a", "b")),
        ("__all__ = ('a', 'b',)", ("a", "b")),
        ("__all__ = []", ()),
        ('__all__ = ["a"]\n__all__ += ["b", "c"]', ("a", "b", "c")),
        ('__all__ = ["a"] + other.__all__', None),
        ('__all__ = [name for name in dir()]', None),
        # Extended by something computed: the list is no longer known.
        ('__all__ = ["a"]\n__all__ += other.__all__', None),
        ('def f():\n    __all__ = ["local"]', None),
    ],
)
def test_dunder_all(text: str, all_names: tuple[str, ...] | None) -> None:
    assert parse(text.encode()).all_names == all_names


# --- files that are not plain Python ----------------------------------------------------------------


def test_syntax_error_gives_a_warning_and_partial_facts() -> None:
    f = facts(
        """
        def ok():
            pass

        def broken(:
            pass

        def later():
            helper()
        """
    )
    assert f.parsed
    assert f.warnings == ("syntax error at line 4; facts are partial",)
    assert {"ok", "later"} <= {d.qualname for d in f.definitions}
    assert [c.callee for c in f.calls] == ["helper"]


def test_binary_file_is_skipped_with_a_warning() -> None:
    f = parse(b"x = 1\n\x00\x01\x02def f(): pass\n")
    assert not f.parsed
    assert f.definitions == ()
    assert f.warnings == ("binary file; not parsed",)


def test_latin1_with_coding_declaration_is_decoded() -> None:
    f = parse("# -*- coding: latin-1 -*-\ndef café():\n    return 'déjà'\n".encode("latin-1"))
    assert f.parsed and f.warnings == ()
    assert [d.qualname for d in f.definitions] == ["café"]


def test_non_utf8_without_declaration_is_parsed_with_a_warning() -> None:
    f = parse("def f():\n    return 'déjà'\n".encode("latin-1"))
    assert f.parsed
    assert [d.qualname for d in f.definitions] == ["f"]
    # ... and Python itself refuses such a file: a syntax error too.
    assert len(f.warnings) == 2 and "not valid UTF-8" in f.warnings[0] and f.warnings[1] == "syntax error at line 2"


def test_utf8_bom_is_ignored() -> None:
    f = parse(b"\xef\xbb\xbfdef f():\n    pass\n")
    assert [(d.qualname, d.line) for d in f.definitions] == [("f", 1)]
    assert f.warnings == ()


def test_empty_file() -> None:
    assert parse(b"") == FileFacts()


def test_file_over_the_size_limit_is_skipped_with_a_warning() -> None:
    assert MAX_BYTES < 5_000_000
    line = b"def f(a, b):\n    return g(a) + b\n"
    big = line * (5_000_000 // len(line) + 1)
    f = parse(big)
    assert not f.parsed
    assert f.definitions == () and f.calls == ()
    assert len(f.warnings) == 1 and "limit" in f.warnings[0]


def test_file_just_under_the_size_limit_is_parsed() -> None:
    line = b"# " + b"padding " * 100 + b"\n"
    f = parse(b"def f(): pass\n" + line * ((MAX_BYTES - 20) // len(line)))
    assert f.parsed and [d.qualname for d in f.definitions] == ["f"]


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "(" * 500 + "1" + ")" * 500,
        "f(" * 500 + ")" * 500,
        "x = " + "[" * 500 + "]" * 500,
        "x = a" + ".b()" * 500,
        "x = " + "-" * 500 + "1",
        "x = " + "(" * 500,  # unclosed: a syntax error 500 levels down
    ],
    ids=["parens", "calls", "lists", "call-chain", "unary", "unclosed"],
)
def test_deeply_nested_expression_does_not_crash(text: str) -> None:
    f = parse(text.encode())
    assert f.parsed
    # And the facts survive the cache round trip.
    assert FileFacts.from_json(f.to_json()) == f


def test_five_hundred_nested_calls_are_all_call_sites() -> None:
    f = parse(("f(" * 500 + ")" * 500).encode())
    assert len(f.calls) == 500
    assert {c.callee for c in f.calls} == {"f"}
    assert sorted(c.n_positional for c in f.calls) == [0] + [1] * 499


# --- the cache format ------------------------------------------------------------------------------------


def test_facts_round_trip_through_json() -> None:
    f = facts(
        """
        # -*- coding: utf-8 -*-
        from __future__ import annotations
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .client import Client
        import functools

        @functools.cache
        class Cart(Base):
            items: list
            def total(self, *args, tax: float = 0, **kw) -> "Money":
                self.lines = [x for x in args]
                return sum(self.lines, start=Money(0))

        fn = functools.partial(Cart.total, tax=1)
        __all__ = ["Cart", "fn"]
        def broken(:
        """
    )
    assert f.definitions and f.imports and f.calls and f.references and f.bindings and f.warnings
    assert FileFacts.from_json(f.to_json()) == f


def test_long_run_of_commented_out_code_keeps_lines_and_columns() -> None:
    # 20 000 comment lines after a statement: tree-sitter-python alone takes ~10 s on this.
    text = "class A:\n    def f(self):\n        pass\n" + "    # old(code)  # é\n" * 20_000 + "    def g(self): return h(1)  # é\n"
    f = parse(text.encode())
    assert [(d.qualname, d.line) for d in f.definitions] == [("A", 1), ("A.f", 2), ("A.g", 20_004)]
    assert [(c.callee, c.line, c.col) for c in f.calls] == [("h", 20_004, 24)]


def test_comment_lines_inside_arguments_are_not_arguments() -> None:
    (c,) = parse(b"f(a,\n  # b,\n  c,  # d\n)\n").calls
    assert c.n_positional == 2
