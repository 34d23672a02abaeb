"""A hostile environment around a real repository (issue 18): streams that cannot encode a file name,
GIT_DIR / GIT_WORK_TREE naming another repository. Each through the command line, as a subprocess."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from tests.helpers import BREAK, GIT_LEAKS, LIB, GitRepo, Result, cli_command

RepoFactory = Callable[..., GitRepo]


def run(cwd: Path, args: list[str], env: Mapping[str, str] | None = None) -> Result:
    """`python -m graphguard ARGS` in `cwd` with `env` added to a clean environment; output as raw bytes decoded
    as ASCII with escapes, so that a test sees exactly what reached the stream."""
    base = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    proc = subprocess.run(cli_command(*args), cwd=cwd, capture_output=True, env={**base, **(env or {})}, timeout=120,
                          check=False)
    return Result(proc.returncode, proc.stdout.decode("ascii", "backslashreplace"),
                  proc.stderr.decode("ascii", "backslashreplace"))


# --- item 10: a stream that cannot encode a file name -------------------------------------------------

CAFE = {"pkg/café.py": "from pkg.mod import f\n\n\ndef h():\n    return f(3)\n"}
#: Environments whose stdout encodes ASCII only: Python's own variable, and the POSIX locale where
#: Python does not turn on its UTF-8 mode (Python before 3.7, and 3.7+ when told not to).
ASCII_STREAMS = {"PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
                 "LC_ALL=C": {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}}
ascii_streams = pytest.mark.parametrize("env", list(ASCII_STREAMS.values()), ids=list(ASCII_STREAMS))


@ascii_streams
def test_a_file_name_stdout_cannot_encode_is_written_escaped(make_repo: RepoFactory, env: dict[str, str]) -> None:
    repo = make_repo({**LIB, **CAFE})
    repo.write(BREAK)
    repo.git("add", "-A")
    r = run(repo.root, ["check", "--staged"], env)
    assert r.code == 1, r.err
    assert "pkg/caf\\u00e9.py:5" in r.out  # escaped, not lost
    assert "internal error" not in r.err and r.err.isascii()


@ascii_streams
def test_the_json_report_stays_valid_json_on_an_ascii_stdout(make_repo: RepoFactory, env: dict[str, str]) -> None:
    repo = make_repo({**LIB, **CAFE})
    repo.write(BREAK)
    repo.git("add", "-A")
    r = run(repo.root, ["check", "--staged", "--format", "json"], env)
    assert r.code == 1, r.err
    broken = {c["path"] for ch in r.json["changes"] for c in ch["callers"] if c["status"] == "broken"}
    assert broken == {"pkg/use.py", "pkg/café.py"}


# --- item 11: GIT_DIR / GIT_WORK_TREE naming another repository ------------------------------------

OTHER = {"other/__init__.py": "", "other/mod.py": "def f(a):\n    return a\n"}


def _pointing_at(repo: GitRepo) -> dict[str, str]:
    return {"GIT_DIR": str(repo.root / ".git"), "GIT_WORK_TREE": str(repo.root)}


@pytest.mark.parametrize("variables", [("GIT_DIR", "GIT_WORK_TREE"), ("GIT_DIR",), ("GIT_WORK_TREE",)])
def test_repo_wins_over_git_variables_that_name_another_repository(
    make_repo: RepoFactory, tmp_path: Path, variables: tuple[str, ...],
) -> None:
    ours = make_repo(LIB, name="ours")
    other = make_repo(OTHER, name="other")
    env = {k: v for k, v in _pointing_at(other).items() if k in variables}
    r = run(tmp_path, ["callers", "pkg.mod.f", "--repo", str(ours.root)], env)
    assert r.code == 0, r.err
    assert "pkg/use.py:5" in r.out
    assert f"--repo {ours.root}" in r.err and variables[0] in r.err  # said, in one warning line
    assert len(r.err.strip().splitlines()) == 1, r.err
    ours.write(BREAK)
    ours.git("add", "-A")
    r = run(tmp_path, ["check", "--staged", "--repo", str(ours.root)], env)
    assert r.code == 1, r.out + r.err
    assert "pkg/use.py:5" in r.out
    assert not (other.root / ".git" / "graphguard").exists()  # nothing written into the other one


def test_git_variables_that_agree_with_repo_are_kept(make_repo: RepoFactory, tmp_path: Path) -> None:
    # What a hook sees inside `git commit PATH` (or a commit in a worktree): GIT_DIR for the repository
    # itself and GIT_INDEX_FILE for the index being committed. --repo naming the same repository keeps both.
    repo = make_repo(LIB)
    repo.write(BREAK)
    index = tmp_path / "other-index"
    subprocess.run(["git", "add", "-A"], cwd=repo.root, env={**os.environ, "GIT_INDEX_FILE": str(index)}, check=True)
    env = {**_pointing_at(repo), "GIT_INDEX_FILE": str(index)}
    r = run(tmp_path, ["check", "--staged", "--repo", str(repo.root)], env)
    assert r.code == 1, r.out + r.err
    assert "pkg/use.py:5" in r.out and r.err == ""
    assert run(tmp_path, ["check", "--staged", "--repo", str(repo.root)]).code == 0  # the real index has nothing staged
