"""The store on disk when the disk misbehaves: damaged rows and pages heal, storage errors are one line
that names the cause, and nothing is read or written outside the repository and its .git."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphguard.error_handler import Exit, error_handler
from tests.graphdump import dump
from tests.helpers import GIT_LEAKS, GitRepo, Result, cli_command, init_repo, run_git, settled_meta

Run = Callable[..., Result]
ROOT = os.geteuid() == 0
NOBODY = 65534

LIB = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1)\n",
}
CALLERS = {("pkg/use.py", 1), ("pkg/use.py", 5)}


def store_dir(repo: GitRepo) -> Path:
    return repo.root / ".git" / "graphguard"


def callers_of_f(r: Result) -> set[tuple[str, int]]:
    assert r.code == 0, r.err
    return {(c["path"], c["line"]) for c in r.json["callers"]}


def one_line(r: Result, code: int = 2) -> str:
    """The run failed (or warned) with exactly one line on stderr and no traceback; that line."""
    assert r.code == code, (r.code, r.err)
    assert "Traceback" not in r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    return lines[0]


# --- damaged blob-cache rows -------------------------------------------------------------------


def _damage_facts(repo: GitRepo, blob_path: str, sql_value: str) -> None:
    """Replace the cached facts of one file's blob with `sql_value`, then drop the graph so that a
    rebuild reads every cached row."""
    sha = repo.git("rev-parse", f"HEAD:{blob_path}")
    conn = sqlite3.connect(store_dir(repo) / "blobs.sqlite3")
    assert conn.execute(f"UPDATE blobs SET facts = {sql_value} WHERE sha = ?", (sha,)).rowcount == 1
    conn.commit()
    conn.close()
    os.remove(repo.graph_path)


def test_undecodable_blob_row_is_reparsed_with_a_warning(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    """Invalid UTF-8 in a facts row (a disk error) was an OperationalError from every command, forever."""
    repo = make_repo(LIB)
    assert graphguard_cli(repo, "index").code == 0
    _damage_facts(repo, "pkg/use.py", "CAST(X'7b22ff22fe7d' AS TEXT)")
    r = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json")
    assert callers_of_f(r) == CALLERS
    assert "damaged" in one_line(r, code=0)
    again = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json")
    assert callers_of_f(again) == CALLERS and again.err == ""  # healed: the row was written again


def test_silently_changed_blob_row_is_caught_by_its_checksum(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    """Valid JSON with one name changed: only a checksum tells it from the real facts."""
    repo = make_repo(LIB)
    assert graphguard_cli(repo, "index").code == 0
    fresh = dump(repo.graph_path)
    _damage_facts(repo, "pkg/use.py", "CAST(replace(CAST(facts AS TEXT), '\"f\"', '\"q\"') AS BLOB)")
    r = graphguard_cli(repo, "index")
    assert "damaged" in one_line(r, code=0)
    assert dump(repo.graph_path) == fresh


# --- damaged graph pages -----------------------------------------------------------------------


def test_damaged_index_page_no_query_reads_is_found_by_stats(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    """An index page neither `stats` nor `callers` reads: SQLite alone never notices it; integrity_check does."""
    files = {**LIB, **{f"pkg/use{i}.py": LIB["pkg/use.py"] * 3 for i in range(30)}}
    repo = make_repo(files)
    assert graphguard_cli(repo, "index").code == 0
    conn = sqlite3.connect(repo.graph_path)
    (root_page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'symbols_name'").fetchone()
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    data = bytearray(repo.graph_path.read_bytes())
    start = (root_page - 1) * page_size
    data[start + 8 : start + page_size] = b"\xa5" * (page_size - 8)
    repo.graph_path.write_bytes(bytes(data))
    r = graphguard_cli(repo, "stats", "--format", "json")
    assert "damaged" in one_line(r, code=0) and "rebuilding" in r.err
    assert r.json["files"] == 33
    conn = sqlite3.connect(repo.graph_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


# --- files and directories where the store expects others ----------------------------------------


def test_graph_path_that_is_a_directory_is_named(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    """Was "busy; try again", forever."""
    repo = make_repo(LIB)
    repo.graph_path.mkdir(parents=True)
    line = one_line(graphguard_cli(repo, "stats"))
    assert "is a directory" in line and "busy" not in line and str(repo.graph_path) in line


def test_store_dir_that_is_a_file_is_named(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    repo = make_repo(LIB)
    store_dir(repo).write_text("not a directory\n")
    line = one_line(graphguard_cli(repo, "callers", "pkg.mod.f"))
    assert "is not a directory" in line and str(store_dir(repo)) in line


def test_file_size_limit_is_named_not_a_crash(make_repo: Callable[..., GitRepo]) -> None:
    """Past `ulimit -f` a write fails with EFBIG (Python ignores SIGXFSZ): it said "busy; try again"."""
    repo = make_repo({**LIB, **{f"pkg/use{i}.py": LIB["pkg/use.py"] * 20 for i in range(40)}})
    script = "ulimit -f 100; exec " + " ".join(cli_command("index"))
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    proc = subprocess.run(["bash", "-c", script], cwd=repo.root, capture_output=True, text=True, env=env, check=False)
    line = one_line(Result(proc.returncode, proc.stdout, proc.stderr))
    assert "file size limit" in line and "102400 bytes" in line and "busy" not in line


@contextlib.contextmanager
def _tmpfs(mnt: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` at `mnt` (root with mount rights only: elsewhere the test is skipped)."""
    mnt.mkdir()
    if not ROOT or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True,
                                  check=False).returncode:
        pytest.skip("a full disk needs a tmpfs mount (root with CAP_SYS_ADMIN)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs."""
    with _tmpfs(tmp_path / "small_disk", "2m") as mnt:
        yield mnt


@pytest.fixture
def disk_8m(tmp_path: Path) -> Iterator[Path]:
    """An 8 MB tmpfs: room for a repository of 400 files and the start of its graph."""
    with _tmpfs(tmp_path / "disk_8m", "8m") as mnt:
        yield mnt


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def test_full_disk_is_named(small_disk: Path, graphguard_cli: Run) -> None:
    """Was "busy (database or disk is full); try again"."""
    repo = init_repo(small_disk / "repo", {**LIB, **{f"pkg/use{i}.py": LIB["pkg/use.py"] for i in range(60)}})
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    (small_disk / "filler").write_bytes(b"\0" * (free - 150 * 1024))
    line = one_line(graphguard_cli(repo, "index"))
    assert "the disk is full" in line and "busy" not in line


@pytest.mark.parametrize("room_kb", [300, 500, 700])  # the write fails at different stages: resolution, the graph's write
def test_a_first_index_that_fills_the_disk_removes_what_it_wrote(disk_8m: Path, graphguard_cli: Run, room_kb: int) -> None:
    """It failed cleanly but left no byte free (the graph's -wal and -shm, the workers' scratch databases), so the
    next `git add` failed too."""
    repo = init_repo(disk_8m / "repo", {**LIB, **{f"pkg/use{i}.py": LIB["pkg/use.py"] for i in range(400)}})
    (disk_8m / "filler").write_bytes(b"\0" * (_free(disk_8m) - room_kb * 1024))
    free = _free(disk_8m)
    line = one_line(graphguard_cli(repo, "index"))
    assert "the disk is full" in line and "busy" not in line
    assert _free(disk_8m) == free
    left = sorted(p.name for p in store_dir(repo).rglob("*") if p.is_file())
    assert left == ["write.lock"], left  # empty: the lock
    (repo.root / "pkg" / "new.py").write_text("def n():\n    return 1\n" * 400)
    assert repo.git("add", "pkg/new.py") == ""  # raised (no space left on device) before


# --- symbolic links are never followed ------------------------------------------------------------


@pytest.mark.parametrize("name", ["graph.sqlite3", "blobs.sqlite3", "write.lock"])
def test_symlink_at_a_store_path_is_replaced_not_followed(make_repo: Callable[..., GitRepo], graphguard_cli: Run,
                                                          tmp_path: Path, name: str) -> None:
    """A dangling link made SQLite create a database wherever it pointed."""
    repo = make_repo(LIB)
    store_dir(repo).mkdir()
    outside = tmp_path / "outside" / "target"
    outside.parent.mkdir()
    (store_dir(repo) / name).symlink_to(outside)
    r = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json")
    assert callers_of_f(r) == CALLERS
    assert "symbolic link" in one_line(r, code=0)
    assert not outside.exists() and not list(outside.parent.iterdir())
    assert not (store_dir(repo) / name).is_symlink()


def test_store_dir_that_is_a_symlink_is_refused(make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path) -> None:
    repo = make_repo(LIB)
    outside = tmp_path / "outside"
    outside.mkdir()
    store_dir(repo).symlink_to(outside)
    line = one_line(graphguard_cli(repo, "index"))
    assert "symbolic link" in line and str(store_dir(repo)) in line
    assert one_line(graphguard_cli(repo, "refresh"), code=0).startswith("graphguard: warning: graph not refreshed")
    assert not list(outside.iterdir())


def test_symlink_at_the_hook_log_is_not_followed(make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path) -> None:
    repo = make_repo(LIB)
    assert graphguard_cli(repo, "index").code == 0
    conn = sqlite3.connect(repo.graph_path)
    conn.execute("DROP TABLE meta")  # a refresh that fails, and would log
    conn.commit()
    conn.close()
    outside = tmp_path / "outside.log"
    (store_dir(repo) / "hook.log").symlink_to(outside)
    repo.commit("more", {"pkg/other.py": "x = 1\n"})
    line = one_line(graphguard_cli(repo, "refresh"), code=0)
    assert line.startswith("graphguard: warning: graph not refreshed") and "hook.log" not in line
    assert not outside.exists()


def _crash(repo: str | None) -> None:
    with pytest.raises(Exit), error_handler(repo=repo):
        raise ValueError("boom")


def test_crash_log_is_written_inside_the_store(make_repo: Callable[..., GitRepo], capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(LIB)
    store_dir(repo).mkdir()
    _crash(str(repo.root))
    log = store_dir(repo) / "crash.log"
    assert f"traceback in {log}" in capsys.readouterr().err
    assert "ValueError: boom" in log.read_text()


def test_crash_log_never_follows_a_planted_symlink(make_repo: Callable[..., GitRepo], capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It was a fixed name in the temp directory, opened through any link planted there."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    (temp / "graphguard-crash.log").symlink_to(victim)  # the old fixed name
    repo = make_repo(LIB)
    store_dir(repo).mkdir()
    (store_dir(repo) / "crash.log").symlink_to(victim)
    for where in (str(repo.root), None):
        _crash(where)
        err = capsys.readouterr().err
        log = Path(err.split("traceback in ")[1].split(";")[0])
        assert log.parent == temp and log.name != "graphguard-crash.log" and not log.is_symlink()
        assert "ValueError: boom" in log.read_text() and (log.stat().st_mode & 0o777) == 0o600
    assert victim.read_text() == "precious\n"


# --- FIFOs, sockets and devices are never waited on ----------------------------------------------
#
# open() of a FIFO waits for the other end: one at a log or lock held `git checkout` (and the refresh lock)
# for as long as nobody came. A CI cache restored with tar keeps FIFOs. Each run below has a timeout, so
# that the code before the fix fails instead of hanging the suite.

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="mkfifo and AF_UNIX sockets")
NO_HANG = 60.0  # seconds: only against hanging


def _plant(path: Path, what: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if what == "fifo":
        os.mkfifo(path)
    else:
        import socket

        # A socket's path is limited to 107 bytes; xdist's temporary folders are longer: bind the
        # name relative to its folder.
        sock = socket.socket(socket.AF_UNIX)
        cwd = os.getcwd()
        os.chdir(path.parent)
        try:
            sock.bind(path.name)
        finally:
            os.chdir(cwd)
            sock.close()  # the socket file stays


@contextlib.contextmanager
def no_hang(seconds: float = NO_HANG) -> Iterator[None]:
    """In-process code that blocks in open() is interrupted (SIGALRM) instead of hanging the suite."""
    def alarm(signum: int, frame: object) -> None:
        raise TimeoutError(f"still blocked after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@posix_only
@pytest.mark.parametrize(("name", "what"), [("graph.sqlite3", "fifo"), ("graph.sqlite3", "socket"), ("graph.sqlite3-wal", "fifo"),
                                            ("blobs.sqlite3", "fifo"), ("write.lock", "fifo"), ("write.lock", "socket")])
def test_a_fifo_or_socket_at_a_store_file_is_damage_removed_and_rebuilt(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run, name: str, what: str
) -> None:
    """A FIFO at graph.sqlite3 failed every command with exit 2 and was never rebuilt."""
    repo = make_repo(LIB)
    _plant(store_dir(repo) / name, what)
    r = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json", timeout=NO_HANG)
    assert callers_of_f(r) == CALLERS
    line = one_line(r, code=0)
    assert f"{store_dir(repo) / name} is a {'FIFO' if what == 'fifo' else 'socket'}, not a regular file; removing it" in line
    assert (store_dir(repo) / name).is_file() or name.endswith("-wal")  # the -wal is made again at the next write
    assert graphguard_cli(repo, "callers", "pkg.mod.f", timeout=NO_HANG).err == ""


@posix_only
@pytest.mark.parametrize("name", ["refresh.log", "refresh.lock", "refresh.json.tmp"])
def test_a_fifo_in_the_store_does_not_wedge_git(make_repo: Callable[..., GitRepo], graphguard_cli: Run, name: str) -> None:
    """`mkfifo .git/graphguard/refresh.log; git checkout -q other` hung (9 minutes observed) holding the refresh lock."""
    repo = make_repo(LIB)
    repo.git("checkout", "-q", "-b", "other")
    other = repo.commit("caller", {"pkg/other.py": "from pkg.mod import f\n\n\ndef h():\n    return f(3)\n"})
    repo.git("checkout", "-q", "main")
    assert graphguard_cli(repo, "install").code == 0
    assert graphguard_cli(repo, "index").code == 0
    _plant(store_dir(repo) / name, "fifo")
    proc = run_git(repo, "checkout", "-q", "other", timeout=NO_HANG)
    assert proc.returncode == 0, proc.stdout
    assert f"{name} is a FIFO, not a regular file; removing it" in proc.stdout
    assert settled_meta(repo) == other
    r = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json", timeout=NO_HANG)
    assert ("pkg/other.py", 5) in callers_of_f(r)
    assert not (store_dir(repo) / name).is_fifo()


@posix_only
def test_a_fifo_at_the_hook_log_is_replaced_and_the_log_written(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard_cli(repo, "index").code == 0
    conn = sqlite3.connect(repo.graph_path)
    conn.execute("DROP TABLE meta")  # a refresh that fails, and logs
    conn.commit()
    conn.close()
    _plant(store_dir(repo) / "hook.log", "fifo")
    repo.commit("more", {"pkg/other.py": "x = 1\n"})
    r = graphguard_cli(repo, "refresh", timeout=NO_HANG)
    assert r.code == 0 and "Traceback" not in r.err
    assert "hook.log is a FIFO, not a regular file; removing it" in r.err
    assert "graph not refreshed" in r.err and f"(details: {store_dir(repo) / 'hook.log'})" in r.err
    assert "no such table" in (store_dir(repo) / "hook.log").read_text()


@posix_only
def test_a_fifo_at_the_crash_log_is_replaced_and_the_traceback_written(make_repo: Callable[..., GitRepo],
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(LIB)
    _plant(store_dir(repo) / "crash.log", "fifo")
    with no_hang():
        _crash(str(repo.root))
    log = store_dir(repo) / "crash.log"
    err = capsys.readouterr().err
    assert "crash.log is a FIFO, not a regular file; removing it" in err and f"traceback in {log}" in err
    assert "ValueError: boom" in log.read_text() and (log.stat().st_mode & 0o777) == 0o600


@posix_only
def test_a_fifo_named_by_github_step_summary_is_a_warning_and_the_verdict_stands(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GITHUB_STEP_SUMMARY` naming a FIFO held the check until something read it."""
    repo = make_repo(LIB)
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    repo.git("add", "-A")
    summary = tmp_path / "summary"
    os.mkfifo(summary)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    r = graphguard_cli(repo, "check", "--format", "github", timeout=NO_HANG)
    assert r.code == 1, r.err  # the block stands
    assert "::error file=pkg/use.py" in r.out
    line = one_line(r, code=1)
    assert line == (f"graphguard: warning: step summary not written: cannot append to the step summary file {summary}"
                    f" (GITHUB_STEP_SUMMARY): {summary} is a FIFO, not a regular file")
    assert stat.S_ISFIFO(os.lstat(summary).st_mode)  # the user's: left as it was


# --- a store nobody may write ----------------------------------------------------------------------
#
# Tests run as root in CI containers, and root writes through any mode bits: there, the store is made by
# root and graphguard runs as `nobody` (setpriv), for whom root's files are read-only; as anyone else,
# chmod makes them so.

needs_setpriv = pytest.mark.skipif(ROOT and not shutil.which("setpriv"), reason="as root, read-only needs setpriv to drop to nobody")


@pytest.fixture
def public_repo() -> Iterator[GitRepo]:
    """A repository with LIB in a directory anyone can read (pytest's tmp_path is root's alone)."""
    top = Path(tempfile.mkdtemp(prefix="graphguard-ro-"))
    top.chmod(0o755)
    try:
        yield init_repo(top / "repo", LIB)
    finally:
        for d, _, _ in os.walk(top):
            os.chmod(d, 0o755)
        shutil.rmtree(top)


def run_readonly(repo: GitRepo, *args: str) -> Result:
    """graphguard as a user who may read but not write what the test made read-only."""
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    env.update(HOME=str(repo.root.parent), PYTHONDONTWRITEBYTECODE="1",
               GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0="*")
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if ROOT else []
    proc = subprocess.run([*prefix, *cli_command(*args)], cwd=repo.root, capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def make_readonly(*paths: Path) -> None:
    for p in paths:
        p.chmod(p.stat().st_mode & ~0o222)


@needs_setpriv
@pytest.mark.parametrize("what", ["directory", "files"])
def test_read_only_store_answers_queries_and_writers_say_what_they_cannot_write(
        public_repo: GitRepo, graphguard_cli: Run, what: str) -> None:
    repo = public_repo
    assert graphguard_cli(repo, "index").code == 0
    store = store_dir(repo)
    if what == "directory":
        make_readonly(store)
    else:
        make_readonly(*store.iterdir())
        if ROOT:
            store.chmod(0o777)  # nobody may make files here, but not write root's
    assert callers_of_f(run_readonly(repo, "callers", "pkg.mod.f", "--format", "json")) == CALLERS
    stats = run_readonly(repo, "stats", "--format", "json")
    assert (stats.code, stats.json["files"], stats.err) == (0, 3, "")
    assert run_readonly(repo, "check").code == 0
    assert run_readonly(repo, "index").code == 0  # current: nothing to write
    repo.commit("more", {"pkg/other.py": "from pkg.mod import f\nf(2)\n"})
    line = one_line(run_readonly(repo, "index"))
    assert "cannot write" in line and str(store) in line and "Permission denied" in line


@needs_setpriv
def test_read_only_git_dir_fails_in_one_line_and_refresh_points_to_no_log(public_repo: GitRepo) -> None:
    repo = public_repo
    make_readonly(repo.root / ".git")
    line = one_line(run_readonly(repo, "index"))
    assert f"cannot create {store_dir(repo)}" in line and "Permission denied" in line
    warning = one_line(run_readonly(repo, "refresh"), code=0)
    assert warning.startswith("graphguard: warning: graph not refreshed") and "hook.log" not in warning


def test_readonly_open_is_used_when_the_store_cannot_be_written(make_repo: Callable[..., GitRepo], graphguard: Run,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """What root cannot test with mode bits: when os.access says unwritable, the store opens read-only."""
    repo = make_repo(LIB)
    assert graphguard(repo, "index").code == 0
    gc.collect()  # the in-process run's connections close (and checkpoint) now, not during the read below
    conn = sqlite3.connect(repo.graph_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = repo.graph_path.read_bytes()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: mode != os.W_OK and real_access(p, mode, **kw))
    assert callers_of_f(graphguard(repo, "callers", "pkg.mod.f", "--format", "json")) == CALLERS
    assert repo.graph_path.read_bytes() == before
    assert sys.modules["graphguard.store.db"]._writable(str(repo.graph_path)) is False
