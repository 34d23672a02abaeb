"""`graphguard refresh`: when it has work to do, that it never fails a git operation, and that no
interruption or concurrent run leaves the graph unusable."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard.errors import LockTimeout
from graphguard.main import main
from graphguard.repo import open_repo
from graphguard.store.lock import Lock
from tests.helpers import GIT_LEAKS, GitRepo, Result, cli_command, reap, run_git, settled_meta, stored_meta

Run = Callable[..., Result]

LIB = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1)\n",
}
PRE_COMMIT_VARS = ("PRE_COMMIT_CHECKOUT_TYPE", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_IS_SQUASH_MERGE",
                   "_PRE_COMMIT_SKIP_POST_CHECKOUT")


@pytest.fixture(autouse=True)
def no_pre_commit_vars(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PRE_COMMIT_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def stale(make_repo: Callable[..., GitRepo], graphguard: Run) -> tuple[GitRepo, str, str]:
    """A repository whose graph describes its previous commit: (repo, old, new)."""
    repo = make_repo(LIB)
    old = repo.head
    r = graphguard(repo, "index")
    assert r.code == 0, r.err
    assert stored_meta(repo) == old
    new = repo.commit("second", {"pkg/other.py": "from pkg.mod import f\n\n\ndef h():\n    return f(3)\n"})
    assert stored_meta(repo) == old
    return repo, old, new


def stored_schema(repo: GitRepo) -> bool:
    """Whether the graph file holds the schema yet (a killed first run may leave an empty file)."""
    if not repo.graph_path.exists():
        return False
    conn = sqlite3.connect(repo.graph_path)
    try:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is not None
    finally:
        conn.close()


def hook_impl(repo: GitRepo, hook: str, *args: str, capsys: pytest.CaptureFixture[str]) -> Result:
    """What the native hook script runs: `hook-impl --hook-type T -- ARGS` (git's arguments last, after `--`)."""
    code = main(["hook-impl", "--repo", str(repo.root), "--hook-type", hook, "--", *args])
    out = capsys.readouterr()
    return Result(code, out.out, out.err)


def graph_integrity(repo: GitRepo) -> str:
    conn = sqlite3.connect(repo.graph_path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


# --- when there is work to do -------------------------------------------------------------------


def test_plain_refresh_brings_the_graph_to_head(stale: tuple[GitRepo, str, str], graphguard: Run) -> None:
    repo, _, new = stale
    r = graphguard(repo, "refresh")
    assert (r.code, r.out, r.err) == (0, "", "")
    assert stored_meta(repo) == new


def test_refresh_without_a_graph_builds_it(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "refresh").code == 0
    assert stored_meta(repo) == repo.head


@pytest.mark.parametrize(
    ("hook", "args", "updates"),
    [
        pytest.param("post-checkout", ("{old}", "{new}", "0"), False, id="post-checkout-file"),
        pytest.param("post-checkout", ("{old}", "{new}", "1"), True, id="post-checkout-branch"),
        pytest.param("post-checkout", ("{new}", "{new}", "1"), False, id="post-checkout-same-commit"),
        pytest.param("post-merge", ("1",), False, id="post-merge-squash"),
        pytest.param("post-merge", ("0",), True, id="post-merge"),
        pytest.param("post-rewrite", ("amend",), True, id="post-rewrite"),
        pytest.param("post-commit", (), True, id="post-commit"),
    ],
)
def test_native_hook_arguments(
    stale: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    hook: str, args: tuple[str, ...], updates: bool,
) -> None:
    repo, old, new = stale
    argv = [a.format(old=old, new=new) for a in args]
    # git writes post-rewrite's mapping to the hook's stdin
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{old} {new}\n" if hook == "post-rewrite" else ""))
    r = hook_impl(repo, hook, *argv, capsys=capsys)
    assert (r.code, r.err) == (0, "")
    assert settled_meta(repo) == (new if updates else old)
    # A hook that had nothing to do started no refresher.
    assert (repo.root / ".git" / "graphguard" / "refresh.log").exists() == updates


@pytest.mark.parametrize(
    ("env", "updates"),
    [
        pytest.param({"PRE_COMMIT_CHECKOUT_TYPE": "0", "PRE_COMMIT_FROM_REF": "{old}", "PRE_COMMIT_TO_REF": "{new}"}, False, id="file-checkout"),
        pytest.param({"PRE_COMMIT_CHECKOUT_TYPE": "1", "PRE_COMMIT_FROM_REF": "{old}", "PRE_COMMIT_TO_REF": "{new}"}, True, id="branch-checkout"),
        pytest.param({"PRE_COMMIT_CHECKOUT_TYPE": "1", "PRE_COMMIT_FROM_REF": "{new}", "PRE_COMMIT_TO_REF": "{new}"}, False, id="same-commit"),
        pytest.param({"PRE_COMMIT_IS_SQUASH_MERGE": "1"}, False, id="squash-merge"),
        pytest.param({"PRE_COMMIT_IS_SQUASH_MERGE": "0"}, True, id="merge"),
        pytest.param({"_PRE_COMMIT_SKIP_POST_CHECKOUT": "1", "PRE_COMMIT_CHECKOUT_TYPE": "1"}, False, id="pre-commit-stash"),
        pytest.param({"PRE_COMMIT_REWRITE_COMMAND": "rebase"}, True, id="post-rewrite"),
    ],
)
def test_pre_commit_framework_variables(
    stale: tuple[GitRepo, str, str], graphguard: Run, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], updates: bool
) -> None:
    """The framework calls `graphguard refresh` with no arguments and says what happened in PRE_COMMIT_*."""
    repo, old, new = stale
    monkeypatch.setenv("PRE_COMMIT", "1")  # the framework sets it for every hook it runs
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(old=old, new=new))
    r = graphguard(repo, "refresh")
    assert (r.code, r.err) == (0, "")
    assert settled_meta(repo) == (new if updates else old)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("stats", "--format", "json"), id="stats"),
        pytest.param(("callers", "pkg.mod.f", "--format", "json"), id="callers"),
        pytest.param(("check", "--staged"), id="check"),
    ],
)
def test_commands_catch_up_with_head_moved_without_a_hook(stale: tuple[GitRepo, str, str], graphguard: Run, args: tuple[str, ...]) -> None:
    repo, _, new = stale
    r = graphguard(repo, *args)
    assert r.code == 0, r.err
    assert stored_meta(repo) == new
    if args[0] == "callers":
        assert "pkg/other.py" in r.out  # a caller only the new commit has


# --- a post-* hook never fails ------------------------------------------------------------------


def _one_warning(r: Result) -> str:
    assert r.code == 0
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert lines[0].startswith("graphguard: warning: graph not refreshed")
    assert "Traceback" not in r.err
    return lines[0]


def test_refresh_error_is_a_warning_and_a_log(stale: tuple[GitRepo, str, str], graphguard: Run) -> None:
    repo, old, _ = stale
    repo.write({".graphguard.toml": "no_such_key = 1\n"})
    r = graphguard(repo, "refresh")
    line = _one_warning(r)
    assert "no_such_key" in line
    log = repo.root / ".git" / "graphguard" / "hook.log"
    assert "hook.log" in line
    assert "no_such_key" in log.read_text()
    assert stored_meta(repo) == old


def test_corrupt_graph_is_a_warning_and_a_log(
    stale: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite cannot see this corruption (the schema version is right, a table is gone): refresh fails, git does not."""
    monkeypatch.setenv("GRAPHGUARD_REFRESH", "foreground")
    repo, _, _ = stale
    conn = sqlite3.connect(repo.graph_path)
    conn.execute("DROP TABLE meta")
    conn.commit()
    conn.close()
    r = hook_impl(repo, "post-merge", "0", capsys=capsys)
    _one_warning(r)
    log = (repo.root / ".git" / "graphguard" / "hook.log").read_text()
    assert "Traceback" in log and "meta" in log


def test_unusable_store_is_a_warning_and_a_log(stale: tuple[GitRepo, str, str], graphguard_cli: Run) -> None:
    """The graph file cannot be opened at all (here: a directory stands where it should be)."""
    repo, _, _ = stale
    graph = repo.graph_path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{graph}{suffix}").unlink(missing_ok=True)
    graph.mkdir()
    (graph / "keep").write_text("")
    r = graphguard_cli(repo, "refresh")
    assert r.code == 0
    assert "Traceback" not in r.err
    assert r.err.strip().splitlines()[-1].startswith("graphguard: warning: graph not refreshed")
    assert (repo.root / ".git" / "graphguard" / "hook.log").read_text().strip()


@pytest.mark.parametrize("mode", ["foreground", "background"])
def test_native_post_checkout_hook_never_fails_git(
    stale: tuple[GitRepo, str, str], graphguard: Run, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """In the foreground the error is a warning line; in the background the refresher's log says it, and
    the next command, which finds the graph stale and no refresher running, tries itself and fails clearly."""
    monkeypatch.setenv("GRAPHGUARD_REFRESH", mode)
    repo, old, _ = stale
    assert graphguard(repo, "install").code == 0
    repo.write({".graphguard.toml": "exclude = 'not a list'\n"})
    proc = run_git(repo, "checkout", "-q", old)
    assert proc.returncode == 0, proc.stdout
    assert repo.head == old
    if mode == "foreground":
        assert "graph not refreshed" in proc.stdout and "exclude" in proc.stdout
        return
    assert proc.stdout == ""
    assert settled_meta(repo) == old  # where it was: the refresher stopped at the configuration
    log = (repo.root / ".git" / "graphguard" / "refresh.log").read_text()
    assert "graph not refreshed" in log and "exclude" in log
    r = graphguard(repo, "stats")
    assert r.code == 2 and "exclude" in r.err and "Traceback" not in r.err


# --- interruptions and concurrency --------------------------------------------------------------


def _many_files(n: int, tag: str = "") -> dict[str, str]:
    files = {}
    for i in range(n):
        prev = f"from pkg.m{i - 1} import f{i - 1}\n\n\n" if i else ""
        call = f"f{i - 1}(x)" if i else "x"
        files[f"pkg/m{i}.py"] = f'{prev}def f{i}(x{tag}):\n    """{tag}"""\n    return {call}\n\n\nclass C{i}:\n    def m(self, y):\n        return f{i}(y)\n'
    return files


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}


def _start(repo: GitRepo, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cli_command(*args), cwd=repo.root, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )


@pytest.fixture
def big(make_repo: Callable[..., GitRepo]) -> GitRepo:
    return make_repo({"pkg/__init__.py": "", **_many_files(300)})


def _wait_until_updating(repo: GitRepo, proc: subprocess.Popen[bytes]) -> bool:
    """Poll until the refresh holds the write lock on a created graph (it is then mid-update); False if it ended first."""
    folder = repo.root / ".git" / "graphguard"
    folder.mkdir(parents=True, exist_ok=True)
    lock = Lock(str(folder / "write.lock"))
    deadline = time.monotonic() + 60  # only against hanging
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            lock.acquire(0)
        except LockTimeout:
            if stored_schema(repo):
                return True
        else:
            lock.release()
        time.sleep(0.005)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["0.1s", "0.4s", "1.0s", "holding-the-lock"])
@pytest.mark.parametrize("start", ["cold", "incremental"])
def test_kill_during_refresh_leaves_a_usable_graph(big: GitRepo, graphguard_cli: Run, moment: str, start: str) -> None:
    old = None
    if start == "incremental":
        assert graphguard_cli(big, "refresh").code == 0
        old = big.head
        big.commit("touch all", _many_files(300, tag=", z=0"))
    proc = _start(big, "refresh")
    try:
        if moment == "holding-the-lock":
            assert _wait_until_updating(big, proc), "the refresh ended before it took the lock"
        else:
            time.sleep(float(moment[:-1]))  # not a timed assertion: any moment must do
        proc.kill()
        proc.wait(timeout=30)
    finally:
        reap(proc)
    if big.graph_path.exists():
        assert graph_integrity(big) == "ok"
        # One transaction each: no schema yet (killed while creating it), the previous graph
        # as it was, or the new one complete.
        has_schema = stored_schema(big)
        assert not has_schema or stored_meta(big) in {old, big.head}
        assert has_schema or old is None
    r = graphguard_cli(big, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["head"] == big.head
    assert r.json["files"] == 301
    r = graphguard_cli(big, "refresh")
    assert (r.code, r.err) == (0, "")
    assert stored_meta(big) == big.head
    assert graph_integrity(big) == "ok"


@pytest.mark.parametrize("round_", range(3))
def test_two_concurrent_refreshes(make_repo: Callable[..., GitRepo], round_: int) -> None:
    repo = make_repo({"pkg/__init__.py": "", **_many_files(40)})
    procs = [_start(repo, "refresh") for _ in range(2)]
    try:
        results = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            reap(p)
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err
        # Neither run took the other's fresh database for a broken one.
        assert b"rebuilding" not in err and b"warning" not in err, err
    assert graph_integrity(repo) == "ok"
    assert stored_meta(repo) == repo.head
    conn = sqlite3.connect(repo.graph_path)
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 41
    conn.close()


def test_refresh_while_another_holds_the_lock_skips(stale: tuple[GitRepo, str, str], graphguard_cli: Run) -> None:
    repo, old, new = stale
    store = open_repo(str(repo.root)).store
    try:
        with store.write_lock(timeout=5):
            r = graphguard_cli(repo, "refresh", timeout=60)  # the timeout only guards against a deadlock
            assert r.code == 0
            assert "another process is updating the graph" in r.err
            assert len(r.err.strip().splitlines()) == 1
            assert stored_meta(repo) == old
    finally:
        store.close()
    r = graphguard_cli(repo, "refresh")
    assert (r.code, r.err) == (0, "")
    assert stored_meta(repo) == new
