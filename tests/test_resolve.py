"""Resolution end to end: a real git repository, `graphguard callers SYMBOL --format json`.

One test per way a call can reach its definition. Each repository is small and
states the case in its own source; the assertion lists every use found.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from graphguard.languages.python.modules import ModuleMap
from graphguard.languages.python.parse import parse
from graphguard.languages.python.resolver import InfoCache, Resolver
from graphguard.languages.python.scopes import annotation_chain
from tests.helpers import GitRepo, Result, source

Use = tuple[str, int, str, str]  # (path, line, kind, resolution)


@pytest.fixture
def uses(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> Callable[..., set[Use]]:
    """`uses(files, symbol, kind=None)` -> every (path, line, kind, resolution) that `callers` lists."""

    def run(files: Mapping[str, str], symbol: str, kind: str | None = None) -> set[Use]:
        repo = make_repo(files)
        r = graphguard(repo, "callers", symbol, "--format", "json")
        assert r.code == 0, r.err
        assert r.json["symbol"] == symbol
        found = {(c["path"], c["line"], c["kind"], c["resolution"]) for c in r.json["callers"]}
        return {u for u in found if kind is None or u[2] == kind}

    return run


# --- names, imports and aliases ---------------------------------------------------------------------


def test_module_local_call(uses: Callable[..., set[Use]]) -> None:
    files = {
        "util.py": """
            def helper():
                pass
            def main():
                helper()
            helper()
        """,
    }
    assert uses(files, "util.helper") == {("util.py", 4, "call", "exact"), ("util.py", 5, "call", "exact")}


def test_imported_name_and_alias(uses: Callable[..., set[Use]]) -> None:
    files = {
        "a.py": "def f():\n    pass\n",
        "b.py": """
            from a import f
            from a import f as g
            f()
            g()
        """,
    }
    assert uses(files, "a.f") == {
        ("b.py", 1, "import", "exact"),
        ("b.py", 2, "import", "exact"),
        ("b.py", 3, "call", "exact"),
        ("b.py", 4, "call", "exact"),
    }


def test_module_level_aliases_of_a_class_and_a_function(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": """
            class Client:
                pass
            def other_fn():
                pass
            Alias = Client
            fn = other_fn
        """,
        "app.py": """
            from lib import Alias, fn
            Alias()
            fn()
        """,
    }
    assert uses(files, "lib.Client", kind="call") == {("app.py", 2, "call", "exact")}
    assert uses(files, "lib.other_fn", kind="call") == {("app.py", 3, "call", "exact")}


def test_functools_partial_reaches_the_wrapped_function(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": "def send(to, body):\n    pass\n",
        "app.py": """
            import functools
            from functools import partial
            from lib import send
            to_admin = functools.partial(send, "admin")
            to_ops = partial(send, "ops")
            to_admin("hi")
            to_ops(body="hi")
        """,
    }
    assert uses(files, "lib.send", kind="call") == {("app.py", 6, "call", "partial"), ("app.py", 7, "call", "partial")}


def test_module_function_and_package_class_through_module_aliases(uses: Callable[..., set[Use]]) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/mod.py": """
            def func():
                pass
            class Thing:
                pass
        """,
        "app.py": """
            import pkg.mod as m
            import pkg.mod
            m.func()
            pkg.mod.func()
            m.Thing()
        """,
    }
    assert uses(files, "pkg.mod.func", kind="call") == {("app.py", 3, "call", "exact"), ("app.py", 4, "call", "exact")}
    assert uses(files, "pkg.mod.Thing", kind="call") == {("app.py", 5, "call", "exact")}


def test_re_exports_through_two_package_inits_reach_the_definition(uses: Callable[..., set[Use]]) -> None:
    files = {
        "shop/__init__.py": "from .billing import charge, Invoice\n",
        "shop/billing/__init__.py": "from .core import charge, Invoice\n",
        "shop/billing/core.py": """
            def charge(amount):
                pass
            class Invoice:
                pass
        """,
        "app.py": """
            import shop
            from shop import charge, Invoice
            shop.charge(1)
            charge(2)
            shop.Invoice()
            Invoice()
        """,
    }
    assert uses(files, "shop.billing.core.charge", kind="call") == {("app.py", 3, "call", "exact"), ("app.py", 4, "call", "exact")}
    assert uses(files, "shop.billing.core.Invoice", kind="call") == {("app.py", 5, "call", "exact"), ("app.py", 6, "call", "exact")}


def test_star_import_honours_dunder_all(uses: Callable[..., set[Use]]) -> None:
    files = {
        "pkg/__init__.py": "from .api import *\n",
        "pkg/api.py": """
            __all__ = ["public"]
            def public():
                pass
            def hidden():
                pass
        """,
        "app.py": """
            from pkg import *
            public()
            hidden()
        """,
    }
    assert uses(files, "pkg.api.public", kind="call") == {("app.py", 2, "call", "exact")}
    # Not exported: the call cannot resolve, and shows up only as a name match.
    assert uses(files, "pkg.api.hidden", kind="call") == {("app.py", 3, "call", "candidate")}


def test_from_package_import_submodule(uses: Callable[..., set[Use]]) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/tools.py": "def run():\n    pass\n",
        "app.py": """
            from pkg import tools
            tools.run()
        """,
    }
    assert uses(files, "pkg.tools.run", kind="call") == {("app.py", 2, "call", "exact")}


def test_relative_imports(uses: Callable[..., set[Use]]) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": "def util():\n    pass\n",
        "pkg/sub/__init__.py": "from ..base import util as u\n",
        "pkg/sub/leaf.py": """
            from . import u
            from .. import base
            from ..base import util
            u()
            base.util()
            util()
        """,
    }
    assert uses(files, "pkg.base.util", kind="call") == {
        ("pkg/sub/leaf.py", 4, "call", "exact"),
        ("pkg/sub/leaf.py", 5, "call", "exact"),
        ("pkg/sub/leaf.py", 6, "call", "exact"),
    }


# --- classes ---------------------------------------------------------------------------------------------


def test_instantiation_reaches_the_class_and_its_init(uses: Callable[..., set[Use]]) -> None:
    files = {
        "models.py": """
            class Order:
                def __init__(self, total):
                    pass
        """,
        "app.py": "from models import Order\nOrder(3)\n",
    }
    assert uses(files, "models.Order", kind="call") == {("app.py", 2, "call", "exact")}
    assert uses(files, "models.Order.__init__", kind="call") == {("app.py", 2, "call", "exact")}


def test_instantiation_reaches_an_init_inherited_from_an_in_repo_base(uses: Callable[..., set[Use]]) -> None:
    files = {
        "base.py": """
            class Model:
                def __init__(self, **fields):
                    pass
        """,
        "models.py": """
            from base import Model
            class Order(Model):
                pass
        """,
        "app.py": "from models import Order\nOrder(total=3)\n",
    }
    assert uses(files, "base.Model.__init__", kind="call") == {("app.py", 2, "call", "exact")}


def test_self_and_cls_methods_follow_in_repo_bases(uses: Callable[..., set[Use]]) -> None:
    files = {
        "base.py": """
            class Base:
                def helper(self):
                    pass
        """,
        "child.py": """
            from base import Base
            class Child(Base):
                def run(self):
                    self.helper()
                @classmethod
                def build(cls):
                    cls.helper(None)
        """,
    }
    assert uses(files, "base.Base.helper", kind="call") == {("child.py", 4, "call", "exact"), ("child.py", 7, "call", "exact")}


def test_super_call_reaches_the_base_method(uses: Callable[..., set[Use]]) -> None:
    files = {
        "base.py": """
            class Base:
                def save(self):
                    pass
        """,
        "child.py": """
            from base import Base
            class Child(Base):
                def save(self):
                    super().save()
        """,
    }
    assert uses(files, "base.Base.save", kind="call") == {("child.py", 4, "call", "exact")}
    assert uses(files, "child.Child.save", kind="call") == set()


# --- receiver types ---------------------------------------------------------------------------------------

CLIENT = """
    class Session:
        def close(self):
            pass

    class Client:
        def get_session(self) -> "Session":
            return Session()
        def send(self):
            pass

    def make_client() -> Client:
        return Client()
"""


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("c = Client()\nc.send()", id="local-from-constructor"),
        pytest.param("c = make_client()\nc.send()", id="local-from-return-annotation"),
        pytest.param("with Client() as c:\n    c.send()", id="with-as"),
        pytest.param("c = d = Client()\nc.send()", id="chained-assignment"),
    ],
)
def test_receiver_typed_from_a_local_variable(uses: Callable[..., set[Use]], body: str) -> None:
    text = "from lib import Client, make_client\ndef run():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    line = len(text.splitlines())
    assert uses({"lib.py": CLIENT, "app.py": text}, "lib.Client.send", kind="call") == {("app.py", line, "call", "exact")}


@pytest.mark.parametrize("annotation", ["Client", "Optional[Client]", "Client | None", '"Client"', "typing.Optional['Client']"])
def test_receiver_typed_from_an_annotated_parameter(uses: Callable[..., set[Use]], annotation: str) -> None:
    files = {
        "lib.py": CLIENT,
        "app.py": f"""
            import typing
            from typing import Optional
            from lib import Client
            def run(x: {annotation}):
                x.send()
        """,
    }
    assert uses(files, "lib.Client.send", kind="call") == {("app.py", 5, "call", "exact")}


def test_receiver_typed_from_instance_attributes(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": CLIENT,
        "app.py": """
            from lib import Client
            class Service:
                annotated: Client
                def __init__(self):
                    self.assigned = Client()
                def run(self):
                    self.assigned.send()
                    self.annotated.send()
        """,
    }
    assert uses(files, "lib.Client.send", kind="call") == {("app.py", 7, "call", "exact"), ("app.py", 8, "call", "exact")}


def test_chain_through_return_annotations(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": CLIENT,
        "app.py": """
            from lib import Client
            def run(client: Client):
                client.get_session().close()
        """,
    }
    assert uses(files, "lib.Session.close", kind="call") == {("app.py", 3, "call", "exact")}
    assert uses(files, "lib.Client.get_session", kind="call") == {("app.py", 3, "call", "exact")}


# --- what cannot be resolved ------------------------------------------------------------------------------


def test_unknown_receiver_of_a_method_only_one_hierarchy_defines_is_by_name(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": """
            class Base:
                def frobnicate(self):
                    pass
            class Child(Base):
                def frobnicate(self):
                    pass
        """,
        "app.py": """
            def run(thing):
                thing.frobnicate()
        """,
    }
    assert uses(files, "lib.Base.frobnicate", kind="call") == {("app.py", 2, "call", "by-name")}


def test_by_name_spans_a_hierarchy_across_modules(uses: Callable[..., set[Use]]) -> None:
    files = {
        "base.py": """
            class Base:
                def frobnicate(self):
                    pass
        """,
        "child.py": """
            import base
            class Outer:
                class Child(
                    base.Base,
                ):
                    def frobnicate(self):
                        pass
        """,
        "app.py": "def run(thing):\n    thing.frobnicate()\n",
    }
    assert uses(files, "child.Outer.Child.frobnicate", kind="call") == {("app.py", 2, "call", "by-name")}


def test_by_name_joins_siblings_through_a_base_that_does_not_define_the_method(uses: Callable[..., set[Use]]) -> None:
    # The hierarchy is walked out from the classes defining the name: up from Left to Root, then down to Right's
    # grandchild; a class outside it (Other) makes the use a candidate.
    files = {
        "root.py": "class Root:\n    pass\n",
        "left.py": "import root\nclass Left(root.Root):\n    def frob(self):\n        pass\n",
        "right.py": "from root import Root\nclass Mid(Root):\n    pass\nclass Right(Mid):\n    def frob(self):\n        pass\n",
        "app.py": "def run(thing):\n    thing.frob()\n",
    }
    assert uses(files, "left.Left.frob", kind="call") == {("app.py", 2, "call", "by-name")}
    other = {**files, "other.py": "class Other:\n    def frob(self):\n        pass\n"}
    assert uses(other, "left.Left.frob", kind="call") == {("app.py", 2, "call", "candidate")}


def test_unknown_receiver_of_a_method_several_classes_define_is_a_candidate(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": """
            class File:
                def close(self):
                    pass
        """,
        "other.py": """
            class Socket:
                def close(self):
                    pass
        """,
        "app.py": """
            def run(thing):
                thing.close()
        """,
    }
    assert uses(files, "lib.File.close", kind="call") == {("app.py", 2, "call", "candidate")}


def test_unresolvable_call_of_a_function_name_is_a_candidate(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": "def process():\n    pass\n",
        "app.py": """
            def run(handlers, name):
                handlers[name].process()
                get_handler().process()
        """,
    }
    assert uses(files, "lib.process", kind="call") == {("app.py", 2, "call", "candidate"), ("app.py", 3, "call", "candidate")}


def test_external_calls_do_not_reach_repository_symbols(uses: Callable[..., set[Use]]) -> None:
    files = {
        "lib.py": "def dumps():\n    pass\n",
        "app.py": """
            import json
            json.dumps({})
        """,
    }
    assert uses(files, "lib.dumps") == set()


def test_shadowed_name_resolves_to_the_local_definition(uses: Callable[..., set[Use]]) -> None:
    files = {
        "a.py": "def f():\n    pass\n",
        "b.py": """
            from a import f
            def run():
                def f():
                    pass
                f()
        """,
    }
    assert uses(files, "a.f", kind="call") == set()
    assert uses(files, "b.run.<locals>.f", kind="call") == {("b.py", 5, "call", "exact")}


# --- layouts ------------------------------------------------------------------------------------------------


def test_src_layout(uses: Callable[..., set[Use]]) -> None:
    files = {
        "src/shop/__init__.py": "",
        "src/shop/cart.py": "def total():\n    pass\n",
        "src/shop/checkout.py": "from shop.cart import total\ntotal()\n",
        "tests/test_cart.py": "from shop import cart\ncart.total()\n",
    }
    assert uses(files, "shop.cart.total", kind="call") == {
        ("src/shop/checkout.py", 2, "call", "exact"),
        ("tests/test_cart.py", 2, "call", "exact"),
    }


def test_namespace_package(uses: Callable[..., set[Use]]) -> None:
    files = {
        "ns/part/mod.py": "def nf():\n    pass\n",
        "app.py": """
            from ns.part.mod import nf
            import ns.part.mod
            nf()
            ns.part.mod.nf()
        """,
    }
    # The folder without __init__.py is also an import root, and names from the deepest root.
    assert uses(files, "mod.nf", kind="call") == {("app.py", 3, "call", "exact"), ("app.py", 4, "call", "exact")}


def test_namespace_package_symbol_is_named_by_its_import_path(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    # The graph names the module from its deepest import root (`mod`); `callers` also takes the import path.
    repo = make_repo({"ns/part/mod.py": "def nf():\n    pass\n", "app.py": "from ns.part.mod import nf\nnf()\n"})
    assert graphguard(repo, "callers", "ns.part.mod.nf").code == 0


def test_namespace_package_under_src(uses: Callable[..., set[Use]]) -> None:
    files = {
        "src/company/product/__init__.py": "",
        "src/company/product/x.py": "def cf():\n    pass\n",
        "app.py": "from company.product.x import cf\ncf()\n",
    }
    assert uses(files, "product.x.cf", kind="call") == {("app.py", 2, "call", "exact")}


# --- the resolver without git: import classification ---------------------------------------------------


def resolve_imports(files: Mapping[str, str], path: str) -> list[tuple[str, str | None, str]]:
    texts = {p: source(t).encode() for p, t in files.items()}
    resolver = Resolver(ModuleMap.build(texts), lambda p: parse(texts[p]) if p in texts else None)
    return [(i.module, i.name, i.status) for i in resolver.resolve_file(path).imports]


def test_import_status_internal_external_unresolved() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    pass\n",
        "pkg/b.py": """
            import os
            import requests
            from pkg.a import f
            from pkg.a import gone
            from pkg import missing_module
            from .a import f as g
            from .nothing import x
            from ..outside import y
        """,
    }
    assert resolve_imports(files, "pkg/b.py") == [
        ("os", None, "external"),
        ("requests", None, "external"),
        ("pkg.a", "f", "internal"),
        ("pkg.a", "gone", "unresolved"),
        ("pkg", "missing_module", "unresolved"),
        ("pkg.a", "f", "internal"),
        # A relative import names the repository: never stdlib or third-party.
        ("pkg.nothing", "x", "unresolved"),
        ("outside", "y", "unresolved"),
    ]


@pytest.mark.parametrize(
    ("annotation", "chain"),
    [
        ("Client", "Client"),
        ('"Client"', "Client"),
        ("Optional[Client]", "Client"),
        ("typing.Optional['lib.Client']", "lib.Client"),
        ("Client | None", "Client"),
        ("None | Client", "Client"),
        ("Union[Client, None]", "Client"),
        ("Union[Client, Session]", None),
        ("list[Client]", None),
        ("Client | Session", None),
    ],
)
def test_annotation_chain(annotation: str, chain: str | None) -> None:
    assert annotation_chain(annotation) == chain


def test_resolvers_sharing_module_infos_resolve_as_apart() -> None:
    """An InfoCache hands a resolver another's ModuleInfo only for the same facts: a resolver that loads a file's
    new version (the check's, against the old repository) sees its own, and the old one's still sees the old."""
    old = {"pkg/__init__.py": b"", "pkg/m.py": b"def f(a):\n    pass\n", "pkg/u.py": b"from pkg.m import f\nf(1)\n"}
    new = {**old, "pkg/m.py": b"def g(a):\n    pass\n"}
    old_facts = {p: parse(t) for p, t in old.items()}
    new_facts = {**old_facts, "pkg/m.py": parse(new["pkg/m.py"])}
    modmap, infos = ModuleMap.build(old), InfoCache()

    def calls(facts: Mapping[str, object]) -> list[str | None]:
        resolver = Resolver(modmap, facts.get, infos)  # type: ignore[arg-type]
        return [s.target for s in resolver.resolve_file("pkg/u.py").sites if s.kind == "call"]

    assert calls(old_facts) == ["pkg.m.f"]
    assert calls(new_facts) == [None]  # f is gone from the new pkg/m.py
    assert calls(old_facts) == ["pkg.m.f"]
    # The same facts: the same ModuleInfo, built once.
    assert infos.get("pkg/u.py", "pkg.u", old_facts["pkg/u.py"]) is infos.get("pkg/u.py", "pkg.u", old_facts["pkg/u.py"])
    assert infos.get("pkg/m.py", "pkg.m", new_facts["pkg/m.py"]).facts is new_facts["pkg/m.py"]
