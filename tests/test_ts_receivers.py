"""A receiver typed by a module-level variable of another file: `registry.add()` where the imported `registry` is
declared `export const registry: Registry<Meta> = ...` (or `= new Registry()`), also through a namespace import
(`reg.registry.add()`). tsc types these from the declaration; graphguard reads the declaration's annotation
(issue 21: zod's `globalRegistry.add`, which four other classes' `add` left unpinned). On real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo

FILES = {
    "src/registry.ts": """
        export class Registry<M> {
          add(schema: string, meta: M): this { return this; }
        }
        export const registry: Registry<{ id: string }> = make();
        export const fresh = new Registry<number>();
        function make(): any { return null; }
    """,
    "src/set.ts": "export class Bag { add(x: number): void {} }\n",
    "src/use.ts": """
        import { registry, fresh } from "./registry";
        import * as reg from "./registry";
        export function run() {
          registry.add("a", { id: "x" });
          reg.registry.add("b", { id: "y" });
          fresh.add("c", 1);
        }
    """,
}


def test_calls_on_an_imported_annotated_or_constructed_const_reach_its_class_method(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo(FILES)
    result = graphguard(repo, "callers", "src/registry.ts#Registry.add", "--format", "json")
    assert result.code == 0, result.err
    calls = {(u["path"], u["line"], u["resolution"]) for u in result.json["callers"] if u["kind"] == "call"}
    assert calls == {("src/use.ts", 4, "exact"), ("src/use.ts", 5, "exact"), ("src/use.ts", 6, "exact")}
