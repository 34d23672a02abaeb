"""check.interface on an in-memory graph: which definitions a change touches, and how."""

from __future__ import annotations

from graphguard.check import interface
from graphguard.config import Config
from graphguard.result import ChangeKind
from tests.stages import change

SHOP = {
    "pkg/__init__.py": "from pkg.clock import stamp\n",
    "pkg/clock.py": """
        def stamp(when, fmt="%Y"):
            return when

        def other():
            return 1
    """,
    "app.py": "from pkg import stamp\nstamp(1)\n",
}


def find(new: dict[str, str | None]) -> interface.Interface:
    return interface.find(change(SHOP, new), Config())


def test_a_new_required_parameter_is_a_signature_change() -> None:
    found = find({"pkg/clock.py": 'def stamp(when, zone, fmt="%Y"):\n    return when\n\ndef other():\n    return 1\n'})
    assert [(ic.qualname, ic.kind, ic.new_qualname) for ic in found.changes] == [
        ("pkg.clock.stamp", ChangeKind.SIGNATURE, "pkg.clock.stamp")]
    # `fmt` moved from the second place to the third: a positional caller of it breaks too.
    assert [str(c) for c in found.changes[0].change.breaking] == ["required-param-added:zone", "param-position-changed:fmt"]


def test_a_body_edit_changes_no_interface() -> None:
    found = find({"pkg/clock.py": 'def stamp(when, fmt="%Y"):\n    return when + 0\n\ndef other():\n    return 2\n'})
    assert found.changes == [] and found.impacts == []


def test_a_removed_function_is_removed() -> None:
    found = find({"pkg/clock.py": 'def stamp(when, fmt="%Y"):\n    return when\n'})
    assert [(ic.qualname, ic.kind, ic.new_qualname) for ic in found.changes] == [("pkg.clock.other", ChangeKind.REMOVED, None)]


def test_a_file_that_no_longer_parses_blocks_its_importers() -> None:
    found = find({"pkg/clock.py": "def stamp(when:\n"})
    assert found.changes == []
    # app.py's `from pkg import stamp` resolves to the definition in pkg/clock.py: it imports the file too.
    assert [(i.symbol, i.change, [c.path for c in i.callers]) for i in found.impacts] == [
        ("pkg.clock", ChangeKind.SYNTAX_ERROR, ["app.py", "pkg/__init__.py"])]


def test_a_re_export_dropped_from_a_package_is_removed_for_its_importers() -> None:
    found = find({"pkg/__init__.py": ""})
    assert [(i.symbol, i.change, [c.path for c in i.callers]) for i in found.impacts] == [
        ("pkg.stamp", ChangeKind.REMOVED, ["app.py"])]
