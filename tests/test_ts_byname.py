"""A method call on an untyped receiver is pinned on a TypeScript method by its name only when nothing else in the
repository declares that name: an interface's or type literal's member (`nullable(): T`, `nullable: () => T`)
is such a declaration (issue 21: zod's v3 class `ZodType.nullable` took v4's `.nullable()` calls, which an
interface declares). On real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo

SCHEMA = """
    export class Schema {
      nullable(): Schema { return this; }
    }
    export function schema() { return new Schema(); }
"""

CALLER = """
    import { schema } from "./schema";
    export function run(make: () => any) { return make().nullable(); }
    export const also = () => schema;
"""

CHANGED = SCHEMA.replace("nullable(): Schema", "nullable(flag: boolean): Schema")


def _statuses(graphguard: Callable[..., Any], repo: GitRepo) -> set[tuple[str, str]]:
    repo.write({"src/schema.ts": CHANGED})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code in (0, 1), result.err
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == "src/schema.ts#Schema.nullable"]
    return {(c["path"], c["status"]) for c in entry["callers"] if c["kind"] == "call"}


def test_an_interface_declaring_the_method_name_makes_the_by_name_caller_unknown(make_repo: Callable[..., GitRepo],
                                                                                graphguard: Callable[..., Any]) -> None:
    repo = make_repo({"src/schema.ts": SCHEMA, "src/use.ts": CALLER, "src/other.ts": """
        export interface Other { nullable(): Other; }
    """})
    assert _statuses(graphguard, repo) == {("src/use.ts", "unknown")}


def test_a_type_literal_property_typed_by_a_function_declares_the_name_too(make_repo: Callable[..., GitRepo],
                                                                           graphguard: Callable[..., Any]) -> None:
    repo = make_repo({"src/schema.ts": SCHEMA, "src/use.ts": CALLER, "src/other.ts": """
        export type Other = { label: string; nullable: () => Other };
    """})
    assert _statuses(graphguard, repo) == {("src/use.ts", "unknown")}


def test_the_only_declaration_or_an_interface_the_class_implements_still_blocks(make_repo: Callable[..., GitRepo],
                                                                                graphguard: Callable[..., Any]) -> None:
    repo = make_repo({"src/schema.ts": "export interface Nullable { nullable(): unknown; }\n"
                      + SCHEMA.replace("class Schema", "class Schema implements Nullable"),
                      "src/use.ts": CALLER,
                      "src/other.ts": "export interface Other { label: string; size(): number; }\n"})
    assert _statuses(graphguard, repo) == {("src/use.ts", "broken")}


def test_a_renamed_function_breaks_its_importers_and_not_other_uses_of_the_same_name(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/dates.ts": "export function date(): number { return 0; }\n",
        "src/use.ts": 'import { date } from "./dates";\nexport const now = () => date();\n',
        "src/other.ts": """
            export function run(s: any) { return s.string().date(); }
            export function local() { const date = 1; return [date]; }
        """,
    })
    repo.write({"src/dates.ts": "export function day(): number { return 0; }\n"})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1, result.err
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == "src/dates.ts#date"]
    broken = {(c["path"], c["kind"]) for c in entry["callers"] if c["status"] == "broken"}
    assert broken == {("src/use.ts", "import"), ("src/use.ts", "call")}
    assert {c["status"] for c in entry["callers"] if c["path"] == "src/other.ts"} <= {"unknown"}


def test_a_call_the_compiler_is_told_to_expect_an_error_on_is_not_blamed(make_repo: Callable[..., GitRepo],
                                                                         graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/reg.ts": "export function add(a: string, meta?: object): void {}\n",
        "src/use.ts": """
            import { add } from "./reg";
            add("a", {});
            // @ts-expect-error: a number is no string
            add(1, {});
            /* @ts-ignore */
            add(2, {});
        """,
    })
    repo.write({"src/reg.ts": "export function add(a: string): void {}\n"})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1, result.err
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == "src/reg.ts#add"]
    # As a Python `# type: ignore`: ok, suppressed, the reason keeping what it would have been (Language.notes).
    assert {c["line"]: (c["status"], c.get("suppressed")) for c in entry["callers"] if c["kind"] == "call"} == {
        2: ("broken", None), 4: ("ok", "ignored"), 6: ("ok", "ignored")}
    (line_4,) = [c for c in entry["callers"] if c["line"] == 4]
    assert line_4["reason"] == "ignored (`// @ts-expect-error`): Expected 1 arguments, but got 2."


def test_a_use_of_a_renamed_function_under_ts_expect_error_is_not_blamed(make_repo: Callable[..., GitRepo],
                                                                        graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/dates.ts": "export function date(): number { return 0; }\n",
        "src/use.ts": 'import { date } from "./dates";\nexport const now = () => date();\n// @ts-expect-error\ndate(1);\n',
    })
    repo.write({"src/dates.ts": "export function day(): number { return 0; }\n"})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1, result.err
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == "src/dates.ts#date"]
    assert {(c["line"], c["kind"]): c["status"] for c in entry["callers"]} == {
        (1, "import"): "broken", (2, "call"): "broken", (4, "call"): "ok"}
