"""Module names of a repository's files: import roots, layouts, relative imports."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphguard.languages.python.modules import Layout, ModuleMap
from graphguard.languages.python.probed import ProbedModuleMap
from graphguard.store.paths import StoredPaths


def names(m: ModuleMap) -> dict[str, list[str]]:
    return {name: sorted(paths) for name, paths in m.by_name.items()}


def test_flat_layout() -> None:
    m = ModuleMap.build(["pkg/__init__.py", "pkg/a.py", "pkg/sub/__init__.py", "pkg/sub/b.py", "setup.py", "README.md", "pkg/data.json"])
    assert m.roots == ("",)
    assert m.primary == {
        "pkg/__init__.py": "pkg",
        "pkg/a.py": "pkg.a",
        "pkg/sub/__init__.py": "pkg.sub",
        "pkg/sub/b.py": "pkg.sub.b",
        "setup.py": "setup",
    }
    assert m.top_names == {"pkg", "setup"}
    assert m.is_package("pkg/sub/__init__.py") and not m.is_package("pkg/a.py")


def test_src_layout_names_modules_from_src() -> None:
    m = ModuleMap.build(["src/pkg/__init__.py", "src/pkg/a.py", "tests/test_a.py", "noxfile.py"])
    assert m.module_of("src/pkg/a.py") == "pkg.a"
    assert m.find("pkg.a") == "src/pkg/a.py"
    assert m.looks_internal("pkg.anything")
    # The top level is a root too: `src.pkg.a` is what a script run from the top would import.
    assert m.find("src.pkg.a") == "src/pkg/a.py"
    assert m.module_of("noxfile.py") == "noxfile"


def test_several_top_level_packages() -> None:
    m = ModuleMap.build(["alpha/__init__.py", "alpha/x.py", "beta/__init__.py", "beta/y.py", "gamma.py"])
    assert m.roots == ("",)
    assert {p: m.module_of(p) for p in m.paths} == {
        "alpha/__init__.py": "alpha",
        "alpha/x.py": "alpha.x",
        "beta/__init__.py": "beta",
        "beta/y.py": "beta.y",
        "gamma.py": "gamma",
    }
    assert m.top_names == {"alpha", "beta", "gamma"}
    assert not m.looks_internal("delta.x")


def test_namespace_package_without_init_is_found_by_its_dotted_path() -> None:
    m = ModuleMap.build(["ns/part/mod.py", "ns/other/__init__.py", "ns/other/z.py"])
    assert m.find("ns.part.mod") == "ns/part/mod.py"
    assert m.find("ns.other.z") == "ns/other/z.py"
    # Namespace folders are packages one can import from, without a file of their own.
    assert {"ns", "ns.part", "ns.other"} <= m.prefixes
    assert m.find("ns.part") is None
    assert m.looks_internal("ns.part.mod")


def test_namespace_package_under_src() -> None:
    # src/ is the sys.path entry; `company` is a namespace package holding a regular one.
    m = ModuleMap.build(["src/company/product/__init__.py", "src/company/product/x.py", "app.py"])
    assert m.find("company.product.x") == "src/company/product/x.py"
    assert m.find("company.product") == "src/company/product/__init__.py"
    assert "company" in m.prefixes
    assert m.looks_internal("company.product.x")


def test_django_style_tests_folder_is_a_root() -> None:
    m = ModuleMap.build(
        [
            "django/__init__.py",
            "django/db/__init__.py",
            "django/db/models.py",
            "tests/runtests.py",
            "tests/basic/__init__.py",
            "tests/basic/models.py",
            "tests/basic/tests.py",
        ]
    )
    assert "tests" in m.roots
    # runtests.py puts tests/ on sys.path: test apps import each other as top-level packages.
    assert m.module_of("tests/basic/models.py") == "basic.models"
    assert m.find("basic.models") == "tests/basic/models.py"
    assert m.find("tests.basic.models") == "tests/basic/models.py"
    assert m.module_of("django/db/models.py") == "django.db.models"


def test_lookup_prefers_the_file_nearest_the_importer() -> None:
    m = ModuleMap.build(["a/utils.py", "a/main.py", "b/utils.py", "b/main.py"])
    assert names(m)["utils"] == ["a/utils.py", "b/utils.py"]
    assert m.find("utils", near="a/main.py") == "a/utils.py"
    assert m.find("utils", near="b/main.py") == "b/utils.py"


def test_stub_and_source_share_a_name_and_source_wins() -> None:
    m = ModuleMap.build(["pkg/__init__.py", "pkg/x.py", "pkg/x.pyi"])
    assert names(m)["pkg.x"] == ["pkg/x.py", "pkg/x.pyi"]
    assert m.find("pkg.x") == "pkg/x.py"
    assert m.find("pkg.x", near="pkg/y.py") == "pkg/x.py"


def test_unknown_module_is_none() -> None:
    m = ModuleMap.build(["pkg/__init__.py"])
    assert m.find("pkg.missing") is None
    assert m.looks_internal("pkg.missing")


@pytest.mark.parametrize(
    ("path", "level", "base"),
    [
        ("pkg/a.py", 1, "pkg"),
        ("pkg/__init__.py", 1, "pkg"),
        ("pkg/sub/b.py", 1, "pkg.sub"),
        ("pkg/sub/b.py", 2, "pkg"),
        ("pkg/sub/__init__.py", 1, "pkg.sub"),
        ("pkg/sub/__init__.py", 2, "pkg"),
        ("src/lib/c.py", 1, "lib"),
        ("top.py", 2, None),  # climbs out of the repository
        ("pkg/sub/b.py", 4, None),
        ("not/indexed.py", 1, None),
    ],
)
def test_relative_base(path: str, level: int, base: str | None) -> None:
    m = ModuleMap.build(["pkg/__init__.py", "pkg/a.py", "pkg/sub/__init__.py", "pkg/sub/b.py", "top.py", "src/lib/__init__.py", "src/lib/c.py"])
    assert m.relative_base(path, level) == base


def test_top_level_init_names_the_repository_package_init() -> None:
    # A repository that is itself a package (cloned into place as a plugin): every file has a name.
    m = ModuleMap.build(["__init__.py", "m.py", "sub/__init__.py"])
    assert m.module_of("__init__.py") == "__init__"
    assert m.module_of("m.py") == "m" and m.module_of("sub/__init__.py") == "sub"


# The check's map of a stored snapshot (ProbedModuleMap) asks the graph's index of paths
# instead of reading every path: its answers must be the full build's, added and removed
# files included.

_SEGMENTS = ["pkg", "src", "tests", "sub", ".hidden", "a.b", "ns", "__init__"]
_FILES = ["__init__.py", "__init__.pyi", "m.py", "m.pyi", "x.py", "conf.d.py", "pkg.py"]


def _stored(paths: set[str]) -> StoredPaths:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, blob TEXT NOT NULL)")
    db.executemany("INSERT INTO files(path, blob) VALUES (?, ?)", [(p, "0" * 40) for p in sorted(paths)])
    return StoredPaths(db)


def _same_answers(paths: set[str], added: set[str], removed: set[str]) -> None:
    layout = Layout.from_json(Layout.of(paths).to_json())  # as an indexer would keep it
    assert layout == Layout.of(paths)
    base = ProbedModuleMap(layout, _stored(paths))
    probed = base.with_changes(added, removed) if added or removed else base
    full = ModuleMap.build((paths - removed) | added)
    assert probed.roots == full.roots
    asked = set(full.by_name) | {n.rsplit(".", 1)[-1] for n in full.by_name} | {n + ".zz" for n in full.by_name} | {"", "a..b", "zz"}
    for name in sorted(asked):
        assert probed.by_name.get(name) == full.by_name.get(name), name
        assert (name in probed.prefixes) == (name in full.prefixes), name
        assert (name.split(".", 1)[0] in probed.top_names) == (name.split(".", 1)[0] in full.top_names), name
    for path in sorted(paths | added | {"absent.py"}):
        assert probed.primary.get(path) == full.primary.get(path), path
        assert (path in probed.paths) == (path in full.paths)


_path = st.builds(lambda dirs, name: "/".join([*dirs, name]), st.lists(st.sampled_from(_SEGMENTS), max_size=4), st.sampled_from(_FILES))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.sets(_path, min_size=1, max_size=25), st.sets(_path, max_size=3), st.sets(_path, max_size=3))
def test_probed_map_answers_as_the_full_build(paths: set[str], added: set[str], removed: set[str]) -> None:
    _same_answers(paths, added - paths, removed & paths)


def test_probed_map_on_a_layout_with_roots_namespaces_and_dotted_folders() -> None:
    paths = {"src/company/product/__init__.py", "src/company/product/x.py", "app.py", "tests/test_a.py", "tests/app1/__init__.py",
             "tests/app1/models.py", "docs/_ext/ext.py", "tests/tpl/.hidden/render.py", "tests/m/.util.py", "pkg/__init__.py",
             "pkg/ns/deep/__init__.py", "pkg/ns/deep/y.pyi", "pkg/ns/deep/y.py"}
    _same_answers(paths, set(), set())
    _same_answers(paths, {"tests/app2/__init__.py", "tests/app2/views.py"}, {"app.py"})  # a new folder: the roots change
    _same_answers(paths, {"pkg/ns/__init__.py"}, {"pkg/__init__.py"})  # a namespace becomes a package, a package a namespace


def test_a_stored_layout_that_does_not_read_is_none() -> None:
    assert Layout.from_json(None) is None and Layout.from_json("") is None
    assert Layout.from_json("{") is None and Layout.from_json('{"roots": []}') is None
