"""A dataclass field removed or renamed breaks its reads and `dataclasses.replace` too (issue 19 §5).

black renamed `Mode.line_length`: the four keyword constructor calls were found, the fifteen
`mode.line_length` reads and `replace(mode, line_length=...)` calls were not. A read is broken
only where the receiver's class is known exactly and nothing else of the class answers the name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo, Result, source

MODE = """
    import dataclasses
    from dataclasses import dataclass, replace


    @dataclass
    class Mode:
        line_length: int = 88
        magic: bool = True


    def width(mode: Mode) -> int:
        return mode.line_length  # read


    def narrower(mode: Mode) -> Mode:
        return replace(mode, line_length=mode.line_length - 1)  # replace, read


    def wider(mode: Mode) -> Mode:
        return dataclasses.replace(mode, magic=False, line_length=100)  # replace


    def default() -> int:
        return Mode(line_length=80).magic  # keyword call
    """

USERS = """
    from pkg.mode import Mode


    class Formatter:
        def __init__(self, mode: Mode) -> None:
            self.mode = mode

        def limit(self) -> int:
            return self.mode.line_length  # read


    def report(mode: Mode, anything) -> str:
        return f"{mode.line_length} {anything.line_length}"  # read
    """


def _renamed(text: str) -> str:
    return text.replace("    line_length: int = 88", "    width_: int = 88")


def _broken(data: dict[str, Any]) -> dict[tuple[str, int], str]:
    return {(c["path"], c["line"]): c["reason"] for ch in data["changes"] for c in ch["callers"] if c["status"] == "broken"}


def _marked(repo: GitRepo, path: str, mark: str) -> set[tuple[str, int]]:
    lines = repo.path(path).read_text(encoding="utf-8").splitlines()
    return {(path, i) for i, line in enumerate(lines, 1) if mark in line}


def _check(repo: GitRepo, graphguard: Callable[..., Result], mode: str, change: dict[str, str]) -> Result:
    assert graphguard(repo, "index").code == 0
    repo.write(change)
    repo.git("add", "-A")
    if mode == "base":
        repo.commit("change")
        return graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    return graphguard(repo, "check", "--format", "json")


@pytest.mark.parametrize("mode", ["staged", "base"])
def test_a_renamed_field_breaks_its_reads_and_replace(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                      mode: str) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": MODE, "pkg/users.py": USERS})
    r = _check(repo, graphguard, mode, {"pkg/mode.py": _renamed(MODE)})
    assert r.code == 1, r.out
    broken = _broken(r.json)
    want = (_marked(repo, "pkg/mode.py", "# read") | _marked(repo, "pkg/mode.py", "# replace")
            | _marked(repo, "pkg/mode.py", "# keyword call") | _marked(repo, "pkg/users.py", "# read"))
    assert set(broken) == want  # `anything.line_length`: its class is unknown, it is not reported (same line as a known read)
    assert broken[next(iter(_marked(repo, "pkg/mode.py", "return mode.line_length")))] == "reads field 'line_length', which Mode no longer has"
    callers = {(c["path"], c["line"]): c["caller"] for ch in r.json["changes"] for c in ch["callers"]}
    assert callers[next(iter(_marked(repo, "pkg/users.py", "self.mode.line_length")))] == "pkg.users.Formatter.limit"
    wider = next(iter(_marked(repo, "pkg/mode.py", "magic=False")))
    assert broken[wider] == "dataclasses.replace() sets field 'line_length', which Mode no longer has"


def test_reads_fixed_with_the_rename_pass(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": MODE, "pkg/users.py": USERS})
    r = _check(repo, graphguard, "staged", {"pkg/mode.py": _renamed(MODE).replace("line_length", "width_"),
                                            "pkg/users.py": USERS.replace("mode.line_length", "mode.width_")})
    assert r.code == 0, r.out
    assert _broken(r.json) == {}


@pytest.mark.parametrize("answer", [
    "    @property\n    def line_length(self) -> int:\n        return self.width_\n",  # a property keeps the name
    "    line_length = 88\n",  # a class attribute (ClassVar-like, no annotation: not a field)
    "    def __getattr__(self, name):\n        return 0\n",  # anything is answered
    "    def __post_init__(self) -> None:\n        self.line_length = self.width_\n",  # set on each instance
])
def test_a_name_still_answered_is_no_lost_field(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result], answer: str) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": MODE, "pkg/users.py": USERS})
    new = _renamed(MODE).replace("    magic: bool = True\n", "    magic: bool = True\n\n" + "\n".join(
        "    " + line if line else line for line in answer.replace("    ", "", 0).splitlines()) + "\n", 1)
    r = _check(repo, graphguard, "staged", {"pkg/mode.py": new})
    # Only the keyword constructor call is broken: every read finds the name.
    assert set(_broken(r.json)) == _marked(repo, "pkg/mode.py", "# keyword call"), r.out


def test_a_base_outside_the_repository_may_have_the_field(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    base = MODE.replace("class Mode:", "class Mode(Configurable):").replace("import dataclasses\n", "import dataclasses\nfrom thirdparty import Configurable\n")
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": base, "pkg/users.py": USERS})
    r = _check(repo, graphguard, "staged", {"pkg/mode.py": _renamed(base)})
    assert not any("reads field" in reason or "replace()" in reason for reason in _broken(r.json).values()), r.out


def test_a_write_of_the_name_on_an_instance_keeps_the_reads(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    users = source(USERS) + "\n\ndef patch(mode: Mode) -> None:\n    mode.line_length = 1\n"
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": MODE, "pkg/users.py": users})
    r = _check(repo, graphguard, "staged", {"pkg/mode.py": _renamed(MODE)})
    assert not any("reads field" in reason for reason in _broken(r.json).values()), r.out


def test_a_subclass_that_keeps_the_name_keeps_the_reads(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    # `mode: Mode` may hold an instance of a subclass, which still answers `line_length`.
    sub = "from pkg.mode import Mode\n\n\nclass Legacy(Mode):\n    @property\n    def line_length(self) -> int:\n        return self.width_\n"
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": MODE, "pkg/users.py": USERS, "pkg/legacy.py": sub})
    r = _check(repo, graphguard, "staged", {"pkg/mode.py": _renamed(MODE)})
    assert set(_broken(r.json)) == _marked(repo, "pkg/mode.py", "# keyword call"), r.out
