"""Benchmark of the graph on Django 5.2.8 (whole-process wall times, medians).

    python bench/index_bench.py [--runs N] [--project django==5.2.8]

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
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
GG = [sys.executable, "-m", "graphguard"]


def sh(*args: str, cwd: str | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, check=check, capture_output=True)


def fetch(spec: str) -> str:
    """Unpack the sdist of `spec` (name==version) into a fresh git repository; return its path."""
    name, version = spec.split("==")
    src = os.path.join(CACHE, f"{name}-{version}")
    if not os.path.isdir(src):
        os.makedirs(CACHE, exist_ok=True)
        sh(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", spec, "-d", CACHE)
        archive = next(p for p in glob.glob(os.path.join(CACHE, f"{name}-{version}.tar.gz")) + glob.glob(os.path.join(CACHE, f"{name.lower()}-{version}.tar.gz")))
        with tarfile.open(archive) as tar:
            tar.extractall(CACHE, filter="data")
        found = [d for d in glob.glob(os.path.join(CACHE, "*")) if os.path.isdir(d) and os.path.basename(d).lower() == f"{name}-{version}".lower()]
        if found and found[0] != src:
            os.rename(found[0], src)
    repo = os.path.join(CACHE, f"repo-{name}")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(src, repo)
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-qm", "import")):
        sh("git", *args, cwd=repo)
    return repo


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--project", default="django==5.2.8")
    ap.add_argument("--function", default="django.utils.timezone.now", help="the symbol whose callers are timed")
    ap.add_argument("--edit", default="django/utils/text.py", help="the file a one-file commit touches")
    args = ap.parse_args()
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
