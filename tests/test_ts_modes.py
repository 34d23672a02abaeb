"""Every mode on a repository mixing Python and TypeScript (issue 21): check --staged/--worktree/--base/--proposed, MCP
check_edit over a real ClientSession, callers/impact/outline of `path#qualname` symbols, context/related, CI formats."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import GitRepo

FILES = {
    "pkg/__init__.py": "",
    "pkg/money.py": "def parse(text, currency):\n    return 0\n",
    "pkg/use.py": "from pkg.money import parse\n\n\ndef run():\n    return parse('1', 'EUR')\n",
    "web/src/cart.ts": """
        /** A shopping cart. */
        export class Cart {
          constructor(private items: number[]) {}
          /** The total with tax. */
          total(tax: number): number { return tax; }
        }
        export function parseAmount(text: string, currency: string): number { return 0; }
    """,
    "web/src/page.tsx": """
        import { Cart, parseAmount } from "./cart";
        export function Page() {
          const cart = new Cart([1]);
          cart.total(2);
          return parseAmount("1", "EUR");
        }
    """,
    "web/legacy.js": """
        import { parseAmount } from "./src/cart.js";
        export function legacy() { return parseAmount("4", "CHF"); }
    """,
}
PY_BREAK = "def parse(text, currency, rate):\n    return 0\n"
TS_BREAK = {"web/src/cart.ts": FILES["web/src/cart.ts"].replace("currency: string)", "currency: string, rate: number)")}


def _broken(doc: dict[str, Any]) -> dict[str, set[str]]:
    return {c["symbol"]: {x["path"] for x in c["callers"] if x["status"] == "broken"} for c in doc["changes"]}


@pytest.mark.parametrize("mode", ["staged", "worktree", "base", "proposed"])
def test_each_mode_sees_the_python_and_the_typescript_break(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any],
                                                             tmp_path: Path, mode: str) -> None:
    repo = make_repo(FILES)
    new = {"pkg/money.py": PY_BREAK, **TS_BREAK}
    if mode == "proposed":
        args = []
        for path, text in new.items():
            (tmp_path / path.replace("/", "_")).write_text(text)
            args += ["--proposed", f"{path}={tmp_path / path.replace('/', '_')}"]
    elif mode == "base":
        base = repo.head
        repo.commit("break", new)
        args = ["--base", base]
    else:
        repo.write(new)
        if mode == "staged":
            repo.git("add", "-A")
        args = [f"--{mode}"]
    result = graphguard(repo, "check", *args, "--format", "json")
    assert result.code == 1, result.out
    broken = _broken(result.json)
    assert broken["pkg.money.parse"] == {"pkg/use.py"}
    assert broken["web/src/cart.ts#parseAmount"] == {"web/src/page.tsx", "web/legacy.js"}


def test_callers_impact_and_outline_of_path_symbols(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo(FILES)
    callers = graphguard(repo, "callers", "web/src/cart.ts#Cart.total", "--format", "json")
    assert callers.code == 0 and [(c["path"], c["line"]) for c in callers.json["callers"]] == [("web/src/page.tsx", 4)]
    impact = graphguard(repo, "impact", "web/src/cart.ts#parseAmount", "--format", "json")
    assert impact.code == 0, impact.err
    assert {"web/src/page.tsx", "web/legacy.js"} <= {c["path"] for c in json.loads(impact.out)["callers"]}
    outline = graphguard(repo, "outline", "web/src/cart.ts", "pkg/money.py")
    assert outline.code == 0
    assert "function parseAmount(text: string, currency: string): number" in outline.out
    assert "total(tax: number): number" in outline.out and "return tax" not in outline.out
    assert "def parse(text, currency)" in outline.out
    doc = graphguard(repo, "outline", "web/src/cart.ts", "--format", "json").json
    (cart,) = doc["files"]
    assert [(d["name"], d["line"], d["docstring"]) for d in cart["definitions"]] == [
        ("Cart", 2, "A shopping cart."), ("Cart.constructor", 3, None), ("Cart.total", 5, "The total with tax."),
        ("parseAmount", 7, None)]


def test_outline_reads_jsdoc_file_summaries_and_decorators(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({"src/svc.ts": """
        /**
         * @file Services of the shop.
         */
        import { Injectable, Get } from "deco";
        /**
         * Finds prices. Cached.
         * @param id the product
         */
        @Injectable()
        export class Prices {
          /** One price. */
          @Get("/price")
          price(id: string): number { return 1; }
        }
    """})
    (svc,) = graphguard(repo, "outline", "src/svc.ts", "--format", "json").json["files"]
    assert svc["docstring"] == "Services of the shop."
    assert [(d["name"], d["docstring"], d["decorators"]) for d in svc["definitions"]] == [
        ("Prices", "Finds prices.", ["Injectable()"]), ("Prices.price", "One price.", ['Get("/price")'])]


def test_context_and_related_rank_typescript_files_and_fence_them_as_typescript(make_repo: Callable[..., GitRepo],
                                                                               graphguard: Callable[..., Any]) -> None:
    repo = make_repo(FILES)
    context = graphguard(repo, "context", "cart total tax", "--format", "json")
    ranked = [r["path"] for r in context.json["results"]]
    assert context.code == 0 and ranked.index("web/src/cart.ts") < ranked.index("pkg/money.py")  # its words: it ranks above
    related = graphguard(repo, "related", "web/src/cart.ts")
    assert related.code == 0 and "## web/src/page.tsx" in related.out and "```tsx\n" in related.out
    assert "```ts\n" in related.out


def test_ci_formats_name_the_broken_typescript_caller(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo(FILES)
    base = repo.head
    repo.commit("break", TS_BREAK)
    sarif = graphguard(repo, "check", "--base", base, "--format", "sarif")
    assert sarif.code == 1
    results = json.loads(sarif.out)["runs"][0]["results"]
    def places(key: str) -> set[tuple[str, int]]:
        return {(loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"])
                for r in results for loc in r.get(key, ())}

    assert places("locations") == {("web/src/cart.ts", 7)}
    assert places("relatedLocations") == {("web/src/page.tsx", 5), ("web/legacy.js", 2)}
    assert results[0]["properties"]["symbol"] == "web/src/cart.ts#parseAmount"
    assert results[0]["message"]["text"].endswith("but got 2.")  # the compiler's sentence, not a second full stop
    github = graphguard(repo, "check", "--base", base, "--format", "github")
    assert "::error file=web/src/page.tsx,line=5" in github.out and "::error file=web/legacy.js,line=2" in github.out
    markdown = graphguard(repo, "check", "--base", base, "--format", "markdown")
    assert "web/src/cart.ts#parseAmount" in markdown.out and "web/legacy.js" in markdown.out


# -- MCP check_edit over a real client session ---------------------------------------------------------------------


@pytest.fixture
def mcp_client(make_repo: Callable[..., GitRepo], tmp_path: Path) -> Iterator[tuple[Any, GitRepo]]:
    pytest.importorskip("mcp")
    from tests.test_mcp import connect

    repo = make_repo(FILES)
    home = tmp_path / "home"
    home.mkdir()
    for client in connect(repo, home):
        yield client, repo


def test_mcp_check_edit_of_a_typescript_file(mcp_client: tuple[Any, GitRepo]) -> None:
    client, repo = mcp_client
    before = (repo.root / "web/src/cart.ts").read_bytes()
    doc = client.doc("check_edit", {"files": {"web/src/cart.ts": TS_BREAK["web/src/cart.ts"]}})
    assert doc["verdict"] == "block"
    assert _broken(doc)["web/src/cart.ts#parseAmount"] == {"web/src/page.tsx", "web/legacy.js"}
    assert (repo.root / "web/src/cart.ts").read_bytes() == before and not repo.git("status", "--porcelain")
    ok = FILES["web/src/cart.ts"].replace("currency: string)", "currency: string, rate?: number)")
    assert client.doc("check_edit", {"files": {"web/src/cart.ts": ok}})["verdict"] == "pass"
    callers = client.doc("callers", {"symbol": "web/src/cart.ts#parseAmount"})
    assert {c["path"] for c in callers["callers"] if c["kind"] == "call"} == {"web/src/page.tsx", "web/legacy.js"}
