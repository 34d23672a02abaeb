"""The post-* hooks hand the refresh to a detached process and return; the next command waits for it
(a progress line on a TTY) or, when no refresher is alive, finishes the work itself.

The refresh is made slow deterministically by holding the graph's write lock in the test: the
refresher is then alive and blocked until the test lets go, whatever the machine's speed.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphguard.background import launcher, state, waiting
from graphguard.commands.refresh import serve
from graphguard.errors import LockTimeout
from graphguard.repo import open_repo
from graphguard.store import Store
from graphguard.store.lock import Lock
from tests.graphdump import dump
from tests.helpers import (
    GIT_LEAKS,
    LIB,
    GitRepo,
    Result,
    cli_command,
    reap,
    refresher_processes,
    refresher_running,
    run_git,
    settled_meta,
    stored_meta,
    wait_for_refresher,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork, flock, pty and /proc")

Run = Callable[..., Result]
CALLER = {"pkg/other.py": "from pkg.mod import f\n\n\ndef h():\n    return f(3)\n"}
DEADLINE = 60.0  # only against hanging: every wait below ends on an event


def _env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in GIT_LEAKS}, **extra}


@pytest.fixture
def hooked(make_repo: Callable[..., GitRepo], graphguard: Run) -> tuple[GitRepo, str, str]:
    """Native hooks installed and the graph at main; branch `topic` adds a caller of pkg.mod.f: (repo, main, topic)."""
    repo = make_repo(LIB)
    main = repo.head
    repo.git("checkout", "-q", "-b", "topic")
    topic = repo.commit("caller", CALLER)
    repo.git("checkout", "-q", "main")
    assert graphguard(repo, "install").code == 0
    assert graphguard(repo, "index").code == 0
    assert stored_meta(repo) == main
    return repo, main, topic


@pytest.fixture
def store(hooked: tuple[GitRepo, str, str]) -> Iterator[Store]:
    s = open_repo(str(hooked[0].root)).store
    yield s
    s.close()


def _state(repo: GitRepo) -> dict[str, object]:
    return dict(json.loads((repo.graph_path.parent / "refresh.json").read_text()))


def _refresher_pid(repo: GitRepo) -> int:
    """The live refresher's pid, once it has written it (the launcher writes the file without one)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        pid = _state(repo).get("pid")
        if isinstance(pid, int):
            return pid
        time.sleep(0.01)
    raise AssertionError("the refresher never wrote its pid")


def _log(repo: GitRepo) -> str:
    return (repo.graph_path.parent / "refresh.log").read_text()


def _read_until(fd: int, wanted: bytes) -> bytes:
    """Read a pty's master side until `wanted` appears."""
    seen = b""
    deadline = time.monotonic() + DEADLINE
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the other side closed
                break
    return seen


def _drain(fd: int) -> bytes:
    out = b""
    while select.select([fd], [], [], 0.2)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def _start(repo: GitRepo, *args: str, stderr: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cli_command(*args), cwd=repo.root, env=_env(), stdout=subprocess.PIPE, stderr=stderr,
                            start_new_session=True)


def _callers(out: bytes) -> set[str]:
    return {c["path"] for c in json.loads(out)["callers"]}


# --- the hook returns, the next command waits ---------------------------------------------------


def test_hook_returns_while_the_refresh_runs_and_the_next_command_waits_for_it(
    hooked: tuple[GitRepo, str, str], store: Store
) -> None:
    repo, main, topic = hooked
    master = cmd = None
    try:
        with store.write_lock(5):
            # stdout and stderr are pipes, as in an IDE: git returns only once every copy is closed.
            proc = run_git(repo, "checkout", "-q", "topic")
            assert (proc.returncode, proc.stdout) == (0, "")
            assert refresher_running(repo)
            pid = _refresher_pid(repo)
            # A session of its own without a terminal: closing the terminal, or ^C in it, does not reach it.
            assert os.getsid(pid) != os.getsid(0)
            assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[4] == "0"  # tty_nr
            fds = {n: os.readlink(f"/proc/{pid}/fd/{n}") for n in (0, 1, 2)}
            assert fds[0] == os.devnull
            assert fds[1] == fds[2] == str(repo.graph_path.parent / "refresh.log")
            master, slave = pty.openpty()
            cmd = _start(repo, "callers", "pkg.mod.f", "--format", "json", stderr=slave)
            os.close(slave)
            seen = _read_until(master, b"(")
            seen += _read_until(master, b"so far) ...")
            assert b"\rgraphguard: waiting for the graph refresh started by post-checkout (" in seen, seen
            assert cmd.poll() is None
            assert stored_meta(repo) == main
        out, _ = cmd.communicate(timeout=120)
        tail = _drain(master)
    finally:
        if cmd is not None:
            reap(cmd)
        if master is not None:
            os.close(master)
    assert cmd.returncode == 0, tail
    assert "pkg/other.py" in _callers(out)  # the new HEAD's caller: the answer describes the finished graph
    assert stored_meta(repo) == topic
    # The command answered once the graph was current; the refresher goes on with the text index, then logs.
    assert wait_for_refresher(repo)
    assert f"updated to {topic}" in _log(repo)  # the refresher did the work, not the command
    assert b"Traceback" not in seen + tail


def test_a_first_refresh_that_builds_the_graph_is_waited_for_too(
    make_repo: Callable[..., GitRepo], graphguard: Run
) -> None:
    """No graph yet (hooks installed in a fresh clone): the command waits instead of creating it beside the refresher."""
    repo = make_repo(LIB)
    repo.git("checkout", "-q", "-b", "topic")
    topic = repo.commit("caller", CALLER)
    repo.git("checkout", "-q", "main")
    assert graphguard(repo, "install").code == 0
    assert not repo.graph_path.exists()
    store = open_repo(str(repo.root)).store
    master = cmd = None
    try:
        with store.write_lock(5):
            assert run_git(repo, "checkout", "-q", "topic").returncode == 0
            assert refresher_running(repo)
            master, slave = pty.openpty()
            cmd = _start(repo, "callers", "pkg.mod.f", "--format", "json", stderr=slave)
            os.close(slave)
            seen = _read_until(master, b"waiting for the graph refresh started by post-checkout")
            assert b"waiting for the graph refresh started by post-checkout" in seen, seen
        out, _ = cmd.communicate(timeout=120)
    finally:
        if cmd is not None:
            reap(cmd)
        if master is not None:
            os.close(master)
        store.close()
    assert cmd.returncode == 0
    assert "pkg/other.py" in _callers(out)
    assert wait_for_refresher(repo)  # it logs once the text index, built after the graph, is done too
    assert f"updated to {topic}" in _log(repo)


def test_refresh_by_the_pre_commit_framework_runs_in_the_background(hooked: tuple[GitRepo, str, str], store: Store) -> None:
    """`graphguard refresh` under the framework (PRE_COMMIT=1, its post-checkout variables) detaches too."""
    repo, main, topic = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic")
    env = _env(PRE_COMMIT="1", PRE_COMMIT_CHECKOUT_TYPE="1", PRE_COMMIT_FROM_REF=main, PRE_COMMIT_TO_REF=topic)
    with store.write_lock(5):
        proc = subprocess.run(cli_command("refresh"), cwd=repo.root, env=env, capture_output=True, timeout=60, check=False)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
        assert refresher_running(repo)
        assert _state(repo)["hook"] == "post-checkout"
    assert settled_meta(repo) == topic


def test_a_command_without_a_tty_says_why_it_waits_and_how_long_afterwards(
    hooked: tuple[GitRepo, str, str], store: Store, graphguard: Run
) -> None:
    """A refresher that lets go without finishing (here: the test's stand-in) leaves the work to the command. Without
    a terminal (an IDE, the framework's capture) the wait is said in plain lines, not only afterwards."""
    repo, _, topic = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic")
    lock = Lock(str(repo.graph_path.parent / state.LOCK_NAME))
    lock.acquire(0)
    state.write_state(str(repo.graph_path.parent), "post-merge", time.time(), pid=os.getpid())
    timer = threading.Timer(2.0, lock.release)
    timer.start()
    try:
        r = graphguard(repo, "stats", "--format", "json")
    finally:
        timer.join()
    assert r.code == 0, r.err
    assert r.json["head"] == topic
    lines = r.err.splitlines()
    assert lines[0].startswith("graphguard: waiting for the graph refresh started by post-merge ("), r.err
    assert any(line.startswith("graphguard: waited ") and line.endswith("for the graph refresh started by post-merge")
               for line in lines), r.err


def test_a_refresher_that_never_ends_is_waited_for_within_a_bound(
    hooked: tuple[GitRepo, str, str], graphguard: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _, _ = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic")
    monkeypatch.setattr(waiting, "WAIT_LIMIT", 0.3)
    lock = Lock(str(repo.graph_path.parent / state.LOCK_NAME))
    lock.acquire(0)
    try:
        state.write_state(str(repo.graph_path.parent), "post-rewrite", time.time() - 5, pid=os.getpid())
        r = graphguard(repo, "callers", "pkg.mod.f")
    finally:
        lock.release()
    assert r.code == 2
    line = r.err.strip()
    assert line.startswith("graphguard: error: the graph refresh started by post-rewrite is still running"), line
    assert "refresh.log" in line and f"kill {os.getpid()}" in line and len(line.splitlines()) == 1


def test_the_commit_hook_does_not_wait_when_nothing_runs(hooked: tuple[GitRepo, str, str]) -> None:
    """A commit after a finished refresh: the pre-commit check finds the graph current and no refresher."""
    repo, _, topic = hooked
    assert run_git(repo, "checkout", "-q", "topic").returncode == 0
    assert settled_meta(repo) == topic
    repo.write({"pkg/mod.py": "def f(a, b):\n    return a\n"})
    repo.git("add", "-A")
    proc = run_git(repo, "commit", "-q", "-m", "break")
    assert proc.returncode == 1, proc.stdout
    assert "waiting" not in proc.stdout and "waited" not in proc.stdout
    assert "pkg/other.py" in proc.stdout


# --- killed refreshers ---------------------------------------------------------------------------


def test_a_refresher_killed_while_it_waits_leaves_the_work_to_the_next_command(
    hooked: tuple[GitRepo, str, str], store: Store, graphguard_cli: Run
) -> None:
    repo, main, topic = hooked
    with store.write_lock(5):
        assert run_git(repo, "checkout", "-q", "topic").returncode == 0
        pid = _refresher_pid(repo)
        os.kill(pid, signal.SIGKILL)
        assert wait_for_refresher(repo)  # the kernel let go of its lock; refresh.json still names it
        assert _state(repo)["pid"] == pid
    assert stored_meta(repo) == main
    r = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json")
    assert r.code == 0, r.err
    assert "pkg/other.py" in {c["path"] for c in r.json["callers"]}
    assert "waiting" not in r.err and "waited" not in r.err
    assert stored_meta(repo) == topic


def _many_files(n: int, tag: str = "") -> dict[str, str]:
    return {f"pkg/m{i}.py": (f"from pkg.m{i - 1} import f{i - 1}\n\n\n" if i else "")
            + f'def f{i}(x{tag}):\n    """{tag}"""\n    return {f"f{i - 1}(x)" if i else "x"}\n' for i in range(n)}


def _refreshing_a_300_file_checkout(make_repo: Callable[..., GitRepo], graphguard: Run) -> tuple[GitRepo, str, str, int]:
    """A hooked repository of 300 chained modules just checked out from main to a topic that touches each: (repo,
    main, topic, pid of the refresher the post-checkout hook started)."""
    repo = make_repo({"pkg/__init__.py": "", **_many_files(300)})
    main = repo.head
    repo.git("checkout", "-q", "-b", "topic")
    topic = repo.commit("touch all", _many_files(300, tag=", z=0"))
    repo.git("checkout", "-q", "main")
    assert graphguard(repo, "install").code == 0
    assert graphguard(repo, "index").code == 0
    assert run_git(repo, "checkout", "-q", "topic").returncode == 0
    return repo, main, topic, _refresher_pid(repo)


def _write_lock_held(repo: GitRepo) -> bool:
    lock = Lock(str(repo.graph_path.parent / "write.lock"))
    try:
        lock.acquire(0)
    except LockTimeout:
        return True
    lock.release()
    return False


@pytest.mark.slow
def test_a_refresher_killed_mid_update_leaves_a_graph_the_next_command_brings_current(
    make_repo: Callable[..., GitRepo], graphguard: Run, graphguard_cli: Run
) -> None:
    repo, main, topic, pid = _refreshing_a_300_file_checkout(make_repo, graphguard)
    deadline = time.monotonic() + DEADLINE
    while not _write_lock_held(repo) and refresher_running(repo) and time.monotonic() < deadline:
        time.sleep(0.002)
    assert refresher_running(repo), "the refresh ended before it took the write lock"
    assert pid in refresher_processes(repo)
    os.kill(pid, signal.SIGKILL)
    assert wait_for_refresher(repo)
    _graph_is_sound(repo)
    assert stored_meta(repo) in {main, topic}  # one transaction: the old graph, or the new one whole
    r = graphguard_cli(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert (r.json["head"], r.json["files"]) == (topic, 301)
    assert not _write_lock_held(repo)  # no parse worker outlived the refresher with the lock
    deadline = time.monotonic() + DEADLINE
    while refresher_processes(repo) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert refresher_processes(repo) == []  # its parse workers died with it


# --- stopped refreshers ------------------------------------------------------------------------
#
# kill -STOP leaves a refresher alive, holding the refresh lock, and making no progress: every command
# waited WAIT_LIMIT (600 s) for it, then failed. GRAPHGUARD_REFRESH_STALL shortens the stall bound here.


def _graph_is_sound(repo: GitRepo) -> None:
    conn = sqlite3.connect(repo.graph_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_a_stopped_refresher_is_named_and_the_command_does_the_work(
    hooked: tuple[GitRepo, str, str], store: Store, graphguard_cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _, topic = hooked
    with store.write_lock(5):  # the refresher is caught alive, waiting for the write lock: it does not hold it
        assert run_git(repo, "checkout", "-q", "topic").returncode == 0
        pid = _refresher_pid(repo)
        os.kill(pid, signal.SIGSTOP)
    try:
        monkeypatch.setenv(waiting.STALL_VARIABLE, "1")
        r = graphguard_cli(repo, "callers", "pkg.mod.f", "--format", "json", timeout=DEADLINE)
        assert r.code == 0, r.err
        assert "pkg/other.py" in {c["path"] for c in r.json["callers"]}
        assert r.err == (f"graphguard: warning: the graph refresh started by post-checkout (pid {pid}, stopped) has made no"
                         f" progress for 1 s (`kill -CONT {pid}` resumes it, `kill {pid}` ends it); updating the graph here"
                         " instead\n")
        assert stored_meta(repo) == topic
        assert refresher_running(repo)
        done_here = dump(repo.graph_path)
    finally:
        os.kill(pid, signal.SIGCONT)
    # The stopped one goes on: under the write lock it finds the graph current, and leaves it as it is.
    assert wait_for_refresher(repo)
    _graph_is_sound(repo)
    assert dump(repo.graph_path) == done_here
    assert f"graph at {topic}" in _log(repo) and f"updated to {topic}" not in _log(repo)


@pytest.mark.slow
def test_a_refresher_stopped_holding_the_write_lock_is_named_at_once(
    make_repo: Callable[..., GitRepo], graphguard: Run, graphguard_cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command cannot do the work beside it (the lock): it says who holds things up instead of waiting 600 s."""
    repo, _, topic, pid = _refreshing_a_300_file_checkout(make_repo, graphguard)
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:  # stopped with the write lock held (stop, look, go on if it just let go)
        while not _write_lock_held(repo) and refresher_running(repo) and time.monotonic() < deadline:
            time.sleep(0.002)
        assert refresher_running(repo), "the refresh ended before it took the write lock"
        os.kill(pid, signal.SIGSTOP)
        if _write_lock_held(repo):
            break
        os.kill(pid, signal.SIGCONT)
    try:
        monkeypatch.setenv(waiting.STALL_VARIABLE, "1")
        r = graphguard_cli(repo, "stats", timeout=DEADLINE)
        assert r.code == 2
        *plain, last = r.err.splitlines(keepends=True)  # without a terminal the wait is said in plain lines first
        assert all(line.startswith("graphguard: waiting for the graph refresh started by post-checkout") for line in plain)
        assert last == (f"graphguard: error: the graph refresh started by post-checkout (pid {pid}, stopped) has made no"
                         f" progress for 2 s (`kill -CONT {pid}` resumes it, `kill {pid}` ends it), and the graph's write"
                         " lock is held; then try again\n")
    finally:
        os.kill(pid, signal.SIGCONT)
    assert wait_for_refresher(repo)
    _graph_is_sound(repo)
    r = graphguard_cli(repo, "stats", "--format", "json")
    assert (r.json["head"], r.json["files"]) == (topic, 301)


def test_a_stall_bound_that_is_not_a_number_is_a_warning() -> None:
    assert waiting.stall_limit({}) == waiting.STALL_LIMIT
    assert waiting.stall_limit({waiting.STALL_VARIABLE: "0.5"}) == 0.5
    assert waiting.stall_limit({waiting.STALL_VARIABLE: "soon"}) == waiting.STALL_LIMIT


# --- several hooks in a row --------------------------------------------------------------------


def test_two_quick_checkouts_make_one_refresher_that_ends_at_the_final_head(
    hooked: tuple[GitRepo, str, str], store: Store
) -> None:
    repo, main, topic = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "branch", "topic2", "topic")
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic2")
    topic2 = repo.commit("more", {"pkg/third.py": "from pkg.mod import f\n\n\ndef k():\n    return f(4)\n"})
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "main")
    with store.write_lock(5):
        assert run_git(repo, "checkout", "-q", "topic").returncode == 0
        pid = _refresher_pid(repo)
        assert run_git(repo, "checkout", "-q", "topic2").returncode == 0  # finds the refresher busy: leaves
        assert _state(repo)["pid"] == pid
    assert settled_meta(repo) == topic2
    assert _log(repo).count("started by") == 1


@pytest.mark.parametrize("round_", range(2))
def test_checkouts_back_and_forth_end_at_the_final_head(hooked: tuple[GitRepo, str, str], round_: int) -> None:
    repo, main, topic = hooked
    for ref in ("topic", "main", "topic", "main", "topic"):
        assert run_git(repo, "checkout", "-q", ref).returncode == 0
    assert settled_meta(repo) == topic == repo.head


def test_a_rebase_ends_with_the_graph_at_the_rebased_head(hooked: tuple[GitRepo, str, str]) -> None:
    repo, _, _ = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "main")
    repo.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", "on main")
    assert run_git(repo, "checkout", "-q", "topic").returncode == 0
    proc = run_git(repo, "rebase", "main")  # post-checkout, then post-rewrite
    assert proc.returncode == 0, proc.stdout
    assert settled_meta(repo) == repo.head


# --- never fails git; configurable -------------------------------------------------------------


def test_a_refresher_that_cannot_start_is_a_warning_and_git_succeeds(hooked: tuple[GitRepo, str, str], tmp_path: Path) -> None:
    repo, main, _ = hooked
    (repo.graph_path.parent / state.LOCK_NAME).unlink(missing_ok=True)
    (repo.graph_path.parent / state.LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    proc = run_git(repo, "checkout", "-q", "topic")
    assert proc.returncode == 0
    assert "graphguard: warning: graph not refreshed" in proc.stdout and "symbolic link" in proc.stdout
    assert not (tmp_path / "elsewhere").exists()
    assert stored_meta(repo) == main


def test_foreground_mode_refreshes_inside_the_hook(hooked: tuple[GitRepo, str, str]) -> None:
    repo, _, topic = hooked
    proc = run_git(repo, "checkout", "-q", "topic", env=_env(GRAPHGUARD_REFRESH="foreground"))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert stored_meta(repo) == topic
    assert not (repo.graph_path.parent / "refresh.log").exists()


def test_an_unknown_mode_is_a_warning_and_the_background(hooked: tuple[GitRepo, str, str]) -> None:
    repo, _, topic = hooked
    proc = run_git(repo, "checkout", "-q", "topic", env=_env(GRAPHGUARD_REFRESH="later"))
    assert proc.returncode == 0
    assert proc.stdout.strip() == ("graphguard: warning: GRAPHGUARD_REFRESH='later' is not one of background,"
                                   " foreground; refreshing in the background")
    assert settled_meta(repo) == topic


def test_the_log_is_kept_small(hooked: tuple[GitRepo, str, str]) -> None:
    repo, _, topic = hooked
    log = repo.graph_path.parent / "refresh.log"
    log.write_text("x" * (launcher.LOG_LIMIT + 1))
    assert run_git(repo, "checkout", "-q", "topic").returncode == 0
    assert settled_meta(repo) == topic
    assert (repo.graph_path.parent / "refresh.log.1").stat().st_size == launcher.LOG_LIMIT + 1
    assert log.stat().st_size < 1000 and "started by post-checkout" in log.read_text()


# --- the refresher itself, in this process ---------------------------------------------------------


def test_serve_brings_the_graph_to_head_and_logs_it(hooked: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, topic = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic")
    assert serve(str(repo.root), "post-merge", 0) == 0  # fd 0 is not the lock: it takes the lock itself
    out = capsys.readouterr().out
    assert "started by post-merge" in out and f"updated to {topic}" in out and f"graph at {topic}" in out
    assert stored_meta(repo) == topic
    assert not refresher_running(repo)


def test_serve_leaves_when_another_refresher_runs(hooked: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, main, _ = hooked
    repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "topic")
    lock = Lock(str(repo.graph_path.parent / state.LOCK_NAME))
    lock.acquire(0)
    try:
        assert serve(str(repo.root), "post-checkout", -1) == 0
    finally:
        lock.release()
    assert "another refresher is running" in capsys.readouterr().out
    assert stored_meta(repo) == main


def test_serve_logs_a_failure(make_repo: Callable[..., GitRepo], capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo({**LIB, ".graphguard.toml": "no_such_key = 1\n"})
    assert serve(str(repo.root), "post-commit", -1) == 1
    out = capsys.readouterr().out
    assert "graph not refreshed" in out and "no_such_key" in out and "Traceback" in out


def test_index_leaves_the_text_index_to_a_refresher_still_at_it(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """ansible under load: `index` waited for the graph the install's refresher built, then timed out (exit 2) on
    the write lock the refresher held for the text index. The graph is built: `index` is done."""
    repo = make_repo(LIB)
    assert graphguard(repo, "index").code == 0
    with sqlite3.connect(repo.graph_path) as db:
        db.execute("UPDATE meta SET value = 'stale' WHERE key = 'text_state'")
    store_dir = str(repo.graph_path.parent)
    refresher, writer = Lock(os.path.join(store_dir, state.LOCK_NAME)), Lock(os.path.join(store_dir, "write.lock"))
    refresher.acquire(0)
    writer.acquire(0)
    try:
        state.write_state(store_dir, "install", time.time(), pid=os.getpid())
        t0 = time.monotonic()
        r = graphguard(repo, "index", "--format", "json")
        waited = time.monotonic() - t0
    finally:
        writer.release()
        refresher.release()
    assert r.code == 0, r.err
    assert r.json["noop"] is True and r.json["head"] == repo.head
    assert waited < 20, "waited for the write lock"  # the lock wait is 30 s: a bound, not a timing claim
