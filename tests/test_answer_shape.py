"""The answers an agent gets from the MCP tools (graphguard.answers.shape): a summary first, what to act on listed,
the rest counted; `verbose: true` the whole document; compact forms that expand exactly. A real MCP client session
against a real git repository with a function that many files call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from graphguard.report.compact import compact, expand
from tests.helpers import GitRepo, init_repo
from tests.test_mcp import Client, connect

FILES_CALLING = 12
CALLS_PER_FILE = 4
CALLS = FILES_CALLING * CALLS_PER_FILE + 1  # and tests/test_display.py calls it directly
USES = CALLS + FILES_CALLING + 1  # each of those files imports it too
TESTS = FILES_CALLING + 1

WARN = '''
    """Warnings."""


    def warn(msg, level=0):
        """Say something."""
        return (msg, level)
    '''


def _files() -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/display.py": WARN}
    for i in range(FILES_CALLING):
        body = "".join(f"\n\ndef use{j}():\n    return warn('m{j}', {j})\n" for j in range(CALLS_PER_FILE))
        files[f"pkg/user{i:02}.py"] = "from pkg.display import warn\n" + body
        files[f"tests/test_user{i:02}.py"] = f"from pkg.user{i:02} import use0\n\n\ndef test_use():\n    assert use0()\n"
    files["tests/test_display.py"] = "from pkg.display import warn\n\n\ndef test_warn():\n    assert warn('x')\n"
    return files


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        return init_repo(tmp_path_factory.mktemp("shape") / "repo", _files())


@pytest.fixture(scope="module")
def client(repo: GitRepo, home: Path) -> Iterator[Client]:
    yield from connect(repo, home)


def _edit(repo: GitRepo, new_def: str) -> dict[str, Any]:
    text = repo.path("pkg/display.py").read_text()
    return {"files": {"pkg/display.py": text.replace("def warn(msg, level=0):", new_def)}}


def _wire_bytes(doc: dict[str, Any]) -> int:
    """The answer as the server writes its text item: JSON without indentation."""
    return len(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode())


def _steady(doc: dict[str, Any]) -> dict[str, Any]:
    """Two answers to one question differ in their timing only."""
    doc.get("stats", {}).pop("elapsed_ms", None)
    return doc


def test_a_passing_check_edit_counts_the_callers_that_bind_in_a_short_answer(client: Client, repo: GitRepo) -> None:
    args = _edit(repo, "def warn(msg, level=0, *, stacklevel=1):")
    doc = client.doc("check_edit", args)
    assert list(doc)[:2] == ["summary", "schema"] and doc["verdict"] == "pass"
    [change] = doc["changes"]
    assert change["callers"] == [] and change["ok_omitted"] == USES
    # The nearest tests only: the one calling it, not the twelve through its callers.
    assert [t["path"] for t in change["tests"]] == ["tests/test_display.py"] and change["tests_omitted"] == TESTS - 1
    assert doc["summary"] == f"pass: {USES} callers bind, {TESTS} tests reach it (1 nearest listed)"
    assert _wire_bytes(doc) <= 1024, _wire_bytes(doc)
    # verbose: the CLI's document whole, with the summary first
    full = client.doc("check_edit", {**args, "verbose": True})
    [whole] = full["changes"]
    assert len(whole["callers"]) == USES and {k["status"] for k in whole["callers"]} == {"ok"}
    assert "ok_omitted" not in whole and len(whole["tests"]) == TESTS
    assert _wire_bytes(full) > 4 * _wire_bytes(doc)


def test_a_blocking_check_edit_lists_every_broken_site(client: Client, repo: GitRepo) -> None:
    doc = client.doc("check_edit", _edit(repo, "def warn(msg, level, tz):"))
    assert doc["verdict"] == "block"
    [change] = doc["changes"]
    assert len(change["callers"]) == CALLS and change["ok_omitted"] == USES - CALLS  # the imports still bind
    assert all(k["status"] == "broken" and "tz" in k["reason"] for k in change["callers"])
    assert doc["summary"].startswith(f"block: {CALLS} callers broken: pkg/user00.py:5 ")
    assert f"+{CALLS - 3} more" in doc["summary"] and "\n" not in doc["summary"]


def test_callers_and_impact_are_bounded_by_limit(client: Client) -> None:
    doc = client.doc("callers", {"symbol": "pkg.display.warn", "limit": 10})
    assert len(doc["callers"]) == 10 and doc["callers_omitted"] == USES - 10
    assert doc["summary"].startswith(f"pkg.display.warn: {USES} uses in {FILES_CALLING + 1} files ({CALLS} calls, {USES - CALLS} imports)")
    assert len(client.doc("callers", {"symbol": "pkg.display.warn", "verbose": True})["callers"]) == USES
    assert len(client.doc("callers", {"symbol": "pkg.display.warn"})["callers"]) == USES  # under the default 100
    impact = client.doc("impact", {"symbol": "pkg.display.warn", "limit": 7})
    assert len(impact["callers"]) == 7 and all(c["distance"] == 1 for c in impact["callers"])
    whole = client.doc("impact", {"symbol": "pkg.display.warn", "verbose": True})
    assert impact["callers_omitted"] == len(whole["callers"]) - 7 + whole["callers_omitted"]
    assert len(impact["tests"]) == min(10, len(whole["tests"]))
    assert "'limit' must be an integer" in client.error("impact", {"symbol": "pkg.display.warn", "limit": 0})


CASES: list[tuple[str, dict[str, Any]]] = [
    ("callers", {"symbol": "pkg.display.warn"}),
    ("impact", {"symbol": "pkg.display.warn"}),
    ("outline", {"paths": ["pkg"]}),
    ("context", {"task": "warn with a level"}),
    ("related", {"targets": ["pkg/display.py"]}),
    ("check", {}),
]


@pytest.mark.parametrize("verbose", [False, True])
def test_every_tool_answers_a_summary_and_a_compact_form_that_expands_exactly(client: Client, repo: GitRepo,
                                                                              verbose: bool) -> None:
    edit = _edit(repo, "def warn(msg, level, tz):")
    for name, args in [*CASES, ("check_edit", edit)]:
        doc = client.doc(name, {**args, "verbose": verbose})
        assert next(iter(doc)) == "summary" and doc["summary"] and "\n" not in doc["summary"], name
        assert expand(compact(doc)) == doc, name
        short = client.doc(name, {**args, "verbose": verbose, "compact": True})
        assert short["sm"] == doc["summary"]
        assert _steady(expand(short)) == _steady(doc), name


def test_compact_is_at_least_30_percent_smaller_where_entries_repeat(client: Client, repo: GitRepo) -> None:
    edit = _edit(repo, "def warn(msg, level, tz):")
    for name, args in [("callers", {"symbol": "pkg.display.warn"}), ("impact", {"symbol": "pkg.display.warn"}),
                       ("outline", {"paths": ["pkg"]}), ("check_edit", edit)]:
        doc = client.doc(name, args)
        assert _wire_bytes(compact(doc)) <= 0.7 * _wire_bytes(doc), name
