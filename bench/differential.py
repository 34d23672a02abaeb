"""Differential benchmark: random checkouts over a real repository's history, the incremental graph
compared with a fresh index of the same commit after every step.

The fresh build shares the blob cache, so it parses nothing: compare its time with the incremental
one's minus the parsing of the step's new blobs (the `parsed` column).

    python bench/differential.py REPO [--steps N] [--seed S] [--max-jump FILES]

REPO is a work tree of a real repository with real history (a clone of your own; it is checked out,
so use a scratch clone). Each step checks out a random commit (first-parent history of HEAD at the
start, so jumps range from a few files to thousands), brings the repository's own graph up to date
as `graphguard index` does, then indexes the same commit from scratch into a scratch graph (sharing
the content-addressed blob cache, so the fresh build parses nothing the incremental one did not) and
compares the two dumps (tests/graphdump.py). It prints one row per step and the machine load, and
exits 1 when any step differs.

Files a partial mirror lacks (a shallow or filtered clone) can be left out of the work tree with
`git sparse-checkout` and out of the graph with `exclude` in `.graphguard.toml`; netbox, say:

    git clone --no-checkout <mirror> /tmp/netbox && cd /tmp/netbox
    git sparse-checkout set --no-cone '/*' '!/netbox/extras/data/' '!/contrib/openapi.json'
    printf 'exclude = ["netbox/extras/data/*"]\\n' > .graphguard.toml && git checkout -q main
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import git

from graphguard.repo import IndexResult
from tests.differential import fresh_dump, incremental_dump
from tests.graphdump import differences


def changed_py(repo: str, a: str, b: str) -> int:
    return len([p for p in git(repo, "diff", "--name-only", "--no-renames", a, b, "--", "*.py").splitlines() if p])


def pick(repo: str, rng: random.Random, commits: list[str], head: str, max_jump: int) -> tuple[str, int]:
    """A random commit, at most `max_jump` Python files away from HEAD (a few tries)."""
    for _ in range(8):
        rev = rng.choice(commits)
        n = changed_py(repo, head, rev)
        if 0 < n <= max_jump:
            return rev, n
    return rev, changed_py(repo, head, rev)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-jump", type=int, default=100_000, help="skip commits more Python files away than this")
    ap.add_argument("--history", type=int, default=3000, help="walk among the last N first-parent commits")
    args = ap.parse_args(argv)
    repo, rng = os.path.abspath(args.repo), random.Random(args.seed)
    commits = git(repo, "rev-list", "--first-parent", f"--max-count={args.history}", "HEAD").splitlines()
    start = git(repo, "rev-parse", "HEAD")
    t = time.perf_counter()
    incremental_dump(repo)
    print(f"{repo}: {len(commits)} commits to walk; first index {time.perf_counter() - t:.1f} s at {start[:10]}")
    print(f"{'step':>4}  {'commit':<10}  {'py files changed':>16}  {'parsed':>6}  {'re-resolved':>11}  {'incremental s':>13}  {'fresh s':>7}  equal")
    head, failed = start, 0
    for step in range(1, args.steps + 1):
        rev, n = pick(repo, rng, commits, head, args.max_jump)
        git(repo, "checkout", "-q", "--detach", rev)
        times: list[float] = []
        results: list[IndexResult] = []
        mine = incremental_dump(repo, times, results)
        fresh = fresh_dump(repo, timings=times)
        t_inc, t_fresh = times
        equal = mine == fresh
        r = results[0]
        print(f"{step:>4}  {rev[:10]:<10}  {n:>16}  {r.parsed:>6}  {r.resolved:>11}  {t_inc:>13.2f}  {t_fresh:>7.2f}  {'yes' if equal else 'NO'}",
              flush=True)
        if not equal:
            failed += 1
            for line in differences(mine, fresh, limit=3):
                print(f"        {line[:600]}")
        head = rev
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.steps - failed}/{args.steps} steps equal; load average (1, 5, 15 min): {load}; {os.cpu_count()} CPUs")
    git(repo, "checkout", "-q", "--detach", start)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
