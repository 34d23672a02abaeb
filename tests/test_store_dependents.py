"""store.dependents and store.rows, the questions an update asks of the graph, on an in-memory graph."""

from __future__ import annotations

from graphguard.index.memory import in_memory
from graphguard.store import dependents, rows

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    pass\n\ndef make():\n    return Base()\n",
    "pkg/child.py": "from pkg.base import Base, make\n\nclass Child(Base):\n    pass\n\nobj = make()\n",
    "pkg/whole.py": "import pkg.base\n\ndef f():\n    from pkg.base import make\n    return pkg.base.Base\n",
    "pkg/alone.py": "x = 1\n",
}
GRAPH = in_memory(FILES)
DB = GRAPH.db


def fid(path: str) -> int:
    found = rows.blob_and_id(DB, path)
    assert found is not None
    return found[1]


def test_the_importers_of_a_file_are_those_with_an_import_edge_into_it() -> None:
    assert sorted(r[0] for r in dependents.importers(DB, fid("pkg/base.py"))) == ["pkg/child.py", "pkg/whole.py"]
    assert dependents.importers(DB, fid("pkg/alone.py")) == []


def test_names_imported_from_a_module_are_found_by_module_and_name() -> None:
    assert dependents.names_imported(DB, fid("pkg/child.py"), ["pkg.base"], {"Base", "gone"}) == {"Base"}
    assert dependents.names_imported(DB, fid("pkg/child.py"), ["pkg.other"], {"Base"}) == set()


def test_a_subclass_of_a_module_s_class_inherits_from_the_module() -> None:
    assert dependents.inherits_from_module(DB, fid("pkg/child.py"), "pkg.base")
    assert not dependents.inherits_from_module(DB, fid("pkg/whole.py"), "pkg.base")


def test_a_module_imported_whole_is_told_apart_from_names_imported_from_it() -> None:
    assert dependents.imports_module(DB, fid("pkg/whole.py"), ["pkg.base"])
    assert not dependents.imports_module(DB, fid("pkg/child.py"), ["pkg.base"])


def test_only_module_level_imports_are_rebindings() -> None:
    # whole.py's `from pkg.base import make` is inside f: not bound at module level.
    assert dependents.module_level_imports_from(DB, fid("pkg/whole.py"), ["pkg.base"]) == {(1, None)}
    assert dependents.module_level_imports_from(DB, fid("pkg/child.py"), ["pkg.base"]) == {(1, "Base"), (1, "make")}


def test_a_site_naming_a_definition_or_its_member_is_found() -> None:
    assert dependents.has_site_naming(DB, fid("pkg/child.py"), {"make"}, ["pkg.base.make"])
    assert not dependents.has_site_naming(DB, fid("pkg/alone.py"), {"make"}, ["pkg.base.make"])


def test_a_file_row_is_read_by_path_and_by_id() -> None:
    found = rows.rows_of(DB, ["pkg/base.py", "missing.py"])
    assert list(found) == ["pkg/base.py"] and found["pkg/base.py"][1:3] == (GRAPH.blobs["pkg/base.py"], "pkg.base")
    assert rows.blob_of_id(DB, fid("pkg/base.py")) == GRAPH.blobs["pkg/base.py"]
    assert rows.module_at(DB, "pkg/child.py") == "pkg.child" and rows.module_at(DB, "missing.py") is None
    assert sorted(rows.every_path(DB)) == sorted(FILES) == sorted(rows.every_row(DB))
