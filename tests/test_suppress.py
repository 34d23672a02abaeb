"""Sites the code itself says not to blame: an inline ignore, a type checker's ignore, a call meant to fail.

Issue 19 §1.4, §1.8, §2: scrapy's `with pytest.raises(TypeError): f(...)` and its legacy call
`handler.download_request(request, spider)  # type: ignore[call-arg]`, pydantic's `TzInfo(ZERO, None)`
inside `pytest.raises`; each was a real merged commit that graphguard blocked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo, Result

BASE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a, b=0):\n    return a\n\n\nclass TzInfo:\n    def __init__(self, offset):\n        self.offset = offset\n",
    "tests/__init__.py": "",
    "tests/test_mod.py": "import pytest\n\nfrom pkg.mod import TzInfo, f\n\n\ndef test_f():\n    assert f(1) == 1\n",
}

Run = Callable[..., Result]


def staged(repo: GitRepo, files: dict[str, str]) -> None:
    repo.write(files)
    repo.git("add", "-A")


def callers(data: dict[str, Any]) -> list[tuple[str, int, str, str | None]]:
    """(symbol, line, status, suppressed) of every caller listed."""
    return sorted((ch["symbol"], k["line"], k["status"], k["suppressed"]) for ch in data["changes"] for k in ch["callers"])


def sites_in(data: dict[str, Any], path: str) -> list[tuple[int, str, str | None]]:
    """(line, status, suppressed) of the callers listed in one file."""
    return sorted((k["line"], k["status"], k["suppressed"]) for ch in data["changes"] for k in ch["callers"] if k["path"] == path)


def check(graphguard: Run, repo: GitRepo, *flags: str) -> tuple[int, dict[str, Any]]:
    r = graphguard(repo, "check", "--format", "json", *flags)
    assert r.code in (0, 1), r.err
    return r.code, r.json


TEST_NEW_CALLS = """\
import unittest

import pytest

from pkg.mod import TzInfo, f


def test_tz():
    with pytest.raises(TypeError):
        TzInfo(0, None)
    with pytest.raises((ValueError, TypeError), match="x") as info:
        f(
            1, 2, 3,
        )


def test_value():
    with pytest.raises(ValueError):
        f(1, 2, 3)


class T(unittest.TestCase):
    def test_bad(self):
        with self.assertRaises(Exception):
            f(1, 2, 3)
            def later():
                return f(1, 2, 4)
"""


def test_a_new_call_inside_pytest_raises_type_error_is_expected_to_fail(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BASE)
    staged(repo, {"tests/test_new.py": TEST_NEW_CALLS})
    code, data = check(graphguard, repo)
    assert code == 1
    assert callers(data) == [
        ("pkg.mod.TzInfo", 10, "ok", "expected-to-fail"),
        ("pkg.mod.f", 12, "ok", "expected-to-fail"),  # a tuple holding TypeError, over a multi-line call
        ("pkg.mod.f", 19, "broken", None),  # ValueError does not expect a call that does not bind
        ("pkg.mod.f", 25, "ok", "expected-to-fail"),  # self.assertRaises(Exception)
        ("pkg.mod.f", 27, "broken", None),  # defined inside the block, called elsewhere
    ]
    reason = next(k["reason"] for ch in data["changes"] for k in ch["callers"] if k["line"] == 10)
    assert reason == "expected to fail (inside `pytest.raises(TypeError)`): takes 1 positional argument but 2 were given"


def test_expected_failures_pass_and_are_listed_only_with_verbose(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BASE)
    staged(repo, {"tests/test_new.py": TEST_NEW_CALLS.split("\n\ndef test_value")[0] + "\n"})
    r = graphguard(repo, "check")
    assert r.code == 0, r.out
    assert "expected-to-fail" not in r.out
    assert r.out.splitlines()[-1] == ("graphguard: pass: 2 definitions called anew, all callers bind (staged changes against HEAD);"
                                      " 2 sites suppressed")
    verbose = graphguard(repo, "check", "--verbose").out
    assert "  expected-to-fail tests/test_new.py:10: tests.test_new.test_tz: expected to fail" in verbose


def test_a_changed_signature_is_not_blamed_on_calls_that_test_its_failure(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # scrapy: assertRaises(TypeError, f, ...) became `with pytest.raises(TypeError): f(...)`; both forms expect the failure.
    repo = make_repo({**BASE, "tests/test_old.py": (
        "import unittest\n\nimport pytest\n\nfrom pkg.mod import f\n\n\nclass T(unittest.TestCase):\n"
        "    def test_bad(self):\n        self.assertRaises(TypeError, f, 1, 2, 3)\n"
        "        with pytest.raises(TypeError):\n            f(1, 2)\n        f(1, 2)\n")})
    staged(repo, {"pkg/mod.py": BASE["pkg/mod.py"].replace("def f(a, b=0)", "def f(a)"),
                  "tests/test_mod.py": BASE["tests/test_mod.py"]})
    code, data = check(graphguard, repo, "--staged")
    assert code == 1
    assert [k[1:] for k in callers(data) if k[0] == "pkg.mod.f"] == [
        (3, "ok", None), (5, "ok", None), (7, "ok", None), (10, "ok", "expected-to-fail"), (12, "ok", "expected-to-fail"),
        (13, "broken", None)]


LEGACY = """\
from pkg.mod import f


def legacy(request, spider):
    return f(request, spider,  # type: ignore[call-arg]
             spider)


def also(request, spider):
    return f(request, spider, 3)  # type: ignore[attr-defined]


def other(request, spider):
    return f(request, spider, 3)  # pyright: ignore[reportCallIssue]
"""


def test_a_type_checkers_ignore_on_any_line_of_a_call_is_not_blamed(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BASE)
    staged(repo, {"pkg/legacy.py": LEGACY})
    code, data = check(graphguard, repo)
    assert code == 1
    assert callers(data) == [("pkg.mod.f", 5, "ok", "ignored"), ("pkg.mod.f", 10, "broken", None), ("pkg.mod.f", 14, "ok", "ignored")]
    r = graphguard(repo, "check")
    assert r.out.rstrip().endswith("; 2 sites suppressed"), r.out


def test_graphguard_ignore_silences_its_site_for_its_codes_only(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**BASE, "app/__init__.py": "", "app/use.py": (
        "from pkg.mod import f\n\n\ndef one():\n    return f(1, b=2)  # graphguard: ignore[param-removed]\n\n\n"
        "def two():\n    return f(1, b=2)\n\n\ndef three():\n    return f(1, b=3)  # graphguard: ignore[required-param-added]\n\n\n"
        "def four():\n    return f(  # graphguard: ignore\n        1, b=4)\n")})
    staged(repo, {"pkg/mod.py": BASE["pkg/mod.py"].replace("def f(a, b=0)", "def f(a)")})
    code, data = check(graphguard, repo)
    assert code == 1
    assert sites_in(data, "app/use.py") == [
        (1, "ok", None), (5, "ok", "ignored"), (9, "broken", None), (13, "broken", None), (17, "ok", "ignored")]


def test_graphguard_ignore_on_an_import_and_an_unknown_code(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**BASE, "app/__init__.py": "", "app/use.py": (
        "from pkg.mod import (  # graphguard: ignore[removed]\n    TzInfo,\n)\nfrom pkg.mod import TzInfo as T  # graphguard: ignore[remove]\n")})
    staged(repo, {"pkg/mod.py": BASE["pkg/mod.py"].split("\n\nclass")[0] + "\n"})
    code, data = check(graphguard, repo)
    assert code == 1
    assert sites_in(data, "app/use.py") == [(1, "ok", "ignored"), (4, "broken", None)]
    assert {"path": "app/use.py", "message": "line 4: `# graphguard: ignore[remove]` names an unknown code: 'remove'"
            " (the codes are listed in docs/contract.md)"} in data["warnings"]


def test_the_ignore_holds_in_ci_and_in_the_shadow_check(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BASE)
    base = repo.head
    repo.commit("legacy", {"pkg/legacy.py": LEGACY})
    code, data = check(graphguard, repo, "--base", base, "--head", "HEAD")
    assert (code, [k[1:] for k in callers(data)]) == (1, [(5, "ok", "ignored"), (10, "broken", None), (14, "ok", "ignored")])
    proposed = repo.path("proposed.py")
    proposed.write_text(LEGACY.replace("3)  # type: ignore[attr-defined]", "3)  # graphguard: ignore[new-calls]"))
    code, data = check(graphguard, repo, "--proposed", f"pkg/legacy.py={proposed}")
    assert code == 0, data
    assert [k[2:] for k in callers(data)] == [("ok", "ignored")] * 3



def test_a_call_whose_type_error_the_code_handles_by_name_is_not_blamed(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # The compatibility shim `try: f(x, new=1) except TypeError: f(x)`; a broad `except Exception` is no such sign.
    repo = make_repo(BASE)
    staged(repo, {"pkg/shim.py": (
        "import contextlib\n\nfrom pkg.mod import f\n\n\ndef shim(x):\n    try:\n        return f(x, 1, new=1)\n"
        "    except (TypeError, ValueError):\n        return f(x)\n\n\ndef broad(x):\n    try:\n        return f(x, 1, new=1)\n"
        "    except Exception:\n        return None\n\n\ndef quiet(x):\n    with contextlib.suppress(TypeError):\n        f(x, 1, 2)\n"
        "    with contextlib.suppress(Exception):\n        f(x, 1, 2)\n")})
    code, data = check(graphguard, repo)
    assert code == 1
    assert sites_in(data, "pkg/shim.py") == [(8, "ok", "expected-to-fail"), (10, "ok", None), (15, "broken", None),
                                             (22, "ok", "expected-to-fail"),
                                             (24, "broken", None)]


def test_scrapys_legacy_call_with_a_type_ignore_is_not_blamed_for_the_signature_change(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    handler = "class Handler:\n    def download_request(self, request, spider):\n        return request\n"
    test = ("from pkg.handler import Handler\n\n\ndef test_legacy():\n    handler = Handler()\n"
            "    assert handler.download_request(\n        1, 2)  # type: ignore[call-arg]\n"
            "    assert handler.download_request(1, 2)\n")
    repo = make_repo({"pkg/__init__.py": "", "pkg/handler.py": handler, "tests/__init__.py": "", "tests/test_h.py": test})
    staged(repo, {"pkg/handler.py": handler.replace(", spider", "")})
    code, data = check(graphguard, repo)
    assert code == 1
    assert sites_in(data, "tests/test_h.py") == [(6, "ok", "ignored"), (8, "broken", None)]
    reason = next(k["reason"] for ch in data["changes"] for k in ch["callers"] if k["line"] == 6)
    assert reason == "ignored (`# type: ignore[call-arg]`): takes 2 positional arguments but 3 were given"


def test_the_hook_lets_a_commit_through_when_its_only_break_is_silenced(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    from tests.helpers import run_git, wait_for_refresher

    repo = make_repo(BASE)
    assert graphguard(repo, "install").code == 0
    repo.write({"pkg/legacy.py": LEGACY.replace("  # type: ignore[attr-defined]", "  # graphguard: ignore[new-calls]")})
    repo.git("add", "-A")
    proc = run_git(repo, "commit", "-m", "legacy calls")
    assert proc.returncode == 0, proc.stdout
    assert "graphguard: pass" in proc.stdout and "; 3 sites suppressed" in proc.stdout
    repo.write({"pkg/more.py": "from pkg.mod import f\n\n\ndef more():\n    return f(1, 2, 3)\n"})
    repo.git("add", "-A")
    proc = run_git(repo, "commit", "-m", "an unsilenced one")
    assert proc.returncode != 0 and "pkg/more.py:5" in proc.stdout, proc.stdout
    assert wait_for_refresher(repo)


def test_a_test_marked_xfail_raising_type_error_expects_its_calls_to_fail(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BASE)
    staged(repo, {"tests/test_xfail.py": (
        "import pytest\n\nfrom pkg.mod import f\n\n\n@pytest.mark.xfail(raises=TypeError, strict=True)\ndef test_old_api():\n"
        "    f(1, 2, 3)\n\n\n@pytest.mark.xfail(reason='later')\ndef test_other():\n    f(1, 2, 3)\n")})
    code, data = check(graphguard, repo)
    assert code == 1
    assert sites_in(data, "tests/test_xfail.py") == [(8, "ok", "expected-to-fail"), (13, "broken", None)]


def test_check_explain_reads_the_same_table(tmp_path: Any, graphguard: Run) -> None:
    r = graphguard(tmp_path, "check", "--explain", "param-removed:at")  # no repository needed
    assert r.code == 0, r.err
    assert r.out.splitlines()[:3] == [
        "param-removed (signature code): a parameter was removed: calls passing it fail",
        "  reported as: `param-removed:NAME` (or `param-removed`) in a change's `breaking`",
        "  blocks: when a caller no longer binds (a `broken` caller); on its own, only when `block_on` names it"]
    assert "on its own, by default (`block_on`)" in graphguard(tmp_path, "check", "--explain", "syntax-error").out
    wrong = graphguard(tmp_path, "check", "--explain", "param-remove")
    assert wrong.code == 2 and "no code 'param-remove': the codes are removed, renamed" in wrong.err
