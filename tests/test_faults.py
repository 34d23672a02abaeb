"""kill -9 never wedges the graph: real processes killed at real moments, on real repositories.

A killed indexer must leave no parse worker behind, no lock held, and a graph
that the next command brings to what a fresh index of the same commit holds.
Linux only: processes are found through /proc.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphguard import git
from graphguard.errors import LockTimeout
from graphguard.index.facts import PARALLEL_THRESHOLD
from graphguard.index.update import Indexer
from graphguard.store import Store
from graphguard.store.lock import Lock
from tests.graphdump import differences, dump
from tests.helpers import GIT_LEAKS, GitRepo, Result, reap

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="finds processes through /proc")

#: graphguard as its console script runs it: the current directory is not on sys.path.
COMMAND = [sys.executable, "-c", "import sys; sys.path.pop(0); from graphguard.main import main; sys.exit(main())"]


def slow_files(n: int, functions: int = 120, version: int = 1) -> dict[str, str]:
    """`n` moderately big modules (a few seconds of parsing in all), each calling into gen/base.py."""
    files = {"gen/__init__.py": "", "gen/base.py": "def g(a, b):\n    return a\n\n\ndef h(a):\n    return a\n"}
    for i in range(n):
        body = "".join(f"def f{j}_v{version}(a, b):\n    return g(a, b) + {i} * h(a)\n" for j in range(functions))
        files[f"gen/m{i:03d}.py"] = "from gen.base import g, h\n" + body
    return files


# --- processes ------------------------------------------------------------------------------------


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}


def start(repo: GitRepo, *args: str) -> subprocess.Popen[bytes]:
    """graphguard in its own process group (so that the test can reap whatever a bug leaves)."""
    return subprocess.Popen([*COMMAND, *args], cwd=repo.root, env=_env(), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run(repo: GitRepo, *args: str) -> Result:
    proc = subprocess.run([*COMMAND, *args], cwd=repo.root, env=_env(), capture_output=True, timeout=300, check=False)
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent, process group) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[2])


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(select: Callable[[int, int, int], bool]) -> list[int]:
    """Processes (zombies excluded) for which select(pid, parent, group) holds."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st and st[0] not in "ZX" and select(int(name), st[1], st[2]):
                found.append(int(name))
    return found


def forked_children(proc: subprocess.Popen[bytes]) -> set[int]:
    """Children of a graphguard process that run its command line: parse workers, or a git
    child in the microseconds between its fork and its exec."""
    own = _cmdline(proc.pid)
    return {pid for pid in _alive(lambda pid, parent, _: parent == proc.pid) if _cmdline(pid) == own}


def wait_for_workers(proc: subprocess.Popen[bytes]) -> list[int]:
    """The parse workers, once they exist: forked children still there 50 ms later (git would have exec'd)."""
    deadline = time.monotonic() + 120  # only against hanging
    while proc.poll() is None and time.monotonic() < deadline:
        found = forked_children(proc)
        if found:
            time.sleep(0.05)
            found &= forked_children(proc)
            if found:
                return sorted(found)
        time.sleep(0.01)
    raise AssertionError(f"graphguard ended (exit {proc.returncode}) before it started parse workers")


def survivors(group: int) -> list[int]:
    """What is left of a process group once its leader was killed (the kernel needs a moment to kill the rest)."""
    deadline = time.monotonic() + 10
    while True:
        left = _alive(lambda pid, parent, pgrp: pgrp == group)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        reap(p)


# --- graphs ---------------------------------------------------------------------------------------


def fresh_dump(repo: GitRepo, where: Path) -> dict[str, list[tuple[object, ...]]]:
    """The graph of HEAD built from nothing, in a store of its own outside the repository."""
    folder = where / f"fresh-{repo.head}"
    if not folder.exists():
        folder.mkdir(parents=True)  # the store makes only its own directory
        paths = git.repo_paths(str(repo.root))._replace(git_dir=str(folder), common_dir=str(folder))
        store = Store(str(folder), str(folder))
        try:
            Indexer(paths, store).update()
        finally:
            store.close()
    return dump(folder / "graphguard" / "graph.sqlite3")


def assert_graph_is_fresh(repo: GitRepo, where: Path) -> None:
    assert differences(dump(repo.graph_path), fresh_dump(repo, where)) == []


# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_kill_9_during_a_parallel_parse_leaves_no_worker_and_no_lock(
    make_repo: Callable[..., GitRepo], tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    repo = make_repo(slow_files(PARALLEL_THRESHOLD * 2, functions=60))
    proc = start(repo, "index")
    started.append(proc)
    wait_for_workers(proc)
    proc.send_signal(signal.SIGKILL)  # the parent alone, as the OOM killer or `kill -9 $!` does
    proc.wait(timeout=30)

    assert survivors(proc.pid) == []
    r = run(repo, "index")  # before the fix: 30 s waiting for a lock the orphaned workers held, then exit 2
    assert (r.code, r.err) == (0, "")
    assert_graph_is_fresh(repo, tmp_path)


def test_a_process_forked_under_the_lock_does_not_hold_it_after_its_parent_died(
    make_repo: Callable[..., GitRepo], started: list[subprocess.Popen[bytes]]
) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    holder = (
        "import os, time\n"
        "from graphguard.repo import open_repo\n"
        "with open_repo('.').store.write_lock(5):\n"
        "    child = os.fork()\n"
        "    if child:\n"
        "        os.write(1, b'child %d\\n' % child)\n"
        "        time.sleep(120)\n"
        "os.write(1, b'left\\n')  # the child, out of the with block: its release must not free the parent's lock\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", holder], cwd=repo.root, env=_env(), start_new_session=True,
                            stdout=subprocess.PIPE)
    started.append(proc)
    assert proc.stdout is not None
    lines = sorted(proc.stdout.readline().split() for _ in range(2))
    assert lines[1] == [b"left"]
    child = int(lines[0][1])
    lock = Lock(str(repo.root / ".git" / "graphguard" / "write.lock"))
    with pytest.raises(LockTimeout):  # the parent holds it: the child closing its copy did not free it
        lock.acquire(0)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    assert _alive(lambda pid, parent, group: pid == child) == [child]  # still running, and yet:
    try:
        lock.acquire(0)
    except LockTimeout:
        pytest.fail("the lock of a killed process is still held by the child it forked")
    lock.release()


@pytest.mark.slow
def test_a_worker_killed_mid_parse_leaves_the_rest_to_the_indexer(
    make_repo: Callable[..., GitRepo], tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    repo = make_repo(slow_files(PARALLEL_THRESHOLD * 2))
    proc = start(repo, "index")
    started.append(proc)
    os.kill(wait_for_workers(proc)[0], signal.SIGKILL)  # as the OOM killer would
    _, err = proc.communicate(timeout=300)

    assert proc.returncode == 0, err
    lines = err.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphguard: warning: a parse worker died"), lines
    assert_graph_is_fresh(repo, tmp_path)


@pytest.mark.parametrize("prctl", [True, False], ids=["prctl", "watchdog"])
def test_a_worker_dies_with_its_parent(tmp_path: Path, started: list[subprocess.Popen[bytes]], prctl: bool) -> None:
    """The worker initializer alone, both ways (the watchdog is what other platforms get)."""
    parent = (
        "import os, sys, time\n"
        "from graphguard.index import workers\n"
        f"if not {prctl}:\n"
        "    workers._kill_me_with_my_parent = lambda: False\n"
        "me = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    workers._die_with_parent(me)\n"
        "    time.sleep(120)\n"
        "    os._exit(0)\n"
        "print(child, flush=True)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", parent], cwd=tmp_path, env=_env(), start_new_session=True, stdout=subprocess.PIPE)
    started.append(proc)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    time.sleep(0.2)  # let the child reach its sleep; not a timed assertion
    assert _alive(lambda pid, parent, group: pid == child) == [child]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert survivors(proc.pid) == []


SHADOWS = ("multiprocessing.py", "concurrent/__init__.py", "graphguard/__init__.py", "libcst/__init__.py",
           "tree_sitter.py", "ctypes.py", "threading.py", "signal.py")


def test_no_repository_file_runs_in_a_parse_worker(make_repo: Callable[..., GitRepo], tmp_path: Path) -> None:
    """A worker started as a new interpreter in the repository (spawn, forkserver) would import these."""
    ran = tmp_path / "ran"
    ran.mkdir()
    files = slow_files(PARALLEL_THRESHOLD + 10, functions=5)
    for name in SHADOWS:
        files[name] = f"open({str(ran / name.replace('/', '.'))!r}, 'w').close()\n"
    repo = make_repo(files)
    r = run(repo, "index", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["parsed"] == len(files)
    assert sorted(p.name for p in ran.iterdir()) == []


@pytest.mark.slow
def test_kill_9_at_random_moments_of_index_refresh_and_check(
    make_repo: Callable[..., GitRepo], tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    """A short fault-injection loop (bench/fault_inject.py runs the long one on Django)."""
    rnd = random.Random(8)
    repo = make_repo(slow_files(PARALLEL_THRESHOLD + 16, functions=60, version=1))
    commits = [repo.head, repo.commit("regenerate", slow_files(PARALLEL_THRESHOLD + 40, functions=60, version=2))]
    for round_ in range(5):
        repo.git("checkout", "-q", "--detach", rnd.choice(commits))
        if round_ == 2:  # cold work for the next command: no graph at all
            for suffix in ("", "-wal", "-shm"):
                Path(f"{repo.graph_path}{suffix}").unlink(missing_ok=True)
        command = rnd.choice([("index",), ("refresh",), ("check", "--staged")])
        proc = start(repo, *command)
        started.append(proc)
        time.sleep(rnd.uniform(0.05, 1.5))  # any moment must do: not a timed assertion
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert survivors(proc.pid) == [], (round_, command)
        r = run(repo, "index")
        assert r.code == 0, (round_, command, r.err)
        assert_graph_is_fresh(repo, tmp_path)
