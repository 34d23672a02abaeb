"""docs/contract.md stays in step with the code: every command, flag and JSON key the code has is named there,
every flag it names exists, and so does every flag that README.md and docs/ show a command with."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphguard.main import _parser, main
from tests.helpers import LIB, GitRepo, Result

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
USER_DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))


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


# --- the flag table, both ways: the parsers themselves, not their --help text ----------------------


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser of the command line: the top level (as `graphguard`) and each subcommand's, hook-impl too."""
    top = _parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return {"graphguard": top, **sub.choices}


def _flag(action: argparse.Action) -> str:
    """A flag as the table writes it: `--name`, then its choices (`a|b`) or its metavar when it takes a value."""
    name = next(s for s in action.option_strings if s.startswith("--"))
    if action.choices:
        return f"{name} {'|'.join(map(str, action.choices))}"
    return name if action.nargs == 0 else f"{name} {action.metavar or action.dest.upper()}"


def _argument(action: argparse.Action) -> str:
    shown = (action.metavar or action.dest.upper()) + ("..." if action.nargs in ("+", "*") else "")
    return f"[{shown}]" if action.nargs == "*" else shown


def _in_code(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """(arguments, flags) of one parser, --help left out."""
    actions = parser._actions
    flags = {_flag(a) for a in actions if a.option_strings and "--help" not in a.option_strings}
    return {_argument(a) for a in actions if not a.option_strings}, flags


def _cells(row: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def _spans(cell: str) -> set[str]:
    return {s.replace("\\|", "|") for s in re.findall(r"`([^`]+)`", cell)}


def _in_table() -> dict[str, tuple[set[str], set[str]]]:
    """The rows of "Every flag, by command": command -> (arguments, flags)."""
    section = CONTRACT[CONTRACT.index("### Every flag, by command"):]
    rows = re.findall(r"^\| `[^`]+` \|.*$", section[:section.index("\n\n", section.index("| command |"))], re.MULTILINE)
    table = {}
    for row in rows:
        command, arguments, flags = _cells(row)
        table[command.strip("`")] = (_spans(arguments), _spans(flags))
    return table


def test_the_flag_table_has_a_row_for_every_parser() -> None:
    assert sorted(_in_table()) == sorted(_parsers())


def test_the_flag_table_reads_choices_and_values() -> None:
    # The table's own reading must see through its escaped pipes, or the two comparisons below prove nothing.
    arguments, flags = _in_table()["check"]
    assert "--format text|json|markdown|sarif|github|codequality" in flags and "--base REF" in flags
    assert _in_table()["related"][0] == {"PATH|SYMBOL..."}


def test_every_flag_of_every_command_is_in_the_flag_table() -> None:
    table = _in_table()
    missing = [f"{name} {item}" for name, parser in _parsers().items()
               for have, documented in zip(_in_code(parser), table.get(name, (set(), set())))
               for item in sorted(have - documented)]
    assert not missing


def test_every_flag_in_the_flag_table_exists() -> None:
    parsers = _parsers()
    invented = [f"{name} {item}" for name, documented in _in_table().items()
                for have, written in zip(_in_code(parsers[name]) if name in parsers else (set(), set()), documented)
                for item in sorted(written - have)]
    assert not invented


def _invocations(text: str) -> Iterator[tuple[str, str]]:
    """(command, the rest) of every `graphguard COMMAND ...` in a code span or a fenced code line."""
    code = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    code += re.findall(r"`([^`\n]+)`", re.sub(r"^```[a-z]*\n.*?^```", "", text, flags=re.DOTALL | re.MULTILINE))
    for piece in code:
        for line in piece.splitlines():
            for m in re.finditer(r"\bgraphguard ((?:[a-z][a-z-]*)(?:\|[a-z][a-z-]*)*)(.*)", line):
                rest = re.split(r" #|&&|;|(?<!\\)\| ", m.group(2))[0]
                for command in m.group(1).split("|"):
                    yield command, rest


def test_every_command_line_the_docs_show_exists() -> None:
    """A flag a user copies from README.md or docs/ is one the command has, with a value it accepts."""
    parsers = _parsers()
    wrong, seen = [], 0
    for doc in USER_DOCS:
        for command, rest in _invocations(doc.read_text(encoding="utf-8")):
            if command not in parsers:
                continue  # prose in code ("graphguard keeps ..."), not a command line
            seen += 1
            options = {a.option_strings[-1]: a for a in parsers[command]._actions if a.option_strings}
            for flag, value in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)(?:[ =]([^\s`\]\[|]+))?", rest):
                if flag not in options:
                    wrong.append(f"{doc.name}: graphguard {command} {flag}")
                elif options[flag].choices and value and value.islower() and not value.startswith("-") \
                        and value not in map(str, options[flag].choices):
                    wrong.append(f"{doc.name}: graphguard {command} {flag} {value}")
    assert seen > 50  # the docs show many command lines: this reads them
    assert not wrong


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
