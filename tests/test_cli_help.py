"""`graphguard --help` lists the public commands only; the internal `hook-impl` still parses and dispatches."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from tests.helpers import GitRepo, cli_command, run_cli

PUBLIC = ("index", "refresh", "install", "stats", "check", "callers", "context", "related")


def _help() -> str:
    proc = subprocess.run(cli_command("--help"), capture_output=True, text=True, check=True)
    return proc.stdout


def test_help_hides_the_internal_command() -> None:
    out = _help()
    assert "hook-impl" not in out
    assert "SUPPRESS" not in out


def test_help_lists_every_public_command() -> None:
    lines = _help().splitlines()
    listed = {line.split()[0] for line in lines if line.startswith("    ") and line.split()}
    assert listed >= set(PUBLIC)


def test_hook_impl_still_parses(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"a.py": "def f():\n    pass\n"})
    r = run_cli(repo, "hook-impl", "--hook-type", "post-commit")
    assert r.code == 0, r.err
    assert "invalid choice" not in r.err
