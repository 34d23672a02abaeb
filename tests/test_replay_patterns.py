"""False blocks found by replaying real merged history (bench/replay_history.py, issue 19 "Done when").

Each test is the smallest before/after that shows one pattern graphguard blocked in a correct,
merged commit of a real project, checked as CI checks it (`check --base C~1 --head C`). They are
xfail(strict=True) until the mechanism named in the reason is fixed: then they pass, xfail turns
strict into a failure, and the marker goes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo, Result

Run = Callable[..., Result]


def check_commit(graphguard: Run, repo: GitRepo, files: dict[str, str | None]) -> dict[str, Any]:
    """Commit `files` on top of HEAD and check that commit as CI does."""
    head = repo.commit("change", files)
    r = graphguard(repo, "check", "--base", f"{head}~1", "--head", head, "--format", "json")
    assert r.code in (0, 1), r.err
    data: dict[str, Any] = r.json
    return data


def broken(data: dict[str, Any]) -> list[str]:
    return sorted(f"{k['path']}:{k['line']} {k['reason']}" for ch in data["changes"] for k in ch["callers"]
                  if k["status"] == "broken")


CONFTEST = "class Err:\n    def __init__(self, message, errors=None):\n        self.message = message\n"


@pytest.mark.xfail(strict=True, reason="check/interface.py keys a definition by its qualified name alone: when two "
                   "files are the same module (`tests.conftest` under two roots) and one moves away, the name the "
                   "other still defines is reported moved and its users broken")
def test_a_name_two_files_define_is_not_moved_when_one_of_them_moves(make_repo: Callable[..., GitRepo],
                                                                      graphguard: Run) -> None:
    # pydantic de3175c15 "Migrate pydantic-core tests to main tests directory": pydantic-core/tests/conftest.py
    # (module `tests.conftest`, like tests/conftest.py) moved to tests/pydantic_core/conftest.py
    repo = make_repo({
        "tests/__init__.py": "",
        "tests/conftest.py": CONFTEST,
        "tests/test_a.py": "from .conftest import Err\n\n\ndef test_a():\n    assert Err('x').message\n",
        "core/tests/__init__.py": "",
        "core/tests/conftest.py": CONFTEST,
        "core/tests/test_b.py": "from .conftest import Err\n\n\ndef test_b():\n    assert Err('y').message\n",
    })
    data = check_commit(graphguard, repo, {
        "core/tests/__init__.py": None, "core/tests/conftest.py": None, "core/tests/test_b.py": None,
        "tests/core/__init__.py": "", "tests/core/conftest.py": CONFTEST,
        "tests/core/test_b.py": "from .conftest import Err\n\n\ndef test_b():\n    assert Err('y').message\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"
