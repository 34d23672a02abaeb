"""TypeScript/JavaScript in the core (issue 21): indexed files, `path#qualname` symbols and their callers,
`graphguard imports`, `stats` per language, and the check over TS/JS files, on real git repositories."""

from __future__ import annotations

import subprocess
import sys
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
        export function legacy() { return parseAmount("4", "CHF"); }
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
    langs = {entry["language"]: entry for entry in result.json["languages"]}
    assert [entry["language"] for entry in result.json["languages"]] == ["javascript", "python", "typescript"]
    assert (langs["typescript"]["files"], langs["javascript"]["files"], langs["python"]["files"]) == (6, 1, 2)
    assert langs["javascript"]["imports"] == {"total": 1, "internal": 1, "external": 0, "unresolved": 0,
                                                 "by_category": [{"category": "relative", "count": 1}]}
    assert langs["javascript"]["calls"]["resolved"] == 1
    assert langs["python"]["imports"]["external"] == 1


def _stage(repo: GitRepo, files: dict[str, str]) -> None:
    repo.write(files)
    repo.git("add", "-A")


def test_a_staged_signature_change_blocks_naming_the_broken_ts_and_js_callers(make_repo: Callable[..., GitRepo],
                                                                              graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    graphguard(repo, "index")
    _stage(repo, {"src/cart.ts": CART.replace("parseAmount(text: string, currency: string)",
                                              "parseAmount(text: string, currency: string, rate: number)")})
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1, result.out
    doc = result.json
    (change,) = [c for c in doc["changes"] if c["symbol"] == "src/cart.ts#parseAmount"]
    assert change["change"] == "signature" and change["breaking"] == ["required-param-added:rate"]
    broken = {(c["path"], c["caller"], c["reason"]) for c in change["callers"] if c["status"] == "broken"}
    assert ("src/named.ts", "src/named.ts#run", "Expected 3 arguments, but got 2.") in broken
    assert ("web/legacy.js", "web/legacy.js#legacy", "Expected 3 arguments, but got 2.") in broken
    assert {p for p, _, _ in broken} == {"src/named.ts", "src/byns.ts", "src/barrel.ts", "web/legacy.js"}
    text = graphguard(repo, "check", "--staged")
    assert text.code == 1 and "src/cart.ts#parseAmount" in text.out and "web/legacy.js" in text.out


def test_an_optional_parameter_added_passes_and_a_removed_export_breaks_its_importers(make_repo: Callable[..., GitRepo],
                                                                                    graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {"src/cart.ts": CART.replace("currency: string)", "currency: string, rate?: number)")})
    ok = graphguard(repo, "check", "--staged", "--format", "json")
    assert ok.code == 0, ok.out
    assert [c["status"] for c in ok.json["changes"][0]["callers"] if c["kind"] == "call"] == ["ok"] * 4
    _stage(repo, {"src/cart.ts": CART.replace("export default function format", "function format")
                  .replace("export function parseAmount(text: string, currency: string): number { return 0; }\n", "")})
    gone = graphguard(repo, "check", "--staged", "--format", "json")
    assert gone.code == 1
    (change,) = [c for c in gone.json["changes"] if c["symbol"] == "src/cart.ts#parseAmount"]
    assert change["change"] == "removed"
    assert ("src/named.ts", "import", "broken") in {(c["path"], c["kind"], c["status"]) for c in change["callers"]}


def test_a_caller_changed_in_the_same_commit_is_judged_in_its_new_version(make_repo: Callable[..., GitRepo],
                                                                          graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    base = repo.head
    repo.commit("rate", {"src/cart.ts": CART.replace("currency: string)", "currency: string, rate: number)"),
                         "src/named.ts": APP["src/named.ts"].replace('parseAmount("1", "EUR")', 'parseAmount("1", "EUR", 2)')})
    result = graphguard(repo, "check", "--base", base, "--format", "json")
    assert result.code == 1
    (change,) = [c for c in result.json["changes"] if c["symbol"] == "src/cart.ts#parseAmount"]
    status = {c["path"]: c["status"] for c in change["callers"] if c["kind"] == "call"}
    assert status == {"src/named.ts": "ok", "src/byns.ts": "broken", "src/barrel.ts": "broken", "web/legacy.js": "broken"}


def test_a_repository_mixing_python_and_typescript_checks_both(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({**APP, "pkg/__init__.py": "", "pkg/money.py": "def parse(text, currency):\n    return 0\n",
                      "pkg/use.py": "from pkg.money import parse\n\ndef run():\n    return parse('1', 'EUR')\n"})
    _stage(repo, {"pkg/money.py": "def parse(text, currency, rate):\n    return 0\n",
                  "src/cart.ts": CART.replace("currency: string)", "currency: string, rate: number)")})
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1
    symbols = {c["symbol"]: {x["path"] for x in c["callers"] if x["status"] == "broken"} for c in result.json["changes"]}
    assert symbols["pkg.money.parse"] == {"pkg/use.py"}
    assert "web/legacy.js" in symbols["src/cart.ts#parseAmount"]
    assert graphguard(repo, "callers", "pkg.money.parse", "--format", "json").json["callers"][0]["path"] == "pkg/use.py"


def test_a_file_that_does_not_parse_is_indexed_for_what_parses_and_not_blamed(make_repo: Callable[..., GitRepo],
                                                                              graphguard: Callable[..., Any]) -> None:
    broken = CART + "export function oops( {\n"
    repo = make_repo({**APP, "src/cart.ts": broken})
    stats = graphguard(repo, "stats", "--format", "json")
    assert stats.code == 0 and stats.json["warnings"] >= 1
    assert {c["path"] for c in _callers(graphguard, repo, "src/cart.ts#Cart.total")["callers"]} == {"src/named.ts"}
    repo2 = make_repo(APP)
    _stage(repo2, {"src/cart.ts": "export class Cart {\n  total(tax: number) { return tax; }\n}\nexport function (\n"})
    result = graphguard(repo2, "check", "--staged", "--format", "json")
    assert any(w["path"] == "src/cart.ts" and "syntax error" in w["message"] for w in result.json["warnings"])
    assert not [c for c in result.json["changes"] if c["change"] == "removed"]


def test_check_proposed_and_base_see_a_ts_break(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any],
                                                tmp_path: Any) -> None:
    repo = make_repo(APP)
    new = tmp_path / "cart.ts"
    new.write_text(CART.replace("total(tax: number)", "total(tax: number, when: Date)"))
    proposed = graphguard(repo, "check", "--proposed", f"src/cart.ts={new}", "--format", "json")
    assert proposed.code == 1 and proposed.json["compared"] == "proposed"
    (change,) = [c for c in proposed.json["changes"] if c["symbol"] == "src/cart.ts#Cart.total"]
    assert [(c["path"], c["line"], c["status"]) for c in change["callers"]] == [("src/named.ts", 4, "broken")]
    base = repo.head
    repo.commit("when", {"src/cart.ts": new.read_text()})
    for fmt in ("text", "json", "markdown", "sarif", "github", "codequality"):
        result = graphguard(repo, "check", "--base", base, "--format", fmt)
        assert result.code == 1 and "src/named.ts" in result.out, fmt


def test_a_tsconfig_change_re_resolves_and_refresh_help_loads_no_grammar(make_repo: Callable[..., GitRepo],
                                                                         graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    assert graphguard(repo, "index").code == 0
    repo.commit("config", {"tsconfig.json": '{"compilerOptions": {}}\n'})
    result = graphguard(repo, "index", "--format", "json")
    assert result.code == 0 and result.json["resolved"] == 7  # every TS/JS file, none parsed again
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "graphguard", "refresh", "--help"], capture_output=True,
                         text=True, check=True).stderr
    assert "tree_sitter" not in out
