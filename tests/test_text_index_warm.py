"""The text index is built with the graph (issue 12): by `index` and the hooks, incrementally by blob, so that no
query pays for it; never on the pre-commit check's path; rebuilt when damaged."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

import pytest

from graphguard.repo import ensure_current, open_repo
from graphguard.retrieval import textindex
from tests.helpers import GitRepo, Result

FILES = {
    "shop/__init__.py": "",
    "shop/prices.py": '''
        def total_price(items, tax_rate):
            """Sum the item prices and add the tax."""
            return sum(i.price for i in items) * (1 + tax_rate)
        ''',
    "shop/cart.py": '''
        from shop.prices import total_price


        class Cart:
            """A customer's shopping cart."""

            def total(self):
                return total_price([], 0.2)
        ''',
    "shop/stock.py": '''
        def reserve(item, count):
            """Hold stock for an order."""
            return count
        ''',
}
N_FILES = len(FILES)


@pytest.fixture
def shop(make_repo: Callable[..., GitRepo]) -> GitRepo:
    return make_repo(FILES)


def work(repo: GitRepo) -> dict[str, object]:
    conn = sqlite3.connect(repo.graph_path)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (textindex.WORK_KEY,)).fetchone()
    finally:
        conn.close()
    assert row is not None, "no text index work recorded"
    value: dict[str, object] = json.loads(row[0])
    return value


def test_index_builds_the_text_index(shop: GitRepo, graphguard: Callable[..., Result]) -> None:
    assert graphguard(shop, "index").code == 0
    assert work(shop) == {"by": "index", "head": shop.head, "files": N_FILES, "tokenized": N_FILES}
    r = open_repo(str(shop.root))
    assert textindex.is_current(r.store.graph, shop.head)
    assert [h.qualname for h in textindex.search(r.store.graph, ["reserve"])] == ["shop.stock.reserve"]
    r.store.close()


def test_the_first_context_after_index_builds_nothing(shop: GitRepo, graphguard: Callable[..., Result],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert graphguard(shop, "index").code == 0
    built = work(shop)
    updates: list[object] = []
    real = textindex._update
    monkeypatch.setattr(textindex, "_update", lambda *a, **k: updates.append(a) or real(*a, **k))
    result = graphguard(shop, "context", "hold stock for an order", "--format", "json")
    assert result.code == 0, result.err
    assert any(i["path"] == "shop/stock.py" for i in result.json["results"])
    assert updates == []
    assert work(shop) == built  # the record of the build by `index` stands


def test_a_commit_tokenizes_only_the_blobs_it_changed(shop: GitRepo) -> None:
    r = open_repo(str(shop.root))
    ensure_current(r)
    shop.commit("two files", {"shop/prices.py": "def total_price(items):\n    return 0\n",
                              "shop/stock.py": "def reserve(item):\n    return 1\n"})
    ensure_current(r)  # what the refresher after the commit does
    assert work(shop) == {"by": "index", "head": shop.head, "files": 2, "tokenized": 2}
    r.store.close()


def test_switching_branches_reuses_the_cached_documents(shop: GitRepo) -> None:
    r = open_repo(str(shop.root))
    main = shop.head
    ensure_current(r)
    shop.git("checkout", "-q", "-b", "topic")
    topic = shop.commit("topic", {"shop/stock.py": "def release(item):\n    return 0\n",
                                  "shop/cart.py": "class Basket:\n    pass\n"})
    ensure_current(r)
    assert work(shop)["tokenized"] == 2
    for rev in (main, topic, main):
        shop.git("checkout", "-q", rev)
        ensure_current(r)
        assert work(shop) == {"by": "index", "head": rev, "files": 2, "tokenized": 0}  # both ways from the cache
    assert [h.qualname for h in textindex.search(r.store.graph, ["reserve"])] == ["shop.stock.reserve"]
    r.store.close()


def test_the_pre_commit_check_leaves_the_text_index_to_the_refresher(shop: GitRepo, graphguard: Callable[..., Result]) -> None:
    shop.write({"shop/stock.py": "def reserve(item, count, now):\n    return count\n"})
    shop.git("add", "-A")
    graphguard(shop, "check", "--staged")
    conn = sqlite3.connect(shop.graph_path)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key = 'head'").fetchone() == (shop.head,)
        assert conn.execute("SELECT value FROM meta WHERE key = 'text_state'").fetchone() is None
    finally:
        conn.close()
    assert graphguard(shop, "index").code == 0  # the graph is current: index catches the text index up
    assert work(shop) == {"by": "index", "head": shop.head, "files": N_FILES, "tokenized": N_FILES}


@pytest.mark.parametrize("damage", [
    "DROP TABLE text_fts",
    "DROP TABLE text_docs",
    "UPDATE text_blobs SET docs = x'00ff00ff'",  # a cached row that does not decode
])
def test_a_damaged_text_index_is_rebuilt(shop: GitRepo, graphguard: Callable[..., Result], damage: str) -> None:
    assert graphguard(shop, "index").code == 0
    conn = sqlite3.connect(shop.graph_path)
    conn.execute(damage)
    conn.commit()
    conn.close()
    shop.commit("stock", {"shop/stock.py": "def reserve(item, count):\n    '''Hold stock for an order.'''\n    return 0\n"})
    result = graphguard(shop, "context", "hold stock for an order", "--format", "json")
    assert result.code == 0, result.err
    assert any(i["path"] == "shop/stock.py" for i in result.json["results"])
    r = open_repo(str(shop.root))
    assert textindex.is_current(r.store.graph, shop.head)
    assert [h.qualname for h in textindex.search(r.store.graph, ["reserve"])] == ["shop.stock.reserve"]
    r.store.close()


def test_a_huge_file_is_bounded() -> None:
    spans = [(f"f{i}", "function", 2 * i + 1, 2 * i + 2) for i in range(textindex.MAX_DOCS + 500)]
    text = "".join(f"def f{i}():\n    return word{i}\n" for i in range(textindex.MAX_DOCS + 500))
    docs = textindex.blob_docs(text, spans)
    assert len(docs) == textindex.MAX_DOCS + 1  # the first MAX_DOCS definitions, and the module holding the rest
    module = docs[-1]
    assert module[0] == ""
    assert "word2400" in module[6].split() and "word10" not in module[6].split()  # past the cap: the module's words
    long_body = "x" + " y" * (3 * textindex.MAX_FIELD_TOKENS)
    assert len(textindex._capped(long_body).split()) == textindex.MAX_FIELD_TOKENS
    assert textindex._capped("a b c") == "a b c"


def test_an_undecodable_row_found_by_a_query_is_rebuilt(shop: GitRepo, graphguard: Callable[..., Result]) -> None:
    assert graphguard(shop, "index").code == 0
    conn = sqlite3.connect(shop.graph_path)
    conn.execute("UPDATE text_docs SET qualname = CAST(x'ff00fe' AS BLOB) || qualname")  # not UTF-8: reading it fails
    conn.commit()
    conn.close()
    result = graphguard(shop, "context", "hold stock for an order", "--format", "json")
    assert result.code == 0, result.err
    assert "text index is damaged" in result.err
    assert any(i["symbol"] == "shop.stock.reserve" for i in result.json["results"])
    assert work(shop)["by"] == "query"
