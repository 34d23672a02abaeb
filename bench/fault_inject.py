"""Fault injection: kill -9 graphguard at random moments of index, refresh and check.

    python bench/fault_inject.py REPO [--kills 50] [--seed 1]

REPO is a git repository with a commit; it is not changed (the bench works in a
clone under a temp dir). One from the Django sdist:

    pip download --no-deps --no-binary :all: django==5.2.8 && tar xzf django-5.2.8.tar.gz
    cd django-5.2.8 && git init -q && git add -A && git commit -qm import

The clone gets three commits: A (REPO's HEAD), B (A with 80 files changed) and
C (B with 80 files added). Each round checks one out, now and then deletes the
graph (cold resolve), the graph and the blob cache (cold parse of everything),
or evicts the facts of the B and C files from the blob cache (a parallel parse
of >= 64 files), then starts `index`, `refresh` or `check --staged` and kills
that process alone (kill -9, as the OOM killer does) at a random moment of its
expected run. After each kill it records whether any process of the killed
one's group survived and whether the write lock was free, then runs the next
command (`index --format json`) and times it, and compares the graph with a
fresh index of the same commit built in a separate store (table digests; the
differing rows are printed on a mismatch).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from graphguard import git
from graphguard.errors import LockTimeout
from graphguard.index.update import Indexer
from graphguard.store import Store
from graphguard.store.lock import Lock
from tests.graphdump import QUERIES, differences, dump

#: graphguard as its console script runs it (the current directory is not on sys.path).
GG = [sys.executable, "-c", "import sys; sys.path.pop(0); from graphguard.main import main; sys.exit(main())"]
COMMANDS = (("index",), ("refresh",), ("check", "--staged"))


@dataclasses.dataclass
class Round:
    command: str
    state: str  # what the killed command had to do: noop | switch | parse | resolve | cold
    delay: float
    killed: bool  # False when the command had ended before the kill
    workers: int  # parse workers alive at the kill
    survivors: int
    lock_free: bool
    next_s: float
    next_code: int
    next_work: str
    equal: bool


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def make_clone(source: Path, where: Path, rnd: random.Random) -> tuple[Path, list[str], set[str]]:
    """A clone with commits A, B, C; also the blobs that only B and C have."""
    repo = where / "repo"
    sh(where, "git", "clone", "-q", str(source), str(repo))
    for key, value in (("user.email", "bench@example.com"), ("user.name", "bench"), ("commit.gpgsign", "false")):
        sh(repo, "git", "config", key, value)
    a = sh(repo, "git", "rev-parse", "HEAD")
    files = sorted(p for p in sh(repo, "git", "ls-files", "*.py").splitlines() if p.endswith(".py"))
    for path in rnd.sample(files, 80):
        with open(repo / path, "a", encoding="utf-8") as f:
            f.write("\n\ndef _fault_inject_b(x, y=1):\n    return x\n")
    sh(repo, "git", "commit", "-qam", "B: 80 files changed")
    b = sh(repo, "git", "rev-parse", "HEAD")
    folder = repo / "fault_inject_c"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for i in range(80):
        body = "".join(f"def f{j}(a, b):\n    return g{j % 7}(a) + {i}\n\n\n" for j in range(60))
        (folder / f"m{i:02d}.py").write_text(f"from fault_inject_c.m{(i + 1) % 80:02d} import f0 as g0\n" + body)
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "commit", "-qm", "C: 80 files added")
    c = sh(repo, "git", "rev-parse", "HEAD")
    old = set(sh(repo, "git", "ls-tree", "-r", "--format=%(objectname)", a).split())
    new = set(sh(repo, "git", "ls-tree", "-r", "--format=%(objectname)", c).split())
    new |= set(sh(repo, "git", "ls-tree", "-r", "--format=%(objectname)", b).split())
    return repo, [a, b, c], new - old


def digest(graph: Path) -> dict[str, str]:
    """A hash of each table of graphdump's dump, sorted by SQLite (seconds faster than sorting in Python)."""
    conn = sqlite3.connect(f"file:{graph}?mode=ro", uri=True)
    try:
        out = {}
        for name, sql in QUERIES.items():
            width = len(conn.execute(f"SELECT * FROM ({sql}) LIMIT 0").description)
            h = hashlib.sha256()
            for row in conn.execute(f"SELECT * FROM ({sql}) ORDER BY {', '.join(str(i + 1) for i in range(width))}"):
                h.update(repr(row).encode())
            out[name] = h.hexdigest()
        return out
    finally:
        conn.close()


class Reference:
    """Fresh indexes of each commit, in stores of their own (one blob cache that no killed process touches)."""

    def __init__(self, repo: Path, where: Path):
        self.repo = repo
        self.where = where
        self.digests: dict[str, dict[str, str]] = {}

    def graph(self, head: str) -> Path:
        return self.where / head / "graphguard" / "graph.sqlite3"

    def digest(self, head: str) -> dict[str, str]:
        if head not in self.digests:
            paths = git.repo_paths(str(self.repo))
            folder = self.where / head
            for made in (folder, self.where / "common"):  # the store makes only its own directory
                made.mkdir(parents=True, exist_ok=True)
            store = Store(str(folder), str(self.where / "common"))
            try:
                Indexer(dataclasses.replace(paths, git_dir=str(folder), common_dir=str(self.where / "common")), store).update(head)
            finally:
                store.close()
            self.digests[head] = digest(self.graph(head))
        return self.digests[head]


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def group_alive(group: int) -> list[int]:
    """Processes (zombies excluded) of a process group."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                text = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2 :].split()
            if fields[0] not in "ZX" and int(fields[2]) == group:
                found.append(int(name))
    return found


def forked_children(parent: int) -> list[int]:
    """Children running the parent's command line: its parse workers (git children exec at once)."""
    own = _read(f"/proc/{parent}/cmdline")
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _ppid(int(p)) == parent and _read(f"/proc/{p}/cmdline") == own]


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def _ppid(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(text[text.rindex(")") + 2 :].split()[1])


def survivors(group: int, grace: float = 5.0) -> list[int]:
    deadline = time.monotonic() + grace
    while (left := group_alive(group)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def lock_is_free(repo: Path) -> bool:
    lock = Lock(str(repo / ".git" / "graphguard" / "write.lock"))
    try:
        lock.acquire(0)
    except LockTimeout:
        return False
    lock.release()
    return True


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def index_json(repo: Path) -> tuple[float, int, dict[str, object]]:
    t = time.perf_counter()
    proc = subprocess.run([*GG, "index", "--format", "json"], cwd=repo, env=env(), capture_output=True, text=True, timeout=900, check=False)
    elapsed = time.perf_counter() - t
    try:
        result = json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr.strip()[-300:]}
    except ValueError:
        result = {"error": proc.stdout[-300:]}
    return elapsed, proc.returncode, result


def graph_blobs(store: Path) -> set[str]:
    if not (store / "graph.sqlite3").exists():
        return set()
    conn = sqlite3.connect(f"file:{store / 'graph.sqlite3'}?mode=ro", uri=True)
    try:
        return {blob for (blob,) in conn.execute("SELECT blob FROM files")}
    except sqlite3.Error:
        return set()
    finally:
        conn.close()


def prepare(repo: Path, commits: list[str], only_new: set[str], rnd: random.Random) -> str:
    """Put the clone in a random state for the next kill; return what the command will have to do."""
    head = sh(repo, "git", "rev-parse", "HEAD")
    target = rnd.choice([c for c in commits if c != head]) if rnd.random() < 0.8 else head
    sh(repo, "git", "checkout", "-q", "--detach", target)
    store = repo / ".git" / "graphguard"
    draw = rnd.random()
    if draw < 0.06:
        remove(store / "graph.sqlite3")
        remove(store / "blobs.sqlite3")
        return "cold"
    if draw < 0.16:
        remove(store / "graph.sqlite3")
        return "resolve"
    unseen = only_new & set(sh(repo, "git", "ls-tree", "-r", "--format=%(objectname)", target).split()) - graph_blobs(store)
    if draw < 0.50 and len(unseen) >= 64 and (store / "blobs.sqlite3").exists():
        # New content to parse in parallel: forget the facts of the target's blobs that the graph
        # does not hold (only those: the indexer re-parses added and changed files, and trusts the
        # cache for the files it merely re-resolves).
        conn = sqlite3.connect(store / "blobs.sqlite3", timeout=30)
        with conn:
            conn.executemany("DELETE FROM blobs WHERE sha = ?", [(s,) for s in unseen])
        conn.close()
        return "parse"
    return "switch" if target != head else "noop"


def one_round(repo: Path, commits: list[str], only_new: set[str], rnd: random.Random, expected: dict[str, float],
              reference: Reference) -> Round:
    state = prepare(repo, commits, only_new, rnd)
    command = rnd.choice(COMMANDS)
    if command[0] == "check":  # something to check: one changed file, staged
        target = repo / rnd.choice(sh(repo, "git", "ls-files", "*.py").splitlines())
        target.write_text(target.read_text(encoding="utf-8") + "\n\ndef _staged(x):\n    return x\n", encoding="utf-8")
        sh(repo, "git", "add", "-A")
    delay = rnd.uniform(0.0, max(1.0, expected[state]))
    proc = subprocess.Popen([*GG, *command], cwd=repo, env=env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    killed = proc.poll() is None
    workers = len(forked_children(proc.pid))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = survivors(proc.pid)
    free = lock_is_free(repo)  # as the next command finds it
    for pid in left:  # reported; killed so that the next rounds start clean
        os.kill(pid, signal.SIGKILL)
    elapsed, code, result = index_json(repo)
    sh(repo, "git", "reset", "-q", "--hard")
    head = sh(repo, "git", "rev-parse", "HEAD")
    equal = code == 0 and digest(repo / ".git" / "graphguard" / "graph.sqlite3") == reference.digest(head)
    if code == 0 and not equal:
        diff = differences(dump(repo / ".git" / "graphguard" / "graph.sqlite3"), dump(reference.graph(head)))
        print("  graph differs from a fresh index:", *diff, sep="\n    ", file=sys.stderr)
        remove(repo / ".git" / "graphguard" / "graph.sqlite3")  # so that one difference is not counted again in later rounds
    work = "error" if code else "noop" if result.get("noop") else f"parsed {result.get('parsed')}, resolved {result.get('resolved')}"
    if code:
        print(f"  next index failed ({code}): {result.get('error')}", file=sys.stderr)
    return Round(" ".join(command), state, delay, killed, workers, len(left), free, elapsed, code, work, equal)


def setup_times(repo: Path, commits: list[str]) -> dict[str, float]:
    """How long each kind of work takes uninterrupted: the kill moments are drawn from [0, that]."""
    store = repo / ".git" / "graphguard"
    times = {}
    sh(repo, "git", "checkout", "-q", "--detach", commits[0])
    times["cold"], _, _ = index_json(repo)
    sh(repo, "git", "checkout", "-q", "--detach", commits[2])
    times["parse"], _, _ = index_json(repo)
    sh(repo, "git", "checkout", "-q", "--detach", commits[1])
    times["switch"], _, _ = index_json(repo)
    remove(store / "graph.sqlite3")
    times["resolve"], _, _ = index_json(repo)
    times["noop"], _, _ = index_json(repo)
    return times


def table(rounds: list[Round]) -> None:
    print(f"\n{'next command after a kill':<34}{'n':>4}{'median s':>10}{'max s':>8}  graph = fresh")
    groups: dict[str, list[Round]] = {}
    for r in rounds:
        kind = "noop" if r.next_work == "noop" else "error" if r.next_code else r.state if r.state in ("cold", "resolve") else "incremental"
        groups.setdefault(kind, []).append(r)
    for kind in ("noop", "incremental", "resolve", "cold", "error"):
        rs = groups.get(kind, [])
        if rs:
            times = [r.next_s for r in rs]
            label = {"noop": "no work left (graph current)", "incremental": "finishes an incremental update",
                     "resolve": "re-resolves all (graph deleted)", "cold": "parses all (graph+cache deleted)",
                     "error": "FAILED"}[kind]
            print(f"{label:<34}{len(rs):>4}{statistics.median(times):>10.2f}{max(times):>8.2f}  {sum(r.equal for r in rs)}/{len(rs)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if sys.platform != "linux":
        raise SystemExit("Linux only: processes are found through /proc")
    rnd = random.Random(args.seed)
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="graphguard-faults-") as tmp:
        repo, commits, only_new = make_clone(args.repo.resolve(), Path(tmp), rnd)
        reference = Reference(repo, Path(tmp) / "reference")
        t0 = time.perf_counter()
        for c in commits:
            reference.digest(c)
        print(f"reference graphs of 3 commits: {time.perf_counter() - t0:.0f} s")
        expected = setup_times(repo, commits)
        print("uninterrupted:", ", ".join(f"{k} {v:.2f} s" for k, v in expected.items()))
        rounds = []
        for i in range(args.kills):
            r = one_round(repo, commits, only_new, rnd, expected, reference)
            load.append(os.getloadavg()[0])
            rounds.append(r)
            print(f"{i + 1:3} {r.command:<14} {r.state:<8} kill at {r.delay:5.2f} s{'' if r.killed else ' (had ended)':<12}"
                  f" workers {r.workers}"
                  f" survivors {r.survivors}  lock free {'yes' if r.lock_free else 'NO'}  next {r.next_s:6.2f} s"
                  f" ({r.next_work})  graph {'= fresh' if r.equal else 'DIFFERS'}", flush=True)
        shutil.rmtree(Path(tmp) / "reference", ignore_errors=True)
    table(rounds)
    killed = [r for r in rounds if r.killed]
    print(f"\nkills that landed mid-run: {len(killed)}/{len(rounds)}, {sum(r.workers > 0 for r in rounds)} of them during a parallel parse;"
          f" survivors after a kill: {sum(r.survivors for r in rounds)};"
          f" lock held after a kill: {sum(not r.lock_free for r in rounds)}; graphs differing: {sum(not r.equal for r in rounds)}")
    print(f"load average (1 min) over the run: median {statistics.median(load):.1f}, max {max(load):.1f}, on {os.cpu_count()} CPUs")
    return 0 if all(r.equal and r.lock_free and not r.survivors for r in rounds) else 1


if __name__ == "__main__":
    sys.exit(main())
