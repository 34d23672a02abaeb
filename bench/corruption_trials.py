"""Damage trials: what graphguard notices when the bytes of its store go bad on disk.

    python bench/corruption_trials.py REPO [--trials 10] [--symbol pkg.mod.f] [--seed 1]

REPO is a git repository graphguard has indexed. Its two store files are saved, then,
for each file (graph, blob cache) and each kind of damage (64 random bytes at one
random offset; 16 single-bit flips at random offsets), each trial restores the saved
files, damages one, and:

- asks SQLite directly: does `PRAGMA quick_check` / `integrity_check` report it?
- runs `graphguard callers SYMBOL` (a query: no full check) and `graphguard stats`
  (which runs quick_check on both files), after a rebuild of the graph from the blob
  cache for blob-cache damage (that is when cached facts are read);
- compares the graph left behind with the saved one (tests/graphdump.py: every row).

A trial is "detected" when graphguard warned (damaged / unreadable / rebuilding),
"silent-diff" when it did not and the answer or the graph differs, "harmless" when
nothing it uses changed. Also prints the cost of the checks on the saved files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tests.graphdump import dump

GG = [sys.executable, "-m", "graphguard"]
WARNED = ("damaged", "unreadable", "rebuilding")


def run(repo: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GG, *args], cwd=repo, capture_output=True, text=True, check=False)


def pragma(path: str, name: str) -> bool:
    """True when the pragma reports a problem (or SQLite cannot read the file at all)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return [r[0] for r in conn.execute(f"PRAGMA {name}")] != ["ok"]
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return True


def cost_ms(path: str, name: str, runs: int = 5) -> float:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        conn.execute(f"PRAGMA {name}").fetchall()
        times.append((time.perf_counter() - t0) * 1000)
    conn.close()
    return sorted(times)[len(times) // 2]


def damage(path: str, kind: str, rng: random.Random) -> None:
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if kind == "bytes":
        at = rng.randrange(100, len(data) - 64)  # past the 100-byte header, as a bad sector would be
        data[at : at + 64] = rng.randbytes(64)
    else:
        for _ in range(16):
            at = rng.randrange(100, len(data))
            data[at] ^= 1 << rng.randrange(8)
    with open(path, "wb") as f:
        f.write(data)


def trial(repo: str, store: str, saved: str, target: str, kind: str, symbol: str, ref: dict[str, object],
          rng: random.Random) -> dict[str, object]:
    for name in ("graph.sqlite3", "blobs.sqlite3"):
        for suffix in ("-wal", "-shm"):
            if os.path.exists(os.path.join(store, name + suffix)):
                os.remove(os.path.join(store, name + suffix))
        shutil.copy(os.path.join(saved, name), os.path.join(store, name))
    path = os.path.join(store, target)
    damage(path, kind, rng)
    row: dict[str, object] = {"quick_check": pragma(path, "quick_check"), "integrity_check": pragma(path, "integrity_check")}
    if target == "blobs.sqlite3":
        os.remove(os.path.join(store, "graph.sqlite3"))  # the graph is rebuilt from the cached facts
    callers = run(repo, "callers", symbol, "--format", "json")
    stats = run(repo, "stats", "--format", "json")
    warned_query = any(w in callers.stderr for w in WARNED)
    warned = warned_query or any(w in stats.stderr for w in WARNED)
    try:
        graph_same = dump(os.path.join(store, "graph.sqlite3")) == ref["dump"]
    except sqlite3.DatabaseError:
        graph_same = False
    answer_same = callers.returncode == 0 and json.loads(callers.stdout) == ref["callers"]
    errors = [r.stderr.strip().splitlines()[-1] for r in (callers, stats) if r.returncode and r.stderr.strip()]
    row.update(callers_warned=warned_query, warned=warned, answer_same=answer_same, graph_same=graph_same, errors=errors,
               outcome="detected" if warned else ("harmless" if answer_same and graph_same and not errors else "silent-diff"))
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--symbol", required=True, help="a function with callers, for `graphguard callers`")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    store = os.path.join(repo, ".git", "graphguard")
    if run(repo, "index").returncode:
        sys.exit("graphguard index failed")
    saved = os.path.join(repo, ".git", "graphguard-trials-saved")
    shutil.rmtree(saved, ignore_errors=True)
    os.makedirs(saved)
    for name in ("graph.sqlite3", "blobs.sqlite3"):
        conn = sqlite3.connect(os.path.join(store, name))
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        shutil.copy(os.path.join(store, name), os.path.join(saved, name))
        size = os.path.getsize(os.path.join(saved, name)) / 1e6
        costs = {p: round(cost_ms(os.path.join(saved, name), p), 1) for p in ("quick_check", "integrity_check")}
        print(f"{name}: {size:.1f} MB; median ms: {costs}")
    ref = {"dump": dump(os.path.join(saved, "graph.sqlite3")),
           "callers": json.loads(run(repo, "callers", args.symbol, "--format", "json").stdout)}
    rng = random.Random(args.seed)
    try:
        for target in ("graph.sqlite3", "blobs.sqlite3"):
            for kind in ("bytes", "bits"):
                rows = [trial(repo, store, saved, target, kind, args.symbol, ref, rng) for _ in range(args.trials)]
                outcomes = Counter(str(r["outcome"]) for r in rows)
                seen = {k: sum(bool(r[k]) for r in rows) for k in ("quick_check", "integrity_check", "callers_warned")}
                print(f"{target} {kind}: {dict(outcomes)}; would be flagged by: {seen}")
                for r in rows:
                    if r["outcome"] == "silent-diff" or r["errors"]:
                        print(f"    {r}")
    finally:
        for name in ("graph.sqlite3", "blobs.sqlite3"):
            shutil.copy(os.path.join(saved, name), os.path.join(store, name))
        shutil.rmtree(saved, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
