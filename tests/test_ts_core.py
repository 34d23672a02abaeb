"""TypeScript/JavaScript in the core (issue 21): indexed files, `path#qualname` symbols and their callers,
`graphguard imports`, `stats` per language, and the check over TS/JS files, on real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo

CART = """
    export class Cart {
      constructor(private items: number[]) {}
      total(tax: number): number { return tax; }
    }
    export function parseAmount(text: string, currency: string): number { return 0; }
    export default function format(n: number): string { return String(n); }
"""

APP = {
    "src/cart.ts": CART,
    "src/index.ts": 'export * from "./cart";\n',
    "src/named.ts": """
        import { parseAmount, Cart } from "./cart";
        export function run() {
          const c = new Cart([1]);
          c.total(2);
          return parseAmount("1", "EUR");
        }
    """,
    "src/bydefault.ts": """
        import fmt from "./cart";
        export const show = (n: number) => fmt(n);
    """,
    "src/byns.ts": """
        import * as cart from "./cart";
        export function go() { return cart.parseAmount("2", "USD"); }
    """,
    "src/barrel.ts": """
        import { parseAmount } from "./index";
        export function viaBarrel() { return parseAmount("3", "GBP"); }
    """,
    "web/legacy.js": """
        import { parseAmount } from "../src/cart.js";
        export function legacy() { return parseAmount("4"); }
    """,
}


def _callers(graphguard: Callable[..., Any], repo: GitRepo, symbol: str) -> dict[str, Any]:
    result = graphguard(repo, "callers", symbol, "--format", "json")
    assert result.code == 0, result.err
    return result.json  # type: ignore[no-any-return]


def test_callers_of_a_ts_function_by_name_default_namespace_barrel_and_from_js(make_repo: Callable[..., GitRepo],
                                                                              graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    answer = _callers(graphguard, repo, "src/cart.ts#parseAmount")
    calls = sorted((c["path"], c["caller"]) for c in answer["callers"] if c["kind"] == "call")
    assert calls == [("src/barrel.ts", "src/barrel.ts#viaBarrel"), ("src/byns.ts", "src/byns.ts#go"),
                     ("src/named.ts", "src/named.ts#run"), ("web/legacy.js", "web/legacy.js#legacy")]
    assert answer["path"] == "src/cart.ts"
    default = _callers(graphguard, repo, "src/cart.ts#format")
    assert [(c["path"], c["kind"]) for c in default["callers"] if c["kind"] == "call"] == [("src/bydefault.ts", "call")]


def test_callers_of_a_method_through_new_and_of_a_class(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    total = _callers(graphguard, repo, "src/cart.ts#Cart.total")
    assert [(c["path"], c["line"], c["resolution"]) for c in total["callers"]] == [("src/named.ts", 4, "exact")]
    cls = _callers(graphguard, repo, "src/cart.ts#Cart")
    assert ("src/named.ts", 3, "call") in [(c["path"], c["line"], c["kind"]) for c in cls["callers"]]


def test_imports_json_names_specifier_kind_category_and_target_for_ts_and_python(make_repo: Callable[..., GitRepo],
                                                                                 graphguard: Callable[..., Any]) -> None:
    repo = make_repo({**APP, "src/extra.ts": 'import fs from "node:fs";\nimport React from "react";\nimport { x } from "./gone";\n',
                      "pkg/__init__.py": "", "pkg/a.py": "import os\nfrom pkg import b\n", "pkg/b.py": "X = 1\n"})
    result = graphguard(repo, "imports", "src/extra.ts", "src/byns.ts", "web", "pkg/a.py", "--format", "json")
    assert result.code == 0, result.err
    doc = result.json
    assert doc["schema"] == "graphguard.imports/1"
    rows = [(i["path"], i["line"], i["specifier"], i["kind"], i["category"], i["target"]) for i in doc["imports"]]
    assert rows == [
        ("pkg/a.py", 1, "os", "external", None, None),
        ("pkg/a.py", 2, "pkg", "internal", None, "pkg/b.py"),
        ("src/byns.ts", 1, "./cart", "internal", "relative", "src/cart.ts"),
        ("src/extra.ts", 1, "node:fs", "external", "builtin", None),
        ("src/extra.ts", 2, "react", "external", "package", None),
        ("src/extra.ts", 3, "./gone", "unresolved", "missing", None),
        ("web/legacy.js", 1, "../src/cart.js", "internal", "relative", "src/cart.ts"),
    ]
    assert [i["name"] for i in doc["imports"] if i["path"] == "src/byns.ts"] == ["*"]


def test_stats_counts_each_language_apart(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({**APP, "pkg/__init__.py": "", "pkg/a.py": "import os\n\ndef f():\n    return os.getcwd()\n"})
    result = graphguard(repo, "stats", "--format", "json")
    assert result.code == 0, result.err
    langs = result.json["languages"]
    assert sorted(langs) == ["javascript", "python", "typescript"]
    assert (langs["typescript"]["files"], langs["javascript"]["files"], langs["python"]["files"]) == (6, 1, 2)
    assert langs["javascript"]["imports"] == {"total": 1, "internal": 1, "external": 0, "unresolved": 0, "by_category": {"relative": 1}}
    assert langs["javascript"]["calls"]["resolved"] == 1
    assert langs["python"]["imports"]["external"] == 1
