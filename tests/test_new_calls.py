"""Calls written in a change are checked against their target's signature, though the target did not change."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo, Result

Check = Callable[..., tuple[int, dict[str, Any]]]

BASE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a, b):\n    return a\n\n\nclass Box:\n    def __init__(self, size):\n        self.size = size\n\n    def fill(self, what):\n        return what\n",
    "app/__init__.py": "",
    "app/use.py": "from pkg.mod import Box, f\n\n\ndef g():\n    return f(1, 2)\n",
}


@pytest.fixture
def check(graphguard: Callable[..., Result]) -> Check:
    def run(repo: GitRepo, *flags: str) -> tuple[int, dict[str, Any]]:
        r = graphguard(repo, "check", "--format", "json", *flags)
        assert r.code in (0, 1), f"exit {r.code}: {r.err}"
        return r.code, r.json

    return run


def new_calls(data: dict[str, Any]) -> dict[str, list[tuple[str, int, str]]]:
    """target -> (path, line, status) of its new calls."""
    return {ch["symbol"]: [(c["path"], c["line"], c["status"]) for c in ch["callers"]]
            for ch in data["changes"] if ch["change"] == "new-calls"}


def staged(repo: GitRepo, files: dict[str, str]) -> None:
    repo.write(files)
    repo.git("add", "-A")


def test_a_new_broken_call_blocks(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    staged(repo, {"app/use.py": BASE["app/use.py"] + "\n\ndef h():\n    return f(1)\n"})
    code, data = check(repo)
    assert code == 1 and data["verdict"] == "block"
    assert new_calls(data) == {"pkg.mod.f": [("app/use.py", 9, "broken")]}
    ch = data["changes"][0]
    assert (ch["path"], ch["line"], ch["before"], ch["after"]) == ("pkg/mod.py", 1, "def f(a, b)", "def f(a, b)")
    assert ch["callers"][0]["reason"] == "missing required argument 'b'"


def test_the_text_report_names_a_new_call_as_such(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(BASE)
    staged(repo, {"app/use.py": BASE["app/use.py"] + "\n\ndef h():\n    return f(1)\n"})
    out = graphguard(repo, "check").out
    assert "    signature: def f(a, b)\n" in out and "before:" not in out
    assert out.rstrip().endswith("BLOCK: 1 broken caller of 1 definition called anew (staged changes against HEAD)")


def test_a_new_call_that_binds_passes(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    staged(repo, {"app/use.py": BASE["app/use.py"] + "\n\ndef h():\n    return f(1, b=2), Box(3).fill(4)\n"})
    code, data = check(repo)
    assert code == 0 and data["changes"] == []


def test_an_old_broken_call_left_alone_is_not_reported(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "app/use.py": BASE["app/use.py"] + "\n\ndef old():\n    return f(1)\n"})
    staged(repo, {"app/use.py": BASE["app/use.py"] + "\n\ndef old():\n    x = 1\n    return f(1)\n"})
    code, data = check(repo)
    assert code == 0 and data["changes"] == []


def test_a_call_whose_arguments_changed_and_no_longer_bind_blocks(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    staged(repo, {"app/use.py": BASE["app/use.py"].replace("f(1, 2)", "f(1, 2, 3)")})
    code, data = check(repo)
    assert code == 1
    assert new_calls(data) == {"pkg.mod.f": [("app/use.py", 5, "broken")]}


def test_methods_and_constructors_of_new_calls(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    staged(repo, {"app/use.py": BASE["app/use.py"] + "\n\ndef h():\n    box = Box()\n    b = Box(1)\n    return b.fill()\n"})
    code, data = check(repo)
    assert code == 1
    # A target with a broken new call lists its other new calls too.
    assert new_calls(data) == {"pkg.mod.Box": [("app/use.py", 9, "broken"), ("app/use.py", 10, "ok")], "pkg.mod.Box.fill": [("app/use.py", 11, "broken")]}


def test_a_new_file_and_the_other_modes(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"app/more.py": "from pkg.mod import f\n\nf(1, 2)\nf()\n"})
    code, data = check(repo, "--worktree")
    assert code == 1 and new_calls(data) == {"pkg.mod.f": [("app/more.py", 4, "broken"), ("app/more.py", 3, "ok")]}
    repo.commit("more")
    code, data = check(repo, "--base", "HEAD~1")
    assert code == 1 and new_calls(data) == {"pkg.mod.f": [("app/more.py", 4, "broken"), ("app/more.py", 3, "ok")]}


def test_calls_to_a_changed_definition_are_decided_with_its_change(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    staged(repo, {"pkg/mod.py": BASE["pkg/mod.py"].replace("def f(a, b)", "def f(a, b, c)"),
                  "app/use.py": BASE["app/use.py"] + "\n\ndef h():\n    return f(1)\n"})
    code, data = check(repo)
    assert code == 1 and new_calls(data) == {}
    assert [ch["change"] for ch in data["changes"]] == ["signature"]


def test_a_body_only_edit_does_not_load_libcst(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    staged(repo, {"app/use.py": BASE["app/use.py"].replace("return f(1, 2)", "x = 1\n    return f(1, 2)")})
    code, data = check(repo)
    assert code == 0 and data["changes"] == []
    # In a process of its own: this one has imported libcst (and everything that imports it) already.
    probe = ("import sys; from graphguard.main import main; code = main(['check', '--format', 'json']);"
             " sys.stderr.write('libcst loaded' if 'libcst' in sys.modules else 'no libcst')")
    r = subprocess.run([sys.executable, "-c", probe], check=False, cwd=repo.root, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr.endswith("no libcst"), r.stderr


def test_a_new_call_to_a_function_behind_an_unknown_decorator_is_not_judged(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "pkg/cli.py": "import click\n\n\n@click.command()\n@click.argument('name')\ndef cli(name):\n    return name\n",
                      "pkg/cached.py": "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef load(key):\n    return key\n"})
    staged(repo, {"app/main.py": "from pkg.cached import load\nfrom pkg.cli import cli\n\ncli()\nload()\n"})
    code, data = check(repo)
    assert code == 1 and new_calls(data) == {"pkg.cached.load": [("app/main.py", 5, "broken")]}  # click supplies `name`
