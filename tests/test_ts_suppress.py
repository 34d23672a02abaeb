"""What a TypeScript/JavaScript file says not to blame, read through `Language.notes` by check/suppress as Python's
ignores are: `// @ts-expect-error` and `// @ts-ignore` silence every site of the next line (tsc reports nothing
there), `// graphguard: ignore[codes]` the site it is written on. On real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo


def _callers(graphguard: Callable[..., Any], repo: GitRepo, symbol: str) -> tuple[int, dict[tuple[int, str], tuple[str, Any]]]:
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code in (0, 1), result.err
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == symbol]
    return result.code, {(c["line"], c["kind"]): (c["status"], c.get("suppressed")) for c in entry["callers"]}


def test_an_import_under_ts_expect_error_and_a_jsx_directive_are_ignored(make_repo: Callable[..., GitRepo],
                                                                        graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/lib.ts": "export function keep(a: number): number { return a; }\nexport function gone(): number { return 0; }\n",
        "src/use.ts": """
            import { keep } from "./lib";
            // @ts-expect-error: gone is going
            import { gone } from "./lib";
            export const a = keep(1);
        """,
        "src/view.tsx": """
            import { keep } from "./lib";
            export const V = () => (
              <div>
                {/* @ts-expect-error */}
                {keep(1)}
                {keep(3)}
              </div>
            );
        """,
    })
    repo.write({"src/lib.ts": "export function keep(a: number, b: number): number { return a + b; }\n"})
    repo.git("add", "-A")
    code, gone = _callers(graphguard, repo, "src/lib.ts#gone")
    assert gone == {(3, "import"): ("ok", "ignored")}
    _, keep = _callers(graphguard, repo, "src/lib.ts#keep")
    assert keep[(4, "call")] == ("broken", None)  # use.ts: no directive before it
    assert keep[(5, "call")] == ("ok", "ignored")  # view.tsx: `{/* @ts-expect-error */}` on the line before
    assert keep[(6, "call")] == ("broken", None)
    assert code == 1


def test_a_graphguard_ignore_comment_in_typescript_names_its_codes(make_repo: Callable[..., GitRepo],
                                                                  graphguard: Callable[..., Any]) -> None:
    repo = make_repo({
        "src/lib.ts": "export function f(a: number): number { return a; }\n",
        "src/use.ts": """
            import { f } from "./lib";
            export const a = f(1); // graphguard: ignore[signature]
            export const b = f(2); // graphguard: ignore[no-such-code]
        """,
    })
    repo.write({"src/lib.ts": "export function f(a: number, b: number): number { return a + b; }\n"})
    repo.git("add", "-A")
    result = graphguard(repo, "check", "--staged", "--format", "json")
    (entry,) = [c for c in result.json["changes"] if c["symbol"] == "src/lib.ts#f"]
    statuses = {c["line"]: (c["status"], c.get("suppressed")) for c in entry["callers"] if c["kind"] == "call"}
    assert statuses == {2: ("ok", "ignored"), 3: ("broken", None)}
    assert any("no-such-code" in w["message"] for w in result.json["warnings"]), result.json["warnings"]
