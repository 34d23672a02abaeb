"""Benchmark of the graph on Django 5.2.8 (whole-process wall times, medians).

    python bench/index_bench.py [--runs N] [--project django==5.2.8]
    python bench/index_bench.py --cold REPO [--runs N]       cold index against the raw parse, per phase
    python bench/index_bench.py --switch REPO --to REV [--runs N]   HEAD -> REV -> back, each refresh timed

Downloads the sdist with pip, makes it a git repository under bench/.cache, then
times `graphguard` as a user runs it: cold index, no-op index, index after a
one-file commit, `callers` of a widely used function, and `check` of a one-file
change; prints peak memory and the resolution figures of `stats`.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

from common import one_commit_repo, sdist_tree

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
GG = [sys.executable, "-m", "graphguard"]


def sh(*args: str, cwd: str | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, check=check, capture_output=True)


def fetch(spec: str) -> str:
    """Unpack the sdist of `spec` (name==version) into a fresh git repository; return its path."""
    return one_commit_repo(sdist_tree(spec, CACHE), os.path.join(CACHE, f"repo-{spec.split('==')[0]}"))


def timed(args: list[str], cwd: str) -> float:
    t = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.decode()[-500:]}")
    return elapsed


def drop_graph(repo: str, blobs_too: bool) -> None:
    """Forget the snapshot (and, for a cold run, the blob cache too)."""
    folder = os.path.join(repo, ".git", "graphguard")
    if blobs_too:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for suffix in ("", "-wal", "-shm"):
        path = os.path.join(folder, "graph.sqlite3" + suffix)
        if os.path.exists(path):
            os.remove(path)


# --- cold index against the raw tree-sitter parse and query of the same files -------------------------------

#: Runs in the repository: a cold `ensure_current` (what `graphguard index` does), then one JSON line with the
#: indexer's time per phase, the total, and the peak RSS of this process and of its workers.
COLD_DRIVER = """
import json, resource, sys, time
import graphguard.index.update as ix
from graphguard.repo import ensure_current, open_repo
seen = []
update = ix.Indexer.update
def spy(self, head=None):
    seen.append(self)
    return update(self, head)
ix.Indexer.update = spy
t = time.perf_counter()
result = ensure_current(open_repo("."), progress=False)
total = time.perf_counter() - t
rss = [resource.getrusage(who).ru_maxrss / 1024 for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({"phases": seen[0].phases.times, "total": total, "files": result.files, "rss_mb": rss}))
"""


def _raw_chunk(chunk: list[bytes]) -> None:
    from graphguard.languages.python import nodes, treesitter

    for data in chunk:
        treesitter.matches(nodes.QUERY, treesitter.parse(data).root_node)


def raw_parse(blobs: list[bytes], workers: int) -> float:
    """Seconds to parse and query every blob with tree-sitter alone: in this process, or in `workers` forked
    processes with the indexer's chunking (big files first, interleaved chunks of CHUNK)."""
    from graphguard.index.facts import CHUNK

    t = time.perf_counter()
    if workers == 1:
        _raw_chunk(blobs)
        return time.perf_counter() - t
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ordered = sorted(blobs, key=len, reverse=True)
    n = max(1, len(ordered) // CHUNK)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_raw_chunk, [ordered[i::n] for i in range(n)]))
    return time.perf_counter() - t


def head_blobs(repo: str) -> list[bytes]:
    """The distinct blobs of the Python files at HEAD: what a cold index parses."""
    from graphguard import git
    from graphguard.languages.python.modules import is_python

    shas = sorted({e.sha for e in git.ls_tree(repo, "HEAD") if is_python(e.path) and e.mode not in (git.MODE_SYMLINK, git.MODE_SUBMODULE)})
    return [data for _, data in git.read_blobs(repo, shas)]


def cold_vs_raw(repo: str, runs: int) -> None:
    """Alternating in each run: raw parse+query serial, raw parallel, cold index (a fresh process). Medians."""
    sys.path.insert(0, os.path.dirname(HERE))
    from graphguard.languages.python import nodes, treesitter

    blobs = head_blobs(repo)
    treesitter.matches(nodes.QUERY, treesitter.parse(b"x = 1\n").root_node)  # the grammar loaded before timing
    workers = min(os.cpu_count() or 1, 8)
    serial, parallel, wall, totals, phases, rss = [], [], [], [], [], []
    for _ in range(runs):
        serial.append(raw_parse(blobs, 1))
        parallel.append(raw_parse(blobs, workers))
        shutil.rmtree(os.path.join(repo, ".git", "graphguard"), ignore_errors=True)
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", COLD_DRIVER], cwd=repo, capture_output=True, check=True).stdout
        wall.append(time.perf_counter() - t)
        report = json.loads(out.decode().strip().splitlines()[-1])
        totals.append(report["total"])
        phases.append(report["phases"])
        rss.append(report["rss_mb"])
    med = statistics.median
    print(f"\n{repo}: {len(blobs)} distinct blobs, {runs} runs, {os.cpu_count()} cores, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print(f"| {'measure':<44} | {'median':>8} | {'min':>8} |")
    print(f"|{'-' * 46}|{'-' * 10}|{'-' * 10}|")
    rows = [("raw tree-sitter parse+query, serial (1 core)", serial), (f"raw tree-sitter parse+query, {workers} workers", parallel),
            ("cold index, whole process", wall), ("cold index, in process", totals)]
    names = sorted({name for p in phases for name in p}, key=lambda n: -med([p.get(n, 0.0) for p in phases]))
    rows += [(f"  phase: {name}", [p.get(name, 0.0) for p in phases]) for name in names]
    for name, values in rows:
        print(f"| {name:<44} | {med(values):>6.2f} s | {min(values):>6.2f} s |")
    print(f"\ncold index / raw serial: {med(wall) / med(serial):.2f}x (target <= 2.5x); "
          f"/ raw {workers} workers: {med(wall) / med(parallel):.2f}x")
    print(f"peak RSS: indexer {max(r[0] for r in rss):.0f} MB, largest worker {max(r[1] for r in rss):.0f} MB; "
          f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def switch(repo: str, to: str, runs: int) -> None:
    """From the current branch to `to` and back, `graphguard index` after each checkout: the first round fills
    the snapshots; the back-and-forth after it is what a user switching branches pays."""
    start = sh("git", "symbolic-ref", "--short", "HEAD", cwd=repo).stdout.decode().strip()
    back, there = [], []
    sh(*GG, "index", cwd=repo)
    for _ in range(runs):
        sh("git", "checkout", "-q", to, cwd=repo)
        there.append(timed([*GG, "index"], repo))
        sh("git", "checkout", "-q", start, cwd=repo)
        back.append(timed([*GG, "index"], repo))
    print(f"\n{repo}: {start} -> {to} -> {start}, {runs} rounds, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"to {to}: {', '.join(f'{v:.2f}' for v in there)} s; back to {start}: {', '.join(f'{v:.2f}' for v in back)} s"
          f" (first round fills the snapshots; target <= 2 s after it)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cold", metavar="REPO", help="cold index against the raw parse of the same files, per phase")
    ap.add_argument("--switch", metavar="REPO", help="time `index` after checkouts of --to and back")
    ap.add_argument("--to", default="rel_1_4_0")
    ap.add_argument("--project", default="django==5.2.8")
    ap.add_argument("--function", default="django.utils.timezone.now", help="the symbol whose callers are timed")
    ap.add_argument("--edit", default="django/utils/text.py", help="the file a one-file commit touches")
    args = ap.parse_args()
    if args.cold:
        cold_vs_raw(os.path.abspath(args.cold), args.runs)
        return
    if args.switch:
        switch(os.path.abspath(args.switch), args.to, args.runs)
        return
    repo = fetch(args.project)
    n_files = sum(1 for _ in glob.iglob(os.path.join(repo, "**", "*.py"), recursive=True))
    rows: list[tuple[str, list[float], str]] = []

    cold = []
    for _ in range(args.runs):
        drop_graph(repo, blobs_too=True)
        cold.append(timed([*GG, "index"], repo))
    rows.append(("cold index (no cache)", cold, "<= 4 s"))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    warm_blobs = []
    for _ in range(args.runs):
        drop_graph(repo, blobs_too=False)
        warm_blobs.append(timed([*GG, "index"], repo))
    rows.append(("index, blob cache warm", warm_blobs, ""))

    rows.append(("no-op index", [timed([*GG, "index"], repo) for _ in range(args.runs)], "<= 150 ms"))

    one = []
    for i in range(args.runs):
        with open(os.path.join(repo, args.edit), "a") as f:
            f.write(f"\n\ndef _bench_added_{i}(x):\n    return x\n")
        sh("git", "-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-qam", f"edit {i}", cwd=repo)
        one.append(timed([*GG, "index"], repo))
    rows.append(("index after a one-file commit", one, "<= 300 ms"))

    rows.append((f"callers {args.function}", [timed([*GG, "callers", args.function], repo) for _ in range(args.runs)], "<= 200 ms"))

    # check of a one-file change: a signature change staged, graph warm.
    path = os.path.join(repo, args.edit)
    with open(path) as f:
        original = f.read()
    with open(path, "a") as f:
        f.write("\n\ndef _bench_changed(x, y):\n    return x\n")
    sh("git", "-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-qam", "base", cwd=repo)
    sh(*GG, "index", cwd=repo)
    with open(path, "a") as f:
        f.write("\n")
    text = open(path).read().replace("def _bench_changed(x, y):", "def _bench_changed(x, y, z):")
    with open(path, "w") as f:
        f.write(text)
    sh("git", "add", args.edit, cwd=repo)
    rows.append(("check --staged, one-file change", [timed([*GG, "check", "--staged"], repo) for _ in range(args.runs)], "<= 300 ms"))
    sh("git", "checkout", "-q", "HEAD", "--", args.edit, cwd=repo)
    del original

    stats = json.loads(sh(*GG, "stats", "--format", "json", cwd=repo).stdout)
    print(f"\n{args.project}: {n_files} .py files, {args.runs} runs each, {os.cpu_count()} cores\n")
    print(f"| {'measure':<36} | {'median':>9} | {'min':>9} | {'target':>9} |")
    print(f"|{'-' * 38}|{'-' * 11}|{'-' * 11}|{'-' * 11}|")
    for name, values, target in rows:
        med = statistics.median(values)
        fmt = (lambda v: f"{v * 1000:.0f} ms") if med < 2 else (lambda v: f"{v:.2f} s")
        print(f"| {name:<36} | {fmt(med):>9} | {fmt(min(values)):>9} | {target:>9} |")
    print(f"| {'peak memory (largest process)':<36} | {peak_mb:>6.0f} MB | {'':>9} | {'<= 500 MB':>9} |")
    imp, calls = stats["imports"], stats["calls"]
    print(f"\nimports: {imp['total']} statements: {imp['internal']} internal, {imp['external']} external, "
          f"{imp['unresolved']} unresolved: {100 * (imp['internal'] + imp['external']) / imp['total']:.2f}% resolved or classified")
    print(f"calls: {calls['total']} sites; {calls['name_matches_repo']} name a definition of the repository; "
          f"{calls['resolved']} resolved to one ({100 * calls['resolved'] / calls['name_matches_repo']:.1f}%), "
          f"+{calls.get('by_name', 0)} by unique method name ({100 * (calls['resolved'] + calls.get('by_name', 0)) / calls['name_matches_repo']:.1f}%)")


if __name__ == "__main__":
    main()
