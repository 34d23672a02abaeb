"""`check --base M~1 --head M` of real merge commits: time, verdict and report length, per graphguard version.

    python bench/merge_check.py REPO [--merge SHA ...] [--merges 3] [--version LABEL=SRC ...]
        [--runs 3] [--timeout 90]

REPO is a throwaway clone (e.g. `git clone -q /work/.mirror/sphinx-doc+sphinx/repo /tmp/sphinx`): its
HEAD is moved (detached) to each merge's first parent, indexed there untimed, and put back at the end.
Without --merge, the --merges first-parent merges (of the last 60) whose second parent brought the most
changed Python files. Each version is a folder holding a `graphguard` package (`git archive REV graphguard
| tar -x -C /tmp/old`), run first on sys.path (common.graphguard_argv); without --version, the installed
one. Runs alternate between versions; a run past --timeout is killed and counted as the timeout. Prints per merge and version
the medians of whole-process wall and CPU time (user + system, the process and its git children: on a
loaded machine the wall time mostly measures the wait for a core), the verdict, the text report's lines,
and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

from common import children_cpu, git, graphguard_argv


def python_files(repo: str, old: str, new: str) -> int:
    return len([p for p in git(repo, "diff", "--name-only", old, new, "--", "*.py", "*.pyi").splitlines() if p])


def pick(repo: str, count: int) -> list[str]:
    """The merges whose second parent changed the most Python files relative to the first."""
    merges = git(repo, "log", "--merges", "--first-parent", "-n", "60", "--format=%H").split()
    return sorted(merges, key=lambda m: -python_files(repo, f"{m}~1", m))[:count]


def graphguard(repo: str, src: str, args: list[str], timeout: float) -> tuple[float, float, int | None, int]:
    """(wall, CPU, exit code or None when killed, stdout lines) of one whole process."""
    cpu, t = children_cpu(), time.perf_counter()
    try:
        proc = subprocess.run([*graphguard_argv(src), *args], cwd=repo, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run kills and reaps it
        return time.perf_counter() - t, children_cpu() - cpu, None, 0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed: {proc.stderr.decode(errors='replace')[-400:]}")
    return time.perf_counter() - t, children_cpu() - cpu, proc.returncode, proc.stdout.count(b"\n")


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--merge", action="append", default=[])
    ap.add_argument("--merges", type=int, default=3)
    ap.add_argument("--version", action="append", default=[], metavar="LABEL=SRC")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=90)
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    versions = [tuple(v.split("=", 1)) for v in a.version] or [("installed", "")]
    merges = [git(repo, "rev-parse", m) for m in a.merge] or pick(repo, a.merges)
    was = git(repo, "rev-parse", "HEAD")
    print(f"{'merge':12} {'py files p1/p2':>14} {'version':10} {'wall s':>7} {'cpu s':>6} {'verdict':8} {'lines':>5} load")
    try:
        for m in merges:
            git(repo, "checkout", "-q", "--detach", f"{m}~1")
            graphguard(repo, versions[0][1], ["index"], 3600)  # the graph at the first parent, as CI's cache has it
            files = f"{python_files(repo, m + '~1', m)}/{python_files(repo, m + '^2', m)}"
            runs: dict[str, list[tuple[float, float, int | None, int]]] = {label: [] for label, _ in versions}
            before = load()
            for _ in range(a.runs):
                for label, src in versions:
                    runs[label].append(graphguard(repo, src, ["check", "--base", f"{m}~1", "--head", m], a.timeout))
            after = load()
            for label, got in runs.items():
                codes = [c for _, _, c, _ in got]
                verdict = "timeout" if None in codes else "/".join(sorted({"block" if c else "pass" for c in codes}))
                killed = "+" if None in codes else ""  # the median is at least this
                print(f"{m[:12]} {files:>14} {label:10} {statistics.median(w for w, _, _, _ in got):>6.1f}{killed} "
                      f"{statistics.median(c for _, c, _, _ in got):>6.1f} {verdict:8} {max(n for _, _, _, n in got):>5} {before}..{after}")
    finally:
        git(repo, "checkout", "-q", "--detach", was)


if __name__ == "__main__":
    main()
