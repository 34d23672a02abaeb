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
