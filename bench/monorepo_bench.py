"""How graphguard's costs grow with a repository: the synthetic monorepo at several sizes.

    python bench/monorepo_bench.py [--sizes 1000,10000,100000] [--runs 5] [--keep]
        [--dir /tmp/monorepo] [--version LABEL=SRC ...] [--ty PATH] [--ty-max 10000] [--json OUT]
    python bench/monorepo_bench.py --checkout [--changed 50] [--sizes 20000] [--runs 5] ...

For each size, bench/monorepo.py generates the repository (seeded; reused when --keep left
it from an earlier run), then whole processes are timed, each figure the median of --runs:

    cold index            `graphguard index` with no graph and no blob cache (time; peak memory
                          of the process tree, sampled, and the largest single process)
    no-op index           `graphguard index` when the graph is at HEAD
    one-file commit       a body edit committed (hooks off), then `graphguard index`: the refresh;
                          then `context`, which brings its text index and history to the commit
    commit with hooks     `git commit` of a body edit with `graphguard install`'s hooks
    check, body edit      `check --staged` of a statement added to a function
    check, 1,000 callers  `check --staged` of a required parameter added to the function with 1,000 call sites
    callers               `callers` of that function, of an ordinary one, and of a method
    context               `context TASK` (the first call, which may build indexes, apart)
    ty check              `ty check` of the whole repository (sizes up to --ty-max), side by side

Each --version is a folder holding a `graphguard` package (`git archive REV graphguard | tar -x
-C /tmp/old`), run first on sys.path (common.graphguard_argv), alternated run by run with the others
so the load of the shared machine hits them alike; without --version, the installed package. The
hooks of "commit with hooks" start Python with -E (PYTHONPATH, still set for older hook scripts that
honoured it, is ignored): the pre-commit check runs the interpreter's installed graphguard whatever
the version, the post-commit refresh the folder the version's `install` recorded (GRAPHGUARD_HOME,
since 3e8cea2; before it, the installed one too). The point is the
shape: every figure but the cold index should stay flat as the repository grows. The machine's
load average is printed before and after each size.

--checkout measures only what the native hooks add to switching branches: branch B is the
generated commit with a body edit in each of --changed modules (committed without hooks, both
sides indexed first). Each run, alternated with a run with `core.hooksPath` at an empty folder:
`git checkout B` then `git checkout A` back to back, the two git processes timed until they exit
and their stderr pipe closes (a refresher holding it would count); the overhead is the difference
of the medians. With hooks, then: how long after git returned the graph is at A and no refresher
runs; and one way, `git checkout B`, the next command (`callers`, which waits for a refresher) started
when git returns, and the time from the checkout's start until the graph is at B. The hooks start
graphguard with -E (no PYTHONPATH): compare versions with --python LABEL=PYTHON, each an interpreter
with its own graphguard installed (a venv), alternated run by run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hook_latency
import monorepo
from common import git, graphguard_argv

TY = "/work/benchcache/modes/ty-env/bin/ty"
INFO_FILE = "monorepo.json"  # in the generated repository's .git: what generate() returned
NO_HOOKS = ["-c", "core.hooksPath=/dev/null"]
BRANCH_B = "bench-checkout-b"


@dataclass
class Run:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process and the children it waited for: less noisy under load
    rss_mb: float  # the largest single process (the child and the children it waited for)
    tree_mb: float = 0.0  # the largest sum over the process tree, sampled (0 when not sampled)


@dataclass
class Version:
    label: str
    src: str  # "" for the installed package
    python: str = sys.executable  # --checkout --python: the interpreter (and its graphguard) the hooks are installed with

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("GRAPHGUARD_DEBUG", None)
        if self.src:  # for the hooks of scripts older than -E (1335beb); cmd() does not need it
            env["PYTHONPATH"] = self.src
        return env

    def cmd(self, *args: str) -> list[str]:
        return [*graphguard_argv(self.src, self.python), *args]


# --- processes ----------------------------------------------------------------------------------

def _tree_rss_mb(root: int) -> float:
    """RSS summed over `root` and its descendants, from /proc."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21])
    total, todo = 0, [root]
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def timed(cmd: Sequence[str], cwd: str, env: dict[str, str] | None = None, *, ok: Sequence[int] = (0,),
          sample: bool = False) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0.0]
    done = threading.Event()

    def sampler() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], _tree_rss_mb(proc.pid))

    thread = threading.Thread(target=sampler, daemon=True) if sample else None
    if thread:
        thread.start()
    assert proc.stderr is not None
    err = proc.stderr.read()  # a pipe that is not read could fill up and stall the child
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    if thread:
        thread.join()
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} (in {cwd}) exited {proc.returncode}: {err.decode(errors='replace')[-600:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, peak[0])


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --- the repository -----------------------------------------------------------------------------

def prepare(directory: str, size: int, seed: int, warm: bool = False) -> monorepo.Info:
    """The generated repository at its generated commit, with no graph: reused when an earlier run kept it."""
    info_path = os.path.join(directory, ".git", INFO_FILE)
    if os.path.exists(info_path):
        with open(info_path) as f:
            info = monorepo.Info(**json.load(f))
        if info.files == size and info.seed == seed:
            git(directory, "reset", "-q", "--hard", info.commit)
            git(directory, "clean", "-qfdx")
            if not warm:
                drop_graph(directory)
            return info
        shutil.rmtree(directory)
    elif os.path.exists(directory):
        shutil.rmtree(directory)
    t = time.perf_counter()
    info = monorepo.generate(directory, size, seed)
    print(f"  generated {size} files in {time.perf_counter() - t:.1f} s", flush=True)
    with open(info_path, "w") as f:
        json.dump(info.__dict__, f)
    return info


def drop_graph(repo: str) -> None:
    shutil.rmtree(os.path.join(repo, ".git", "graphguard"), ignore_errors=True)


def edit_body(repo: str, info: monorepo.Info, n: int) -> None:
    """Add a statement to the body of the designated function (a new blob each time)."""
    path = os.path.join(repo, info.edit_path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"^def {info.edit_function}\(.*\):\n    \"\"\".*\"\"\"\n", text, re.MULTILINE)
    if m is None:
        raise SystemExit(f"no `def {info.edit_function}(` in {info.edit_path}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:m.end()] + f"    _bench_{n} = {n}\n" + text[m.end():])


def edit_signature(repo: str, info: monorepo.Info) -> None:
    """A required parameter added to the function with 1,000 call sites: each of them breaks."""
    path = os.path.join(repo, info.target_path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    name = info.target.rsplit(".", 1)[1]
    new = text.replace(f"def {name}(arg0, arg1):", f"def {name}(arg0, arg1, arg_new):")
    if new == text:
        raise SystemExit(f"no `def {name}(arg0, arg1):` in {info.target_path}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def unstage(repo: str) -> None:
    git(repo, "reset", "-q", "--hard", "HEAD")


# --- the figures --------------------------------------------------------------------------------

@dataclass
class Figures:
    """Per (version label, figure name): the runs."""
    runs: dict[tuple[str, str], list[Run]] = field(default_factory=dict)

    def add(self, label: str, name: str, run: Run) -> None:
        self.runs.setdefault((label, name), []).append(run)

    def median(self, label: str, name: str, what: Callable[[Run], float] = lambda r: r.wall) -> float | None:
        runs = self.runs.get((label, name))
        return statistics.median(what(r) for r in runs) if runs else None


def alternate(versions: Sequence[Version], runs: int, once: Callable[[Version, int], None]) -> None:
    """`once(version, i)` for each run, versions alternated; one untimed warm-up round first is the caller's."""
    for i in range(runs):
        for v in versions:
            once(v, i)


def measure(repo: str, info: monorepo.Info, versions: Sequence[Version], args: argparse.Namespace) -> Figures:
    fig = Figures()
    cold_runs = args.cold_runs if args.cold_runs is not None else (3 if info.files <= 10_000 else 1)

    # Cold index: no graph, no blob cache.
    for i in range(0 if args.warm else cold_runs):
        for v in versions if args.cold_all else versions[:1]:
            drop_graph(repo)
            run = timed(v.cmd("index"), repo, v.env(), sample=True)
            fig.add(v.label, "cold index", run)
            print(f"  cold index [{v.label}] {run.wall:.1f} s wall, {run.cpu:.1f} s CPU, tree {run.tree_mb:.0f} MB, process {run.rss_mb:.0f} MB",
                  flush=True)

    def gg(name: str, *cmd: str, ok: Sequence[int] = (0,)) -> Callable[[Version, int], None]:
        def once(v: Version, i: int) -> None:
            fig.add(v.label, name, timed(v.cmd(*cmd), repo, v.env(), ok=ok))
        return once

    # Warm queries: the graph is at HEAD.
    for v in versions:
        timed(v.cmd("index"), repo, v.env())
    alternate(versions, args.runs, gg("no-op index", "index"))
    alternate(versions, args.runs, gg("callers, 1,000 callers", "callers", info.target, "--format", "json"))
    alternate(versions, args.runs, gg("callers, ordinary", "callers", info.symbol, "--format", "json"))
    if info.method:
        alternate(versions, args.runs, gg("callers, a method", "callers", info.method, "--format", "json"))
    for v in versions:
        fig.add(v.label, "context, first call", timed(v.cmd("context", info.task), repo, v.env()))
    alternate(versions, args.runs, gg("context", "context", info.task))

    # check --staged: a body edit, then a signature change with 1,000 callers (exit 1: it blocks).
    edit_body(repo, info, 0)
    git(repo, "add", "-A")
    for v in versions:
        timed(v.cmd("check", "--staged"), repo, v.env())
    alternate(versions, args.runs, gg("check, body edit", "check", "--staged", "--format", "json"))
    unstage(repo)
    edit_signature(repo, info)
    git(repo, "add", "-A")
    for v in versions:
        timed(v.cmd("check", "--staged"), repo, v.env(), ok=(1,))
    alternate(versions, args.runs, gg("check, 1,000 callers", "check", "--staged", "--format", "json", ok=(1,)))
    unstage(repo)

    # One-file commit: committed without hooks, then the refresh `index` does.
    counter = iter(range(1, 10**6))

    def refresh(v: Version, i: int) -> None:
        edit_body(repo, info, next(counter))
        git(repo, *NO_HOOKS, "commit", "-qam", "bench: one-file body edit")
        fig.add(v.label, "one-file commit: refresh", timed(v.cmd("index"), repo, v.env()))
        # The first context after it brings the text index and the history to the new commit.
        fig.add(v.label, "context after the commit", timed(v.cmd("context", info.task), repo, v.env()))

    alternate(versions, args.runs, refresh)

    # The same commit as a user makes it, with graphguard's hooks (pre-commit check, post-commit refresh).
    def hooked(v: Version, i: int) -> None:
        timed(v.cmd("install"), repo, v.env())
        edit_body(repo, info, next(counter))
        git(repo, "add", "-A")
        fig.add(v.label, "commit with hooks", timed(["git", "commit", "-qm", "bench: hooked commit"], repo, v.env()))
        timed(v.cmd("index"), repo, v.env())  # a refresh left running in the background ends before the next run
        timed(v.cmd("install", "--uninstall"), repo, v.env())

    alternate(versions, args.runs, hooked)

    if info.files <= args.ty_max and args.ty:
        for i in range(args.ty_runs):
            run = timed([args.ty, "check", "--no-progress", "--output-format", "concise"], repo, ok=(0, 1), sample=True)
            fig.add("ty", "ty check", run)
            print(f"  ty check {run.wall:.1f} s wall, {run.cpu:.1f} s CPU, tree {run.tree_mb:.0f} MB", flush=True)
    return fig


# --- --checkout: what the hooks add to switching branches ------------------------------------------

def branch_b(repo: str, info: monorepo.Info, changed: int) -> str:
    """A branch off the generated commit with a statement added to the first function of `changed` modules."""
    mods = [p for p in git(repo, "ls-files", "*.py").split() if "/tests/" not in p and not p.endswith("__init__.py")]
    picked = mods[:: max(1, len(mods) // changed)][:changed]
    git(repo, *NO_HOOKS, "checkout", "-q", "-B", BRANCH_B, info.commit)
    for n, path in enumerate(picked):
        full = os.path.join(repo, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"^def \w+\(.*\):\n    \"\"\".*\"\"\"\n", text, re.MULTILINE)
        if m is None:
            raise SystemExit(f"no function in {path}")
        with open(full, "w", encoding="utf-8") as f:
            f.write(text[:m.end()] + f"    _checkout_{n} = {n}\n" + text[m.end():])
    git(repo, *NO_HOOKS, "commit", "-qam", f"bench: {len(picked)} modules edited")
    b = git(repo, "rev-parse", "HEAD").strip()
    git(repo, *NO_HOOKS, "checkout", "-q", "-B", "main", info.commit)
    return b


def wait_fresh(repo: str, head: str, limit: float = 600.0) -> float:
    """Seconds until the stored graph is at `head` and no refresher runs."""
    start = time.perf_counter()
    while hook_latency.stored_head(repo) != head or hook_latency.refresher_running(repo):
        if time.perf_counter() - start > limit:
            raise SystemExit(f"graph not at {head} after {limit:.0f} s")
        time.sleep(0.02)
    return time.perf_counter() - start


def measure_checkout(repo: str, info: monorepo.Info, versions: Sequence[Version], args: argparse.Namespace) -> Figures:
    if any(v.src for v in versions):
        raise SystemExit("--checkout: the hooks ignore PYTHONPATH; run this script with each version's Python instead")
    fig = Figures()
    a, b = info.commit, branch_b(repo, info, args.changed)
    empty = os.path.join(repo, ".git", "bench-no-hooks")
    os.makedirs(empty, exist_ok=True)
    off = ["-c", f"core.hooksPath={empty}"]
    for ref in (b, a):  # both sides in the graph's blob cache: a repository in use
        git(repo, *off, "checkout", "-q", ref)
        timed(versions[0].cmd("index"), repo, versions[0].env())

    def trip(label: str, env: dict[str, str], *flags: str) -> None:
        there = timed(["git", *flags, "checkout", "-q", BRANCH_B], repo, env)
        back = timed(["git", *flags, "checkout", "-q", "main"], repo, env)
        fig.add(label, "round trip", Run(there.wall + back.wall, there.cpu + back.cpu, max(there.rss_mb, back.rss_mb)))

    def hooked(v: Version, i: int) -> None:
        timed(v.cmd("install"), repo, v.env())  # each version's own hook script
        trip(v.label, v.env())
        fig.add(v.label, "graph fresh after the round trip", Run(wait_fresh(repo, a), 0, 0))
        t0 = time.perf_counter()
        timed(["git", "checkout", "-q", BRANCH_B], repo, v.env())
        fig.add(v.label, "one way: next command", timed(v.cmd("callers", info.symbol, "--format", "json"), repo, v.env()))
        wait_fresh(repo, b)
        fig.add(v.label, "one way: graph fresh", Run(time.perf_counter() - t0, 0, 0))
        timed(["git", "checkout", "-q", "main"], repo, v.env())
        wait_fresh(repo, a)
        timed(v.cmd("install", "--uninstall"), repo, v.env())
        trip("no hooks", v.env(), *off)
        print(f"  run {i + 1} [{v.label}]: round trip {fig.runs[(v.label, 'round trip')][-1].wall:.3f} s with hooks,"
              f" {fig.runs[('no hooks', 'round trip')][-1].wall:.3f} s without; load {loadavg()}", flush=True)

    alternate(versions, 1, hooked)  # warm-up: caches, compiled hook paths
    fig.runs.clear()
    alternate(versions, args.runs, hooked)
    return fig


def print_checkout(fig: Figures, versions: Sequence[Version], size: int, args: argparse.Namespace) -> None:
    print(f"\ncheckout round trip, {size:,} files, B = {args.changed} modules edited:"
          f" medians of {args.runs} interleaved runs, wall")
    base = fig.median("no hooks", "round trip") or 0.0
    table = [["", *[v.label for v in versions], "target"],
             ["round trip, no hooks", *[fmt_s(base)] * len(versions), ""]]
    for name in ("round trip", "graph fresh after the round trip", "one way: next command", "one way: graph fresh"):
        table.append([name + (", hooks" if name == "round trip" else ""),
                      *[fmt_s(fig.median(v.label, name)) for v in versions], ""])
        if name == "round trip":
            table.append(["hook overhead (difference of medians)",
                          *[fmt_s((fig.median(v.label, name) or 0.0) - base) for v in versions], "<= 500 ms"])
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for j, r in enumerate(table):
        print("| " + " | ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)) + " |")
        if j == 0:
            print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")


# --- the tables ---------------------------------------------------------------------------------

TARGETS = {
    "cold index": "",
    "no-op index": "<= 150 ms",
    "one-file commit: refresh": "<= 500 ms",
    "commit with hooks": "",
    "check, body edit": "",
    "check, 1,000 callers": "<= 1 s",
    "callers, 1,000 callers": "<= 200 ms",
    "callers, ordinary": "<= 200 ms",
    "callers, a method": "<= 200 ms",
    "context, first call": "",
    "context": "<= 300 ms",
    "context after the commit": "<= 300 ms",
}


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.1f} s" if x >= 10 else f"{x * 1000:.0f} ms"


def fmt_wall_cpu(f: Figures, label: str, name: str) -> str:
    wall = f.median(label, name)
    return "-" if wall is None else f"{fmt_s(wall)} / {fmt_s(f.median(label, name, lambda r: r.cpu))}"


def rows(figs: dict[int, Figures], label: str) -> list[tuple[str, list[str], str]]:
    sizes = sorted(figs)
    out = []
    for name, target in TARGETS.items():
        out.append((name, [fmt_wall_cpu(figs[s], label, name) for s in sizes], target))
        if name == "cold index":
            out.append(("cold index: peak memory (tree)",
                        [_mb(figs[s].median(label, name, lambda r: r.tree_mb)) for s in sizes], "<= 2 GB at 100k"))
    ty = [figs[s].median("ty", "ty check") for s in sizes]
    if any(t is not None for t in ty):
        out.append(("ty check (whole repository)", [fmt_wall_cpu(figs[s], "ty", "ty check") for s in sizes], ""))
        out.append(("ty check: peak memory", [_mb(figs[s].median("ty", "ty check", lambda r: r.tree_mb)) for s in sizes], ""))
        ratio = []
        for s, t in zip(sizes, ty):
            c = figs[s].median(label, "check, 1,000 callers")
            ratio.append(f"{c / t:.3f}x" if t and c else "-")
        out.append(("check, 1,000 callers / ty check", ratio, "<= 0.05x"))
    return out


def _mb(x: float | None) -> str:
    if not x:
        return "-"
    return f"{x / 1024:.2f} GB" if x >= 1024 else f"{x:.0f} MB"


def print_table(figs: dict[int, Figures], versions: Sequence[Version], runs: int) -> None:
    sizes = sorted(figs)
    for v in versions:
        title = f" [{v.label}]" if len(versions) > 1 else ""
        print(f"\nsynthetic monorepo{title}: medians of {runs} whole-process runs, wall / CPU (user + system)")
        head = ["", *[f"{s:,} files" for s in sizes], "target"]
        table = [head] + [[name, *cells, target] for name, cells, target in rows(figs, v.label)]
        widths = [max(len(r[i]) for r in table) for i in range(len(head))]
        for j, r in enumerate(table):
            print("| " + " | ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)) + " |")
            if j == 0:
                print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")


def compile_sources(versions: Sequence[Version]) -> None:
    """PYTHONDONTWRITEBYTECODE may be set: compile once, or every run pays for it."""
    for v in versions:
        if v.python != sys.executable:
            continue
        where = v.src or os.path.dirname(os.path.dirname(
            subprocess.run([sys.executable, "-c", "import graphguard; print(graphguard.__file__)"], check=True,
                           capture_output=True, text=True).stdout.strip()))
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(where, "graphguard")], check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated file counts (default 1000,10000)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cold-runs", type=int, default=None, help="cold indexes per size (default 3, 1 above 10,000 files)")
    ap.add_argument("--cold-all", action="store_true", help="a cold index with every --version (default: the first only)")
    ap.add_argument("--warm", action="store_true",
                    help="with a repository kept from an earlier run, keep its graph too and skip the cold index")
    ap.add_argument("--keep", action="store_true", help="keep the generated repositories (a later run reuses them)")
    ap.add_argument("--dir", default="/tmp/monorepo", help="where the repositories go (default /tmp/monorepo)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--version", action="append", default=[], metavar="LABEL=SRC")
    ap.add_argument("--ty", default=TY if os.path.exists(TY) else shutil.which("ty") or "", help="the ty binary")
    ap.add_argument("--ty-max", type=int, default=10_000, help="run ty check up to this size (default 10,000)")
    ap.add_argument("--ty-runs", type=int, default=3)
    ap.add_argument("--json", metavar="OUT", help="also write every run's figures as JSON")
    ap.add_argument("--checkout", action="store_true", help="only the checkout round trip with and without the hooks")
    ap.add_argument("--python", action="append", default=[], metavar="LABEL=PYTHON",
                    help="with --checkout: a version as an interpreter with graphguard installed")
    ap.add_argument("--changed", type=int, default=50, help="with --checkout: modules that differ between the branches")
    args = ap.parse_args()
    versions = ([Version(*v.split("=", 1)) for v in args.version] or
                [Version(label, "", python) for label, python in (p.split("=", 1) for p in args.python)] or
                [Version("installed", "")])
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    compile_sources(versions)
    named = ", ".join(f"{v.label}={v.src or (v.python if v.python != sys.executable else 'installed')}" for v in versions)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; versions: {named}", flush=True)
    figs: dict[int, Figures] = {}
    for size in sizes:
        repo = os.path.join(args.dir, f"bench-{size}")
        print(f"{size:,} files: {repo}; load average {loadavg()}", flush=True)
        info = prepare(repo, size, args.seed, args.warm)
        try:
            figs[size] = (measure_checkout if args.checkout else measure)(repo, info, versions, args)
        finally:
            if not args.keep:
                shutil.rmtree(repo, ignore_errors=True)
        print(f"{size:,} files done; load average {loadavg()}", flush=True)
        if args.checkout:
            print_checkout(figs[size], versions, size, args)
            continue
        print_table({size: figs[size]}, versions, args.runs)
        if args.json:
            dump(args.json, figs)
    if len(sizes) > 1 and not args.checkout:
        print_table(figs, versions, args.runs)
    print(f"\nload average {loadavg()}")


def dump(path: str, figs: dict[int, Figures]) -> None:
    out = {str(size): {f"{label}: {name}": [r.__dict__ for r in runs] for (label, name), runs in f.runs.items()}
           for size, f in figs.items()}
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
