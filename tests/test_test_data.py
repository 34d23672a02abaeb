"""Folders of test data (black's formatter cases under tests/data/) are read by tests, not imported: their files never
shadow the stdlib, while a repository's own module named like a stdlib one, and imported, stays the repository's."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from graphguard.languages.python.modules import Layout, ModuleMap, is_test_data
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]

CASES = {
    "pkg/__init__.py": "",
    "pkg/util.py": "import collections\nfrom abc import ABC\n\n\ndef g():\n    return collections.OrderedDict()\n",
    # Formatter cases: never imported, named like the stdlib.
    "tests/data/cases/collections.py": "def OrderedDict(x):\n    return x\n",
    "tests/data/cases/abc.py": "class ABC:\n    pass\n",
    "tests/fixtures/abc.py": "X = 1\n",
    # A helper among the data that a test does import, by its dotted path.
    "tests/data/helpers.py": "def make(a):\n    return a\n",
    "tests/test_util.py": "from tests.data.helpers import make\n\n\ndef test_make():\n    assert make(1)\n",
}
#: A real module of a repository named like a stdlib one, imported by its neighbour script.
OWN = {
    "tools/collections.py": "def tally(items):\n    return len(items)\n",
    "tools/run.py": "import collections\n\ncollections.tally([1])\n",
}


def _imports(repo: GitRepo) -> dict[tuple[str, str], str]:
    conn = sqlite3.connect(repo.graph_path)
    try:
        rows = conn.execute("SELECT f.path, i.module, i.status FROM imports i JOIN files f ON f.id = i.file_id").fetchall()
    finally:
        conn.close()
    return {(path, module): status for path, module, status in rows}


def test_test_data_files_do_not_make_the_stdlib_internal(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(CASES)
    assert graphguard(repo, "index").code == 0
    imports = _imports(repo)
    assert imports[("pkg/util.py", "collections")] == "external"
    assert imports[("pkg/util.py", "abc")] == "external"
    # Imported data is still the repository's.
    assert imports[("tests/test_util.py", "tests.data.helpers")] == "internal"


def test_a_repository_module_named_like_the_stdlib_and_imported_stays_internal(make_repo: Callable[..., GitRepo],
                                                                               graphguard: Run) -> None:
    repo = make_repo({**CASES, **OWN})
    assert graphguard(repo, "index").code == 0
    assert _imports(repo)[("tools/run.py", "collections")] == "internal"
    repo.write({"tools/collections.py": "def tally(items, how):\n    return len(items)\n"})
    r = graphguard(repo, "check", "--worktree")
    assert r.code == 1 and "tools/run.py:3" in r.out, r.out


def test_a_call_into_imported_test_data_is_still_checked(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(CASES)
    assert graphguard(repo, "index").code == 0
    repo.write({"tests/data/helpers.py": "def make(a, b):\n    return a\n"})
    r = graphguard(repo, "check", "--worktree")
    assert r.code == 1 and "tests/test_util.py:5" in r.out, r.out


def test_stats_names_the_folders_of_test_data_and_how_to_leave_them_out(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(CASES)
    r = graphguard(repo, "stats")
    assert r.code == 0, r.err
    hint = next(line for line in r.out.splitlines() if line.startswith("  hint "))
    assert "4 files in folders of test data: tests/data/ (3), tests/fixtures/ (1)" in hint, hint
    assert 'exclude = ["tests/data/**", "tests/fixtures/**"]' in hint


def test_which_folders_are_test_data() -> None:
    assert is_test_data("tests/data/cases/collections.py") and is_test_data("src/pkg/tests/data")
    assert is_test_data("fixtures/x.py") and is_test_data("a/testdata/b/c.py")
    assert not is_test_data("data/loader.py") and not is_test_data("pkg/data.py") and not is_test_data("tests/test_data.py")
    assert ModuleMap.build(CASES).find("collections") is None and ModuleMap.build(CASES).find("abc") is None
    m = ModuleMap.build({**CASES, **OWN})
    assert m.find("collections") == "tools/collections.py" and m.find("abc") is None
    assert m.find("tests.data.cases.collections") == "tests/data/cases/collections.py"


#: A module among the test data named like the stdlib one a package imports.
SHADOW = {
    "pkg/__init__.py": "",
    "pkg/util.py": "import collections\n\n\ndef g():\n    return collections.tally([1])\n",
    "tests/data/collections.py": "def tally(items):\n    return len(items)\n",
}


def test_the_test_data_setting_decides_the_roots_and_a_change_of_it_rebuilds_the_graph(make_repo: Callable[..., GitRepo],
                                                                                         graphguard: Run) -> None:
    repo = make_repo(SHADOW)
    # Each setting written beside the same commit: the graph must follow the setting, not the commit.
    for setting, status in [(None, "external"), ("test_data = []\n", "internal"), ('test_data = ["cases"]\n', "internal"),
                            ('test_data = ["tests/data"]\n', "external"), ("test-data = []\n", "internal")]:
        if setting is not None:
            repo.write({".graphguard.toml": setting})
        r = graphguard(repo, "index")
        assert r.code == 0, r.err
        assert _imports(repo)[("pkg/util.py", "collections")] == status, setting


def test_with_no_test_data_a_signature_change_there_reaches_the_importer(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**SHADOW, ".graphguard.toml": "test_data = []\n"})
    assert graphguard(repo, "index").code == 0
    repo.write({"tests/data/collections.py": "def tally(items, how):\n    return len(items)\n"})
    r = graphguard(repo, "check", "--worktree")
    assert r.code == 1 and "pkg/util.py:5" in r.out, r.out


def test_the_default_test_data_hides_that_change(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SHADOW)
    assert graphguard(repo, "index").code == 0
    repo.write({"tests/data/collections.py": "def tally(items, how):\n    return len(items)\n"})
    r = graphguard(repo, "check", "--worktree")
    assert r.code == 0 and "pkg/util.py" not in r.out, r.out


def test_folders_of_test_data_as_set() -> None:
    assert is_test_data("a/cases/b/c.py", ("cases",)) and not is_test_data("a/cases.py", ("cases",))
    assert not is_test_data("tests/data/x.py", ()) and not is_test_data("tests/data/x.py", ("cases",))
    assert is_test_data("tests/unit/golden/x.py", ("tests/**/golden",)) and is_test_data("tests/golden", ("tests/**/golden",))
    assert is_test_data("x/snap_1/y.py", ("snap_*",)) and not is_test_data("x/golden/y.py", ("tests/**/golden",))
    assert ModuleMap.build(CASES, ()).find("collections") == "tests/data/cases/collections.py"
    layout = Layout.of(CASES, ("cases",))
    assert Layout.from_json(layout.to_json()) == layout and layout.test_data == ("cases",)
    # A layout kept before the setting existed was derived with the default.
    assert Layout.from_json('{"roots": [""], "dirs": {}, "packages": {}, "dotted": []}') == Layout(("",), {}, {}, frozenset())
