"""Whatever a repository holds, graphguard neither crashes, nor hangs, nor reads outside it.

Each test is one finding of issue 8 (items 3, 5, 6, the config and symlink items) on a
real repository, through the command line. Deep and big inputs finish quickly because of
the bounds; a hang guard (the subprocess timeout) stands where the old code never returned.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard.config import Globs
from graphguard.result import ChangeKind
from tests.helpers import LIB, GitRepo, Result

Run = Callable[..., Result]
RepoFactory = Callable[..., GitRepo]
FORMATS = ["text", "json", "markdown", "sarif", "github", "codequality"]
#: Names git stores as bytes that are not UTF-8, and with a line break.
NOT_UTF8 = b"pkg/caf\xe9.py"
NEWLINE = "pkg/two\nlines.py"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, byte file names and symlinks")


def _broken(r: Result) -> set[str]:
    """Paths of the broken callers in a JSON report."""
    return {c["path"] for ch in r.json["changes"] for c in ch["callers"] if c["status"] == "broken"}


def _one_line_error(r: Result) -> str:
    lines = r.err.strip().splitlines()
    assert r.code == 2 and len(lines) == 1 and "Traceback" not in r.err and "internal error" not in r.err, r.err
    return lines[0]


# --- 3. a file's declared encoding is data ---------------------------------------------------------------


def test_an_undefined_codec_with_an_undecodable_byte_breaks_no_command(make_repo: RepoFactory, graphguard: Run) -> None:
    repo = make_repo({**LIB, "pkg/odd.py": b"# coding: undefined\nx = '\xff'\n\n\ndef h(a):\n    return a\n"})
    assert graphguard(repo, "index").code == 0
    stats = graphguard(repo, "stats")
    assert stats.code == 0 and "pkg/odd.py: unknown encoding" not in stats.out
    assert "pkg/odd.py: not valid 'undefined'" in stats.out  # a warning, and the file read as UTF-8
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 1, r.err  # the break is still found
    assert _broken(r) == {"pkg/use.py"}
    assert graphguard(repo, "related", "pkg/odd.py").code == 0


@pytest.mark.parametrize("codec", ["rot13", "hex", "base64", "zlib_codec", "uu", "bz2", "no-such-codec"])
def test_a_changed_file_declaring_a_non_text_codec_is_read_as_utf8(make_repo: RepoFactory, graphguard: Run, codec: str) -> None:
    repo = make_repo(LIB)
    repo.write({"pkg/mod.py": f"# coding: {codec}\ndef f(a, b):\n    return a\n"})
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 1, r.err  # LookupError before: exit 2 from inside LibCST
    change = r.json["changes"][0]
    assert (change["symbol"], change["breaking"]) == ("pkg.mod.f", ["required-param-added:b"])


# --- 3. file names are bytes -------------------------------------------------------------------------------


def _odd_names_repo(make_repo: RepoFactory) -> GitRepo:
    """A library, a caller in a file whose name has a line break, and a file whose name is not UTF-8."""
    repo = make_repo({**LIB, NEWLINE: "from pkg.mod import f\n\n\ndef two():\n    return f(2)\n"})
    (repo.root / os.fsdecode(NOT_UTF8)).write_bytes(b"def g(a):\n    return a\n")
    repo.commit("odd names")
    return repo


@posix_only
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_reports_odd_file_names(make_repo: RepoFactory, graphguard_cli: Run, fmt: str, tmp_path: Path) -> None:
    repo = _odd_names_repo(make_repo)
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    (repo.root / os.fsdecode(NOT_UTF8)).write_bytes(b"def g(a, b):\n    return a\n")
    summary = tmp_path / "summary.md"
    env_file = {"GITHUB_STEP_SUMMARY": str(summary)} if fmt == "github" else {}
    os.environ.update(env_file)
    try:
        r = graphguard_cli(repo, "check", "--format", fmt)
    finally:
        for key in env_file:
            del os.environ[key]
    assert r.code == 1, r.err  # UnicodeEncodeError, exit 2, before
    if fmt in ("text", "json", "markdown"):  # the formats that list file warnings
        assert "caf\ufffd.py" in r.out  # the undecodable byte shown as U+FFFD
    if fmt == "json":
        warnings = {w["path"]: w["message"] for w in json.loads(r.out)["warnings"]}
        assert warnings["pkg/caf\ufffd.py"] == "file name is not valid UTF-8; not checked"
        assert _broken(Result(r.code, r.out, r.err)) == {"pkg/use.py", NEWLINE}
    elif fmt == "sarif":
        assert "pkg/caf%E9.py" in r.out and "pkg/two%0Alines.py" in r.out  # the name's own bytes
    elif fmt in ("text", "markdown"):
        assert "pkg/two\\nlines.py" in r.out and NEWLINE not in r.out  # one record per line
    elif fmt == "codequality":
        assert {i["location"]["path"] for i in json.loads(r.out)} >= {"pkg/use.py", NEWLINE}
    elif fmt == "github":
        assert "file=pkg/two%0Alines.py" in r.out
        assert "pkg/two\\nlines.py" in summary.read_text(encoding="utf-8")


@posix_only
@pytest.mark.parametrize("command", [("context", "two lines"), ("related", "pkg/mod.py"), ("related", NEWLINE),
                                     ("related", "pkg.mod.f"), ("context", "two", "--format", "json")])
def test_context_and_related_work_beside_odd_file_names(make_repo: RepoFactory, graphguard_cli: Run,
                                                        command: tuple[str, ...]) -> None:
    repo = _odd_names_repo(make_repo)
    r = graphguard_cli(repo, *command)
    assert r.code == 0, r.err  # KeyError (a name with a line break) or UnicodeEncodeError before
    assert "warning" not in r.err
    if command[0] == "context" and "json" not in command:
        assert "## pkg/two\\nlines.py:" in r.out


# --- 5. small inputs, bounded work -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "deep",
    [
        "x = " + "f(1, " * 8000 + "1" + ")" * 8000 + "\n",  # 48 KB: 54 s before
        "x = A()" + ".b()" * 20000 + "\n",  # 80 KB: 44 s before
    ],
    ids=["8000-nested-calls", "20000-link-chain"],
)
def test_deeply_nested_code_is_indexed_and_checked_with_a_warning(make_repo: RepoFactory, graphguard: Run, deep: str) -> None:
    repo = make_repo({**LIB, "pkg/deep.py": "from pkg.mod import f\n\n\ndef A():\n    return f(1)\n\n\n" + deep})
    assert graphguard(repo, "index").code == 0
    stats = graphguard(repo, "stats")
    assert "pkg/deep.py: nested more than 1024 levels deep; facts are partial" in stats.out
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n", "pkg/deep.py": "def A():\n    return 1\n\n\n" + deep})
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 1, r.err
    assert _broken(r) == {"pkg/use.py"}


@pytest.mark.slow
def test_a_big_deeply_nested_file_is_matched_within_a_budget(make_repo: RepoFactory, graphguard: Run) -> None:
    line = "f(" * 120 + ")" * 120 + "\n"  # 241 levels deep, 4 nodes a call
    repo = make_repo({**LIB, "pkg/gen.py": line * 1600})
    assert graphguard(repo, "index").code == 0
    stats = graphguard(repo, "stats").out
    depth = int(stats.split("pkg/gen.py: nested more than ", 1)[1].split(" ", 1)[0])
    assert 64 <= depth < 241  # the deeper calls are left out: facts are partial, and said to be


def test_a_changed_file_over_the_size_limit_never_reaches_libcst(make_repo: RepoFactory, graphguard: Run) -> None:
    repo = make_repo(LIB)
    big = "def f(a):\n    return a\n\n\n" + "".join(f"def g{i}(a, b):\n    return a + b\n\n\n" for i in range(75_000))
    assert 2_000_000 < len(big) < 3_000_000
    repo.write({"pkg/mod.py": big})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 0, r.err
    assert {"path": "pkg/mod.py", "message": "2 MB file; over the 2 MB limit; file not checked"} in r.json["warnings"]


def test_exclude_glob_with_many_double_stars_matches_in_linear_time(make_repo: RepoFactory, graphguard_cli: Run) -> None:
    stars = "**/" * 16
    deep = "/".join(["d"] * 30)
    repo = make_repo({**LIB, f"{deep}/y.py": "x = 1\n", f"{deep}/x.py": "x = 1\n",
                      ".graphguard.toml": f'exclude = ["{stars}x.py"]\n'})
    r = graphguard_cli(repo, "index", timeout=120)  # the old regex backtracked for hours on this path
    assert r.code == 0, r.err
    assert ": 4 files," in r.out  # the library's three and y.py: x.py excluded
    assert Globs((f"{stars}x.py",))(f"{deep}/x.py")
    assert not Globs((f"{stars}x.py",))(f"{deep}/y.py")


# --- 6. a tracked file replaced by a FIFO, symlinks out of the repository ------------------------------------


@posix_only
@pytest.mark.parametrize("args", [("check",), ("check", "--worktree")])
def test_a_tracked_file_replaced_by_a_fifo_is_a_warning(make_repo: RepoFactory, graphguard_cli: Run, args: tuple[str, ...]) -> None:
    repo = make_repo(LIB)
    repo.path("pkg/use.py").unlink()
    os.mkfifo(repo.path("pkg/use.py"))
    r = graphguard_cli(repo, *args, "--format", "json", timeout=60)  # blocked for ever in open() before
    assert r.code in (0, 1), r.err
    assert {"path": "pkg/use.py", "message": "not a regular file; not checked"} in json.loads(r.out)["warnings"]


@posix_only
def test_a_symlinked_folder_is_not_followed_out_of_the_repository(make_repo: RepoFactory, graphguard: Run, tmp_path: Path) -> None:
    repo = make_repo({**LIB, "pkg/sub/__init__.py": "", "pkg/sub/secret.py": "def s(a):\n    return a\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def s(a, outside_only):\n    return a\n")
    for name in ("__init__.py", "secret.py"):
        repo.path(f"pkg/sub/{name}").unlink(missing_ok=True)
    repo.path("pkg/sub").rmdir()
    repo.path("pkg/sub").symlink_to(outside, target_is_directory=True)
    r = graphguard(repo, "check", "--worktree", "--format", "json")
    assert r.code in (0, 1), r.err
    assert "outside_only" not in r.out  # read through the link before
    assert {"path": "pkg/sub/secret.py", "message": "reached through a symlink in its path; not checked"} in r.json["warnings"]


# --- configuration -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pyproject", "says"),
    [
        ("tool = 5\n", "'tool' must be a table"),
        ("[tool.graphguard]\nblock_on = ['nonsense']\n", "'block_on' has unknown 'nonsense'"),
        ("[tool.graphguard]\nblock-on = ['removed', 'param-removed:x', 'nonsense:x']\n", "'block-on' has unknown 'nonsense:x'"),
    ],
    ids=["tool-not-a-table", "block-on-nonsense", "block-on-code-with-detail"],
)
def test_a_bad_configuration_is_a_one_line_error(make_repo: RepoFactory, graphguard: Run, pyproject: str, says: str) -> None:
    repo = make_repo({**LIB, "pyproject.toml": pyproject})
    line = _one_line_error(graphguard(repo, "check"))
    assert says in line and "pyproject.toml" in line


def test_block_on_takes_every_change_kind_and_code_and_nothing_else(make_repo: RepoFactory, graphguard: Run) -> None:
    kinds = ", ".join(f"'{k.value}'" for k in ChangeKind)  # a kind added to the enum is valid at once
    repo = make_repo({**LIB, ".graphguard.toml": f"block_on = [{kinds}, 'param-removed:a', 'params-reordered']\n"})
    assert graphguard(repo, "check").code == 0
    repo.commit("config", {".graphguard.toml": f"block_on = [{kinds}, 'param-removd']\n"})
    assert "'block_on' has unknown 'param-removd'" in _one_line_error(graphguard(repo, "check"))


@posix_only
@pytest.mark.parametrize("name", [".graphguard.toml", "pyproject.toml"])
def test_a_symlinked_configuration_is_not_applied(make_repo: RepoFactory, graphguard_cli: Run, tmp_path: Path, name: str) -> None:
    outside = tmp_path / "elsewhere.toml"
    outside.write_text(("[tool.graphguard]\n" if name == "pyproject.toml" else "") + "block_on = ['signature']\n")
    repo = make_repo(LIB)
    repo.path(name).symlink_to(outside)
    repo.write({"pkg/mod.py": "def f(a, b=None):\n    return a\n"})  # a change that breaks no caller
    r = graphguard_cli(repo, "check")
    assert r.code == 0, r.out + r.err  # block_on from outside the repository blocked it before
    assert f"{name} is a symlink; ignored" in r.err


# --- pre-processing must not change what a file means --------------------------------------------------------


def test_a_docstring_line_that_starts_with_a_hash_is_text(make_repo: RepoFactory, graphguard: Run) -> None:
    # sqlalchemy test/orm/declarative/test_typed_mapping.py:2664: the docstring ends on a `#...` line.
    repo = make_repo({**LIB, "pkg/doc.py": '''from pkg.mod import f


def documented():
    """See issue

        #12207"""
    return f(1)
'''})
    assert graphguard(repo, "index").code == 0
    assert "syntax error" not in graphguard(repo, "stats").out
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    r = graphguard(repo, "check", "--format", "json")
    assert _broken(r) == {"pkg/use.py", "pkg/doc.py"}
