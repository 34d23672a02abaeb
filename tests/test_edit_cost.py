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
