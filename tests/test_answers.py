"""The answers as documents (graphguard.answers), outline and impact, and compact answers (graphguard.report.compact)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphguard.answers import callers, check, context, impact, outline, stats
from graphguard.errors import GraphguardError
from graphguard.repo import ensure_current, open_repo
from graphguard.report.compact import ALTERNATES, DEFAULTS, KEYS, SAME_AS, SHAPES, compact, dumps, expand
from tests.helpers import GitRepo, Result

CONTRACT = (Path(__file__).resolve().parent.parent / "docs" / "contract.md").read_text(encoding="utf-8")

SHOP = {
    "shop/__init__.py": "",
    "shop/cart.py": '''
        """Carts and their totals."""

        import functools


        class Cart:
            """A customer's cart.

            Holds the items.
            """

            def __init__(self, items):
                self.items = items

            @property
            def size(self):
                return len(self.items)

            @functools.lru_cache(maxsize=None)
            def total(self, tax):
                """The total. Tax included."""
                def helper(x):
                    return x
                return sum(helper(i) for i in self.items) * tax


        def make_cart(items, *, owner=None):
            """Build a cart
            for an owner."""
            return Cart(items)
    ''',
    "shop/checkout.py": '''
        from shop.cart import Cart, make_cart


        def checkout(items):
            cart = make_cart(items, owner="me")
            return cart.total(1.2)


        def pay(items):
            return checkout(items)


        def refund(items):
            return checkout(*items)
    ''',
    "tests/test_checkout.py": '''
        from shop.checkout import pay


        def test_pay():
            assert pay([1]) == 1.2
    ''',
}


@pytest.fixture
def shop(make_repo: Callable[..., GitRepo]) -> GitRepo:
    return make_repo(SHOP)


@pytest.fixture
def broken(shop: GitRepo) -> GitRepo:
    """The shop with a staged change that breaks two callers (a required parameter added)."""
    shop.write({"shop/cart.py": (shop.path("shop/cart.py").read_text().replace("def make_cart(items, *, owner=None)",
                                                                              "def make_cart(items, currency, *, owner=None)")
                                 .replace('"""Build a cart\n    for an owner."""', '"""Build a cart."""'))})
    shop.git("add", "-A")
    return shop


# --- real answers, full and compact --------------------------------------------------------------

ANSWERS = [
    ("check", "--staged"),
    ("callers", "shop.cart.make_cart"),
    ("callers", "shop.cart.Cart.total"),
    ("impact", "shop.cart.make_cart", "--depth", "3"),
    ("context", "total of a cart with tax"),
    ("related", "shop/cart.py"),
    ("outline", "shop", "nowhere"),
    ("stats",),
    ("index",),
]


def _answer(graphguard: Callable[..., Result], repo: GitRepo, args: tuple[str, ...], *extra: str) -> Result:
    r = graphguard(repo, *args, *extra)
    assert r.code == (1 if args[0] == "check" else 0), r.err
    return r


def _objects(doc: Any, place: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    if isinstance(doc, dict):
        yield place, doc
        for k, v in doc.items():
            yield from _objects(v, (*place, k))
    elif isinstance(doc, list):
        for v in doc:
            yield from _objects(v, place)


@pytest.mark.parametrize("args", ANSWERS, ids=lambda a: a[0] + (f"-{a[1]}" if len(a) > 1 else ""))
def test_compact_answers_expand_to_the_full_ones(broken: GitRepo, graphguard: Callable[..., Result],
                                                 args: tuple[str, ...]) -> None:
    _answer(graphguard, broken, ("index",))  # so that two runs of `index` both find the graph current
    full = _answer(graphguard, broken, args, "--format", "json").json
    small = _answer(graphguard, broken, args, "--compact")
    assert "\n" not in small.out.strip()  # one line
    got = expand(json.loads(small.out))
    for doc in (full, got):  # two runs differ in their timing only
        for _, obj in _objects(doc):
            if "elapsed_ms" in obj:
                obj["elapsed_ms"] = 0
    assert got == full
    assert expand(compact(full)) == full
    # Every key has a short form, and the contract names it.
    keys = {k for _, obj in _objects(full) for k in obj}
    assert keys <= set(KEYS), keys - set(KEYS)
    assert not [k for k in keys if f'"{k}"' not in CONTRACT]
    # What the schema fixes holds no default any more: the table covers what answers leave empty.
    shapes = SHAPES.get(full["schema"], {})
    for place, obj in _objects(full):
        for k, v in obj.items():
            if k in shapes.get(place, ()) and (v is None or v == [] or v == "" or v == {}):
                assert k in DEFAULTS and type(DEFAULTS[k]) is type(v), (place, k, v)
    # Paths are relative to the repository.
    assert str(broken.root) not in small.out
    assert not re.search(r'"p":"/', small.out)


def test_compact_is_smaller_on_a_check_with_callers(broken: GitRepo, graphguard: Callable[..., Result]) -> None:
    full = _answer(graphguard, broken, ("check", "--staged"), "--format", "json").out
    small = _answer(graphguard, broken, ("check", "--staged"), "--compact").out
    assert len(small) < 0.5 * len(full)


def test_the_key_table_is_one_to_one_and_short_keys_are_never_full_keys() -> None:
    shorts = list(KEYS.values()) + [a.short for a in ALTERNATES]  # an alternate's key is a short key of its own
    assert len(set(shorts)) == len(shorts)
    assert not set(shorts) & set(KEYS)
    assert set(DEFAULTS) <= set(KEYS)
    for shape in SHAPES.values():
        for place, fields in shape.items():
            assert set(place) <= set(KEYS) and set(fields) <= set(KEYS)


def test_the_contract_documents_the_key_table() -> None:
    section = CONTRACT[CONTRACT.index("## Compact answers"):]
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| (.*?) *\|$", section, re.MULTILINE)
    assert {full: short for full, short, _ in rows} == dict(KEYS)
    defaults = {full: d.rpartition(" else ")[2] for full, _, d in rows}  # `null`; equal to `path` ..., else `null`
    assert {full: json.loads(d.strip("`")) for full, d in defaults.items() if d.startswith("`")} == dict(DEFAULTS)
    assert {full: m.group(1) for full, _, d in rows if (m := re.match(r"equal to `(\w+)`", d))} == dict(SAME_AS)


@pytest.mark.parametrize("partial", [
    {"schema": "graphguard.check/1", "changes": [{"before": "", "after": None, "callers": [{"reason": None}]}]},
    {"schema": "graphguard.callers/1", "callers": [{"args": {"keywords": [], "star": 0, "starstar": False}}]},
    {"schema": "graphguard.callers/1", "callers": [{"line": 3, "end_line": 3, "kind": "import"}, {"line": 3, "end_line": 4},
                                                   {"line": 3, "end_line": 3.0, "resolution": "partial"}, {"end_line": 7}]},
    {"schema": "graphguard.unknown/7", "notes": [], "path": None, "new_field": {"x": []}},
    {"schema": "graphguard.outline/1", "files": [{"docstring": "", "definitions": [{"decorators": [], "docstring": None}]}]},
    {"schema": "graphguard.context/1", "results": [{"text": "", "signals": {"text": 0.0}}], "stats": {"budget": None}},
    {"path": "no schema", "warnings": []},
    # A repeated field after the first entry is dropped; a default after a different value is kept.
    {"schema": "graphguard.callers/1", "callers": [{"path": "a.py", "kind": "import"}, {"path": "a.py", "kind": "call"},
                                                   {"path": "b.py", "kind": "call", "caller": None}, {"caller": "m.f"}]},
    {"schema": "graphguard.check/1", "changes": [{"callers": [{"status": "broken", "reason": "r"}, {"status": "ok", "reason": ""},
                                                              {"status": "ok", "reason": ""}], "ok_omitted": 0}]},
    # Test ids without their file, the file written once.
    {"schema": "graphguard.check/1", "changes": [{"tests": [
        {"path": "t/a.py", "name": "t/a.py::test_x"}, {"path": "t/a.py", "name": "t/a.py::test_y"}, {"path": "t/a.py", "name": "t/a.py"},
        {"path": "t/b.py", "name": "t/a.py::test_z"}, {"path": "t/b.py", "name": None}, {"path": "t/b.py", "name": "t/b.py::"}]}]},
    # A signature without its name only where it comes back exactly.
    {"schema": "graphguard.outline/1", "files": [{"definitions": [
        {"name": "f", "signature": "def f(x)"}, {"name": "C.m", "signature": "async def m(self)"},
        {"name": "g", "signature": "def (x)"}, {"name": "def", "signature": "def def()"}, {"name": "h", "signature": "class H"},
        {"name": "", "signature": "def (y)"}, {"name": "k", "signature": "kk k()"}, {"name": None, "signature": "def f()"}]}]},
])
def test_expand_inverts_compact_on_unusual_values(partial: dict[str, Any]) -> None:
    """Only a value equal to the key's default (of the same type: 0 is not false, "" is not null) is dropped,
    and only where the schema fixes the keys; answers always carry every key of their schema's objects."""
    doc = expand(partial)  # every key the schema fixes, as answers have them
    assert expand(json.loads(dumps(doc))) == json.loads(json.dumps(doc))
    assert expand(compact(doc)) == doc


def test_a_default_is_dropped_only_where_the_schema_fixes_the_keys() -> None:
    doc = expand({"schema": "graphguard.context/1", "results": [{"text": "", "signals": {"text": 0.0}}],
                  "stats": {"tokens": 0}})
    assert doc["results"][0]["signals"] == {"text": 0.0} and doc["stats"]["budget"] is None
    small = compact(doc)
    assert small["re"][0]["sg"] == {"t": 0.0}  # signals keep every key: their keys are not fixed
    assert "t" not in small["re"][0] and small["st"] == {"tk": 0}
    assert expand(small) == doc


# --- the documents over one open Repo ------------------------------------------------------------


def test_documents_answer_again_after_head_moves(shop: GitRepo) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    first = callers.callers_document(repo, "shop.cart.make_cart")
    assert first["head"] == shop.head
    assert [(c["path"], c["kind"]) for c in first["callers"]] == [("shop/checkout.py", "import"), ("shop/checkout.py", "call")]
    call = first["callers"][1]
    assert call["args"] == {"positional": 1, "keywords": ["owner"], "star": False, "starstar": False}
    assert first["callers"][0]["args"] is None
    new = shop.commit("another caller", {"shop/more.py": "from shop.cart import make_cart\n\nmake_cart([], owner=1)\n"})
    # Nothing refreshes by itself: the document describes the graph's commit until someone refreshes it.
    assert callers.callers_document(repo, "shop.cart.make_cart") == first
    ensure_current(repo)
    again = callers.callers_document(repo, "shop.cart.make_cart")
    assert again["head"] == new
    assert {c["path"] for c in again["callers"]} == {"shop/checkout.py", "shop/more.py"}
    assert stats.stats_document(repo)["head"] == new
    assert context.context_document(repo, "make a cart")["head"] == new
    assert context.related_document(repo, ["shop.cart.make_cart"])["results"]
    assert outline.outline_document(repo, ["shop/more.py"])["files"][0]["path"] == "shop/more.py"


def test_bad_requests_are_errors(shop: GitRepo) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    with pytest.raises(GraphguardError, match="no symbol 'shop.cart.nothing'"):
        impact.impact_document(repo, "shop.cart.nothing")
    with pytest.raises(GraphguardError, match="--depth"):
        impact.impact_document(repo, "shop.cart.make_cart", depth=0)
    with pytest.raises(GraphguardError, match="profile"):
        context.context_document(repo, "cart", profile="nope")
    with pytest.raises(GraphguardError, match="empty"):
        context.context_document(repo, "  ")
    with pytest.raises(GraphguardError, match="at least one"):
        context.related_document(repo, [])
    with pytest.raises(GraphguardError, match="at least one"):
        outline.outline_document(repo, [])
    with pytest.raises(GraphguardError, match="inside the repository"):
        outline.outline_document(repo, ["/etc"])


# --- outline ---------------------------------------------------------------------------------------


def test_outline_of_a_file(shop: GitRepo) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    shop.write({"shop/cart.py": '"""Changed in the working tree only."""\n'})  # the outline reads the graph's commit
    doc = outline.outline_document(repo, ["./shop/cart.py"])
    assert doc["head"] == shop.head and doc["warnings"] == [] and doc["files_omitted"] == 0
    (f,) = doc["files"]
    assert (f["path"], f["module"], f["docstring"]) == ("shop/cart.py", "shop.cart", "Carts and their totals.")
    got = [(d["kind"], d["name"], d["line"], d["signature"], d["decorators"], d["docstring"]) for d in f["definitions"]]
    assert got == [
        ("class", "Cart", 6, "class Cart", [], "A customer's cart."),
        ("method", "Cart.__init__", 12, "def __init__(self, items)", [], None),
        ("method", "Cart.size", 16, "def size(self)", ["property"], None),
        ("method", "Cart.total", 20, "def total(self, tax)", ["functools.lru_cache(maxsize=None)"], "The total."),
        ("function", "make_cart", 27, "def make_cart(items, *, owner=None)", [], "Build a cart for an owner."),
    ]  # `helper`, nested in a function, is left out
    assert f["definitions"][0]["end_line"] == 24


def test_outline_of_folders_warns_about_what_names_nothing(shop: GitRepo) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    doc = outline.outline_document(repo, ["shop/", "nowhere", "../up", "/abs/path"])
    assert [f["path"] for f in doc["files"]] == ["shop/__init__.py", "shop/cart.py", "shop/checkout.py"]
    assert [w["path"] for w in doc["warnings"]] == ["nowhere", "../up", "/abs/path"]
    whole = outline.outline_document(repo, ["."])
    assert [f["path"] for f in whole["files"]] == ["shop/__init__.py", "shop/cart.py", "shop/checkout.py", "tests/test_checkout.py"]


def test_outline_is_bounded(shop: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    monkeypatch.setattr(outline, "MAX_OUTLINE_FILES", 2)
    monkeypatch.setattr(outline, "MAX_OUTLINE_DEFINITIONS", 3)
    doc = outline.outline_document(repo, ["."])
    assert [f["path"] for f in doc["files"]] == ["shop/__init__.py", "shop/cart.py"]
    assert doc["files_omitted"] == 2 and doc["definitions_omitted"] == 2
    assert sum(len(f["definitions"]) for f in doc["files"]) == 3
    assert len(doc["notes"]) == 2


def test_outline_of_a_file_ast_cannot_parse_shows_what_the_graph_has(make_repo: Callable[..., GitRepo]) -> None:
    repo_ = make_repo({"p/__init__.py": "", "p/py2.py": "def f(a):\n    print 'x'\n", "p/ok.py": "def g():\n    '''Doc.'''\n"})
    repo = open_repo(str(repo_.root))
    ensure_current(repo)
    doc = outline.outline_document(repo, ["p"])
    by_path = {f["path"]: f for f in doc["files"]}
    assert [d["docstring"] for d in by_path["p/ok.py"]["definitions"]] == ["Doc."]
    assert all(d["docstring"] is None for d in by_path["p/py2.py"]["definitions"])


def test_outline_cli(shop: GitRepo, graphguard: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(shop.root / "shop")
    r = graphguard(shop, "outline", "cart.py", "nowhere")
    assert r.code == 0, r.err
    assert r.out.splitlines()[:3] == ["shop/cart.py  (shop.cart)  Carts and their totals.",
                                      "  6: class Cart  # A customer's cart.",
                                      "    12: def __init__(self, items)"]
    assert "@property def size(self)" in r.out
    assert "nowhere: no file of the graph" in r.err
    bad = graphguard(shop, "outline", "nowhere")
    assert bad.code == 2 and "no file of the graph" in bad.err and "Traceback" not in bad.err


# --- impact ----------------------------------------------------------------------------------------


def test_impact_walks_callers_to_the_depth_asked(shop: GitRepo) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    one = impact.impact_document(repo, "shop.cart.make_cart", depth=1)
    assert {(c["caller"], c["distance"]) for c in one["callers"]} == {("shop.checkout", 1), ("shop.checkout.checkout", 1)}
    two = impact.impact_document(repo, "shop.cart.make_cart")
    got = [(c["caller"], c["kind"], c["distance"], c["callee"]) for c in two["callers"]]
    assert got[:2] == [("shop.checkout", "import", 1, "shop.cart.make_cart"),
                       ("shop.checkout", "call", 1, "shop.cart.make_cart")] or got[0][2] == 1
    assert ("shop.checkout.pay", "call", 2, "shop.checkout.checkout") in got
    assert ("shop.checkout.refund", "call", 2, "shop.checkout.checkout") in got
    assert not [g for g in got if g[2] == 3]
    three = impact.impact_document(repo, "shop.cart.make_cart", depth=3)
    assert ("test_checkout.test_pay", "call", 3, "shop.checkout.pay") in [
        (c["caller"], c["kind"], c["distance"], c["callee"]) for c in three["callers"]]
    assert [t["name"] for t in two["tests"]] == ["tests/test_checkout.py::test_pay"]
    assert two["tests"][0]["distance"] == 3 and two["tests_omitted"] == 0
    refund = next(c for c in two["callers"] if c["caller"] == "shop.checkout.refund")
    assert refund["args"] == {"positional": 0, "keywords": [], "star": True, "starstar": False}


def test_impact_is_bounded(shop: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = open_repo(str(shop.root))
    ensure_current(repo)
    monkeypatch.setattr(impact, "MAX_IMPACT_CALLERS", 2)
    doc = impact.impact_document(repo, "shop.cart.make_cart", depth=3)
    assert len(doc["callers"]) == 2 and doc["callers_omitted"] >= 2
    assert all(c["distance"] == 1 for c in doc["callers"])  # the farthest are cut
    assert any("left out" in n for n in doc["notes"])
    monkeypatch.setattr(impact, "MAX_IMPACT_NODES", 1)
    stopped = impact.impact_document(repo, "shop.cart.make_cart", depth=3)
    assert any("stopped" in n for n in stopped["notes"])


def test_impact_cli(shop: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(shop, "impact", "shop.cart.make_cart")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "shop.cart.make_cart  shop/cart.py:27  def make_cart(items, *, owner=None)"
    assert "callers at distance 2:" in lines
    assert "  tests/test_checkout.py::test_pay  (distance 3)" in lines
    bad = graphguard(shop, "impact", "shop.cart.make_cart", "--depth", "9")
    assert bad.code == 2 and "--depth" in bad.err
    unknown = graphguard(shop, "impact", "shop.nothing")
    assert unknown.code == 2 and "no symbol" in unknown.err


def test_check_compact_keeps_the_exit_code_and_the_verdict(broken: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(broken, "check", "--compact")
    assert r.code == 1
    doc = expand(r.json)
    assert doc["verdict"] == "block" and doc["compared"] == "staged"
    broken_callers = [c for ch in doc["changes"] for c in ch["callers"] if c["status"] == "broken"]
    assert {c["caller"] for c in broken_callers} == {"shop.checkout.checkout"}
    assert check.check_document  # the MCP server's entry point for a CheckResult


def test_every_answer_prints_non_ascii_text_as_it_is(make_repo: Callable[..., GitRepo],
                                                     graphguard: Callable[..., Result]) -> None:
    """One JSON writer (commands/printing.write_json): callers, impact, outline, stats and index spell `café` alike."""
    repo = make_repo({"m/__init__.py": "", "m/defs.py": "def café(x):\n    return x\n",
                      "m/use.py": "from m.defs import café\n\n\ndef g():\n    return café(1)\n"})
    outs = {args[0]: graphguard(repo, *args, "--format", "json") for args in
            (("index",), ("callers", "m.defs.café"), ("impact", "m.defs.café"), ("outline", "m/defs.py"), ("stats",))}
    for name, r in outs.items():
        assert r.code == 0, (name, r.err)
        assert "\\u00e9" not in r.out, name
    assert '"symbol": "m.defs.café"' in outs["callers"].out and '"symbol": "m.defs.café"' in outs["impact"].out
    assert '"caller": "m.use.g"' in outs["callers"].out
    assert '"name": "café"' in outs["outline"].out
    assert json.loads(outs["callers"].out)["symbol"] == json.loads(outs["impact"].out)["symbol"] == "m.defs.café"


def test_repeated_fields_and_declared_names_are_written_once() -> None:
    doc = expand({"schema": "graphguard.outline/1", "files": [{"path": "m.py", "definitions": [
        {"kind": "function", "name": "f", "line": 1, "signature": "def f(x)"},
        {"kind": "function", "name": "g", "line": 3, "signature": "def (x)"}]}]})
    small = compact(doc)["f"][0]["df"]
    assert small[0] == {"k": "function", "n": "f", "sn": "def (x)"}  # line 1 is the default
    assert small[1] == {"n": "g", "l": 3, "sig": "def (x)"}  # kind as before; a signature naming nothing is kept
    assert expand(compact(doc)) == doc
