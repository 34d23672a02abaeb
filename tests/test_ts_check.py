"""The check over TypeScript/JavaScript files (issue 21): calls a commit writes, definitions moved across files and
exports renamed, on real git repositories. What the check says, not how the facts are read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo

MONEY = """
    export function parseAmount(text: string, currency: string): number { return 0; }
    export class Cart {
      total(tax: number): number { return tax; }
    }
"""

APP = {
    "src/money.ts": MONEY,
    "src/use.ts": """
        import { parseAmount } from "./money";
        export function run() { return parseAmount("1", "EUR"); }
    """,
    "web/old.js": """
        import { parseAmount } from "../src/money.js";
        export function legacy() { return parseAmount("2", "USD"); }
    """,
}


def _check(graphguard: Callable[..., Any], repo: GitRepo, *args: str) -> Any:
    result = graphguard(repo, "check", *args, "--format", "json")
    assert result.code in (0, 1), result.err
    return result


def _stage(repo: GitRepo, files: dict[str, str | None]) -> None:
    repo.write(files)
    repo.git("add", "-A")


def _entry(doc: dict[str, Any], symbol: str) -> dict[str, Any]:
    (found,) = [c for c in doc["changes"] if c["symbol"] == symbol]
    return found


def _callers(entry: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(c["path"], c["kind"], c["status"]) for c in entry["callers"]}


# -- new calls -------------------------------------------------------------------------------------------------


def test_a_call_written_with_the_wrong_arity_to_an_unchanged_export_blocks(make_repo: Callable[..., GitRepo],
                                                                           graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {"src/use.ts": """
        import { parseAmount, Cart } from "./money";
        export function run() { return parseAmount("1", "EUR"); }
        export function more() { const c = new Cart(); c.total(); return parseAmount("3"); }
    """})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1, result.out
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert entry["change"] == "new-calls"
    assert [(c["path"], c["line"], c["status"], c["reason"]) for c in entry["callers"]] == [
        ("src/use.ts", 3, "broken", "Expected 2 arguments, but got 1.")]  # the old call on line 2 is not new
    method = _entry(result.json, "src/money.ts#Cart.total")
    assert [(c["line"], c["status"]) for c in method["callers"]] == [(3, "broken")]


def test_new_calls_that_bind_and_a_js_file_calling_a_ts_export_wrongly(make_repo: Callable[..., GitRepo],
                                                                      graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {"src/use.ts": APP["src/use.ts"] + 'export const two = () => parseAmount("4", "GBP");\n'})
    assert _check(graphguard, repo, "--staged").code == 0
    _stage(repo, {"web/old.js": APP["web/old.js"] + 'export const three = () => parseAmount("5", "CHF", 1);\n'})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert entry["change"] == "new-calls"
    assert [(c["path"], c["reason"]) for c in entry["callers"] if c["status"] == "broken"] == [
        ("web/old.js", "Expected 2 arguments, but got 3.")]


def test_a_new_call_to_a_definition_the_commit_changes_is_judged_with_that_change(make_repo: Callable[..., GitRepo],
                                                                                  graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {"src/money.ts": MONEY.replace("currency: string)", "currency: string, rate: number)"),
                  "src/use.ts": APP["src/use.ts"] + 'export const two = () => parseAmount("4", "GBP", 1);\n'})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1
    assert [c["change"] for c in result.json["changes"] if c["symbol"] == "src/money.ts#parseAmount"] == ["signature"]
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert {(c["path"], c["line"]): c["status"] for c in entry["callers"] if c["kind"] == "call"} == {
        ("src/use.ts", 2): "broken", ("src/use.ts", 3): "ok", ("web/old.js", 2): "broken"}


# -- moves and renamed exports -----------------------------------------------------------------------------------

MOVED = {
    "src/money.ts": "export class Cart {\n  total(tax: number): number { return tax; }\n}\n",
    "src/parse.ts": "export function parseAmount(text: string, currency: string): number { return 0; }\n",
}


def test_a_definition_moved_to_another_file_breaks_the_importers_of_the_old_one(make_repo: Callable[..., GitRepo],
                                                                                graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, MOVED)
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1, result.out
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert entry["change"] == "moved" and entry["breaking"] == ["moved:src/parse.ts#parseAmount"]
    assert (entry["path"], entry["line"]) == ("src/parse.ts", 1)  # where it is now
    assert _callers(entry) == {("src/use.ts", "import", "broken"), ("src/use.ts", "call", "broken"),
                               ("web/old.js", "import", "broken"), ("web/old.js", "call", "broken")}
    assert all("src/parse.ts#parseAmount" in c["reason"] for c in entry["callers"])


def test_a_move_that_leaves_a_re_export_breaks_nobody_and_still_binds_calls(make_repo: Callable[..., GitRepo],
                                                                            graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {**MOVED, "src/money.ts": MOVED["src/money.ts"] + 'export { parseAmount } from "./parse";\n'})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 0, result.out
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert entry["change"] == "moved"
    assert {s for _, _, s in _callers(entry)} == {"ok"}
    assert any("now reaches src/parse.ts#parseAmount" in c["reason"] for c in entry["callers"])


def test_callers_that_import_from_the_new_file_in_the_same_commit_pass(make_repo: Callable[..., GitRepo],
                                                                       graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    base = repo.head
    repo.commit("move", {**MOVED, "src/use.ts": APP["src/use.ts"].replace('"./money"', '"./parse"'),
                         "web/old.js": APP["web/old.js"].replace("money.js", "parse.js")})
    result = _check(graphguard, repo, "--base", base)
    assert result.code == 0, result.out
    assert not [c for ch in result.json["changes"] for c in ch["callers"] if c["status"] == "broken"]


def test_a_changed_caller_still_importing_the_moved_name_breaks(make_repo: Callable[..., GitRepo],
                                                                graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {**MOVED, "src/use.ts": APP["src/use.ts"] + "export const two = 2;\n",
                  "web/old.js": APP["web/old.js"].replace("money.js", "parse.js")})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert ("src/use.ts", "import", "broken") in _callers(entry)
    assert "web/old.js" not in {p for p, _, _ in _callers(entry)}


def test_an_export_renamed_breaks_importers_of_the_old_name_and_not_the_files_own_calls(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({**APP, "src/money.ts": MONEY + 'export const twice = () => parseAmount("1", "EUR");\n'})
    _stage(repo, {"src/money.ts": MONEY.replace("export function parseAmount", "function parseAmount")
                  + 'export const twice = () => parseAmount("1", "EUR");\nexport { parseAmount as parse };\n'})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1
    entry = _entry(result.json, "src/money.ts#parseAmount")
    assert entry["change"] == "renamed" and entry["breaking"][0] == "export-renamed:parseAmount->parse"
    statuses = {(c["path"], c["line"]): c["status"] for c in entry["callers"]}
    assert statuses[("src/use.ts", 2)] == "broken" and statuses[("web/old.js", 2)] == "broken"
    assert statuses.get(("src/money.ts", 5), "ok") == "ok"


# -- config-only changes -----------------------------------------------------------------------------------------

ALIASED = {
    "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}\n',
    "src/money.ts": MONEY,
    "app/page.ts": """
        import { parseAmount } from "@/money";
        export function page() { return parseAmount("1", "EUR"); }
    """,
}


def test_a_tsconfig_change_that_unmaps_an_alias_breaks_its_imports_staged_and_proposed(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any], tmp_path: Any) -> None:
    repo = make_repo(ALIASED)
    assert {i["target"] for i in graphguard(repo, "imports", "app", "--format", "json").json["imports"]} == {"src/money.ts"}
    unmapped = '{"compilerOptions": {"baseUrl": ".", "paths": {"~/*": ["src/*"]}}}\n'
    proposal = tmp_path / "tsconfig.json"
    proposal.write_text(unmapped)
    proposed = _check(graphguard, repo, "--proposed", f"tsconfig.json={proposal}")
    assert proposed.code == 1, proposed.out
    _stage(repo, {"tsconfig.json": unmapped})
    for result in (proposed, _check(graphguard, repo, "--staged")):
        assert result.code == 1, result.out
        entry = _entry(result.json, "tsconfig.json")
        assert entry["change"] == "resolution" and entry["breaking"] == ["resolution:tsconfig.json"]
        assert [(c["path"], c["line"], c["status"]) for c in entry["callers"]] == [("app/page.ts", 1, "broken")]


def test_a_config_change_that_moves_no_import_passes_and_python_alone_is_unchanged(make_repo: Callable[..., GitRepo],
                                                                                  graphguard: Callable[..., Any]) -> None:
    repo = make_repo({**APP, "tsconfig.json": "{}\n"})
    _stage(repo, {"tsconfig.json": '{"compilerOptions": {"strict": true}}\n', "package.json": '{"name": "app"}\n'})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 0 and result.json["changes"] == [], result.out
    python = make_repo({"pkg/__init__.py": "", "pkg/m.py": "def f(a):\n    return a\n"}, name="py")
    _stage(python, {"package.json": '{"name": "tools"}\n', "pkg/m.py": "def f(a, b=1):\n    return a\n"})
    doc = _check(graphguard, python, "--staged").json
    assert doc["stats"]["files_changed"] == 1 and [c["symbol"] for c in doc["changes"]] == ["pkg.m.f"]


def test_the_resolution_entry_judges_each_stored_import_against_the_new_resolution() -> None:
    from graphguard.check import pathconfig
    from graphguard.model import Resolution, UseKind
    from graphguard.resolved import FileResolution, ImportRow, ImportStatus, Site

    now = FileResolution("app/page.ts", "app/page.ts")
    now.imports += [ImportRow(1, "@/money", "parseAmount", ImportStatus.UNRESOLVED, None, "app/page.ts", False),
                    ImportRow(2, "@/cart", "Cart", ImportStatus.INTERNAL, "lib/cart.ts", "app/page.ts", False),
                    ImportRow(3, "@/tax", "rate", ImportStatus.INTERNAL, "lib/tax.ts", "app/page.ts", False),
                    ImportRow(4, "./same", "x", ImportStatus.INTERNAL, "app/same.ts", "app/page.ts", False)]
    now.sites.append(Site(UseKind.IMPORT, "app/page.ts", "Cart", "Cart", Resolution.EXACT, "lib/cart.ts#Cart", "lib/cart.ts", None, 2, 2))
    rows = [("app/page.ts", 1, "@/money", "parseAmount", "internal", "src/money.ts", "static", "paths"),
            ("app/page.ts", 2, "@/cart", "Cart", "internal", "src/cart.ts", "static", "paths"),
            ("app/page.ts", 3, "@/tax", "rate", "internal", "src/tax.ts", "static", "paths"),
            ("app/page.ts", 4, "./same", "x", "internal", "app/same.ts", "static", "relative"),
            ("app/page.ts", 5, "@/gone", "y", "unresolved", None, "static", "missing")]
    (entry,) = pathconfig.assess(["tsconfig.json", "package.json"], rows, {"app/page.ts": now})
    assert (entry.symbol, entry.change.value, [str(c) for c in entry.breaking]) == (
        "tsconfig.json", "resolution", ["resolution:tsconfig.json", "resolution:package.json"])
    assert [(c.line, c.status.value) for c in entry.callers] == [(1, "broken"), (3, "broken"), (2, "ok")]
    assert "lib/cart.ts now (was src/cart.ts)" in entry.callers[2].reason
    assert pathconfig.assess(["tsconfig.json"], rows[3:], {"app/page.ts": now}) == []


def test_a_definition_renamed_in_its_file_breaks_its_importers_and_a_move_behind_a_barrel_breaks_nobody(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {"src/money.ts": MONEY.replace("function parseAmount(", "function parseMoney(")})
    renamed = _check(graphguard, repo, "--staged")
    assert renamed.code == 1
    entry = _entry(renamed.json, "src/money.ts#parseAmount")
    assert entry["change"] == "renamed" and entry["breaking"][0] == "renamed:parseMoney"
    assert {p for p, _, s in _callers(entry) if s == "broken"} == {"src/use.ts", "web/old.js"}
    barrel = make_repo({**APP, "src/index.ts": 'export * from "./money";\nexport * from "./parse";\n',
                        "src/use.ts": 'import { parseAmount } from "./index";\nexport const run = () => parseAmount("1", "EUR");\n'},
                       name="barrel")
    _stage(barrel, {"src/money.ts": MOVED["src/money.ts"], "src/parse.ts": MOVED["src/parse.ts"],
                    "web/old.js": APP["web/old.js"].replace("money.js", "index.js")})
    moved = _check(graphguard, barrel, "--staged")
    assert moved.code == 0, moved.out
    entry = _entry(moved.json, "src/money.ts#parseAmount")
    assert entry["change"] == "moved" and {s for _, _, s in _callers(entry)} == {"ok"}


def test_a_new_call_in_a_file_that_does_not_parse_is_not_blamed(make_repo: Callable[..., GitRepo],
                                                                graphguard: Callable[..., Any]) -> None:
    repo = make_repo(APP)
    _stage(repo, {"src/use.ts": APP["src/use.ts"] + 'export const two = () => parseAmount("3");\nexport function (\n'})
    result = _check(graphguard, repo, "--staged")
    assert not [c for c in result.json["changes"] if c["change"] == "new-calls"], result.out
    assert any(w["path"] == "src/use.ts" for w in result.json["warnings"])


def test_a_tsconfig_proposed_where_none_was_maps_an_alias_and_one_staged_away_breaks(make_repo: Callable[..., GitRepo],
                                                                                     graphguard: Callable[..., Any],
                                                                                     tmp_path: Any) -> None:
    repo = make_repo({k: v for k, v in ALIASED.items() if k != "tsconfig.json"})
    new = tmp_path / "tsconfig.json"
    new.write_text(ALIASED["tsconfig.json"])
    assert _check(graphguard, repo, "--proposed", f"tsconfig.json={new}").code == 0  # "@/money" resolved nowhere before
    with_config = make_repo(ALIASED, name="with")
    with_config.git("rm", "-q", "tsconfig.json")
    gone = _check(graphguard, with_config, "--staged")
    assert gone.code == 1
    assert [(c["path"], c["status"]) for c in _entry(gone.json, "tsconfig.json")["callers"]] == [("app/page.ts", "broken")]


def test_the_summary_names_the_languages_of_the_changed_files(make_repo: Callable[..., GitRepo],
                                                              graphguard: Callable[..., Any]) -> None:
    repo = make_repo({**APP, "pkg/tool.py": "def tool(a):\n    return a\n"})
    _stage(repo, {"src/use.ts": APP["src/use.ts"] + "// a comment\n"})
    result = graphguard(repo, "check", "--staged")
    assert result.code == 0, result.out
    assert result.out.rstrip().endswith("1 TypeScript/JavaScript file changed)"), result.out
    _stage(repo, {"web/old.js": APP["web/old.js"] + "// more\n", "pkg/tool.py": "def tool(a):\n    return a  # same\n"})
    for fmt, ending in (("text", "1 Python file and 2 TypeScript/JavaScript files changed)"),
                        ("github", "1 Python file and 2 TypeScript/JavaScript files changed)")):
        result = graphguard(repo, "check", "--staged", "--format", fmt)
        assert result.code == 0, result.out
        assert ending in result.out, result.out


def test_the_last_export_of_a_module_removed_breaks_its_importers(make_repo: Callable[..., GitRepo],
                                                                  graphguard: Callable[..., Any]) -> None:
    # An ES module (it imports) with one export: without it, the module exports nothing, and its name is not
    # importable (tsc: TS2459 "declares 'ThemePicker' locally, but it is not exported"); a script's names are.
    repo = make_repo({
        "src/picker.tsx": 'import { useState } from "react";\nexport function Picker(props: { n: number }) { return null; }\n',
        "src/page.tsx": 'import { Picker } from "./picker";\nexport const Page = () => <Picker n={1} />;\n',
    })
    _stage(repo, {"src/picker.tsx": 'import { useState } from "react";\nfunction Picker(props: { n: number }) { return null; }\n'})
    result = _check(graphguard, repo, "--staged")
    assert result.code == 1, result.out
    entry = _entry(result.json, "src/picker.tsx#Picker")
    assert ("src/page.tsx", "import", "broken") in _callers(entry)


# -- cost --------------------------------------------------------------------------------------------------------


def test_the_check_reads_a_monorepos_config_files_and_its_callers_in_one_go(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any],
                                                            monkeypatch: Any) -> None:
    """Twelve packages, each with its package.json, tsconfig.json, vite.config.ts and a caller: the check reads
    them by one `git cat-file` (Tree.prefetch, NewSigs.prefetch), not one process per file, and still resolves
    across the packages."""
    from graphguard import git

    files = dict(APP)
    for i in range(12):
        files[f"packages/p{i}/package.json"] = f'{{"name": "@m/p{i}", "main": "src/index.ts"}}'
        files[f"packages/p{i}/tsconfig.json"] = '{"compilerOptions": {"strict": true}}'
        files[f"packages/p{i}/vite.config.ts"] = "export default { resolve: { alias: { '~x': './src' } } }"
        files[f"packages/p{i}/src/index.ts"] = 'import { parseAmount } from "../../../src/money";\nexport const v = parseAmount("1", "EUR");'
    files["package.json"] = '{"name": "root", "workspaces": ["packages/*"]}'
    repo = make_repo(files)
    graphguard(repo, "index")
    _stage(repo, {"src/money.ts": MONEY.replace("currency: string)", "currency: string, rate: number)")})
    one_by_one: list[str] = []
    read_at = git.read_at

    def counted(root: str, rev: str, path: str) -> bytes | None:
        one_by_one.append(path)
        return read_at(root, rev, path)

    monkeypatch.setattr(git, "read_at", counted)
    doc = _check(graphguard, repo, "--staged").json
    callers = _callers(_entry(doc, "src/money.ts#parseAmount"))
    assert {(f"packages/p{i}/src/index.ts", "call", "broken") for i in range(12)} <= callers
    assert len(one_by_one) < 12, one_by_one
