"""Retrieval for agents: `graphguard context` and `graphguard related`, and the pure steps behind them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard.config import Config
from graphguard.repo import ensure_current, open_repo
from graphguard.retrieval import budget, expand, history, rank, textindex
from graphguard.retrieval.engine import Retriever, ensure_indexes
from graphguard.retrieval.kinds import Direction, Link
from graphguard.retrieval.records import Request
from graphguard.retrieval.tokenize import split_identifier, tokens
from tests.helpers import GitRepo, Result

VIAS = {"seed", "text", "call", "import", "caller", "test", "history"}

# --- a small project: a package with a barrel, a callee, callers, tests ----------------------

PROJECT = {
    "shop/__init__.py": '''
        """Shop: carts and prices."""
        from shop.cart import Cart
        from shop.prices import total_price
        ''',
    "shop/prices.py": '''
        def total_price(items, tax_rate):
            """Sum the item prices and add the tax."""
            return sum(i.price for i in items) * (1 + tax_rate)
        ''',
    "shop/cart.py": '''
        from shop.prices import total_price


        class Cart:
            """A customer's shopping cart."""

            def __init__(self):
                self.items = []

            def checkout(self, tax_rate):
                # the invoice amount
                return total_price(self.items, tax_rate)
        ''',
    "shop/orders.py": '''
        from shop.cart import Cart


        def place_order(customer):
            cart = Cart()
            return cart.checkout(0.2)
        ''',
    "tests/test_cart.py": '''
        from shop.cart import Cart


        def test_checkout_of_empty_cart():
            assert Cart().checkout(0.1) == 0
        ''',
    "tests/helpers.py": '''
        from shop.cart import Cart


        def full_cart():
            return Cart()
        ''',
    "tests/test_orders_flow.py": '''
        from tests.helpers import full_cart


        def test_flow():
            assert full_cart() is not None
        ''',
    "tests/conftest.py": '''
        import pytest

        from shop.cart import Cart


        @pytest.fixture
        def empty_cart():
            return Cart()
        ''',
    "tests/test_with_fixture.py": '''
        def test_empty(empty_cart):
            assert not empty_cart.items
        ''',
}


@pytest.fixture
def project(make_repo: Callable[..., GitRepo]) -> GitRepo:
    return make_repo(PROJECT)


def results(r: Result) -> list[dict[str, object]]:
    assert r.code == 0, r.err
    data = r.json
    assert data["schema"] == "graphguard.context/1"
    return data["results"]  # type: ignore[no-any-return]


def paths(r: Result) -> list[str]:
    return list(dict.fromkeys(str(x["path"]) for x in results(r)))


# --- tokenizer ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parse_cookie", ["parse", "cooki", "parsecooki"]),
        ("parseCookie", ["parse", "cooki", "parsecooki"]),
        ("HTTPServer", ["http", "server", "httpserver"]),
        ("werkzeug.datastructures.MultiDict", ["werkzeug", "datastructure", "multi", "dict", "multidict"]),
        ("__init__", ["init"]),
        ("URLs", ["url"]),
        ("IOError", ["io", "error", "ioerror"]),
        ("the headers of a request", ["header", "request"]),  # filler words dropped, plurals folded
        ("Fix #1234 in v2", ["fix", "v2"]),  # bare numbers dropped
        ("MAX_CONTENT_LENGTH", ["max", "content", "length", "maxcontentlength"]),
        ("x" * 60, []),  # a hash or a blob: not a word
    ],
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


@pytest.mark.parametrize(
    ("identifier", "words"),
    [("getHTTPResponse", ["get", "http", "response"]), ("snake_case_name", ["snake", "case", "name"]),
     ("Py3Kit", ["py", "3", "kit"]), ("ALLCAPS", ["allcaps"])],
)
def test_split_identifier(identifier: str, words: list[str]) -> None:
    assert split_identifier(identifier) == words


def test_a_task_in_words_matches_the_identifier() -> None:
    assert set(tokens("parse the cookie")) <= set(tokens("def parse_cookie(header): ..."))


def test_the_most_common_terms_are_left_out_until_the_postings_fit() -> None:
    dfs = {"cookie": 40, "parse": 900, "header": 3000, "value": 9000}
    terms = ["parse", "the", "cookie", "header", "value"]
    # `the` is in no document: it costs nothing and stays; `value`, then `header`, go.
    assert textindex.within_budget(terms, dfs, 1000) == ["parse", "the", "cookie"]
    assert textindex.within_budget(terms, dfs, 100_000) == terms
    # Never fewer than the two rarest, even over the budget.
    assert textindex.within_budget(["value", "header", "parse"], dfs, 10) == ["header", "parse"]


# --- expansion (pure) -----------------------------------------------------------------------


def fake_graph(edges: dict[str, list[tuple[str, str, str]]]) -> tuple[Callable, Callable]:  # type: ignore[type-arg]
    """node -> [(other, direction, kind)]: the callbacks `expand` asks."""

    def edges_of(nodes):  # type: ignore[no-untyped-def]
        return [expand.Edge(n, o, Direction(d), frozenset({Link(k)}), 1) for n in nodes for o, d, k in edges.get(n, [])]

    def degree_of(nodes):  # type: ignore[no-untyped-def]
        return {n: len(edges.get(n, [])) for n in nodes}

    return edges_of, degree_of


def test_expansion_stops_at_hubs_but_walks_through_others() -> None:
    barrel = [("pkg/__init__.py", "reverse", "import")] + [(f"pkg/m{i}.py", "forward", "reexport") for i in range(50)]
    edges_of, degree_of = fake_graph({
        "app.py": [("pkg/__init__.py", "forward", "import"), ("lib.py", "forward", "call")],
        "pkg/__init__.py": barrel,
        "lib.py": [("app.py", "reverse", "call"), ("deep.py", "forward", "call")],
    })
    out = expand.expand({"app.py": 1.0}, edges_of, degree_of, lambda p: False, depth=2, degree_cap=10)
    assert out.reached["pkg/__init__.py"].distance == 1  # reached ...
    assert "pkg/__init__.py" in out.hubs  # ... not walked through
    assert not any(p.startswith("pkg/m") for p in out.reached)
    assert out.reached["deep.py"].distance == 2
    assert out.reached["deep.py"].weight < out.reached["lib.py"].weight


def test_edge_weights_follow_kinds_and_symbol_counts() -> None:
    weights = [expand.edge_weight(expand.Edge("a", "b", Direction.FORWARD, frozenset({k}), 1)) for k in
               (Link.CALL, Link.INHERIT, Link.REFERENCE, Link.IMPORT, Link.REEXPORT)]
    assert weights == sorted(weights, reverse=True) and len(set(weights)) == 5
    one = expand.edge_weight(expand.Edge("a", "b", Direction.FORWARD, frozenset({Link.IMPORT}), 1))
    many = expand.edge_weight(expand.Edge("a", "b", Direction.FORWARD, frozenset({Link.IMPORT}), 8))
    assert many > one


def test_depth_is_at_most_two() -> None:
    chain = {f"n{i}": [(f"n{i + 1}", "forward", "call")] for i in range(5)}
    edges_of, degree_of = fake_graph(chain)
    out = expand.expand({"n0": 1.0}, edges_of, degree_of, lambda p: False, depth=5)
    assert max(r.distance for r in out.reached.values()) == 2


# --- ranking and budget (pure) ------------------------------------------------------------------


def test_profiles_weigh_the_same_signals_differently() -> None:
    def order(profile: str) -> list[str]:
        cands = {
            "callee.py": rank.Candidate("callee.py", {"graph": 0.9}, direction=Direction.FORWARD),
            "caller.py": rank.Candidate("caller.py", {"graph": 0.8}, direction=Direction.REVERSE),
        }
        return [c.path for c in rank.rank(cands, rank.PROFILES[profile])]

    assert order("implement_feature") == ["callee.py", "caller.py"]  # what the new code builds on
    assert order("code_review") == ["caller.py", "callee.py"]  # who the change can break
    assert all(abs(sum(p.weights.values()) - 1.0) < 1e-9 for p in rank.PROFILES.values())


def test_scores_fuse_ranks_and_first_everywhere_is_one() -> None:
    cands = [rank.Candidate("a", {s: 1.0 for s in rank.SIGNALS}), rank.Candidate("b", {"text": 0.5, "cochange": 0.9})]
    scores = rank.fuse(cands, rank.PROFILES["default"])
    assert scores["a"] == pytest.approx(1.0) and 0 < scores["b"] < scores["a"]


def test_ranking_keeps_what_is_past_the_score_cliff_and_marks_it() -> None:
    cands = {"a": rank.Candidate("a", {s: 1.0 for s in rank.SIGNALS}),
             "b": rank.Candidate("b", {"text": 0.9, "cochange": 0.9, "graph": 0.9}),
             "c": rank.Candidate("c", {"frequency": 0.5}),
             "d": rank.Candidate("d", {})}
    ranked = rank.rank(cands, rank.PROFILES["default"])
    assert [c.path for c in ranked] == ["a", "b", "c"]  # no score at all: not a result
    assert [c.past_cliff for c in ranked] == [False, False, True]


def test_budget_disclosure_levels() -> None:
    big = "def big():\n" + "    x = 1\n" * 400
    items = [
        budget.Item("seed", "a.py:1", "def seed():\n    return 1", "def seed():", "a.py:1  a.seed", is_seed=True),
        budget.Item("small", "b.py:1", "def small():\n    return 2", "def small():", "b.py:1  b.small"),
        budget.Item("big", "c.py:1", big, 'def big():\n    """Big."""', "c.py:1  c.big"),
        budget.Item("big2", "d.py:1", big, "def big2(" + "a, " * 600 + "):", "d.py:1  d.big2"),
    ]
    more = budget.Item("small.next", "b.py:4", "def next():\n    return 3", "def next():", "b.py:4  b.next")
    chosen = budget.select([[items[0]], [items[1], more], [items[2]], [items[3]]], 400)
    levels = {c.key: c.disclosure.value for file in chosen for c in file}
    assert levels == {"seed": "full", "small": "full", "small.next": "full", "big": "signature", "big2": "reference"}
    assert [[c.key for c in file] for file in chosen] == [["seed"], ["small", "small.next"], ["big"], ["big2"]]
    assert sum(c.tokens for file in chosen for c in file) <= 400


def test_the_limit_counts_files_and_a_budget_alone_fills_half_of_itself_with_them() -> None:
    def file(i: int) -> list[budget.Item]:
        return [budget.Item(f"f{i}", f"f{i}.py:1", "def f():\n" + "    x = 1\n" * 30, "def f():", f"f{i}.py:1  f{i}.f"),
                budget.Item(f"g{i}", f"f{i}.py:9", "def g():\n    return 1", "def g():", f"f{i}.py:9  f{i}.g")]

    files = [file(i) for i in range(200)]
    chosen = budget.select(files, 100_000, limit=20)
    assert len(chosen) == 20 and all(len(f) == 2 for f in chosen)  # 20 files, each with its next symbol nested
    filled = budget.select(files, 600)
    assert 0 < len(filled) < 200 and sum(c.tokens for f in filled for c in f) <= 600
    signatures = sum(c.tokens for f in filled for c in f[:1] if c.disclosure is budget.Disclosure.SIGNATURE)
    assert signatures <= 300 + 3  # the breadth pass stops at half the budget, its last file may pass it
    assert filled[0][0].disclosure is budget.Disclosure.FULL  # the best file's source, from the other half


def test_a_seed_larger_than_the_budget_is_cut_in_band() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    [[choice]] = budget.select([[budget.Item("s", "a.py:1", text, "", "a.py:1  a", is_seed=True)]], 100)
    assert choice.disclosure is budget.Disclosure.FULL and choice.truncated and choice.tokens <= 100
    assert "the rest at a.py:1" in choice.text


def test_very_long_lines_are_clamped() -> None:
    text = budget.clamp_lines("short\n" + "x" * 5000)
    assert "short" in text and "more characters" in text and len(text) < 400


# --- the commands, end to end ---------------------------------------------------------------------


def test_forward_finds_the_callee_and_reverse_the_caller_and_its_test(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(project, "related", "shop/cart.py", "--format", "json", "--budget", "100000")
    by_path = {str(x["path"]): x for x in results(r)}
    assert by_path["shop/cart.py"]["via"] == "seed" and by_path["shop/cart.py"]["distance"] == 0
    assert by_path["shop/prices.py"]["via"] == "call" and by_path["shop/prices.py"]["distance"] == 1  # forward
    assert by_path["shop/orders.py"]["via"] == "caller"  # reverse
    assert by_path["tests/test_cart.py"]["via"] == "test"  # reverse, a test
    assert by_path["shop/orders.py"]["symbol"] == "shop.orders.place_order"  # the caller, not just its file


def test_a_direct_test_ranks_above_those_reaching_the_seed_through_a_fixture_or_helper(
    project: GitRepo, graphguard: Callable[..., Result]
) -> None:
    r = graphguard(project, "related", "shop/cart.py", "--depth", "2", "--format", "json", "--budget", "100000", "--limit", "50")
    found = paths(r)
    assert found.index("tests/test_cart.py") < found.index("tests/test_with_fixture.py")  # asks for conftest's fixture
    assert found.index("tests/test_cart.py") < found.index("tests/test_orders_flow.py")  # imports a helper
    fixture_user = next(x for x in results(r) if x["path"] == "tests/test_with_fixture.py")
    assert (fixture_user["via"], fixture_user["distance"], fixture_user["symbol"]) == ("test", 2, "test_with_fixture.test_empty")


def test_a_symbol_seed_expands_from_that_symbol(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(project, "related", "shop.prices.total_price", "--format", "json")
    first = results(r)[0]
    assert (first["symbol"], first["disclosure"], first["via"]) == ("shop.prices.total_price", "full", "seed")
    assert "shop/cart.py" in paths(r)


def test_context_finds_the_words_and_what_they_call(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(project, "context", "checkout of the shopping cart computes the wrong invoice", "--format", "json")
    found = paths(r)
    assert r.json["stats"]["seeds"] == ["shop/cart.py"]  # the best text match
    assert "shop/cart.py" in found[:5]
    assert next(x for x in results(r) if x["path"] == "shop/cart.py")["disclosure"] == "full"  # a seed
    prices = next(x for x in results(r) if x["path"] == "shop/prices.py")  # shares no word with the task ...
    assert (prices["via"], prices["distance"]) == ("call", 1)  # ... one call edge away


def test_the_degree_cap_stops_at_a_barrel(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    n = expand.DEGREE_CAP + 5
    files: dict[str, str] = {f"big/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(n)}
    files["big/__init__.py"] = "VERSION = 1\n" + "".join(f"from big.m{i} import f{i}\n" for i in range(n))
    repo = make_repo(files)
    repo.commit("app", {"app.py": "from big import VERSION\n\n\ndef version():\n    return VERSION\n"})
    found = paths(graphguard(repo, "related", "app.py", "--depth", "2", "--format", "json", "--limit", "200", "--budget", "100000"))
    assert "big/__init__.py" in found
    assert not any(p.startswith("big/m") for p in found)


def test_a_generated_file_is_walked_through_but_not_returned(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({
        ".graphguard.toml": 'generated = ["api/gen_*.py"]\n',
        "api/__init__.py": "",
        "api/transport.py": "def send(payload):\n    return payload\n",
        "api/gen_client.py": "from api.transport import send\n\n\ndef call(x):\n    return send(x)\n",
    })
    repo.commit("app", {"app.py": "from api.gen_client import call\n\n\ndef main():\n    return call(1)\n"})
    r = graphguard(repo, "related", "app.py", "--depth", "2", "--format", "json", "--budget", "100000")
    found = paths(r)
    assert "api/transport.py" in found  # two hops, through the generated client
    assert "api/gen_client.py" not in found
    assert next(x for x in results(r) if x["path"] == "api/transport.py")["distance"] == 2


def test_budget_caps_the_tokens_and_picks_disclosure_levels(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    body = "".join(f"    value_{i} = compute(value_{i - 1} if {i} else 0)\n" for i in range(200))
    repo = make_repo({
        "core.py": "def compute(x):\n    return x\n",
        "big.py": f'from core import compute\n\n\ndef huge(value_0):\n    """Run the long computation."""\n{body}    return value_0\n',
        "small.py": "from core import compute\n\n\ndef tiny():\n    return compute(1)\n",
    })
    r = graphguard(repo, "related", "core.py", "--format", "json", "--budget", "300")
    items = results(r)
    assert sum(int(x["tokens"]) for x in items) <= 300  # type: ignore[call-overload]
    levels = {x["symbol"]: x["disclosure"] for x in items}
    assert levels["core"] == "full"  # the seed
    assert levels["big.huge"] == "signature"
    assert '"""Run the long computation."""' in next(str(x["text"]) for x in items if x["symbol"] == "big.huge")
    assert levels["small.tiny"] == "full"
    text = graphguard(repo, "related", "core.py", "--budget", "300").out
    assert "## big.py:4  big.huge  (signature" in text and "## core.py:1  core  (full; seed" in text


def test_paths_missing_at_head_are_dropped_and_counted(project: GitRepo) -> None:
    repo = open_repo(str(project.root))
    head = ensure_current(repo).head
    assert head is not None
    ensure_indexes(repo.store, repo.root, head)
    project.commit("drop orders", {"shop/orders.py": None})  # HEAD moves; this graph is not refreshed
    result = Retriever(repo.store.graph, repo.root, head, Config()).run(Request(seeds=("shop/cart.py",), budget=None), "related")
    assert result.stale == 1
    assert "shop/orders.py" not in {i.path for i in result.items}
    repo.store.close()


def test_source_text_comes_from_head_not_the_working_tree(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    project.write({"shop/prices.py": "def total_price(items, tax_rate):\n    return 'uncommitted'\n"})
    r = graphguard(project, "related", "shop.prices.total_price", "--format", "json")
    assert "uncommitted" not in str(results(r)[0]["text"])
    assert "Sum the item prices" in str(results(r)[0]["text"])


def test_same_graph_and_query_give_identical_results(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    runs = [graphguard(project, "context", "cart checkout tax", "--format", "json") for _ in range(3)]
    runs += [graphguard(project, "context", "cart checkout tax", "--format", "json")]
    firsts = [r.json["results"] for r in runs]
    assert all(f == firsts[0] for f in firsts) and firsts[0]
    rel = [graphguard(project, "related", "shop/cart.py", "tests/test_cart.py", "--format", "json").json["results"] for _ in range(2)]
    assert rel[0] == rel[1]


@pytest.mark.parametrize("command", [("context", "total price with tax"), ("related", "shop/prices.py")])
def test_works_on_a_fresh_clone(project: GitRepo, tmp_path: Path, graphguard_cli: Callable[..., Result], command: tuple[str, str]) -> None:
    clone = tmp_path / "clone"
    project.git("clone", "-q", str(project.root), str(clone))
    assert not (clone / ".git" / "graphguard").exists()
    r = graphguard_cli(clone, *command, "--format", "json")
    assert r.code == 0, r.err
    assert "shop/prices.py" in [x["path"] for x in r.json["results"]]
    assert (clone / ".git" / "graphguard" / "graph.sqlite3").exists()


def test_json_follows_the_contract(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(project, "context", "shopping cart checkout", "--format", "json", "--limit", "4", "--budget", "500")
    data = r.json
    assert data["schema"] == "graphguard.context/1"
    assert 0 < len(data["results"]) <= 4
    assert sum(x["tokens"] for x in data["results"]) <= 500
    scores = [x["score"] for x in data["results"]]
    assert scores == sorted(scores, reverse=True)
    for x in data["results"]:
        assert isinstance(x["path"], str) and isinstance(x["symbol"], str)
        assert isinstance(x["score"], float) and 0 <= x["score"] <= 1
        assert isinstance(x["distance"], int) and 0 <= x["distance"] <= 2
        assert x["via"] in VIAS
        assert x["disclosure"] in ("full", "signature", "reference")
        assert isinstance(x["tokens"], int) and x["tokens"] > 0


def test_text_output_is_ready_to_paste(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(project, "related", "shop/cart.py", "--budget", "2000")
    assert r.code == 0
    assert "## shop/prices.py:1  shop.prices.total_price  (full; call, distance 1;" in r.out
    assert "```python\ndef total_price(items, tax_rate):" in r.out


@pytest.mark.parametrize(
    ("args", "message"),
    [(("related", "nope.py"), "not a Python file or a symbol"), (("context", "x", "--profile", "fast"), "invalid choice"),
     (("context", "  "), "empty"), (("context", "x", "--depth", "3"), "invalid choice"), (("related", "shop/cart.py", "--limit", "0"), "--limit")],
)
def test_bad_requests_exit_2(project: GitRepo, graphguard: Callable[..., Result], args: tuple[str, ...], message: str) -> None:
    r = graphguard(project, *args)
    assert r.code == 2 and message in r.err


def test_empty_repository_is_an_error(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    r = graphguard(make_repo(), "context", "anything")
    assert r.code == 2 and "no commit" in r.err


# --- history: co-change without leakage, kept up to date incrementally ----------------------------


def cochanged(repo: GitRepo, seed: str) -> dict[str, float]:
    r = open_repo(str(repo.root))
    head = ensure_current(r).head
    assert head is not None
    ensure_indexes(r.store, r.root, head)
    db = r.store.graph
    out = history.cochange(history.seed_touches(db, [seed]), {seed: 1.0}, history.head_time(db))
    r.store.close()
    return out


def test_cochange_uses_only_the_history_of_head(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n"})
    first = repo.commit("a with b", {"a.py": "A = 2\n", "b.py": "B = 2\n"})
    repo.commit("a with c", {"a.py": "A = 3\n", "c.py": "C = 3\n"})
    later = cochanged(repo, "a.py")
    assert later["c.py"] > 0 and later["b.py"] > 0
    repo.git("checkout", "-q", "--detach", first)  # back in time: the later commit is removed from the counts
    earlier = cochanged(repo, "a.py")
    assert "c.py" not in earlier or earlier["c.py"] < later["c.py"]
    assert earlier["b.py"] > 0
    repo.git("checkout", "-q", "main")
    assert cochanged(repo, "a.py") == pytest.approx(later)


def test_history_moves_with_new_commits_only(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"a.py": "A = 1\n", "b.py": "B = 1\n"})
    r = open_repo(str(repo.root))
    ensure_current(r)
    db = r.store.graph
    assert history.is_current(db, repo.head)  # the indexer's hook keeps it
    n_commits = db.execute("SELECT count(*) FROM history_commits").fetchone()[0]
    repo.commit("b", {"b.py": "B = 2\n"})
    assert history.update(db, str(repo.root), repo.head) == 1  # one new commit read from git log
    assert db.execute("SELECT count(*) FROM history_commits").fetchone()[0] == n_commits + 1
    r.store.close()


def test_text_index_follows_the_graph_and_never_retokenizes_an_unchanged_blob(project: GitRepo) -> None:
    r = open_repo(str(project.root))
    head = ensure_current(r).head
    assert head is not None
    db = r.store.graph
    reads: list[list[str]] = []

    def read(shas: list[str]) -> dict[str, bytes]:
        reads.append(shas)
        from graphguard.retrieval import source

        return source.blobs(r.root, shas)

    assert textindex.is_current(db, head)  # built with the graph
    textindex.reset(db)
    assert textindex.ensure(db, head, read) == len([p for p in PROJECT if p.endswith(".py")])
    assert len(reads) == 1  # one cat-file for all the blobs
    blobs = db.execute("SELECT count(*) FROM text_blobs").fetchone()[0]
    head2 = project.commit("prices", {"shop/prices.py": "def total_price(items, tax_rate):\n    return 0\n\n\ndef discount():\n    return 1\n"})
    ensure_current(r)  # the indexer's hook brings the text index along: one new blob tokenized
    assert textindex.is_current(db, head2)
    assert db.execute("SELECT count(*) FROM text_blobs").fetchone()[0] == blobs + 1
    # The cache's size is counted as it grows (counting the table would read all of it on every commit).
    assert db.execute("SELECT value FROM meta WHERE key = 'text_blobs'").fetchone() == (str(blobs + 1),)
    assert [h.qualname for h in textindex.search(db, ["discount"])] == ["shop.prices.discount"]
    project.git("checkout", "-q", "--detach", head)  # back: the old blob's words come from the cache
    ensure_current(r)
    assert textindex.is_current(db, head)
    assert db.execute("SELECT count(*) FROM text_blobs").fetchone()[0] == blobs + 1
    assert textindex.search(db, ["discount"]) == []
    r.store.close()


def test_after_a_commit_only_its_paths_are_compared_unless_the_configuration_changed(project: GitRepo) -> None:
    r = open_repo(str(project.root))
    db = r.store.graph
    head = ensure_current(r).head
    assert head is not None
    ensure_indexes(r.store, r.root, head)
    asked: list[tuple[str, str]] = []

    def differ(old: str, new: str) -> list[str]:
        asked.append((old, new))
        from graphguard.retrieval import source

        return source.changed_paths(r.root, old, new)

    def docs() -> set[tuple[str, str]]:
        return set(db.execute("SELECT path, qualname FROM text_docs"))

    head2 = project.commit("prices", {"shop/prices.py": "def discount():\n    return 1\n"})
    ensure_current(r)
    # Back to the state of `head`, with the cart's row made wrong: a full comparison would mend it.
    db.execute("UPDATE meta SET value = ? WHERE key = 'text_state'", (f"{textindex.TEXT_VERSION}:{head}",))
    db.execute("UPDATE text_files SET blob = 'stale' WHERE path = 'shop/cart.py'")
    assert textindex.ensure(db, head2, lambda shas: {}, differ) == 0  # prices.py is indexed already
    assert asked == [(head, head2)]
    assert db.execute("SELECT blob FROM text_files WHERE path = 'shop/cart.py'").fetchone() == ("stale",)
    assert ("shop/prices.py", "shop.prices.discount") in docs()
    # An exclusion changes the files table with no commit: the next update compares every path.
    db.execute("UPDATE meta SET value = 'another' WHERE key = 'text_config'")
    db.execute("UPDATE meta SET value = ? WHERE key = 'text_state'", (f"{textindex.TEXT_VERSION}:{head}",))
    asked.clear()
    textindex.ensure(db, head2, lambda shas: {}, differ)
    assert asked == []
    assert db.execute("SELECT blob FROM text_files WHERE path = 'shop/cart.py'").fetchone() != ("stale",)
    r.store.close()


# --- symbols named by the task's words --------------------------------------------------------


def test_name_prefixes() -> None:
    assert rank.name_prefixes("ModuleTypeSerializer") == ["Module", "ModuleType"]
    assert rank.name_prefixes("Device") == []


def test_compound_names_of_the_task_words() -> None:
    names = rank.compound_names(["add", "field", "device", "rest", "api", "serializer"])
    assert {"deviceserializer", "serializerdevice", "restapiserializer"} <= set(names)
    assert "deviceserializer" in rank.compound_names(["serializer", "for", "devices"])  # either order, singular


@pytest.mark.parametrize(
    ("qualname", "words"),
    [
        ("dcim.api.DeviceSerializer", 2),
        ("dcim.api.DeviceSerializer.Meta", 0),  # a member's own name decides
        ("dcim.models.Device", 0),  # one shared word says little
        ("dcim.api.DeviceRoleSerializer", 0),  # `role` is not a word of the task
        ("dcim.api.device_serializer", 2),
    ],
)
def test_a_symbol_is_named_by_the_task_when_every_word_of_its_name_is_one(qualname: str, words: int) -> None:
    assert rank.named_by(qualname, {"add", "field", "device", "rest", "api", "serializer"}) == words


NOISY_API = '''
    """REST API serializers: the base of every serializer, and its fields."""


    class BaseSerializer:
        """A REST API serializer: add a field to the serializer's fields."""

        def append_field(self, field):
            """Add a field to this REST API serializer."""
            self.fields = [*self.fields, field]

        def field_names(self):
            """Names of the fields of the serializer (REST API)."""
            return [f.name for f in self.fields]
    '''


def test_a_class_named_by_the_task_and_the_model_it_serializes_are_found(
    make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]
) -> None:
    repo = make_repo({
        "core/__init__.py": "",
        "core/api.py": NOISY_API,
        "dcim/__init__.py": "",
        "dcim/models.py": "class Device:\n    name = ''\n\n\nclass Site:\n    slug = ''\n",
        "dcim/serializers.py": (
            "from core.api import BaseSerializer\nfrom dcim.models import Device, Site\n\n\n"
            "class SiteSerializer(BaseSerializer):\n    class Meta:\n        model = Site\n\n\n"
            "class DeviceSerializer(BaseSerializer):\n    class Meta:\n        model = Device\n"
        ),
    })
    r = graphguard(repo, "context", "add a field to the Device REST API serializer", "--format", "json")
    found = paths(r)
    assert found[0] == "dcim/serializers.py"
    assert results(r)[0]["symbol"] == "dcim.serializers.DeviceSerializer"
    assert "dcim/models.py" in found[:3]  # `Device`: the class `DeviceSerializer` is named after, its Meta names


def test_a_class_the_task_writes_out_brings_the_classes_named_after_it(
    make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]
) -> None:
    files = {f"noise/m{i}.py": f'def count_{i}():\n    """Add template object counts to the representation."""\n' for i in range(6)}
    files.update({
        "dcim/__init__.py": "",
        "dcim/models.py": "class ModuleType:\n    name = ''\n",
        "dcim/filtersets.py": "from dcim.models import ModuleType\n\n\nclass ModuleTypeFilterSet:\n    model = ModuleType\n",
        "dcim/views.py": "class ModuleTypeListView:\n    pass\n\n\nclass ModuleTypeaView:\n    pass\n",
    })
    repo = make_repo(files)
    found = paths(graphguard(repo, "context", "Add template object counts to ModuleType representation", "--format", "json"))
    assert found[0] == "dcim/models.py"  # written out as an identifier: the strongest name
    assert {"dcim/filtersets.py", "dcim/views.py"} <= set(found[:4])  # its family (`ModuleTypeaView` is not)


def test_the_limit_is_a_number_of_distinct_files_with_their_symbols_nested(project: GitRepo, graphguard: Callable[..., Result]) -> None:
    items = results(graphguard(project, "context", "shopping cart checkout", "--format", "json", "--limit", "3", "--budget", "100000"))
    assert len(items) == 3 and len({x["path"] for x in items}) == 3
    cart = next(x for x in items if x["path"] == "shop/cart.py")
    nested = [str(n["symbol"]) for n in cart["symbols"]]  # type: ignore[attr-defined]
    assert nested and all(q.startswith("shop.cart.") and q != cart["symbol"] for q in nested)
    budgeted = graphguard(project, "related", "shop/prices.py", "--format", "json", "--budget", "120").json
    assert budgeted["stats"]["tokens"] <= 120
    spent = sum(x["tokens"] + sum(n["tokens"] for n in x["symbols"]) for x in budgeted["results"])
    assert spent == budgeted["stats"]["tokens"]


NAMED = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def lenient_issubclass(cls, class_or_tuple):\n    return isinstance(cls, type) and issubclass(cls, class_or_tuple)\n",
    "pkg/display.py": "class Display:\n    def warning(self, msg):\n        print(msg)\n\n    def error(self, msg):\n        print(msg)\n",
    "pkg/generics.py": "".join(f"def generic_alias_{i}(tp):\n    '''Generic aliases raise TypeError: a subclass check of generic aliases.'''\n    return tp\n\n" for i in range(12)),
    "tests/test_utils.py": "from pkg.utils import lenient_issubclass\n\n\ndef test_generic_aliases_raise_type_error():\n    assert not lenient_issubclass(list[int], int)\n",
}


@pytest.mark.parametrize(("task", "first"), [
    ("lenient_issubclass raises TypeError for generic aliases like list[int]", [("pkg/utils.py", "pkg.utils.lenient_issubclass")]),
    ("Display.warning swallows generic aliases raising TypeError", [("pkg/display.py", "pkg.display.Display.warning")]),
    ("`lenient_issubclass` and Display.warning on generic aliases", [("pkg/utils.py", "pkg.utils.lenient_issubclass"),
                                                                    ("pkg/display.py", "pkg.display.Display.warning")]),
    ("generic aliases in utils.py raise TypeError", [("pkg/utils.py", "pkg.utils")]),
])
def test_a_definition_or_file_the_task_names_ranks_first(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                          task: str, first: list[tuple[str, str]]) -> None:
    items = results(graphguard(make_repo(NAMED), "context", task, "--format", "json"))
    assert {(x["path"], x["symbol"]) for x in items[: len(first)]} == set(first)
    assert items[0]["disclosure"] == "full"


def test_a_name_only_tests_define_is_named_only_when_the_task_is_about_tests(make_repo: Callable[..., GitRepo],
                                                                              graphguard: Callable[..., Result]) -> None:
    repo = make_repo(NAMED)
    about = results(graphguard(repo, "context", "test_generic_aliases_raise_type_error fails", "--format", "json"))
    assert about[0]["path"] == "tests/test_utils.py"


COOKIES = {
    "pkg/__init__.py": "",
    "pkg/http.py": "def parse_header(value):\n    '''Split a cookie header.'''\n    return value.split(';')\n",
    "tests/test_http.py": "from pkg.http import parse_header\n\n\n" + "".join(
        f"def test_cookie_header_{i}():\n    '''A cookie header with cookie values.'''\n    assert parse_header('cookie=1')\n\n" for i in range(8)),
    "tests/fixtures/cookie_plugin.py": "".join(f"def cookie_header_{i}(cookie):\n    '''cookie header cookie'''\n    return cookie\n\n" for i in range(8)),
}


def test_a_test_ranks_under_the_file_it_tests_unless_the_task_is_about_tests(make_repo: Callable[..., GitRepo],
                                                                              graphguard: Callable[..., Result]) -> None:
    plugin = "tests/fixtures/cookie_plugin.py"
    repo = make_repo({p: t for p, t in COOKIES.items() if p != plugin})
    repo.commit("a fixture", {plugin: COOKIES[plugin]})  # committed alone: it never changed with the code
    found = paths(graphguard(repo, "context", "cookie header values", "--format", "json"))
    assert found[:2] == ["pkg/http.py", "tests/test_http.py"]
    assert plugin not in found  # a fixture nothing imports: never a result
    repo.commit("the fixture changes with the code", {plugin: COOKIES[plugin] + "\n# again\n", "pkg/http.py":
                                                     COOKIES["pkg/http.py"] + "\n# again\n"})
    assert plugin in paths(graphguard(repo, "context", "cookie header values", "--format", "json"))
    about = paths(graphguard(repo, "context", "the tests of cookie header values", "--format", "json"))
    assert about[0] == "tests/test_http.py"


def test_recency_counts_whole_days_so_commits_seconds_apart_tie() -> None:
    day = 86400
    now = 1_000 * day
    recency, _ = history.activity({"a.py": (1, now - 2), "b.py": (1, now - 40), "old.py": (1, now - 90 * day)}, now)
    assert recency["a.py"] == recency["b.py"] == 1.0
    assert recency["old.py"] == 0.5
