"""Cold index, no-op index and a one-file check, for two or more graphguard versions side by side.

    python bench/version_costs.py [--project django==5.2.8] --version LABEL=SRC --version LABEL=SRC [--runs 5]
        [--file django/utils/timezone.py] [--function now]

The figures a restructure must keep within noise (issue 20): each version gets its own copy of the
project (an sdist made a one-commit git repository), because versions of different store schemas
would rebuild each other's graph; the runs interleave version by version, so the machine's load hits
each alike. Per run: `index` with no store (cold), `index` again (no-op), and `check --staged` of a
statement added to FUNCTION's body in FILE (staged, then reset). Prints medians of whole-process wall
and CPU seconds (the process and its children) with the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import time

from check_latency import edit, reset
from common import CACHE, children_cpu, graphguard_argv, load_line, one_commit_repo, sdist_tree

CASES = ("cold index", "no-op index", "one-file check")


def timed(repo: str, src: str, *args: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole graphguard process in `repo`."""
    env = {**os.environ, "GRAPHGUARD_REFRESH": "foreground"}
    cpu, t = children_cpu(), time.perf_counter()
    proc = subprocess.run([*graphguard_argv(src), *args], cwd=repo, env=env, capture_output=True)
    wall = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed: {proc.stderr.decode(errors='replace')[-400:]}")
    return wall, children_cpu() - cpu


def one_run(repo: str, src: str, path: str, function: str) -> dict[str, tuple[float, float]]:
    shutil.rmtree(os.path.join(repo, ".git", "graphguard"), ignore_errors=True)
    out = {"cold index": timed(repo, src, "index"), "no-op index": timed(repo, src, "index")}
    edit(repo, path, function, "body")
    out["one-file check"] = timed(repo, src, "check", "--staged", "--format", "json")
    reset(repo)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", default="django==5.2.8")
    ap.add_argument("--version", action="append", required=True, metavar="LABEL=SRC")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", default="django/utils/timezone.py")
    ap.add_argument("--function", default="now")
    args = ap.parse_args()
    versions = [tuple(v.split("=", 1)) for v in args.version]
    src_tree = sdist_tree(args.project)
    repos = {label: one_commit_repo(src_tree, os.path.join(CACHE, f"versions-{label}")) for label, _ in versions}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        for label, src in versions:
            for case, t in one_run(repos[label], src, args.file, args.function).items():
                times.setdefault((label, case), []).append(t)
    print(f"{args.project}: medians of {args.runs} interleaved whole-process runs, wall s (CPU s)")
    print(f"{'version':<12}" + "".join(f"{c:>22}" for c in CASES))
    for label, _ in versions:
        cells = [f"{statistics.median(w for w, _ in times[(label, c)]):.3f} ({statistics.median(u for _, u in times[(label, c)]):.3f})"
                 for c in CASES]
        print(f"{label:<12}" + "".join(f"{c:>22}" for c in cells))
    print(load_line())


if __name__ == "__main__":
    main()
