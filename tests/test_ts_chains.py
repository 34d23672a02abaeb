"""Calls on a call's result and inherited methods (issue 21: zod v3's `z.string().min(1).nullable()`). tsc types
`z.string()` through `export const stringType = ZodString.create` and `static create = (): ZodString => ...`, and
finds `nullable` on ZodString's base class; graphguard reads the same annotations and bases, so those calls are
exact, not left to a by-name pin that another declaration of `nullable` (v4's interface) defeats. A type alias of
one named type (`type ZodTypeAny = ZodType<any>`) has that type's members; a method without a return annotation
returns what its last `return` gives (`min() { return this._addCheck(...) }`). On real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo

BASE = """
    export abstract class Base {
      nullable(): Wrapped<this> { return new Wrapped(this); }
      self(): this { return this; }
      loose() { return null as any; }
    }
    export type AnyBase = Base;
    export class Wrapped<T> extends Base {
      constructor(readonly inner: T) { super(); }
      unwrap(): T { return this.inner; }
    }
"""

FILES = {
    "src/base.ts": BASE,
    "src/str.ts": """
        import { Base } from "./base";
        export class Str extends Base {
          static create = (max?: number): Str => new Str();
          min(n: number): Str { return this; }
          max(n: number) { return this.check(n); }
          check(n: number) { return new Str(); }
        }
        export const stringType = Str.create;
        export { stringType as string };
    """,
    "src/index.ts": 'export * as z from "./str";\n',
    # Another declaration of `nullable` (as zod v4's interface ZodType): a by-name pin cannot choose between them.
    "src/v4.ts": "export interface Schema { nullable(): Schema; }\n",
    "src/use.ts": """
        import { z } from "./index";
        export function run() {
          z.string().nullable();
          z.string().min(1).nullable();
          z.string().self().min(2);
          const s = z.string();
          s.nullable();
          z.string().nullable().unwrap();
          z.string().loose().nullable();
        }
        import type { AnyBase } from "./base";
        export const take = (a: AnyBase) => a.nullable();
        export const capped = () => z.string().max(1).nullable();
    """,
}


def _calls(graphguard: Callable[..., Any], repo: GitRepo, symbol: str) -> set[tuple[int, str]]:
    result = graphguard(repo, "callers", symbol, "--format", "json")
    assert result.code == 0, result.err
    return {(u["line"], u["resolution"]) for u in result.json["callers"] if u["kind"] == "call"}


def test_calls_on_call_results_reach_the_returned_class_and_its_bases(make_repo: Callable[..., GitRepo],
                                                                      graphguard: Callable[..., Any]) -> None:
    repo = make_repo(FILES)
    # `max()` has no return annotation, but returns `this.check(n)`, which returns `new Str()`: read off the bodies.
    # `loose()` returns what no reading types: its `.nullable()` is only a candidate.
    assert _calls(graphguard, repo, "src/base.ts#Base.nullable") == {(3, "exact"), (4, "exact"), (7, "exact"), (8, "exact"),
                                                                     (9, "candidate"), (12, "exact"), (13, "exact")}
    # `self(): this` gives the receiver's class (Str), so `.min` is Str's.
    assert _calls(graphguard, repo, "src/str.ts#Str.min") == {(4, "exact"), (5, "exact")}
    assert _calls(graphguard, repo, "src/base.ts#Wrapped.unwrap") == {(8, "exact")}


def test_a_required_parameter_added_to_an_inherited_method_breaks_its_chained_calls(make_repo: Callable[..., GitRepo],
                                                                                   graphguard: Callable[..., Any]) -> None:
    repo = make_repo(FILES)
    repo.write({"src/base.ts": BASE.replace("nullable(): Wrapped<this>", "nullable(why: string): Wrapped<this>")})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1, result.out
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == "src/base.ts#Base.nullable"]
    broken = {(c["path"], c["line"]) for c in entry["callers"] if c["status"] == "broken"}
    assert broken == {("src/use.ts", 3), ("src/use.ts", 4), ("src/use.ts", 7), ("src/use.ts", 8), ("src/use.ts", 12), ("src/use.ts", 13)}
    assert all(c["status"] != "broken" for c in entry["callers"] if c["line"] == 9)  # `loose()`'s result is not typed
