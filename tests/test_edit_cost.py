"""The cost of a check follows what the change changes: a moved file carries its calls over, and an edit
of a big file does no work for the lines it did not touch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graphguard import git
from graphguard.check import calls
from tests.helpers import GitRepo, Result

HELPERS = "def make(a, b=None):\n    return a\n\n\ndef check(x, *, strict=False):\n    return x\n"


def a_test_file(i: int) -> str:
    return "from tests.helpers import check, make\n\n\n" + "".join(
        f"def test_{i}_{j}():\n    check(make({j}), strict=True)\n    make({j}, b={i})\n\n\n" for j in range(5))


def folder_of_tests(n: int) -> dict[str, str]:
    files = {"tests/__init__.py": "", "tests/helpers.py": HELPERS, "tests/old/__init__.py": ""}
    files.update({f"tests/old/test_{i}.py": a_test_file(i) for i in range(n)})
    return files


@pytest.fixture
def bound(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """(path, line) of every call the new-calls stage binds to a signature: the work it does."""
    done: list[tuple[str, int]] = []
    real = calls._bind

    def counting(overlay: Any, target: str, sig: Any, call: calls.NewCall) -> Any:
        done.append((call.path, call.site.line))
        return real(overlay, target, sig, call)

    monkeypatch.setattr(calls, "_bind", counting)
    yield done


def check_staged(graphguard: Callable[..., Result], repo: GitRepo) -> tuple[int, dict[str, Any]]:
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code in (0, 1), f"exit {r.code}: {r.err}"
    return r.code, r.json


def new_calls(data: dict[str, Any]) -> dict[str, list[tuple[str, int, str]]]:
    return {ch["symbol"]: [(c["path"], c["line"], c["status"]) for c in ch["callers"]]
            for ch in data["changes"] if ch["change"] == "new-calls"}


def test_git_pairs_a_staged_move(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo(folder_of_tests(2))
    repo.git("mv", "tests/old", "tests/moved")
    moved = {f"tests/moved/{n}": f"tests/old/{n}" for n in ("__init__.py", "test_0.py", "test_1.py")}
    assert git.renames(str(repo.root), repo.head, git.INDEX) == moved
    repo.git("commit", "-q", "--no-verify", "-m", "move")
    assert git.renames(str(repo.root), f"{repo.head}~1", repo.head) == moved


def test_a_moved_folder_binds_none_of_its_calls(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                bound: list[tuple[str, int]]) -> None:
    repo = make_repo(folder_of_tests(50))
    graphguard(repo, "index")
    repo.git("mv", "tests/old", "tests/moved")
    code, data = check_staged(graphguard, repo)
    assert code == 0 and data["verdict"] == "pass"
    assert new_calls(data) == {}
    assert bound == []  # 500 calls carried over: none is a new call


def test_a_move_that_breaks_one_call_blocks_on_that_call(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                         bound: list[tuple[str, int]]) -> None:
    repo = make_repo(folder_of_tests(50))
    graphguard(repo, "index")
    repo.git("mv", "tests/old", "tests/moved")
    text = a_test_file(7).replace("make(3, b=7)", "make(3, c=7)")
    repo.write({"tests/moved/test_7.py": text})
    repo.git("add", "-A")
    code, data = check_staged(graphguard, repo)
    assert code == 1
    assert new_calls(data) == {"tests.helpers.make": [("tests/moved/test_7.py", 21, "broken")]}
    assert bound == [("tests/moved/test_7.py", 21)]


def test_a_moved_relative_import_that_now_reaches_another_signature_blocks(make_repo: Callable[..., GitRepo],
                                                                           graphguard: Callable[..., Result]) -> None:
    repo = make_repo({
        "pkg/__init__.py": "", "pkg/a/__init__.py": "", "pkg/b/__init__.py": "",
        "pkg/a/helpers.py": "def h(x):\n    return x\n",
        "pkg/b/helpers.py": "def h(x, y):\n    return x + y\n",
        "pkg/a/use.py": "from .helpers import h\n\n\ndef run():\n    return h(1)\n",
    })
    graphguard(repo, "index")
    repo.git("mv", "pkg/a/use.py", "pkg/b/use.py")
    code, data = check_staged(graphguard, repo)
    assert code == 1
    assert new_calls(data) == {"pkg.b.helpers.h": [("pkg/b/use.py", 5, "broken")]}


# --- a comment edit of a big file ------------------------------------------------------------------

CALLS = 2000
BIG = {
    "pkg/__init__.py": "",
    "pkg/lib.py": "def f(a, b):\n    return a + b\n",
    "pkg/big.py": ('# a comment\nfrom pkg.lib import f\n\n\ndef main():\n    """Calls.\n    # not a comment: text\n    """\n'
                   + "    f(1, 2)\n" * CALLS + "\n\ndef other():\n    return f(3, 4)\n"),
}


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What the check parsed: "tree-sitter" for each new version's facts, "python" for each syntax check."""
    from graphguard.check import interface
    from graphguard.index import facts

    done: list[str] = []
    real_parse, real_readability = facts.parse_blob, interface._readability

    def parse_blob(data: bytes) -> str:
        done.append("tree-sitter")
        return real_parse(data)

    def readability(data: bytes) -> Any:
        done.append("python")
        return real_readability(data)

    monkeypatch.setattr(facts, "parse_blob", parse_blob)
    monkeypatch.setattr(interface, "_readability", readability)
    yield done


def edited(lines: list[str], at: int, new: list[str], drop: int = 0) -> str:
    return "\n".join(lines[:at] + new + lines[at + drop:])


def test_a_comment_edit_of_a_big_file_parses_nothing(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                     parsed: list[str]) -> None:
    repo = make_repo(BIG)
    graphguard(repo, "index")
    lines = BIG["pkg/big.py"].split("\n")
    repo.write({"pkg/big.py": edited(lines, 1000, ["    # a note", "", "    # another"])})
    repo.git("add", "-A")
    parsed.clear()
    code, data = check_staged(graphguard, repo)
    assert code == 0 and data["changes"] == []
    assert parsed == []  # neither tree-sitter nor Python's parser read the 2,000 calls again


def test_the_facts_of_a_comment_edit_are_those_a_parse_finds(make_repo: Callable[..., GitRepo],
                                                             graphguard: Callable[..., Result]) -> None:
    from tests.graphdump import dump

    repo = make_repo(BIG)
    graphguard(repo, "index")
    lines = BIG["pkg/big.py"].split("\n")
    repo.write({"pkg/big.py": edited(lines, 0, ["#!/usr/bin/env python", "# a comment, longer"], drop=1)})
    repo.git("add", "-A")
    assert check_staged(graphguard, repo)[0] == 0
    repo.git("commit", "-q", "--no-verify", "-m", "comments")
    graphguard(repo, "index")  # the facts the check cached
    incremental = dump(repo.graph_path)
    import shutil

    shutil.rmtree(repo.root / ".git" / "graphguard")
    graphguard(repo, "index")  # parsed afresh
    assert dump(repo.graph_path) == incremental


def test_a_comment_edit_with_a_new_call_is_checked_as_any_edit(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                               parsed: list[str]) -> None:
    repo = make_repo(BIG)
    graphguard(repo, "index")
    lines = BIG["pkg/big.py"].split("\n")
    repo.write({"pkg/big.py": edited(lines, 0, ["# a new comment"], drop=1) + "\n\ndef broken():\n    return f(1)\n"})
    repo.git("add", "-A")
    parsed.clear()
    code, data = check_staged(graphguard, repo)
    assert code == 1
    assert new_calls(data) == {"pkg.lib.f": [("pkg/big.py", len(lines) + 3, "broken")]}
    assert parsed == ["tree-sitter", "python"]


@pytest.mark.slow
def test_an_edit_of_a_comment_like_line_in_a_string_is_read_again(make_repo: Callable[..., GitRepo],
                                                                 graphguard: Callable[..., Result], parsed: list[str]) -> None:
    repo = make_repo(BIG)
    graphguard(repo, "index")
    repo.write({"pkg/big.py": BIG["pkg/big.py"].replace("# not a comment: text", "# still text, edited")})
    repo.git("add", "-A")
    parsed.clear()
    assert check_staged(graphguard, repo)[0] == 0
    assert parsed == ["tree-sitter", "python"]


SAMPLE = '''# -*- coding: utf-8 -*-
"""Module doc.
# not a comment
"""
import os
from pkg.lib import f  # trailing


def g(a, b=""" x
# in a default
"""):
    # leading comment
    f(1, 2)
    if a:
        f(3)
        # trailing in if
    else:
        f(4, b=2)
    # after if

    return f(
        # inside a call
        5,
    )
    # trailing comment of g


class C:
    # in class
    x: int = 1

    def m(self):
        s = """
# in a string
"""
        return f(s)
# end
'''


def sample_edits() -> Iterator[tuple[int, int, str]]:
    """(line index, lines replaced, replacement) for every place of SAMPLE."""
    for i in range(len(SAMPLE.split("\n"))):
        for drop in (0, 1, 2):
            for new in ("# new comment", "", "    # indented", "        # deeper", "#", "# été", "# a '''quote"):
                yield i, drop, new


def test_the_facts_moved_for_a_comment_edit_are_a_fresh_parse_s() -> None:
    from graphguard.languages.python import comments
    from graphguard.languages.python import parse as python
    from graphguard.model import FileFacts, moved_lines

    old = SAMPLE.encode()
    old_json = python.parse(old).to_json()
    lines, reused = SAMPLE.split("\n"), 0
    for i, drop, line in sample_edits():
        new = edited(lines, i, [line] * max(1, drop), drop).encode()
        edit = comments.comment_edit(old, new)
        moved = moved_lines(old_json, *edit) if edit is not None else None
        if moved is not None:
            reused += 1
            assert FileFacts.from_json(moved) == python.parse(new), (i, drop, line)
    assert reused >= 30  # the edits between statements, not those next to a block's end or in a string


@pytest.mark.parametrize(("old", "new"), [
    ("x = 1\n# a\n", "x = 1\n# b\n"),
    ("x = 1\n", "# new\nx = 1\n"),
    ("def f():\n    # a\n    return 1\n", "def f():\n    # b\n\n    return 1\n"),
])
def test_comment_lines_alone_are_a_comment_edit(old: str, new: str) -> None:
    from graphguard.languages.python import comments

    assert comments.comment_edit(old.encode(), new.encode()) is not None


@pytest.mark.parametrize(("old", "new"), [
    ("x = 1\n# a\n", "x = 2\n# b\n"),  # code changed too
    ('s = """\n# a\n"""\n', 's = """\n# b\n"""\n'),  # text in a string
    ("x = 1\n", "# coding: latin-1\nx = 1\n"),  # how the file is read
    ("x = (1 + \\\n# a\n2)\n", "x = (1 + \\\n# b\n2)\n"),  # a backslash before
    ("x = 1\n# a\n", 'x = 1\n# """\n'),  # a triple quote
    ("x = 1\n# a", "x = 1\n# b"),  # no line break at the end
])
def test_other_edits_are_not(old: str, new: str) -> None:
    from graphguard.languages.python import comments

    assert comments.comment_edit(old.encode(), new.encode()) is None


def test_calls_between_moved_files_are_carried_over(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                    bound: list[tuple[str, int]]) -> None:
    files = {"pkg/__init__.py": "", "pkg/old/__init__.py": "",
             "pkg/old/util.py": "def h(x, y=0):\n    return x\n\n\ndef h2(x):\n    return x\n"}
    files.update({f"pkg/old/use_{i}.py": f"from .util import h, h2\n\n\ndef run():\n    return h({i}, y=1) + h2({i})\n" for i in range(5)})
    repo = make_repo(files)
    graphguard(repo, "index")
    repo.git("mv", "pkg/old", "pkg/new")
    for flags in (("--staged",), ("--worktree",)):
        r = graphguard(repo, "check", *flags, "--format", "json")
        assert r.code == 0, r.out
        assert new_calls(r.json) == {}
    assert bound == []


@pytest.mark.slow
def test_callers_in_a_comment_edited_file_are_found_at_their_new_lines(make_repo: Callable[..., GitRepo],
                                                                       graphguard: Callable[..., Result]) -> None:
    repo = make_repo(BIG)
    graphguard(repo, "index")
    lines = BIG["pkg/big.py"].split("\n")
    repo.write({"pkg/big.py": edited(lines, 4, ["# two lines", "# of comment"]),
                "pkg/lib.py": "def f(a, b, c):\n    return a + b + c\n"})
    repo.git("add", "-A")
    code, data = check_staged(graphguard, repo)
    assert code == 1
    [change] = [ch for ch in data["changes"] if ch["symbol"] == "pkg.lib.f"]
    broken = [(c["path"], c["line"]) for c in change["callers"] if c["status"] == "broken"]
    assert broken == [("pkg/big.py", line) for line in range(11, 11 + CALLS)] + [("pkg/big.py", 11 + CALLS + 3)]
