"""The in-memory graph (index.memory.in_memory) holds the rows a first index of the same files writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from graphguard.config import Config
from graphguard.index.memory import in_memory
from graphguard.model import Resolution, UseKind
from tests.graphdump import QUERIES, dump
from tests.helpers import GitRepo, source

FILES = {
    "pkg/__init__.py": "",
    "pkg/pricing.py": source("""
        class Cart:
            def total(self, tax=0):
                return tax

        def price(amount, *, currency="EUR"):
            return amount
    """),
    "pkg/shop.py": source("""
        from pkg.pricing import Cart, price as cost

        def checkout(cart: Cart):
            return cost(cart.total(tax=1), currency="USD")
    """),
    "tests/test_shop.py": source("""
        from pkg.shop import checkout

        def test_checkout():
            assert checkout(None)
    """),
    "web/cart.ts": "export function add(a: number, b: number): number { return a + b; }\n",
    "web/main.ts": "import { add } from './cart';\nadd(1, 2);\n",
    "web/alias.ts": "import { add } from '@/cart';\nimport data from './data.json';\nadd(3, 4);\n",
    "web/data.json": "{}\n",
    "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["web/*"]}}}\n',
    "README.md": "not indexed\n",
}


def memory_dump(files: dict[str, str]) -> dict[str, list[tuple[object, ...]]]:
    db = in_memory(files).db
    return {name: sorted(db.execute(sql).fetchall(), key=repr) for name, sql in QUERIES.items()}


def test_the_rows_are_those_a_first_index_writes(make_repo: Callable[..., GitRepo], graphguard: Callable[..., object], tmp_path: Path) -> None:
    repo = make_repo(FILES)
    graphguard(repo, "index")
    indexed, memory = dump(repo.graph_path), memory_dump(FILES)
    assert memory["files"] and memory["sites"] and memory["file_edges"]
    assert {r[4] for r in memory["imports"] if r[0] == "web/alias.ts"} == {"internal"}  # the alias and the asset
    for table in QUERIES:
        if table != "meta":  # the head: a commit there, none here
            assert memory[table] == indexed[table], table
    assert dict(memory["meta"])["config"] == dict(indexed["meta"])["config"]


def test_callers_are_read_as_from_a_stored_graph() -> None:
    graph = in_memory(FILES)
    uses = graph.uses_of("pkg.pricing.price")
    assert [(u.path, u.line, u.caller, u.kind, u.resolution) for u in uses] == [
        ("pkg/shop.py", 1, "pkg.shop", UseKind.IMPORT, Resolution.EXACT),  # under its alias `cost`
        ("pkg/shop.py", 4, "pkg.shop.checkout", UseKind.CALL, Resolution.EXACT)]
    assert uses[1].shape.keywords == ("currency",)
    assert [u.path for u in graph.uses_of("pkg.pricing.Cart.total")] == ["pkg/shop.py"]


def test_importers_and_tests_follow_the_edges() -> None:
    graph = in_memory(FILES)
    assert graph.importers_of("pkg/pricing.py") == [("pkg/shop.py", 3)]  # Cart, price and Cart.total
    assert graph.tests_of("pkg/shop.py") == ["tests/test_shop.py"]
    assert graph.importers_of("web/cart.ts") == [("web/alias.ts", 1), ("web/main.ts", 1)]  # through tsconfig's paths too


def test_only_indexed_files_are_kept_and_excluded_ones_are_not() -> None:
    graph = in_memory(FILES, config=Config(exclude=("web/**",)))
    assert sorted(graph.paths()) == ["pkg/__init__.py", "pkg/pricing.py", "pkg/shop.py", "tests/test_shop.py"]
    assert graph.facts_of_blob(graph.blobs["pkg/shop.py"]) is graph.facts["pkg/shop.py"]
