"""TypeScript/JavaScript facts (issue 21, `languages/typescript/parse`): each construct on a real snippet of TS, TSX,
JS, JSX, CommonJS and `.d.ts`; the regions that do not parse; deep nesting; and the uses they give, on real git
repositories (JSX, receivers typed without a checker, CommonJS, a call where the file does not parse)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graphguard.languages.typescript.language import TYPESCRIPT
from graphguard.model import BindKind, DefKind, ExportKind, FileFacts, ImportForm, RefKind
from tests.helpers import GitRepo, source


def facts(text: str, path: str = "a.ts") -> FileFacts:
    return TYPESCRIPT.parse(source(text).encode(), TYPESCRIPT.facts_kind(path))


def defs(f: FileFacts) -> dict[str, DefKind]:
    return {d.qualname: d.kind for d in f.definitions}


def calls(f: FileFacts) -> list[tuple[str, str, int, bool]]:
    return [(c.callee, c.scope, c.n_positional, c.has_star) for c in f.calls]


# -- definitions --

@pytest.mark.parametrize(("text", "path", "expected"), [
    ("export function f(a: number) {}\nfunction* g() {}\n", "a.ts", {"f": DefKind.FUNCTION, "g": DefKind.FUNCTION}),
    ("export const f = (a) => a;\nconst g = function (b) {};\nlet h = async () => 1;\n", "a.ts",
     {"f": DefKind.FUNCTION, "g": DefKind.FUNCTION, "h": DefKind.FUNCTION}),
    ("""
     export class Cart extends Base {
       static make() {}
       get total() { return 1; }
       set total(v) {}
       constructor(private db: Db) { super(); }
       handler = (e) => {};
       #secret() {}
     }
     """, "a.ts", {"Cart": DefKind.CLASS, "Cart.make": DefKind.METHOD, "Cart.total": DefKind.METHOD,
                   "Cart.constructor": DefKind.METHOD, "Cart.handler": DefKind.METHOD}),
    ("""
     export interface Shape { area(): number }
     export type Id = string | number;
     export enum Color { Red, Green }
     export namespace Geo { export function dist(a: number) { return a; } }
     export const LIMIT = 10;
     """, "a.ts", {"Shape": DefKind.INTERFACE, "Shape.area": DefKind.MEMBER, "Id": DefKind.TYPE, "Color": DefKind.ENUM, "Geo": DefKind.NAMESPACE,
                   "Geo.dist": DefKind.FUNCTION, "LIMIT": DefKind.VARIABLE}),
    ("export const api = { get(url) { return url; }, post: (url, body) => body };\n", "a.js",
     {"api": DefKind.VARIABLE, "api.get": DefKind.METHOD, "api.post": DefKind.METHOD}),
    ("export default function () {}\n", "a.js", {"default": DefKind.FUNCTION}),
    ("declare function f(a: string): void;\nexport declare class C { m(): void }\n", "a.d.ts",
     {"f": DefKind.FUNCTION, "C": DefKind.CLASS, "C.m": DefKind.METHOD}),
    ("function outer() { function inner() {} const local = () => 1; }\n", "a.ts", {"outer": DefKind.FUNCTION}),
    ("export function Button(props) { return <b>{props.x}</b>; }\n", "a.jsx", {"Button": DefKind.FUNCTION}),
])
def test_definitions_of_each_form(text: str, path: str, expected: dict[str, DefKind]) -> None:
    assert defs(facts(text, path)) == expected


def test_a_definition_keeps_its_header_bases_decorators_returns_and_async() -> None:
    f = facts("""
        @Injectable()
        export class Service extends Base implements Port, ns.Other {
          @Get("/x") async load(id: string): Promise<Item> { return x; }
        }
        """)
    by = {d.qualname: d for d in f.definitions}
    assert by["Service"].bases == ("Base", "Port", "ns.Other")
    assert by["Service"].decorators == ("Injectable()",)
    assert by["Service"].signature == "class Service extends Base implements Port, ns.Other"
    assert (by["Service.load"].decorators, by["Service.load"].returns, by["Service.load"].is_async) == (
        ('Get("/x")',), "Promise<Item>", True)
    assert by["Service"].line == 2 and by["Service.load"].line == 3


# -- imports --

@pytest.mark.parametrize(("text", "path", "expected"), [
    ('import { a, b as c } from "./x";\n', "a.ts", [("./x", "a", None, ImportForm.STATIC), ("./x", "b", "c", ImportForm.STATIC)]),
    ('import d, * as ns from "./y";\n', "a.ts", [("./y", "default", "d", ImportForm.STATIC), ("./y", "*", "ns", ImportForm.STATIC)]),
    ('import type { T } from "./t";\nimport { type U, V } from "./u";\n', "a.ts",
     [("./t", "T", None, ImportForm.TYPE_ONLY), ("./u", "U", None, ImportForm.TYPE_ONLY), ("./u", "V", None, ImportForm.STATIC)]),
    ('import fs = require("fs");\n', "a.ts", [("fs", "*", "fs", ImportForm.IMPORT_EQUALS)]),
    ('import "./side";\n', "a.ts", [("./side", None, None, ImportForm.STATIC)]),
    ('const lib = require("./lib");\nconst { p, q: r } = require("./two");\nrequire("./effect");\n', "a.cjs",
     [("./lib", "*", "lib", ImportForm.REQUIRE), ("./two", "p", None, ImportForm.REQUIRE), ("./two", "q", "r", ImportForm.REQUIRE),
      ("./effect", None, None, ImportForm.REQUIRE)]),
    ('async function f() { const m = await import("./dyn"); return import(name); }\n', "a.mjs",
     [("./dyn", "*", "m", ImportForm.DYNAMIC), ("", None, None, ImportForm.DYNAMIC)]),
])
def test_imports_of_each_form(text: str, path: str, expected: list[tuple[str, str | None, str | None, ImportForm]]) -> None:
    f = facts(text, path)
    assert [(i.module, i.name, i.alias, i.form) for i in f.imports] == expected
    assert not f.calls  # `require` and `import()` are imports, not calls to judge


def test_a_type_only_import_says_so_and_an_import_in_a_function_has_its_scope() -> None:
    f = facts('import type { T } from "./t";\nexport function f() { const m = require("./m"); }\n', "a.ts")
    assert [(i.type_checking, i.scope) for i in f.imports] == [(True, ""), (False, "f")]


# -- exports --

@pytest.mark.parametrize(("text", "path", "expected"), [
    ("export function f() {}\nexport const a = 1, b = () => 2;\n", "a.ts",
     [("f", "f", None, ExportKind.NAMED), ("a", "a", None, ExportKind.NAMED), ("b", "b", None, ExportKind.NAMED)]),
    ("function f() {}\nexport { f, f as g };\n", "a.ts", [("f", "f", None, ExportKind.NAMED), ("g", "f", None, ExportKind.NAMED)]),
    ("export default class Cart {}\n", "a.ts", [("default", "Cart", None, ExportKind.DEFAULT)]),
    ("const x = 1;\nexport default x;\n", "a.ts", [("default", "x", None, ExportKind.DEFAULT)]),
    ('export * from "./all";\nexport * as ns from "./ns";\nexport { a as b, c } from "./re";\n', "a.ts",
     [("*", None, "./all", ExportKind.STAR), ("ns", "*", "./ns", ExportKind.NAMESPACE), ("b", "a", "./re", ExportKind.REEXPORT),
      ("c", "c", "./re", ExportKind.REEXPORT)]),
    ("function f() {}\nexport = f;\n", "a.ts", [("export=", "f", None, ExportKind.EQUALS)]),
    ("function f() {}\nmodule.exports = f;\n", "a.js", [("export=", "f", None, ExportKind.COMMONJS)]),
    ("exports.parse = function (s) {};\nmodule.exports.fmt = fmt;\n", "a.cjs",
     [("parse", "parse", None, ExportKind.COMMONJS), ("fmt", "fmt", None, ExportKind.COMMONJS)]),
    ("module.exports = { parse(s) {}, fmt, run: (a) => a };\n", "a.js",
     [("parse", "parse", None, ExportKind.COMMONJS), ("fmt", "fmt", None, ExportKind.COMMONJS),
      ("run", "run", None, ExportKind.COMMONJS)]),
    ("export namespace N { export function f() {} }\n", "a.ts", [("N", "N", None, ExportKind.NAMED)]),
    ('declare module "lib" { export function f(): void; }\n', "a.d.ts", []),
])
def test_exports_of_each_form(text: str, path: str, expected: list[tuple[str, str | None, str | None, ExportKind]]) -> None:
    assert sorted((e.name, e.local, e.specifier, e.kind) for e in facts(text, path).exports) == sorted(expected,
                                                                                                       key=lambda e: e)


def test_commonjs_functions_are_definitions() -> None:
    f = facts("exports.parse = function (s) {};\nmodule.exports = { run(a) {} };\nfunction App() {}\n"
              "App.prototype.listen = function (port) {};\nApp.create = function () {};\n", "a.js")
    assert defs(f) == {"parse": DefKind.FUNCTION, "run": DefKind.FUNCTION, "App": DefKind.FUNCTION,
                       "App.listen": DefKind.METHOD, "App.create": DefKind.METHOD}


# -- uses --

def test_calls_have_callee_chain_scope_argument_count_and_spread() -> None:
    f = facts("""
        export function run(xs) {
          helper(1, 2);
          api.client.get(url, /* why */ opts);
          fmt(...xs);
          new Cart(a, ...rest);
          new Plain;
          this.save();
          make().then(done);
          tag`x${y}`;
        }
        """)
    assert sorted(calls(f)) == sorted([("helper", "run", 2, False), ("api.client.get", "run", 2, False), ("fmt", "run", 0, True),
                        ("Cart", "run", 1, True), ("Plain", "run", 0, False), ("this.save", "run", 0, False),
                        ("make().then", "run", 1, False), ("make", "run", 0, False), ("tag", "run", 0, False)])


def test_jsx_elements_are_uses_of_components_and_intrinsic_elements_are_not() -> None:
    for path in ("a.tsx", "a.jsx", "a.js"):
        f = facts("""
            import { Button } from "./button";
            import * as UI from "./ui";
            export function Page() { return <div><Button size={1} /><UI.Card>{x}</UI.Card></div>; }
            """, path)
        assert [(r.target, r.scope) for r in f.references if r.kind is RefKind.JSX] == [("Button", "Page"), ("UI.Card", "Page")], path


def test_decorators_types_and_values_are_references_when_the_module_binds_them() -> None:
    f = facts("""
        import { Component, Store, handler } from "./lib";
        import type { Item } from "./item";
        @Component({})
        export class View {
          constructor(private store: Store) {}
          load(item: Item | undefined, local: Local): Array<Item> { on("x", handler); on("y", local); return []; }
        }
        """)
    refs = {(r.target, r.kind.value, r.scope) for r in f.references}
    assert refs == {("Component", "decorator", ""), ("Store", "annotation", "View.constructor"),
                    ("Item", "annotation", "View.load"), ("handler", "value", "View.load")}


@pytest.mark.parametrize(("text", "expected"), [
    ("function f() { const c = new Cart(); c.total(); }\n", {("f", "c", BindKind.CALL, "Cart")}),
    ("function f(c: Cart | undefined, d?: ns.Other<T>) {}\n",
     {("f", "c", BindKind.ANNOTATION, "Cart"), ("f", "d", BindKind.ANNOTATION, "ns.Other")}),
    ("class A { s: Session; t = new Timer(); constructor(private readonly db: Db, plain: P) { this.u = new U(); } }\n",
     {("A", "this.s", BindKind.ANNOTATION, "Session"), ("A", "this.t", BindKind.CALL, "Timer"),
      ("A.constructor", "db", BindKind.ANNOTATION, "Db"), ("A", "this.db", BindKind.ANNOTATION, "Db"),
      ("A.constructor", "plain", BindKind.ANNOTATION, "P"), ("A", "this.u", BindKind.CALL, "U")}),
    ("function f() { const x = make(); const y: string = other; }\n",
     {("f", "x", BindKind.CALL, "make"), ("f", "y", BindKind.ALIAS, "other")}),
])
def test_receiver_bindings(text: str, expected: set[tuple[str, str, BindKind, str]]) -> None:
    assert {(b.scope, b.target, b.kind, b.value) for b in facts(text).bindings} == expected


# -- files that do not parse, limits --

def test_a_file_with_a_syntax_error_keeps_what_parses_records_the_region_and_drops_its_calls() -> None:
    f = facts("""
        export function good() { helper(1); }
        export function bad() { helper(1, 2) ]]; }
        export function after() { helper(3); }
        """)
    assert {"good", "after"} <= set(defs(f))
    assert f.errors and all(r.line == 2 for r in f.errors)
    assert [c.scope for c in f.calls if c.callee == "helper"] == ["good", "after"]
    assert f.warnings and "syntax error at line 2" in f.warnings[0]


def test_a_missing_token_is_a_region_too() -> None:
    f = facts("export function f() { helper(1, 2\n}\nexport function g() { helper(3); }\n")
    assert f.errors
    assert all(not any(r.holds(c.line, c.col) for r in f.errors) for c in f.calls)
    assert ("helper", 1) not in [(c.callee, c.line) for c in f.calls]


def test_deep_nesting_gives_facts_and_a_warning() -> None:
    deep = "export function top() { helper(); }\nconst x = " + "[" * 3000 + "]" * 3000 + ";\n" + "f(" * 600 + ")" * 600 + ";\n"
    f = TYPESCRIPT.parse(deep.encode(), "typescript")
    assert f.parsed and "top" in defs(f)
    assert any("nested more than" in w for w in f.warnings)


def test_recursion_error_in_the_walk_gives_the_facts_so_far_and_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphguard.languages.typescript import extract

    def boom(self: extract.Extractor, node: Any) -> None:
        raise RecursionError

    monkeypatch.setattr(extract.Extractor, "export", boom)
    f = facts("export function first() {}\nexport { first as again };\nfunction later() { first(); }\n")
    assert defs(f) == {"first": DefKind.FUNCTION, "later": DefKind.FUNCTION} and calls(f) == [("first", "later", 0, False)]
    assert not f.exports and any("too deeply nested" in w for w in f.warnings)


def test_binary_and_oversized_files_are_skipped_with_a_warning() -> None:
    assert not TYPESCRIPT.parse(b"\x00\x01binary", "typescript").parsed
    big = TYPESCRIPT.parse(b"// x\n" * 500_000, "javascript")
    assert not big.parsed and "limit" in big.warnings[0]


def test_facts_round_trip_through_json() -> None:
    f = facts("""
        import type { T } from "./t";
        export * as ns from "./ns";
        export function f(x: T) { g(1; }
        """)
    assert FileFacts.from_json(f.to_json()) == f and f.errors and f.imports[0].form is ImportForm.TYPE_ONLY


# -- the uses they give, on real repositories --

def _callers(graphguard: Callable[..., Any], repo: GitRepo, symbol: str) -> set[tuple[str, str, str]]:
    result = graphguard(repo, "callers", symbol, "--format", "json")
    assert result.code == 0, result.err
    return {(c["path"], c["caller"], c["kind"]) for c in result.json["callers"]}


def test_jsx_is_a_use_of_the_component_across_files(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/button.tsx": "export function Button(props: { size: number }) { return <b />; }\n",
        "src/page.tsx": 'import { Button } from "./button";\nexport function Page() { return <div><Button size={1} /></div>; }\n',
        "src/legacy.jsx": 'import { Button } from "./button";\nexport const Old = () => <Button size={2} />;\n',
    })
    found = _callers(graphguard, repo, "src/button.tsx#Button")
    assert ("src/page.tsx", "src/page.tsx#Page", "reference") in found
    assert ("src/legacy.jsx", "src/legacy.jsx#Old", "reference") in found


def test_receivers_typed_without_a_checker_reach_the_method(make_repo: Callable[..., GitRepo],
                                                            graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/db.ts": """export class Db {\n  query(sql: string) { return sql; }\n}\n
export class Base {\n  save() {}\n}\nexport function connect(): Db { return new Db(); }\n""",
        "src/repo.ts": """import { Db, Base, connect } from "./db";
export class Repo extends Base {
  private other: Db | undefined;
  constructor(private db: Db) { super(); }
  byField() { return this.db.query("a"); }
  byAnnotatedField() { return this.other.query("b"); }
  bySuper() { super.save(); }
}
export function byParam(d: Db) { return d.query("c"); }
export function byReturn() { const d = connect(); return d.query("d"); }
export function byNew() { const d = new Db(); return d.query("e"); }
""",
    })
    query = {caller for path, caller, kind in _callers(graphguard, repo, "src/db.ts#Db.query") if kind == "call"}
    assert query == {"src/repo.ts#Repo.byField", "src/repo.ts#Repo.byAnnotatedField", "src/repo.ts#byParam",
                     "src/repo.ts#byReturn", "src/repo.ts#byNew"}
    save = {caller for _, caller, kind in _callers(graphguard, repo, "src/db.ts#Base.save") if kind == "call"}
    assert save == {"src/repo.ts#Repo.bySuper"}


def test_commonjs_require_reaches_module_exports(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "lib/money.js": "function parse(text, currency) { return 0; }\nexports.parse = parse;\n"
                        "module.exports.format = function (n) { return String(n); };\n",
        "lib/app.js": "function createApp(opts) { return {}; }\nmodule.exports = createApp;\n",
        "bin/run.cjs": 'const money = require("../lib/money");\nconst { format } = require("../lib/money");\n'
                       'const createApp = require("../lib/app");\n'
                       "function main() { money.parse('1', 'EUR'); format(2); createApp({}); }\n",
    })
    assert ("bin/run.cjs", "bin/run.cjs#main", "call") in _callers(graphguard, repo, "lib/money.js#parse")
    assert ("bin/run.cjs", "bin/run.cjs#main", "call") in _callers(graphguard, repo, "lib/money.js#format")
    assert ("bin/run.cjs", "bin/run.cjs#main", "call") in _callers(graphguard, repo, "lib/app.js#createApp")


def test_a_call_where_the_caller_does_not_parse_is_never_blamed(make_repo: Callable[..., GitRepo],
                                                                graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/money.ts": "export function parse(text: string) { return 0; }\n",
        "src/use.ts": 'import { parse } from "./money";\nexport function ok() { return parse("1"); }\n'
                      'export function broken() { return parse("2") ]]; }\n',
    })
    graphguard(repo, "index")
    repo.write({"src/money.ts": "export function parse(text: string, currency: string) { return 0; }\n"})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    (change,) = [c for c in result.json["changes"] if c["symbol"] == "src/money.ts#parse"]
    broken = {(c["caller"], c["line"]) for c in change["callers"] if c["status"] == "broken"}
    assert broken == {("src/use.ts#ok", 2)}
    assert result.code == 1


def test_a_lowercase_member_tag_is_a_component_and_a_lowercase_name_is_not() -> None:
    f = facts('import * as ui from "./ui";\nexport const P = () => <section><ui.Card /><span /></section>;\n', "a.tsx")
    assert [r.target for r in f.references if r.kind is RefKind.JSX] == ["ui.Card"]
