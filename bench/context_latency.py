"""What an agent waits for: index time, the first `context` after it, and warm `context` latency; and what the
text index (built with the graph since issue 12) adds to a one-file commit's pre-commit hook and to `index`.

    python bench/context_latency.py REPO [--src DIR] [--runs 7] [--query TEXT ...] [--commit-file PATH]

REPO is a git repository, used as it is (its `.git/graphguard` is removed first: a cold start). Each command
is a whole process (`python -m graphguard`), as an agent or a hook starts it. --src is a folder holding a
`graphguard` package (`git archive REV graphguard | tar -x -C DIR`) run first on sys.path
(common.graphguard_argv), to compare versions on the same repository; without it, the installed one. Steps:

1. `index` cold (graph, history and, with this version, the text index).
2. the first `context` after it, then --runs warm ones (the queries in turn): p50 and p90.
3. a one-file commit: --commit-file (default: the first tracked .py file) gets a new function appended and
   is staged; the pre-commit hook's work (`hook-impl --hook-type pre-commit`) is timed, the commit made
   without hooks, then `index` (the graph, history and text index brought to the new commit) and the first
   `context` after it. The commit is undone at the end (`reset --hard HEAD~1`).

Prints medians in milliseconds, what the text index's last update did (meta `text_work`), and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

import common

QUERIES = (
    "add a field to the REST API serializer",
    "fix the validation error message when saving the form",
    "cache the result of the permission check",
)
#: The text index built again from nothing, in one process: what it adds to a cold `index` (or, in a version
#: that builds it on the first query, to that query). Prints seconds.
TEXT_BUILD = """import sys, time
from graphguard.repo import open_repo
from graphguard.retrieval import source, textindex
r = open_repo('.')
db = r.store.graph
head = r.store.meta('head')
db.execute("DELETE FROM meta WHERE key IN ('text_state', 'text_version')")
db.commit()
with r.store.write_lock(60):
    t0 = time.perf_counter()
    textindex.ensure(db, head, lambda shas: source.blobs(r.root, shas))
    print(time.perf_counter() - t0)
"""


def git(repo: str, *args: str) -> str:
    return common.git(repo, "-c", "core.hooksPath=/dev/null", *common.IDENTITY, *args)


def run(repo: str, src: str | None, *args: str) -> float:
    t0 = time.perf_counter()
    p = subprocess.run([*common.graphguard_argv(src), *args], cwd=repo, capture_output=True, text=True)
    ms = (time.perf_counter() - t0) * 1000
    if p.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return ms


def text_work(repo: str) -> str:
    path = os.path.join(git(repo, "rev-parse", "--absolute-git-dir"), "graphguard", "graph.sqlite3")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'text_work'").fetchone()
        docs = conn.execute("SELECT count(*) FROM text_docs").fetchone()[0]
    finally:
        conn.close()
    return f"{row[0] if row else '(none recorded)'}; {docs} documents"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--src", help="folder holding the graphguard package to run (default: the installed one)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--query", action="append", help="task texts, used in turn (default: three generic ones)")
    ap.add_argument("--commit-file")
    ap.add_argument("--skip-commit", action="store_true")
    ap.add_argument("--builds", type=int, default=0, help="also time the text index built from nothing, N times")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    queries = a.query or list(QUERIES)
    load0 = os.getloadavg()
    shutil.rmtree(os.path.join(git(repo, "rev-parse", "--absolute-git-dir"), "graphguard"), ignore_errors=True)
    rows: list[tuple[str, float]] = []
    rows.append(("index, cold", run(repo, a.src, "index")))
    rows.append(("first context after index", run(repo, a.src, "context", queries[0])))
    work_after_first = text_work(repo)
    warm = [run(repo, a.src, "context", queries[i % len(queries)]) for i in range(a.runs)]
    rows.append(("warm context p50", statistics.median(warm)))
    builds = [float(subprocess.run(common.graphguard_code_argv(a.src, TEXT_BUILD), cwd=repo, check=True, capture_output=True,
                                   text=True).stdout) * 1000 for _ in range(a.builds)]
    if builds:
        rows.append((f"text index built from nothing, in process (median of {a.builds})", statistics.median(builds)))
    rows.append(("warm context p90", pct(warm, 0.9)))
    if not a.skip_commit:
        path = a.commit_file or next(p for p in git(repo, "ls-files", "*.py").splitlines() if "/" in p and "test" not in p)
        with open(os.path.join(repo, path), "a", encoding="utf-8") as f:
            f.write("\n\ndef _context_latency_probe(value):\n    return value\n")
        git(repo, "add", path)
        commit_work = ""
        try:
            rows.append((f"pre-commit hook, 1 file ({path})", run(repo, a.src, "hook-impl", "--hook-type", "pre-commit")))
            git(repo, "commit", "-q", "--no-verify", "-m", "probe")
            rows.append(("index after the commit", run(repo, a.src, "index")))
            rows.append(("first context after the commit", run(repo, a.src, "context", queries[0])))
            commit_work = text_work(repo)
        except subprocess.CalledProcessError as e:  # a partial clone (blobs missing): the other figures stand
            commit_work = f"commit step failed: {e.stderr.strip()[-200:] if e.stderr else e}"
        finally:  # not `reset --hard`: a partial clone may lack blobs of files the probe never touched
            if git(repo, "log", "-1", "--format=%s") == "probe":
                git(repo, "reset", "-q", "--soft", "HEAD~1")
            git(repo, "checkout", "HEAD", "--", path)
    load1 = os.getloadavg()
    print(f"# {repo}  version: {a.src or 'installed'}  {len(git(repo, 'ls-files', '*.py').splitlines())} .py files")
    print(f"{'step':<58} {'ms':>9}")
    for name, ms in rows:
        print(f"{name:<58} {ms:>9.0f}")
    print(f"warm runs (ms): {', '.join(f'{v:.0f}' for v in warm)}")
    print(f"text index after the first context: {work_after_first}")
    if not a.skip_commit:
        print(f"text index after the commit's index: {commit_work}")
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} ({os.cpu_count()} cores)")
    print(json.dumps({"rows": rows, "warm": warm}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
