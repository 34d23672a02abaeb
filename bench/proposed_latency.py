"""In-process latency of the shadow check (`graphguard.check.run_proposed`), as a long-lived process
(the MCP server) calls it: one open Repo, a warm-up, then N calls of the same proposal.

    python bench/proposed_latency.py REPO [--runs 30] [--warmup 3] [--file django/utils/timezone.py]
        [--function now] [--profile]

REPO is a git repository, indexed first (`graphguard index --repo REPO`), e.g. a copy of Django 5.2.8.
The proposals: `function`'s body with a statement added (body), a required parameter added to it
(signature), and the same signature change while another file has an unstaged edit (signature+dirty:
the working tree counts). Each is timed with the working-tree scan kept between calls (what a
long-lived process gets: graphguard.check.scan) and without (git lists the working tree's changes
at each call, as a one-shot process does), the two alternating call by call so that the machine's
load hits both alike. Prints, per proposal and mode, medians and p90 of wall and CPU time (of this
process: git's children are not in it) of one call, the verdict, the broken callers, and the load. With --profile, where one signature call's
time goes (cProfile over the runs; the stages of graphguard.check by cumulative time), and the
share spent waiting for git processes.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import statistics
import time
from collections.abc import Callable

from graphguard.caches import Caches
from graphguard.check import run_proposed
from graphguard.repo import Repo, open_repo
from graphguard.result import CheckResult, Status

STAGES = [  # (label, file suffix, function name) of the stages reported with --profile
    ("whole call", "check/__init__.py", "run_proposed"),
    ("git processes (all)", "graphguard/git/process.py", "run"),
    ("  working-tree scan: git diff --raw + ls-files --others", "graphguard/git/diffs.py", "diff_raw"),
    ("  of which untracked files (ls-files --others)", "graphguard/git/diffs.py", "untracked"),
    ("changed files (incl. the scan)", "check/revisions.py", "changed"),
    ("read sides (blobs, working tree, proposals)", "check/sides.py", "read_sides"),
    ("overlay (parse the new versions)", "check/overlay.py", "build"),
    ("interface changes", "check/interface.py", "find"),
    ("uses of the changed definitions", "check/uses.py", "gather"),
    ("decide (bind each use)", "check/decide.py", "decide"),
    ("calls written in the change", "check/calls.py", "find"),
    ("tests to run", "check/tests_to_run.py", "attach"),
    ("  the kept scan's check (stat of what it watches)", "check/scan.py", "_unchanged"),
    ("graph brought to HEAD (ensure_current)", "graphguard/repo.py", "ensure_current"),
    ("configuration", "graphguard/config.py", "load"),
]


def proposals(root: str, path: str, function: str) -> dict[str, tuple[dict[str, bytes], str | None]]:
    """name -> (files, a path to dirty in the working tree first or None)."""
    with open(os.path.join(root, path), "rb") as f:
        text = f.read().decode("utf-8")
    m = re.search(rf"^(\s*)def {function}\((.*?)\)([^:\n]*):\n", text, re.MULTILINE | re.DOTALL)
    if m is None:
        raise SystemExit(f"no `def {function}(` in {path}")
    body = text[:m.end()] + m.group(1) + "    _bench = 1\n" + text[m.end():]
    params = m.group(2).strip()
    sig = text[:m.start(2)] + ("bench_required, " + params if params else "bench_required") + text[m.end(2):]
    other = "django/utils/text.py" if os.path.exists(os.path.join(root, "django/utils/text.py")) else None
    return {"body": ({path: body.encode()}, None), "signature": ({path: sig.encode()}, None),
            "signature+dirty": ({path: sig.encode()}, other)}


MODES = ("kept scan", "plain scan")


def measure(repo: Repo, call: Callable[[], CheckResult], runs: int, warmup: int) -> dict[str, tuple[list[float], list[float], CheckResult]]:
    """mode -> (wall ms, CPU ms, the last answer); the modes alternate call by call."""
    for _ in range(warmup):
        call()
    out: dict[str, tuple[list[float], list[float], CheckResult]] = {}
    for _ in range(runs):
        for mode in MODES:
            if mode == "plain scan":
                fresh = Caches()  # as a new process: the first scan of a root is git's, and keeps nothing
                repo.caches.scans, repo.caches.unmerged, repo.caches.blobs = fresh.scans, fresh.unmerged, fresh.blobs
            c, t = time.process_time(), time.perf_counter()
            result = call()
            wall, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
            walls, cpus, _ = out.get(mode, ([], [], result))
            out[mode] = (walls + [wall], cpus + [cpu], result)
        call()  # keep the scan again (the plain call forgot it)
    return out


def p90(xs: list[float]) -> float:
    return sorted(xs)[max(0, round(0.9 * len(xs)) - 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--file", default="django/utils/timezone.py")
    ap.add_argument("--function", default="now")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.repo)
    repo = open_repo(root)
    load0 = os.getloadavg()
    print(f"shadow check in process: {root}, {args.file} `{args.function}`; {args.runs} calls after {args.warmup} warm-up")
    print(f"{'proposal':<18} {'mode':<11} {'wall p50':>9} {'wall p90':>9} {'CPU p50':>8} {'verdict':>8} {'broken':>7} {'callers':>8}")
    for name, (files, dirty) in proposals(root, args.file, args.function).items():
        saved = None
        if dirty:
            with open(os.path.join(root, dirty), "rb") as f:
                saved = f.read()
            with open(os.path.join(root, dirty), "ab") as f:
                f.write(b"\n_bench_dirty = 1\n")
        try:
            measured = measure(repo, lambda files=files: run_proposed(repo, files), args.runs, args.warmup)
        finally:
            if dirty and saved is not None:
                with open(os.path.join(root, dirty), "wb") as f:
                    f.write(saved)
        for mode, (walls, cpus, result) in measured.items():
            callers = [k for c in result.changes for k in c.callers]
            broken = sum(1 for k in callers if k.status is Status.BROKEN)
            print(f"{name:<18} {mode:<11} {statistics.median(walls):7.1f}ms {p90(walls):7.1f}ms {statistics.median(cpus):6.1f}ms"
                  f" {result.verdict.value:>8} {broken:>7} {len(callers):>8}")
    load1 = os.getloadavg()
    print(f"load average (1, 5, 15 min): before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f},"
          f" after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; {os.cpu_count()} cores")
    if args.profile:
        files, _ = proposals(root, args.file, args.function)["signature"]
        run_proposed(repo, files)  # the scan kept again
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.runs):
            run_proposed(repo, files)
        prof.disable()
        stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        print(f"\nwhere a signature call's time goes, scan kept (cProfile, mean of {args.runs}; profiled calls run slower):")
        for label, suffix, func in STAGES:
            total = sum(v[3] for (fname, _, fn), v in stats.items() if fn == func and fname.endswith(suffix))
            print(f"  {label:<58} {total / args.runs * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
