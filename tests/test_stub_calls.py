"""A stub (`.pyi`) is what the code claims to accept, and may be stale (issue 19 §1.7).

pydantic's tests call `Url(url, preserve_empty_path=True)`: pydantic-core's compiled `Url` accepts it,
its `_pydantic_core.pyi` did not say so yet. A real merged commit, which graphguard blocked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo, Result

Run = Callable[..., Result]

BASE = {
    "pkg/__init__.py": "from pkg._core import Url\n",
    "pkg/_core.pyi": "class Url:\n    def __init__(self, url: str) -> None: ...\n",
    "tests/__init__.py": "",
    "tests/test_url.py": "from pkg import Url\n\n\ndef test_a():\n    assert Url('x')\n",
}


def new_calls(graphguard: Run, repo: GitRepo, added: str) -> tuple[int, list[tuple[int, str, str]]]:
    repo.write({"tests/test_url.py": BASE["tests/test_url.py"] + added})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--format", "json")
    assert r.code in (0, 1), r.err
    data: dict[str, Any] = r.json
    return r.code, [(k["line"], k["status"], k["reason"]) for ch in data["changes"] for k in ch["callers"]]


def test_a_call_only_a_stub_rejects_is_unknown(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BASE)
    code, calls = new_calls(graphguard, repo, "\n\ndef test_b():\n    assert Url('x', preserve_empty_path=True)\n")
    assert code == 0
    assert calls == [(9, "unknown", "the stub pkg/_core.pyi rejects it (unexpected keyword argument 'preserve_empty_path');"
                                    " its implementation is not Python source here and may accept it")]


def test_a_call_the_python_implementation_rejects_still_breaks(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**BASE, "pkg/_core.py": "class Url:\n    def __init__(self, url):\n        self.url = url\n"})
    code, calls = new_calls(graphguard, repo, "\n\ndef test_b():\n    assert Url('x', preserve_empty_path=True)\n")
    assert code == 1
    assert calls == [(9, "broken", "unexpected keyword argument 'preserve_empty_path'")]


def test_a_call_the_stub_rejects_inside_pytest_raises_is_expected_to_fail(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # pydantic-core's test_tzinfo: `with pytest.raises(TypeError): TzInfo(ZERO, None)`.
    repo = make_repo({**BASE, "pkg/_core.pyi": "class TzInfo:\n    def __init__(self, seconds: float = 0.0) -> None: ...\n",
                      "pkg/__init__.py": "from pkg._core import TzInfo\n",
                      "tests/test_url.py": "from pkg import TzInfo\n\n\ndef test_a():\n    assert TzInfo(0)\n"})
    repo.write({"tests/test_url.py": "import pytest\n\nfrom pkg import TzInfo\n\n\ndef test_b():\n"
                                     "    with pytest.raises(TypeError):\n        TzInfo(0, None)\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 0, r.out
    assert [(k["line"], k["status"], k["suppressed"]) for ch in r.json["changes"] for k in ch["callers"]] == [(8, "ok", "expected-to-fail")]
