"""check.tests_to_run on an in-memory graph: the tests that reach a change's callers."""

from __future__ import annotations

from tests.stages import change, with_tests

REPO = {
    "pkg/__init__.py": "",
    "pkg/clock.py": "def stamp(when):\n    return when\n",
    "pkg/report.py": "from pkg.clock import stamp\n\ndef render():\n    return stamp(1)\n",
    "tests/test_clock.py": "from pkg.clock import stamp\n\ndef test_stamp():\n    assert stamp(1)\n",
    "tests/test_report.py": "from pkg.report import render\n\ndef test_render():\n    assert render()\n",
    "tests/test_other.py": "def test_nothing():\n    assert True\n",
    "tools/lonely.py": "def tidy(x):\n    return x\n",
    "tools/run.py": "from lonely import tidy\ntidy(1)\n",
}
NEW = {"pkg/clock.py": "def stamp(when, zone):\n    return when\n"}


def test_the_tests_calling_it_and_those_reaching_a_caller_are_selected() -> None:
    [found] = with_tests(change(REPO, NEW))
    hits = {(t.path, t.direct) for t in found.tests}
    assert ("tests/test_clock.py", True) in hits  # calls stamp itself
    assert ("tests/test_report.py", False) in hits  # through render, a caller
    assert all(t.path != "tests/test_other.py" for t in found.tests)


def test_a_change_no_test_reaches_selects_none() -> None:
    [found] = with_tests(change(REPO, {"tools/lonely.py": "def tidy(x, y):\n    return x\n"}))
    assert {c.path for c in found.callers} == {"tools/run.py"}  # the import and the call
    assert found.tests == () and found.tests_omitted == 0
