"""Profiles fitted to each repository's history against the shipped default, on its own later commits.

    python bench/fit_eval.py REPO [REPO ...] [--seconds 30] [--commits 300] [--runs 1]

REPO is a local git clone (the script indexes it in place: `.git/graphguard`; use a clone of your own, not a
shared one). For each, `graphguard.answers.fit_repository` replays the newest --commits non-merge commits as
queries (text: the message -> the .py files touched; seeded: the most-changed non-test file -> the others), with
co-change, recency and frequency cut at each commit (retrieval/fitting.py), fits the weights on the older two
thirds and reports recall@10 of the fitted profile and of the shipped default on the newer third (validation).
The graph and text index are HEAD's for every replayed commit (the same for both profiles). The stored profile
is left alone. Prints a table of medians over --runs and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from graphguard.answers.context import fit_repository
from graphguard.repo import ensure_current, open_repo


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    rows = []
    for path in args.repos:
        repo = open_repo(path)
        t0 = time.monotonic()
        ensure_current(repo, progress=False)
        index_s = time.monotonic() - t0
        runs = []
        for _ in range(args.runs):
            t0 = time.monotonic()
            fp = fit_repository(repo, most=args.commits, seconds=args.seconds, log=lambda m: print(m, file=sys.stderr))
            runs.append((time.monotonic() - t0, fp))
        fp = runs[-1][1]
        val = fp.validation
        rows.append((os.path.basename(path.rstrip("/")), fp.fit_commits, fp.validation_commits,
                     val.get("text"), val.get("seeded"), statistics.median(r[0] for r in runs), index_s, fp))
        repo.store.close()
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); --seconds {args.seconds}, --commits {args.commits}")
    print("| project | fit / validation commits | text R@10 fitted | default | seeded R@10 fitted | default | used | fit s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, nf, nv, text, seeded, secs, _index_s, fp in rows:
        def cell(r: object, attr: str) -> str:
            return f"{getattr(r, attr):.3f}" if r is not None else "-"
        print(f"| {name} | {nf} / {nv} | {cell(text, 'fitted')} | {cell(text, 'default')} | {cell(seeded, 'fitted')}"
              f" | {cell(seeded, 'default')} | {'fitted' if fp.accepted else 'default'} | {secs:.1f} |")
    for name, *_rest, fp in rows:
        w = ", ".join(f"{k} {v:.2f}" for k, v in fp.weights.items())
        print(f"  {name}: {w}; half-life {fp.half_life:.0f} d; {fp.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
