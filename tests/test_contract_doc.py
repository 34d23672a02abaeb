"""docs/contract.md stays in step with the code: every command, flag and JSON key the code has is named there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphguard.main import main
from tests.helpers import LIB, GitRepo, Result

CONTRACT = (Path(__file__).resolve().parent.parent / "docs" / "contract.md").read_text(encoding="utf-8")


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def _commands(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The subcommands `graphguard --help` lists (indented under COMMAND)."""
    out = _help(capsys)
    listed = re.findall(r"^ {4}([a-z][a-z-]*)(?:\s|$)", out, re.MULTILINE)
    assert "check" in listed, out
    return listed


def test_every_listed_command_is_in_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    missing = [c for c in _commands(capsys) if f"`graphguard {c}" not in CONTRACT]
    assert not missing


def test_every_flag_and_choice_is_in_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    missing = []
    for command in _commands(capsys):
        out = _help(capsys, command)
        for flag in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", out)) - {"--help"}):
            if f"`{flag}" not in CONTRACT:
                missing.append(f"{command} {flag}")
        for choices in re.findall(r"\{([^}]*)\}", out):
            missing += [f"{command} choice {c}" for c in choices.split(",") if not re.search(rf"\b{re.escape(c)}\b", CONTRACT)]
    assert not missing


def _keys(doc: Any) -> Iterator[str]:
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield k
            yield from _keys(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _keys(v)


def _undocumented(doc: Any) -> list[str]:
    """The keys of a JSON answer (at any depth) and its schema name that the contract does not name."""
    missing = {k for k in _keys(doc) if f'"{k}"' not in CONTRACT}
    if f'"{doc["schema"]}"' not in CONTRACT:
        missing.add(doc["schema"])
    return sorted(missing)


@pytest.fixture
def broken_caller(make_repo: Callable[..., GitRepo]) -> GitRepo:
    """A library, its caller and a test of it, with a staged change that breaks the caller."""
    repo = make_repo({**LIB, "tests/test_use.py": "from pkg.use import g\n\n\ndef test_g():\n    assert g() == 1\n",
                      "pkg/bad.py": "def broken(:\n"})
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n", "pkg/bad.py": "def still_broken(:\n"})
    repo.git("add", "-A")
    return repo


def test_check_json_keys_are_in_the_contract(broken_caller: GitRepo, graphguard: Callable[..., Result]) -> None:
    r = graphguard(broken_caller, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err
    doc = r.json
    change = next(c for c in doc["changes"] if c["callers"] and c["tests"])
    assert change and doc["warnings"]  # every level has keys to see
    assert _undocumented(doc) == []


@pytest.mark.parametrize("args", [("context", "f a caller g"), ("related", "pkg/mod.py"), ("callers", "pkg.mod.f"),
                                  ("stats",), ("index",)])
def test_json_answer_keys_are_in_the_contract(broken_caller: GitRepo, graphguard: Callable[..., Result],
                                              args: tuple[str, ...]) -> None:
    r = graphguard(broken_caller, *args, "--format", "json")
    assert r.code == 0, r.err
    doc = r.json
    if "results" in doc:
        assert doc["results"], r.out
    assert _undocumented(doc) == []


def test_every_code_is_in_the_contracts_table() -> None:
    # block_on and `# graphguard: ignore[CODE]` read graphguard.codes.TABLE: a user looks the codes up here.
    from graphguard.codes import TABLE

    missing = [c.name for c in TABLE if f"| `{c.name}` | {c.kind.value} | {c.explanation} |" not in CONTRACT]
    assert not missing
