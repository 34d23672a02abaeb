"""TypeScript/JavaScript tests in the check (issue 21): `*.test.*`, `*.spec.*` and `__tests__/` reached from a change,
and the runner named from package.json's scripts in "tests to run", by test name where the runner takes names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graphguard.config import Config
from graphguard.report.runner import RunnerKind, TestRunner, detect
from graphguard.testcollect import is_test_module
from tests.helpers import GitRepo

MONEY = "export function parseAmount(text: string, currency: string): number { return 0; }\n"
BROKEN = MONEY.replace("currency: string)", "currency: string, rate: number)")

SPEC = """
    import { describe, it, expect } from "vitest";
    import { parseAmount } from "../src/money";
    describe("money", () => {
      it("parses euros", () => {
        expect(parseAmount("1", "EUR")).toBe(0);
      });
      it("parses dollars", () => { expect(parseAmount("2", "USD")).toBe(0); });
      it("adds", () => { expect(1 + 1).toBe(2); });
    });
"""


def _break(make_repo: Callable[..., GitRepo], files: dict[str, str]) -> GitRepo:
    repo = make_repo({"src/money.ts": MONEY, **files})
    repo.write({"src/money.ts": BROKEN})
    repo.git("add", "-A")
    return repo


@pytest.mark.parametrize(("path", "expected"), [
    ("src/money.test.ts", True), ("src/money.spec.tsx", True), ("web/__tests__/cart.js", True), ("a.test.mjs", True),
    ("src/money.ts", False), ("src/types.test.d.ts", False), ("src/testing.ts", False), ("src/__tests__.ts", False),
    ("tests/test_a.py", True), ("pkg/a.py", False),
])
def test_which_files_are_test_files(path: str, expected: bool) -> None:
    assert is_test_module(path) is expected


def test_the_default_test_globs_take_ts_and_js_tests() -> None:
    is_test = Config().is_test
    assert [p for p in ("src/a.test.ts", "b.spec.js", "web/__tests__/c.tsx", "src/a.ts", "src/spec.ts") if is_test(p)] == [
        "src/a.test.ts", "b.spec.js", "web/__tests__/c.tsx"]


def test_a_spec_calling_the_changed_export_is_a_test_to_run_by_name_with_vitest(make_repo: Callable[..., GitRepo],
                                                                                graphguard: Callable[..., Any]) -> None:
    repo = _break(make_repo, {"test/money.spec.ts": SPEC, "package.json": '{"scripts": {"test": "vitest run --coverage"}}\n'})
    result = graphguard(repo, "check", "--staged", "--format", "json")
    assert result.code == 1
    (change,) = result.json["changes"]
    assert [t["path"] for t in change["tests"]] == ["test/money.spec.ts"]
    text = graphguard(repo, "check", "--staged")
    assert ("tests to run (\"test\" script in package.json): npx vitest run test/money.spec.ts -t 'parses dollars|parses euros'"
            in text.out), text.out


def test_jest_in_a_workspace_package_runs_from_its_folder_and_a_helper_caller_runs_the_whole_file(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Any]) -> None:
    repo = _break(make_repo, {
        "package.json": '{"private": true, "workspaces": ["packages/*"]}\n',
        "packages/app/package.json": '{"name": "app", "scripts": {"lint": "eslint .", "test": "jest --ci"}}\n',
        "packages/app/__tests__/cart.js": """
            const { parseAmount } = require("../../../src/money");
            import { parseAmount as p } from "../../../src/money";
            function helper() { return p("1", "EUR"); }
            test("helper", () => { helper(); });
        """,
    })
    text = graphguard(repo, "check", "--staged")
    assert text.code == 1
    assert ('tests to run ("test" script in packages/app/package.json): cd packages/app && npx jest __tests__/cart.js\n'
            in text.out), text.out


def test_a_repository_with_python_and_typescript_tests_gets_both_commands(make_repo: Callable[..., GitRepo],
                                                                          graphguard: Callable[..., Any]) -> None:
    repo = make_repo({"src/money.ts": MONEY, "test/money.spec.ts": SPEC, "package.json": '{"scripts": {"test": "vitest"}}\n',
                      "pytest.ini": "[pytest]\n", "pkg/__init__.py": "", "pkg/m.py": "def f(a):\n    return a\n",
                      "tests/test_m.py": "from pkg.m import f\n\ndef test_f():\n    assert f(1) == 1\n"})
    repo.write({"src/money.ts": BROKEN, "pkg/m.py": "def f(a, b):\n    return a\n"})
    repo.git("add", "-A")
    text = graphguard(repo, "check", "--staged")
    assert text.code == 1
    assert "python -m pytest tests/test_m.py && npx vitest run test/money.spec.ts -t " in text.out, text.out


@pytest.mark.parametrize(("scripts", "kind", "command"), [
    ('{"test": "mocha \'test/**/*.spec.js\'"}', RunnerKind.MOCHA, "npx mocha test/a.spec.js"),
    ('{"test": "node --test --experimental-strip-types"}', RunnerKind.NODE, "node --test test/a.spec.js"),
    ('{"build": "tsc", "unit": "vitest run"}', RunnerKind.VITEST, "npx vitest run test/a.spec.js"),
    ('{"test": "echo no tests"}', None, None),
    ('not json', None, None),
])
def test_the_runner_a_package_json_names(scripts: str, kind: RunnerKind | None, command: str | None) -> None:
    files = {"package.json": b'{"scripts": ' + scripts.encode() + b"}" if scripts != "not json" else b"not json"}
    runner = detect(files, ["test/a.spec.js"])
    assert (runner.kind if runner else None) is kind
    assert (runner.command(["test/a.spec.js"]) if runner else None) == command


def test_names_are_regular_expressions_quoted_for_the_shell() -> None:
    runner = TestRunner(RunnerKind.JEST, "package.json", names=("adds (1+1)", "it's"))
    assert runner.command(["a.test.ts"]) == "npx jest a.test.ts -t '" + "adds \\(1\\+1\\)|it" + "'\"'\"'" + "s'"
