"""languages/typescript: the TS/JS signature model (signature), its change kinds (sigdiff) and call binding (binding),
each from real TypeScript and JavaScript source read by the real grammars."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from graphguard.codes import TABLE, CodeName
from graphguard.languages.python.signature import ParamKind
from graphguard.languages.typescript.binding import SPREAD, bind, landing, literal_keys, literal_keywords
from graphguard.languages.typescript.grammar import Dialect
from graphguard.languages.typescript.sigdiff import added, compare, find_moves
from graphguard.languages.typescript.signature import signatures
from graphguard.languages.typescript.sigrecords import EXPORT_EQUALS, Accessor, Shape, TsModuleSignatures, TsSignature
from graphguard.model import CallShape, DefKind
from graphguard.result import ChangeKind, Status
from tests.helpers import GitRepo, source

TS, JS, TSX = Dialect.TYPESCRIPT, Dialect.JAVASCRIPT, Dialect.TSX


def sigs(text: str, dialect: Dialect = TS) -> TsModuleSignatures:
    return signatures(source(text).encode(), dialect)


def sig(text: str, qualname: str, dialect: Dialect = TS) -> TsSignature:
    found = sigs(text, dialect).defs[qualname]
    assert isinstance(found, TsSignature)
    return found


def shape_of(s: TsSignature) -> list[tuple[str, str, bool]]:
    """(name, kind, optional) of each parameter."""
    return [(p.name, p.kind.value, p.has_default) for p in s.params]


POS, REST = ParamKind.POSITIONAL_ONLY.value, ParamKind.VAR_POSITIONAL.value


# -- the signature model ---------------------------------------------------------------------------


def test_function_parameters_optional_default_rest_and_this() -> None:
    s = sig("export function f(this: Window, a: string, b?: number, c = 3, ...rest: string[]): void {}", "f")
    assert s.kind is DefKind.FUNCTION and s.exported and not s.is_async
    assert shape_of(s) == [("a", POS, False), ("b", POS, True), ("c", POS, True), ("rest", REST, False)]
    assert [p.annotation for p in s.params] == ["string", "number", None, "string[]"]
    assert s.params[2].default == "3" and s.returns == "void"
    assert s.text == "function f(a: string, b?: number, c = 3, ...rest: string[]): void"


@pytest.mark.parametrize(("text", "qualname"), [
    ("export const f = (a: string, b?: number) => a;", "f"),
    ("export const f = async function (a: string, b?: number) { return a };", "f"),
    ("export const f = ((a: string, b?: number) => a) as Fn;", "f"),
    ("export default function (a: string, b?: number) {}", "default"),
    ("export default (a: string, b?: number) => a;", "default"),
    ("export default function named(a: string, b?: number) {}", "named"),
    ("export function* f(a: string, b?: number) {}", "f"),
])
def test_function_forms(text: str, qualname: str) -> None:
    s = sig(text, qualname)
    assert s.kind is DefKind.FUNCTION and s.exported
    assert shape_of(s) == [("a", POS, False), ("b", POS, True)]


def test_default_export_names_its_definition() -> None:
    assert sigs("export default function (a) {}").exports == {"default": "default"}
    assert sigs("export default function named(a) {}").exports == {"default": "named"}
    assert sigs("function f(a) {}\nexport default f;").exports == {"default": "f"}
    assert sigs("function f(a) {}\nconst g = 1;\nexport { f as h, g };").exports == {"h": "f", "g": "g"}
    local = sigs("function f(a) {}\nexport { f } from './other';")
    assert local.exports == {} and not local.defs["f"].exported  # a re-export names another file's f


def test_class_constructor_with_parameter_properties_methods_and_accessors() -> None:
    text = """
        export class Cart<T> implements Sized {
          constructor(private readonly items: T[], public tax?: number) {}
          static make(x: number): Cart<number> { return new Cart([x]) }
          async total(): Promise<number> { return 1 }
          get size(): number { return 1 }
          set size(v: number) {}
          add = (item: T) => this.items.push(item);
          private count: number = 1;
          #secret() {}
          ["computed"]() {}
        }
    """
    defs = sigs(text).defs
    assert list(defs) == ["Cart", "Cart.constructor", "Cart.make", "Cart.total", "Cart.size", "Cart.add"]
    cart = defs["Cart"]
    assert cart.kind is DefKind.CLASS and cart.constructor_known and cart.text == "class Cart(items: T[], tax?: number)"
    assert shape_of(defs["Cart.constructor"]) == [("items", POS, False), ("tax", POS, True)]
    make, total, size, add = (defs[f"Cart.{m}"] for m in ("make", "total", "size", "add"))
    assert isinstance(make, TsSignature) and make.is_static and make.is_staticmethod and make.kind is DefKind.METHOD
    assert total.is_async and total.returns == "Promise<number>"
    assert isinstance(size, TsSignature) and size.accessor is Accessor.GET and size.is_property  # a getter is not callable
    assert shape_of(add) == [("item", POS, False)] and add.kind is DefKind.METHOD  # an arrow-function field


@pytest.mark.parametrize(("text", "params", "known"), [
    ("class C {}", [], True),  # the default constructor takes nothing
    ("class B { constructor(a: string) {} }\nclass C extends B {}", [("a", POS, False)], True),  # the base's
    ("import { B } from './b';\nclass C extends B {}", [], False),  # a base of another file: not known here
    ("class C extends mixin(B) {}", [], False),
])
def test_class_constructor_comes_from_itself_its_base_or_is_unknown(text: str, params: list[tuple[str, str, bool]],
                                                                     known: bool) -> None:
    c = sig(text, "C")
    assert shape_of(c) == params and c.constructor_known is known


def test_overloads_are_callable_and_the_implementation_is_not() -> None:
    text = """
        export function parse(a: string): number;
        export function parse(a: string, radix: number, strict: boolean): number;
        export function parse(a: string, radix?: number, strict?: boolean): number { return 1 }
        export class P {
          add(a: string): void;
          add(a: number, b: number): void;
          add(a: any, b?: any): void {}
          constructor(a: string);
          constructor(a: number, b: number);
          constructor(a: any, b?: any) {}
        }
    """
    defs = sigs(text).defs
    parse = defs["parse"]
    assert isinstance(parse, TsSignature)
    assert [[p.name for p in ps] for ps in parse.overloads] == [["a"], ["a", "radix", "strict"]]
    assert all(not p.has_default for ps in parse.overloads for p in ps)  # not the implementation's `?`s
    assert parse.text == "function parse(a: string): number; function parse(a: string, radix: number, strict: boolean): number"
    for q in ("P.add", "P.constructor", "P"):
        found = defs[q]
        assert isinstance(found, TsSignature) and len(found.overloads) == 2, q


def test_destructured_object_parameter_records_its_type_literal() -> None:
    s = sig("export function f(id: string, {tz, at}: {tz: string; at?: Date; [k: string]: unknown} = {tz: 'UTC'}) {}", "f")
    p = s.params[1]
    assert p.has_default and getattr(p, "shape", None) == Shape(("tz",), ("at",), open=True)
    named = sig("interface O { tz: string }\nexport function f({tz}: O) {}", "f")
    assert getattr(named.params[0], "shape", "x") is None  # a named type: its properties are not read here


def test_declarations_of_a_d_ts_file() -> None:
    text = """
        declare function legacy(a: string): void;
        export declare function over(a: string): void;
        export declare function over(a: string, b: number): void;
        export declare class Client {
          constructor(url: string, opts?: object);
          get(path: string): Promise<unknown>;
          get ready(): boolean;
          abstract_thing?: number;
        }
    """
    defs = sigs(text).defs
    assert shape_of(defs["legacy"]) == [("a", POS, False)] and not defs["legacy"].exported
    assert len(defs["over"].overloads) == 2  # type: ignore[attr-defined]
    assert shape_of(defs["Client"]) == [("url", POS, False), ("opts", POS, True)]
    assert shape_of(defs["Client.get"]) == [("path", POS, False)]
    assert defs["Client.ready"].is_property


def test_namespaces_and_exported_object_namespaces() -> None:
    text = """
        export namespace Geo { export function distance(a: P, b: P) {} function helper() {} export namespace Deep { export function f(x) {} } }
        declare module "other" { export function notOurs(): void }
        export const api = { get(url: string) {}, post: (url: string, body: unknown) => 1, version: 1 };
        const local = { x(a) {} };
    """
    defs = sigs(text).defs
    assert list(defs) == ["Geo.distance", "Geo.helper", "Geo.Deep.f", "api.get", "api.post"]
    assert defs["Geo.distance"].exported and not defs["Geo.helper"].exported  # type: ignore[attr-defined]
    assert shape_of(defs["api.post"]) == [("url", POS, False), ("body", POS, False)] and defs["api.post"].is_staticmethod
    assert changes("export namespace N { export function f(a) {} }", "namespace N { export function f(a) {} }") == \
        [("N.f", "removed", ("export-removed:N",))]


def test_a_void_parameter_may_be_left_out() -> None:
    v = sig("export function v(a: number, b: void) {}", "v")
    assert shape_of(v) == [("a", POS, False), ("b", POS, True)]


def test_abstract_methods_and_wanted() -> None:
    text = "export abstract class A {\n  abstract run(x: number): void;\n  stop() {}\n}\nexport function f() {}"
    assert list(sigs(text).defs) == ["A", "A.run", "A.stop", "f"]
    assert list(signatures(text.encode(), TS, wanted={"A.run", "f"}).defs) == ["A.run", "f"]


def test_javascript_defaults_rest_and_lenient_arity() -> None:
    text = """
        export function f(a, b = 2, {c, d = 1}, [e], ...rest) {}
        export class C { constructor(a) {} static s(x) {} get g() { return 1 } }
        function va() { return arguments.length }
        function inner() { return function () { return arguments } }
        /**
         * @param {string} a
         * @param {number} [b]
         * @param {...string} more
         */
        export const doc = (a, b, more) => a;
        exports.z = function (a, b) {};
        module.exports = { va, alias: inner };
    """
    defs = sigs(text, JS).defs
    f = defs["f"]
    assert shape_of(f) == [("a", POS, False), ("b", POS, True), ("{c, d = 1}", POS, False), ("[e]", POS, False), ("rest", REST, False)]
    assert all(p.annotation is None for p in f.params) and f.lenient  # type: ignore[attr-defined]
    assert defs["C"].lenient and shape_of(defs["C"]) == [("a", POS, False)]  # type: ignore[attr-defined]
    assert shape_of(defs["va"]) == [("arguments", REST, False)]  # reads `arguments`: any number
    assert shape_of(defs["inner"]) == []  # a nested function's `arguments` is its own
    doc = defs["doc"]
    assert not doc.lenient and shape_of(doc) == [("a", POS, False), ("b", POS, True), ("more", REST, False)]  # type: ignore[attr-defined]
    exports = sigs(text, JS).exports
    assert exports["z"] == "z" and exports["va"] == "va" and exports["alias"] == "inner"


def test_commonjs_modules() -> None:
    text = """
        var app = exports = module.exports = {};
        app.init = function init() {};
        app.use = function use(fn) { return arguments.length };
        function Router(opts) {}
        Router.prototype.route = function (path) {};
        Router.make = (a, b) => new Router(a);
        exports.helper = function (x) {};
        module.exports.other = (y) => y;
    """
    found = sigs(text, JS)
    assert found.exports == {EXPORT_EQUALS: "app", "helper": "helper", "other": "other"}
    defs = found.defs
    assert list(defs) == ["app.init", "app.use", "Router", "Router.route", "Router.make", "helper", "other"]
    assert defs["app.use"].is_staticmethod and defs["app.use"].exported  # type: ignore[attr-defined]
    assert not defs["Router.route"].is_staticmethod and not defs["Router"].exported  # type: ignore[attr-defined]
    listed = sigs("module.exports = { parse(a) {}, fmt: (x, y) => x, Router };\nfunction Router(o) {}", JS)
    assert listed.exports == {"parse": "parse", "fmt": "fmt", "Router": "Router"} and list(listed.defs) == ["parse", "fmt", "Router"]
    assert sigs("function f(a: string) {}\nexport = f;").exports == {EXPORT_EQUALS: "f"}
    assert sigs("module.exports = function named(a) {};", JS).exports == {EXPORT_EQUALS: "named"}


def test_tsx_and_a_region_that_does_not_parse() -> None:
    tsx = sig("export function Button({label}: {label: string}) { return <b>{label}</b> }", "Button", TSX)
    assert getattr(tsx.params[0], "shape", None) == Shape(("label",), ())
    broken = sigs("export function ok(a: string) {}\nexport function bad(a: string {\n  ))) \n}\n")
    assert shape_of(broken.defs["ok"]) == [("a", POS, False)] and not broken.defs["ok"].opaque


def changes(before: str, after: str, dialect: Dialect = TS) -> list[Row]:
    return [(c.qualname, c.change.value, tuple(c.breaking)) for c in compare(sigs(before, dialect), sigs(after, dialect))]


@pytest.mark.parametrize(("before", "after", "expected"), [
    # -- nothing a caller can see ------------------------------------------------------------------
    ("export function f(a: string) { return 1 }", "export function f(a: string) {\n  const x = 2\n  return x\n}", []),
    ("export function f(a: string) {}", "export function f(renamed: string) {}", []),  # names are no interface in TS
    ("export function f(a: string) {}", "export function f(this: Window, a: string) {}", []),
    ("export function f(a = 1) {}", "export function f(a = 2) {}", []),
    # -- parameters ---------------------------------------------------------------------------------
    ("export function f(a: string) {}", "export function f(a: string, b: number) {}", [("f", "signature", ("required-param-added:b",))]),
    ("export function f(a: string) {}", "export function f(a: string, b?: number) {}", [("f", "signature", ("optional-param-added:b",))]),
    ("export function f(a: string, b?: number) {}", "export function f(a: string, b: number) {}", [("f", "signature", ("default-removed:b",))]),
    ("export function f(a: string, b = 1) {}", "export function f(a: string, b) {}", [("f", "signature", ("default-removed:b",))]),
    ("export function f(a, b, c) {}", "export function f(a, c) {}", [("f", "signature", ("param-removed:b", "param-position-changed:c"))]),
    ("export function f(a, b) {}", "export function f(b, a) {}", [("f", "signature", ("params-reordered",))]),
    ("export function f(a, ...r) {}", "export function f(a) {}", [("f", "signature", ("param-removed:*r",))]),
    ("export function f(a) {}", "export function f(a, ...r) {}", [("f", "signature", ("optional-param-added:*r",))]),
    # -- exports, renames ---------------------------------------------------------------------------
    ("export function f(a) {}\nexport function g() {}", "export function g() {}", [("f", "removed", ("removed",))]),
    ("export function f(a) {}", "function f(a) {}", [("f", "removed", ("export-removed:f",))]),
    ("export function f(a) {}", "export function g(a) {}", [("f", "renamed", ("renamed:g",))]),
    ("function f(a) {}\nexport { f as g }", "function f(a) {}\nexport { f as h }", [("f", "renamed", ("export-renamed:g->h",))]),
    ("export default function (a) {}", "export default function (a, b) {}", [("default", "signature", ("required-param-added:b",))]),
    ("function f(a) {}\nfunction g(a, b) {}\nexport default f", "function f(a) {}\nfunction g(a, b) {}\nexport default g",
     [("f", "signature", ("default-export-changed:g", "required-param-added:b"))]),
    ("export class Cart { total() {} }", "export class Basket { total() {} }",
     [("Cart", "renamed", ("renamed:Basket",)), ("Cart.total", "renamed", ("renamed:Basket.total",))]),
    # -- async, overloads, classes ------------------------------------------------------------------
    ("export function f(a) {}", "export async function f(a) {}", [("f", "signature", ("became-async",))]),
    ("export function f(a: string): string {}", "export function f(a: string): number {}", [("f", "signature", ("return-annotation-changed",))]),
    ("export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any) {}",
     "export function f(a: string): void;\nexport function f(a: number, b: number): void;\nexport function f(a: any, b?: any) {}",
     [("f", "signature", ("overloads-changed:2->2",))]),
    ("export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any) {}",
     "export function f(a: string | number): void {}", [("f", "signature", ("overloads-changed:2->1",))]),
    ("export class C { constructor(a) {} }", "export class C { constructor(a, b) {} }",
     [("C", "signature", ("required-param-added:b",)), ("C.constructor", "signature", ("required-param-added:b",))]),
    ("export class C { m() {} }", "export class C { get m() { return 1 } }", [("C.m", "signature", ("accessor-changed:method->getter",))]),
    ("export class C { m() {} }", "export class C { static m() {} }", [("C.m", "signature", ("static-changed:static",))]),
    ("export class C { constructor(a) {} }", "import { B } from './b';\nexport class C extends B {}",
     [("C", "signature", ("constructor-inherited",)), ("C.constructor", "removed", ("removed",))]),
    # -- destructured object parameters -------------------------------------------------------------
    ("export function f({a, b}: {a: string; b?: number}) {}", "export function f({a, b}: {a: string; b: number}) {}",
     [("f", "signature", ("param-annotation-changed:{a, b}", "property-made-required:0.b"))]),
    ("export function f(x, {a}: {a: string}) {}", "export function f(x, {a, c}: {a: string; c: string}) {}",
     [("f", "signature", ("param-annotation-changed:{a, c}", "required-property-added:1.c"))]),
    ("export function f({a, b}: {a: string; b?: number}) {}", "export function f({a}: {a: string}) {}",
     [("f", "signature", ("param-annotation-changed:{a}", "property-removed:0.b"))]),
])
def test_change_kinds(before: str, after: str, expected: list[Row]) -> None:
    assert changes(before, after) == expected


def test_javascript_change_kinds() -> None:
    assert changes("export function f(a, b = 1) {}", "export function f(a, b) {}", JS) == [("f", "signature", ("default-removed:b",))]
    assert changes("exports.f = function (a) {}", "exports.f = function (a, ...r) {}", JS) == \
        [("f", "signature", ("optional-param-added:*r",))]


def test_export_removed_keeps_the_new_signature_for_the_files_own_calls() -> None:
    (change,) = compare(sigs("export function f(a) {}"), sigs("function f(a, b) {}"))
    assert change.change is ChangeKind.REMOVED and change.after is not None and change.after.qualname == "f"
    assert change.breaking == ("export-removed:f", "required-param-added:b")


def test_moves_between_files_name_the_target_by_path() -> None:
    old_a, new_a, new_b = sigs("export function f(a) {}"), sigs("export const x = 1;"), sigs("export function f(a) {}")
    removed = [("src/a.ts", c) for c in compare(old_a, new_a)]
    gained = [("src/b.ts", s) for s in added(sigs(""), new_b)]
    ((module, moved),) = find_moves(removed, gained)
    assert module == "src/a.ts" and moved.change is ChangeKind.MOVED and moved.breaking == ("moved:src/b.ts#f",)


def test_every_new_code_is_documented_and_typed() -> None:
    new = {CodeName.EXPORT_REMOVED, CodeName.EXPORT_RENAMED, CodeName.DEFAULT_EXPORT_CHANGED, CodeName.ACCESSOR_CHANGED,
           CodeName.STATIC_CHANGED, CodeName.OVERLOADS_CHANGED, CodeName.REQUIRED_PROPERTY_ADDED,
           CodeName.PROPERTY_MADE_REQUIRED, CodeName.PROPERTY_REMOVED}
    assert new <= {c.name for c in TABLE if not c.informational}


# -- binding ---------------------------------------------------------------------------------------

DEFS = """
    export function two(a: string, b: number) {}
    export function opt(a: string, b?: number, c = 1) {}
    export function rest(a: string, b: number, ...more: string[]) {}
    export function leading(a = 1, b: number) {}
    export function over(x: string): void;
    export function over(x: string, y: number, z: number): void;
    export function over(...a: any[]) {}
    export function opts(id: string, {tz, at}: {tz: string; at?: Date}) {}
    export function loose({tz}: {tz: string; [k: string]: unknown}) {}
    export function self(this: Window, a: number) {}
    export class Cart {
      constructor(items: string[]) {}
      get size(): number { return 1 }
      static of(...items: string[]) { return new Cart(items) }
    }
    export class Empty {}
"""


def call(n: int, *, star: bool = False, keywords: tuple[str, ...] = ()) -> CallShape:
    return CallShape(n, keywords, star)


@pytest.mark.parametrize(("qualname", "shape", "status", "reason"), [
    ("two", call(2), Status.OK, "binds"),
    ("two", call(1), Status.BROKEN, "Expected 2 arguments, but got 1."),
    ("two", call(3), Status.BROKEN, "Expected 2 arguments, but got 3."),
    ("opt", call(1), Status.OK, "binds"),
    ("opt", call(3), Status.OK, "binds"),
    ("opt", call(0), Status.BROKEN, "Expected 1-3 arguments, but got 0."),
    ("opt", call(4), Status.BROKEN, "Expected 1-3 arguments, but got 4."),
    ("rest", call(1), Status.BROKEN, "Expected at least 2 arguments, but got 1."),
    ("rest", call(9), Status.OK, "binds"),
    ("leading", call(1), Status.BROKEN, "Expected 2 arguments, but got 1."),  # a default before a required one
    ("over", call(1), Status.OK, "binds"),
    ("over", call(3), Status.OK, "binds"),
    ("over", call(2), Status.BROKEN, "No overload expects 2 arguments, but overloads do exist that expect either 1 or 3 arguments."),
    ("over", call(4), Status.BROKEN, "Expected 1-3 arguments, but got 4."),
    ("two", call(1, star=True), Status.UNKNOWN, SPREAD),
    ("two", call(3, star=True), Status.BROKEN, "Expected 2 arguments, but got 3."),
    ("rest", call(5, star=True), Status.UNKNOWN, SPREAD),
    ("self", call(1), Status.OK, "binds"),  # `this:` is no argument
    ("self", call(2), Status.BROKEN, "Expected 1 arguments, but got 2."),
    ("Cart", call(1), Status.OK, "binds"),  # `new Cart(items)` binds to the constructor
    ("Cart", call(0), Status.BROKEN, "Expected 1 arguments, but got 0."),
    ("Cart.of", call(0), Status.OK, "binds"),
    ("Cart.size", call(0), Status.UNKNOWN, "a getter or setter: the call is made on the value it returns"),
    ("Empty", call(1), Status.BROKEN, "Expected 0 arguments, but got 1."),
])
def test_bind(qualname: str, shape: CallShape, status: Status, reason: str) -> None:
    binding = bind(shape, sigs(DEFS).defs[qualname], implicit_first=True)  # a TS method has no `self` to supply
    assert (binding.status, binding.reason) == (status, reason)


@pytest.mark.parametrize(("qualname", "keys", "status", "reason"), [
    ("opts", literal_keywords(1, ["tz"]), Status.OK, "binds"),
    ("opts", literal_keywords(1, ["tz", "at"]), Status.OK, "binds"),
    ("opts", literal_keywords(1, ["at"]), Status.BROKEN,
     "Property 'tz' is missing in the object literal but required in the type of parameter 2."),
    ("opts", literal_keywords(1, ["tz", "zone"]), Status.BROKEN,
     "Object literal may only specify known properties, and 'zone' does not exist in the type of parameter 2."),
    ("opts", literal_keywords(1, ["at"], spread=True), Status.OK, "binds"),  # `{...base, at}`: tz may be in base
    ("loose", literal_keywords(0, ["tz", "zone"]), Status.OK, "binds"),  # an index signature takes any key
])
def test_bind_object_literal_keys(qualname: str, keys: tuple[str, ...], status: Status, reason: str) -> None:
    arity = 2 if qualname == "opts" else 1
    binding = bind(CallShape(arity, keys), sigs(DEFS).defs[qualname])
    assert (binding.status, binding.reason) == (status, reason)


def test_landing_ignores_self_and_refuses_to_guess_an_overload() -> None:
    defs = sigs(DEFS + "export class K { m(a: string, b: number) {} }\n").defs
    found = landing(call(2), defs["K.m"], implicit_first=True)  # no `self`: argument 1 reaches `a`
    assert found is not None and [p.name for p in found.positional] == ["a", "b"]
    found = landing(call(4), defs["rest"])
    assert found is not None and [p.name for p in found.positional] == ["a", "b", "more", "more"]
    assert landing(call(3), defs["over"]) is None and landing(call(1, star=True), defs["two"]) is None
    assert landing(call(3), defs["two"]) is None  # argument 3 reaches nothing


def test_literal_keys_round_trip() -> None:
    shape = CallShape(2, (*literal_keywords(0, ["a"]), *literal_keywords(1, ["b", "c"], spread=True)))
    assert literal_keys(shape) == {0: frozenset({"a"}), 1: frozenset({"b", "c", "..."})}


def test_javascript_definitions_take_fewer_arguments_but_not_more() -> None:
    defs = sigs("export function f(a, b) {}\nexport function g() { return arguments[0] }\n"
                "/** @param {string} a */\nexport function h(a) {}", JS).defs
    assert bind(call(0), defs["f"]).status is Status.OK  # tsc's rule for .js files: every parameter optional
    assert bind(call(3), defs["f"]).reason == "Expected 0-2 arguments, but got 3."
    assert bind(call(5), defs["g"]).status is Status.OK  # reads `arguments`
    assert bind(call(0), defs["h"]).reason == "Expected 1 arguments, but got 0."  # JSDoc says which are optional


@pytest.mark.parametrize(("qualname", "n", "reason"), [  # each as tsc 5.9 (--checkJs) reports it
    ("C", 0, "binds"),
    ("C", 2, "Expected 0-1 arguments, but got 2."),
    ("C.m", 3, "Expected 0-2 arguments, but got 3."),
    ("B", 1, "Expected 0 arguments, but got 1."),  # the default constructor is no JS function: nothing to leave out
    ("arrow", 3, "Expected 0-2 arguments, but got 3."),
    ("obj.m", 2, "Expected 0-1 arguments, but got 2."),
    ("Legacy.run", 2, "Expected 0-1 arguments, but got 2."),
])
def test_javascript_classes_arrows_and_objects(qualname: str, n: int, reason: str) -> None:
    defs = sigs("""
        export class C { constructor(a) {} m(x, y) {} }
        export class B {}
        export const arrow = (a, b) => a;
        export const obj = { m(a) {} };
        function Legacy(a, b) {}
        Legacy.prototype.run = function (x) {};
    """, JS).defs
    assert bind(call(n), defs[qualname]).reason == reason


def test_a_javascript_caller_of_a_typescript_export_is_bound_by_the_same_rule(
        make_repo: Callable[..., GitRepo]) -> None:
    """Two commits of a real repository: the TS export gains a required parameter; the JS caller's call
    (one argument, which tsc never checks) no longer binds. The blobs are read from git, not the work tree."""
    repo = make_repo({"src/money.ts": "export function parseAmount(text: string): number { return 1 }\n",
                      "src/cli.js": "import { parseAmount } from './money.js';\nparseAmount(process.argv[2]);\n"})
    old = repo.head
    new = repo.commit("currency", {"src/money.ts": "export function parseAmount(text: string, currency: string): number { return 1 }\n"})

    def blob(rev: str) -> bytes:
        return subprocess.run(["git", "cat-file", "blob", f"{rev}:src/money.ts"], cwd=repo.root, capture_output=True,
                              check=True).stdout

    (change,) = compare(signatures(blob(old), TS), signatures(blob(new), TS))
    assert change.breaking == ("required-param-added:currency",) and change.after is not None
    js_call = CallShape(1)  # parseAmount(process.argv[2]) as src/cli.js writes it
    assert bind(js_call, change.after).reason == "Expected 2 arguments, but got 1."
    assert bind(js_call, change.before).status is Status.OK  # type: ignore[arg-type]


def test_a_parameter_list_that_does_not_parse_is_never_judged() -> None:
    text = "export function f(a: string, b: number satisfies X) {}"
    f = sig(text, "f")
    assert f.opaque and [p.name for p in f.params] == ["a", "b"]  # the ERROR node is no parameter
    assert bind(call(5), f).status is Status.UNKNOWN
    assert changes("export function f(a: string) {}", text) == []


# -- change kinds ----------------------------------------------------------------------------------

Row = tuple[str, str, tuple[str, ...]]
