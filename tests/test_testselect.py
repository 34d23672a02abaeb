"""testselect: the tests that reach a changed definition, by name, nearest first, on real git repositories."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from graphguard.config import Config
from graphguard.result import CallerImpact, Status
from graphguard.store.reads import CodeGraph
from graphguard.testcollect import enclosing_test, is_test_module, node_id, parameter_names
from graphguard.testselect import Selection, select_tests
from tests.helpers import GitRepo, Result, source

LIB = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        def stamp(ts, tz):
            return ts


        def helper(x):
            return stamp(x, "UTC")


        class Clock:
            def now(self):
                return stamp(1, "UTC")
        """,
}


@contextmanager
def _graph(repo: GitRepo) -> Iterator[CodeGraph]:
    conn = sqlite3.connect(repo.graph_path)
    try:
        yield CodeGraph(conn)
    finally:
        conn.close()


def _select(repo: GitRepo, graphguard: Callable[..., Result], change: dict[str, str | None], *, limit: int = 60) -> tuple[dict, Selection]:
    """Stage `change`, run `check --staged --format json` and select over the callers it reports for pkg.core.stamp."""
    repo.write(change)
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    report = json.loads(r.out)
    ch = next(c for c in report["changes"] if c["symbol"] == "pkg.core.stamp")
    callers = [CallerImpact(c["path"], c["line"], c["end_line"], c["caller"], Status(c["status"]), c["reason"], c["kind"], c["resolution"])
               for c in ch["callers"]]
    with _graph(repo) as graph:
        return ch, select_tests(graph, Config(), callers, ch["symbol"], changed_path=ch["path"], limit=limit)


BREAK = {"pkg/core.py": LIB["pkg/core.py"].replace("def stamp(ts, tz):", "def stamp(ts, tz, fold):")}


def _names(sel: Selection) -> dict[str, int]:
    return {h.name or "": h.distance for h in sel.hits}


def test_through_a_fixture_in_the_test_file(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({**LIB, "tests/test_clock.py": """
        import pytest
        from pkg.core import Clock


        @pytest.fixture
        def clock():
            c = Clock()
            c.now()
            return c


        def test_uses_fixture(clock):
            assert clock


        def test_unrelated():
            assert 1
        """})
    _, sel = _select(repo, graphguard, BREAK)
    names = _names(sel)
    # stamp <- Clock.now <- the fixture clock <- the test that takes it.
    assert names == {"tests/test_clock.py::test_uses_fixture": 3}
    assert sel.omitted == 0


def test_through_a_conftest_fixture_in_a_parent_folder(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({**LIB,
                      "tests/conftest.py": """
                          import pytest
                          from pkg.core import stamp


                          @pytest.fixture
                          def stamped():
                              return stamp(1, "UTC")
                          """,
                      "tests/unit/test_a.py": """
                          class TestStamp:
                              def test_method(self, stamped):
                                  assert stamped


                          def test_plain(tmp_path):
                              assert tmp_path
                          """,
                      # Outside the conftest's folder: pytest would not give it this fixture.
                      "other/test_b.py": "def test_elsewhere(stamped):\n    assert stamped\n"})
    _, sel = _select(repo, graphguard, BREAK)
    assert _names(sel) == {"tests/unit/test_a.py::TestStamp::test_method": 2}


def test_through_helpers_nearest_first(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({**LIB, "tests/test_core.py": """
        from pkg.core import helper, stamp


        def _twice(x):
            return helper(x) + helper(x)


        def test_direct():
            assert stamp(1, "UTC")


        def test_helper():
            assert helper(2)


        def test_two_helpers():
            assert _twice(3)


        def test_nested():
            def inner():
                return stamp(4, "UTC")
            assert inner()
        """})
    ch, sel = _select(repo, graphguard, BREAK)
    # The check reports the same list: the selection is its tests stage.
    assert [(t["name"], t["distance"]) for t in ch["tests"]] == [(h.name, h.distance) for h in sel.hits]
    assert ch["tests_omitted"] == 0
    assert [(h.name, h.distance, h.direct) for h in sel.hits] == [
        ("tests/test_core.py::test_direct", 1, True),
        ("tests/test_core.py::test_nested", 1, True),
        ("tests/test_core.py::test_helper", 2, False),
        ("tests/test_core.py::test_two_helpers", 3, False),
    ]
    assert sel.hits[0].line == 8  # the test function's definition


def test_an_import_of_a_removed_name_names_the_whole_file(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({**LIB, "pkg/api.py": "from pkg.core import stamp\n",
                      "tests/test_api.py": "import pkg.api\n\n\ndef test_a():\n    assert pkg.api\n",
                      "tests/test_direct.py": "from pkg.core import stamp\n\n\ndef test_b():\n    assert stamp\n"})
    _, sel = _select(repo, graphguard, {"pkg/core.py": LIB["pkg/core.py"].replace("def stamp(ts, tz):", "def stamp_v2(ts, tz):")})
    names = _names(sel)
    # Importing the test module fails: every test in it, one entry.
    assert names["tests/test_direct.py"] == 1
    assert names["tests/test_api.py"] == 1


def test_a_long_list_is_cut_and_says_so(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    files = {f"tests/test_m{i}.py": f"from pkg.core import stamp\n\n\ndef test_{i}():\n    assert stamp({i}, 'UTC')\n" for i in range(6)}
    files["tests/test_many.py"] = "from pkg.core import stamp\n" + "".join(
        f"\n\ndef test_n{i}():\n    assert stamp({i}, 'UTC')\n" for i in range(5))
    repo = make_repo({**LIB, **files})
    _, sel = _select(repo, graphguard, BREAK, limit=10)
    names = [h.name for h in sel.hits]
    # 11 tests in 7 files: the file with the most tests became one entry, and that fits.
    assert "tests/test_many.py" in names and len(names) == 7 and sel.omitted == 0
    _, sel = _select(repo, graphguard, BREAK, limit=4)
    assert len(sel.hits) == 4
    assert sel.omitted == 3  # 7 files for 4 places: the cut is counted


@pytest.mark.parametrize(("signature", "names"), [
    ("def test_x(a, b=1, *args, c, **kw) -> None", ("a", "b", "c")),
    ("async def test_y(self, client)", ("self", "client")),
    ("def broken(", ()),
])
def test_parameter_names(signature: str, names: tuple[str, ...]) -> None:
    assert parameter_names(signature) == names


@pytest.mark.parametrize(("local", "test"), [
    ("test_a", "test_a"), ("test_a.<locals>.inner", "test_a"), ("TestX.test_b", "TestX.test_b"),
    ("TestX.test_b.<locals>.C.m", "TestX.test_b"), ("helper", None), ("TestX.helper", None),
    ("Other.test_c", "Other.test_c"),  # unittest collects a TestCase subclass whatever its name
])
def test_enclosing_test(local: str, test: str | None) -> None:
    assert enclosing_test(local) == test


def test_node_ids_and_test_modules() -> None:
    assert node_id("tests/test_x.py", "TestX.test_b") == "tests/test_x.py::TestX::test_b"
    assert node_id("tests/test_x.py", None) == "tests/test_x.py"
    assert is_test_module("a/test_x.py") and is_test_module("x_test.py") and not is_test_module("tests/conftest.py")
    assert is_test_module("shop/tests.py") and not is_test_module("shop/testing_utils.txt")


def test_through_a_visitor_and_an_override(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    """`visit_Name` runs from `visit` through getattr; `Sub.run` runs from a base class's `self.run()`."""
    repo = make_repo({**LIB,
                      "pkg/walk.py": """
                          from pkg.core import stamp


                          class Visitor:
                              def visit(self, node):
                                  return getattr(self, "visit_" + type(node).__name__)(node)


                          class Gen(Visitor):
                              def visit_int(self, node):
                                  return stamp(node, "UTC")


                          class Base:
                              def go(self):
                                  return self.run()

                              def run(self):
                                  return 0


                          class Sub(Base):
                              def run(self):
                                  return stamp(2, "UTC")
                          """,
                      "tests/test_walk.py": """
                          from pkg.walk import Gen, Sub


                          def test_visit():
                              assert Gen().visit(1)


                          def test_go():
                              assert Sub().go()


                          def test_other():
                              assert 1
                          """})
    _, sel = _select(repo, graphguard, BREAK)
    assert _names(sel) == {"tests/test_walk.py::test_visit": 2, "tests/test_walk.py::test_go": 3}


def test_a_method_nothing_calls_by_name_falls_back_to_the_files_importing_it(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({**LIB,
                      "pkg/label.py": """
                          from pkg.core import stamp


                          class Label:
                              @property
                              def text(self):
                                  return stamp(3, "UTC")
                          """,
                      "tests/test_label.py": "from pkg.label import Label\n\n\ndef test_text():\n    assert Label().text\n",
                      "tests/test_unrelated.py": "def test_nothing():\n    assert 1\n"})
    _, sel = _select(repo, graphguard, BREAK)
    # A property is read, never called: the test file that imports its module is named whole, one call farther.
    assert _names(sel) == {"tests/test_label.py": 2}


def _select_for(repo: GitRepo, graphguard: Callable[..., Result], change: dict[str, str | None], symbol: str,
                *, limit: int) -> Selection:
    """As `_select`, for the change of `symbol`."""
    repo.write(change)
    repo.git("add", "-A")
    report = json.loads(graphguard(repo, "check", "--staged", "--format", "json").out)
    ch = next(c for c in report["changes"] if c["symbol"] == symbol)
    callers = [CallerImpact(c["path"], c["line"], c["end_line"], c["caller"], Status(c["status"]), c["reason"], c["kind"], c["resolution"])
               for c in ch["callers"]]
    with _graph(repo) as graph:
        return select_tests(graph, Config(), callers, symbol, changed_path=ch["path"], limit=limit)


UTILS = {
    "pkg/_utils.py": "def lenient_issubclass(cls, base):\n    return True\n",
    "tests/test_utils.py": "from pkg import _config\nfrom pkg._utils import lenient_issubclass\n" + "".join(
        f"\n\ndef test_lenient_{i}():\n    assert lenient_issubclass(int, object) and _config\n" for i in range(3)),
}
STRICT = {"pkg/_utils.py": "def lenient_issubclass(cls, base, strict):\n    return True\n"}


def test_the_nearest_tests_are_never_cut(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    # pydantic's lenient_issubclass: run at import time (two calls away) by a module every test file
    # imports, and called directly by three tests of a file that imports that module too.
    files = {f"tests/test_a{i:02}.py": f"from pkg import _config\n\n\ndef test_{i}():\n    assert _config.IS_INT\n" for i in range(12)}
    repo = make_repo({"pkg/__init__.py": "", **UTILS, **files, "pkg/_config.py": source("""
        from pkg._utils import lenient_issubclass


        def check():
            return lenient_issubclass(int, object)


        IS_INT = check()
        """)})
    sel = _select_for(repo, graphguard, STRICT, "pkg._utils.lenient_issubclass", limit=10)
    names = _names(sel)
    assert names["tests/test_utils.py"] == 1  # its tests call it: the file is at their distance, listed first
    assert sel.hits[0].name == "tests/test_utils.py" and sel.hits[0].direct
    assert len(sel.hits) == 10 and sel.omitted == 3


def test_an_import_inside_a_function_of_a_package_init_runs_nothing_at_import(
        make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    # pydantic's `__init__.__getattr__` imports its modules when asked: importing the package runs none of them.
    files = {f"tests/test_a{i:02}.py": f"import pkg\n\n\ndef test_{i}():\n    assert pkg\n" for i in range(12)}
    repo = make_repo({**UTILS, **files,
                      "pkg/__init__.py": "def __getattr__(name):\n    from pkg import _config\n    return getattr(_config, name)\n",
                      "pkg/_config.py": "from pkg._utils import lenient_issubclass\n\nIS_INT = lenient_issubclass(int, object)\n",
                      "tests/test_config.py": "from pkg._config import IS_INT\n\n\ndef test_c():\n    assert IS_INT\n"})
    sel = _select_for(repo, graphguard, STRICT, "pkg._utils.lenient_issubclass", limit=10)
    names = _names(sel)
    # The test files importing pkg._config (test_utils.py too: it is listed whole, at its tests' distance), none of the others.
    assert names == {"tests/test_config.py": 1, "tests/test_utils.py": 1}
    assert sel.omitted == 0
