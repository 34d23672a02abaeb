"""Tests to run: a command only when the repository shows its runner, read from git (not the working tree)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from graphguard.report import markdown, runner
from graphguard.report.runner import RunnerKind, TestRunner
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]
PYTEST, DJANGO, UNITTEST = RunnerKind.PYTEST, RunnerKind.DJANGO, RunnerKind.UNITTEST
TESTS = ["tests/test_a.py"]
PLAIN = {"tests/test_a.py": b"def test_a():\n    assert 1\n"}


@pytest.mark.parametrize(
    ("files", "tests", "expected"),
    [
        pytest.param({}, TESTS, None, id="nothing-shows-a-runner"),
        pytest.param(PLAIN, TESTS, None, id="bare-asserts-show-no-runner"),
        pytest.param({"pytest.ini": b""}, TESTS, (PYTEST, "pytest.ini"), id="pytest-ini-even-empty"),
        pytest.param({"pyproject.toml": b"[project]\nname='x'\n\n[tool.pytest.ini_options]\naddopts='-q'\n"}, TESTS,
                     (PYTEST, "[tool.pytest.ini_options] in pyproject.toml"), id="pyproject-ini-options"),
        pytest.param({"pyproject.toml": b"[tool.pytest]\nminversion = '9.0'\n"}, TESTS, (PYTEST, "[tool.pytest] in pyproject.toml"),
                     id="pyproject-native-toml"),
        pytest.param({"pyproject.toml": b"[tool.ruff]\nx = 1\n# [tool.pytest.ini_options]\n"}, TESTS, None,
                     id="pyproject-without-pytest"),
        pytest.param({"setup.cfg": b"[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n"}, TESTS,
                     (PYTEST, "[tool:pytest] in setup.cfg"), id="setup-cfg"),
        pytest.param({"setup.cfg": b"[flake8]\nmax-line-length = 100\n"}, TESTS, None, id="setup-cfg-without-pytest"),
        pytest.param({"tox.ini": b"[tox]\nenvlist = py3\n\n[pytest]\naddopts = -q\n"}, TESTS, (PYTEST, "[pytest] in tox.ini"), id="tox-ini"),
        pytest.param({"tox.ini": b"[tox]\nenvlist = py3\n[testenv]\ncommands = pytest\n"}, TESTS, None, id="tox-ini-without-section"),
        pytest.param({"conftest.py": b""}, TESTS, (PYTEST, "conftest.py"), id="root-conftest"),
        pytest.param({"tests/conftest.py": b""}, TESTS, (PYTEST, "tests/conftest.py"), id="conftest-above-a-test"),
        pytest.param({"other/conftest.py": b""}, TESTS, None, id="conftest-elsewhere"),
        pytest.param({"tests/test_a.py": b"import pytest\n\n\n@pytest.fixture\ndef x(): ...\n"}, TESTS,
                     (PYTEST, "tests that import pytest"), id="a-test-imports-pytest"),
        pytest.param({"manage.py": b"import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 's')\nfrom django.core.management import x\n",
                      **PLAIN}, TESTS, (DJANGO, "manage.py"), id="django-manage-py"),
        pytest.param({"manage.py": b"from flask_script import Manager\n", **PLAIN}, TESTS, None, id="a-manage-py-that-is-not-django"),
        pytest.param({"tests/test_a.py": b"import unittest\n\n\nclass T(unittest.TestCase):\n    pass\n"}, TESTS,
                     (UNITTEST, "tests that import unittest"), id="unittest-style"),
        pytest.param({"tests/test_a.py": b"import unittest\n", "tests/test_b.py": b"def test_b(): pass\n"},
                     ["tests/test_a.py", "tests/test_b.py"], None, id="unittest-in-some-tests-only"),
        pytest.param({"tests/test_a.py": b"import unittest\n"}, ["tests/test_a.py", "tests/test_new.py"], None,
                     id="unittest-but-a-test-unread"),
        pytest.param({"pytest.ini": b"", "manage.py": b"import django\n"}, TESTS, (PYTEST, "pytest.ini"), id="pytest-django"),
    ],
)
def test_detect(files: dict[str, bytes], tests: list[str], expected: tuple[RunnerKind, str] | None) -> None:
    found = runner.detect(files, tests)
    assert (None if found is None else (found.kind, found.evidence)) == expected


def test_candidates_are_the_root_files_and_the_folders_above_each_test() -> None:
    assert runner.candidates(["a/b/test_x.py"]) == [
        "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini",
        "a/b/conftest.py", "a/b/manage.py", "a/conftest.py", "a/manage.py", "conftest.py", "manage.py",
    ]


def test_commands() -> None:
    paths = ["tests/test_b.py", "tests/test a.py", "tests/test_b.py"]
    assert TestRunner(PYTEST, "pytest.ini").command(paths) == "python -m pytest 'tests/test a.py' tests/test_b.py"
    assert TestRunner(UNITTEST, "tests").command(["tests/test_b.py"]) == "python -m unittest tests/test_b.py"



def test_many_test_files_are_named_by_their_folders_else_the_whole_suite() -> None:
    n = runner.MAX_IN_COMMAND + 1
    many = [f"pkg{i % 3}/tests/test_{i:02}.py" for i in range(n)] + ["pkg0/tests/deeper/test_x.py"]
    pytest_ini, unittest = TestRunner(PYTEST, "pytest.ini"), TestRunner(UNITTEST, "tests")
    assert pytest_ini.command(many) == "python -m pytest pkg0/tests pkg1/tests pkg2/tests"  # deeper/ is inside pkg0/tests
    assert pytest_ini.scope(many) == f"{n + 1} test files in 3 folders"
    assert unittest.command(many) == "python -m unittest discover"  # unittest discovers from one folder
    assert unittest.scope(many) == f"{n + 1} test files: the whole suite"
    at_root = many + ["test_top.py"]
    assert pytest_ini.command(at_root) == "python -m pytest" and pytest_ini.scope(at_root) == f"{n + 2} test files: the whole suite"
    scattered = [f"p{i:02}/test_a.py" for i in range(n)]
    assert pytest_ini.command(scattered) == "python -m pytest"
    django = TestRunner(DJANGO, "site/manage.py", "site")
    assert django.command([f"site/{p}" for p in many]) == "cd site && python manage.py test pkg0.tests pkg1.tests pkg2.tests"
    assert pytest_ini.scope(["tests/test_a.py"]) == ""


def test_django_labels_are_dotted_modules_under_manage_py() -> None:
    netbox = TestRunner(DJANGO, "netbox/manage.py", "netbox")
    paths = ["netbox/circuits/tests/test_api.py", "netbox/ipam/tests/test-odd.py", "scripts/tests/test_x.py"]
    assert netbox.command(paths) == "cd netbox && python manage.py test circuits.tests.test_api"
    assert netbox.command(["scripts/tests/test_x.py"]) is None  # not under manage.py: no label
    assert TestRunner(DJANGO, "manage.py").command(["app/tests.py"]) == "python manage.py test app.tests"


def test_django_runner_found_above_the_tests() -> None:
    files = {"netbox/manage.py": b"#!/usr/bin/env python\nfrom django.core.management import execute_from_command_line\n"}
    found = runner.detect(files, ["netbox/circuits/tests/test_api.py"])
    assert found == TestRunner(DJANGO, "netbox/manage.py", "netbox")


# --- read from git -----------------------------------------------------------------------------

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a):\n    return a\n",
    "tests/test_mod.py": "from pkg.mod import f\n\n\ndef test_f():\n    assert f(1) == 1\n",
}


def _break(repo: GitRepo) -> None:
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    repo.git("add", "pkg/mod.py")


def _command_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("tests to run")]


def test_no_command_without_a_runner(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PROJECT)
    _break(repo)
    r = graphguard(repo, "check", "--staged")
    assert r.code == 1
    assert "tests that use it: tests/test_mod.py" in r.out  # the files, no command
    assert _command_lines(r.out) == [] and "pytest" not in r.out
    md = graphguard(repo, "check", "--staged", "--format", "markdown")
    assert "- `tests/test_mod.py`" in md.out and "pytest" not in md.out


def test_the_runner_is_read_from_the_commit_not_the_working_tree(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PROJECT)
    repo.write({"pytest.ini": "[pytest]\n", "tests/conftest.py": ""})  # untracked: not the repository's yet
    _break(repo)
    r = graphguard(repo, "check", "--staged")
    assert _command_lines(r.out) == []
    repo.git("add", "tests/conftest.py")
    repo.git("commit", "-qm", "conftest", "--no-verify", "--", "tests/conftest.py")
    r = graphguard(repo, "check", "--staged")
    assert _command_lines(r.out) == ["tests to run (tests/conftest.py): python -m pytest tests/test_mod.py"]
    md = graphguard(repo, "check", "--staged", "--format", "markdown")
    assert "With pytest (tests/conftest.py):\n\n```sh\npython -m pytest tests/test_mod.py\n```" in md.out


def test_the_runner_of_the_checked_commit(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """`--base/--head`: the head commit's files say (a commit that adds a tox.ini [pytest] shows it)."""
    repo = make_repo(PROJECT)
    base = repo.head
    repo.write({"tox.ini": "[tox]\n\n[pytest]\naddopts = -q\n"})
    _break(repo)
    repo.git("add", "tox.ini")
    repo.git("commit", "-qm", "break", "--no-verify")
    repo.git("rm", "-q", "tox.ini")
    repo.git("commit", "-qm", "drop tox.ini", "--no-verify")
    r = graphguard(repo, "check", "--base", base, "--head", "HEAD~1")
    assert _command_lines(r.out) == ["tests to run ([pytest] in tox.ini): python -m pytest tests/test_mod.py"]
    r = graphguard(repo, "check", "--base", base)
    assert _command_lines(r.out) == []


def test_django_project_gets_manage_py_test(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({
        "site/manage.py": "import sys\nfrom django.core.management import execute_from_command_line\n",
        "site/shop/__init__.py": "",
        "site/shop/pricing.py": "def total(items):\n    return sum(items)\n",
        "site/shop/tests/__init__.py": "",
        "site/shop/tests/test_pricing.py": "from django.test import TestCase\n\nfrom shop.pricing import total\n\n\n"
                                           "class T(TestCase):\n    def test_total(self):\n        total([1])\n",
    })
    repo.write({"site/shop/pricing.py": "def total(items, rate):\n    return sum(items)\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged")
    assert _command_lines(r.out) == ["tests to run (site/manage.py): cd site && python manage.py test shop.tests.test_pricing"], r.out


@pytest.mark.parametrize("n", [runner.MAX_IN_COMMAND, runner.MAX_IN_COMMAND + 1])
def test_markdown_and_text_say_how_much_the_command_runs(n: int) -> None:
    from graphguard.report import text
    from graphguard.result import TestHit as Hit  # not collected by pytest
    from tests.test_report_formats import caller, change, result

    res = result(change(callers=(caller("pkg/a.py", 1, "pkg.a.g"),), tests=tuple(Hit(f"tests/test_{i:02}.py", 1, False) for i in range(n))))
    pytest_ini = TestRunner(PYTEST, "pytest.ini")
    md, txt = markdown.render(res, runner=pytest_ini), text.render(res, runner=pytest_ini, colour=False)
    if n <= runner.MAX_IN_COMMAND:
        assert "python -m pytest " + " ".join(runner.test_paths(res)) in md
        assert "tests to run (pytest.ini): python -m pytest tests/test_00.py" in txt
    else:
        assert f"With pytest (pytest.ini; {n} test files in 1 folder):\n\n```sh\npython -m pytest tests\n```" in md
        assert f"tests to run (pytest.ini, {n} test files in 1 folder): python -m pytest tests\n" in txt


def test_evidence_with_a_line_break_stays_on_one_line() -> None:
    from graphguard.report import RENDERERS
    from graphguard.result import TestHit as Hit  # not collected by pytest
    from tests.test_report_formats import change, result

    res = result(change(tests=(Hit("a\nb/test_x.py", 1, True),)))
    out = RENDERERS["text"](res, runner=TestRunner(PYTEST, "a\nb/conftest.py"))
    (line,) = [line for line in out.splitlines() if line.startswith("tests to run")]
    assert line.startswith("tests to run (a\\nb/conftest.py): python -m pytest ")
