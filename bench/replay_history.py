"""Replay real commits of real projects as a user's CI checks them (issue 19, "Done when").

    python bench/replay_history.py NAME=SOURCE [NAME=SOURCE ...] (--last N | --refactors)
                                   [--since DATE] [--until DATE] [--cap N] [--graphguard PATH]
                                   [--jsonl FILE]

SOURCE is a git repository: a `fetch`ed mirror (/work/.mirror/<owner+name>/repo) or a clone.
It is cloned once into bench/.cache/<NAME> (gitignored; never commit anything fetched), and
every selected commit C, oldest first, is checked out there and checked as CI checks it:

    graphguard check --base C~1 --head C --format json

The graph stays in the clone's .git between steps, so each check starts from the graph the
previous step left (warm), as a CI cache would keep it; the first step's cold index is timed
apart (`graphguard index` at the first commit's parent) and is not in the per-check figures.

Selections:
  --commits SHA...  just these (a blocked or slow commit again, with another --graphguard)
  --last N      the last N first-parent commits (a merge is checked against its first parent:
                the whole merged change)
  --refactors   every first-parent commit between --since and --until whose diff (against the
                first parent) changes a `def NAME(` line and, on another changed line, calls
                NAME( (a cheap pre-filter for "changed a signature and fixed a caller in the
                same commit"); the newest --cap of them (default 150). Prints how many existed,
                and how many of the replayed ones graphguard itself reported as an interface
                change with callers.

--graphguard PATH runs the graphguard package of another checkout (a worktree of main at an
older commit, say) with that checkout's .venv when it has one; default: this checkout's.

Prints per project: commits replayed, blocked, passed, errors, whole-process wall time per
check (median, p95, max), and for every blocked commit its sha, subject and broken sites
(path:line, change, reason). --jsonl FILE keeps every report for triage.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import git_bytes as git
from common import graphguard_argv

HERE = Path(__file__).resolve().parent.parent
CACHE = HERE / "bench" / ".cache"
CHECK_TIMEOUT = 900
DEF_LINE = re.compile(rb"^[-+]\s*(?:async\s+)?def\s+(\w+)\s*\(")


@dataclass
class Outcome:
    sha: str
    subject: str
    seconds: float
    verdict: str  # pass | block | error
    broken: list[str] = field(default_factory=list)
    detail: str = ""
    interface_with_callers: bool = False


def clone(name: str, source: Path) -> Path:
    target = CACHE / name
    if not target.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(target)], check=True)
    return target


def interpreter(graphguard: Path) -> list[str]:
    """Run the graphguard package of `graphguard` (a checkout), isolated from the analysed repository."""
    venv = graphguard / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable
    return graphguard_argv(graphguard, python, flags=("-I",))


def last_commits(repo: Path, count: int) -> list[str]:
    return git(repo, "rev-list", "--first-parent", f"--max-count={count}", "HEAD").decode().split()[::-1]


def refactor_commits(repo: Path, since: str, until: str) -> list[str]:
    """First-parent commits whose diff changes a def line of NAME and calls NAME( on another changed line."""
    log = git(repo, "log", "--first-parent", "--diff-merges=first-parent", "-p", "-U0", "--format=@@commit %H",
              f"--since={since}", f"--until={until}", "--", "*.py", "*.pyi")
    found: list[str] = []
    for chunk in log.split(b"@@commit ")[1:]:
        sha, _, patch = chunk.partition(b"\n")
        changed = [line for line in patch.split(b"\n") if line[:1] in (b"-", b"+") and line[:3] not in (b"---", b"+++")]
        removed = {m.group(1) for line in changed if line[:1] == b"-" and (m := DEF_LINE.match(line))}
        added = {m.group(1) for line in changed if line[:1] == b"+" and (m := DEF_LINE.match(line))}
        names = {n for n in removed & added if not n.startswith(b"__")}
        calls = b"\n".join(line for line in changed if line[:1] == b"+" and not DEF_LINE.match(line))
        if any(re.search(rb"\b" + re.escape(n) + rb"\(", calls) for n in names):
            found.append(sha.decode())
    return found[::-1]  # oldest first


def run_check(repo: Path, launch: list[str], sha: str) -> tuple[dict[str, object] | str, float]:
    subprocess.run(["git", "checkout", "-q", "-f", "--detach", sha], cwd=repo, check=True,
                   stderr=subprocess.DEVNULL)
    t = time.perf_counter()
    try:
        proc = subprocess.run([*launch, "check", "--base", f"{sha}~1", "--head", sha, "--format", "json"],
                              cwd=repo, capture_output=True, text=True, timeout=CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"timeout after {CHECK_TIMEOUT} s", time.perf_counter() - t
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        return f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}", elapsed
    try:
        return json.loads(proc.stdout), elapsed
    except json.JSONDecodeError:
        return f"exit {proc.returncode}, not JSON: {proc.stdout[:200]!r}", elapsed


def outcome(repo: Path, sha: str, report: dict[str, object] | str, seconds: float) -> Outcome:
    subject = git(repo, "log", "-1", "--format=%s", sha).decode().strip()
    if isinstance(report, str):
        return Outcome(sha, subject, seconds, "error", detail=report)
    changes: list[dict[str, object]] = report["changes"]  # type: ignore[assignment]
    broken = [f"{k['path']}:{k['line']}  {ch['change']} {ch['symbol']}  {k.get('reason', '')}"
              for ch in changes for k in ch["callers"] if k["status"] == "broken"]  # type: ignore[attr-defined]
    with_callers = any(ch["change"] in ("signature", "removed", "renamed") and ch["callers"] for ch in changes)
    return Outcome(sha, subject, seconds, str(report["verdict"]), broken, interface_with_callers=with_callers)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def replay(name: str, source: Path, shas: list[str], launch: list[str], jsonl: Path | None) -> list[Outcome]:
    repo = clone(name, source)
    git(repo, "checkout", "-q", "-f", "--detach", f"{shas[0]}~1")
    t = time.perf_counter()
    subprocess.run([*launch, "index"], cwd=repo, capture_output=True, text=True)
    print(f"{name}: cold index at {shas[0][:10]}~1: {time.perf_counter() - t:.1f} s", flush=True)
    outcomes = []
    for sha in shas:
        report, seconds = run_check(repo, launch, sha)
        o = outcome(repo, sha, report, seconds)
        outcomes.append(o)
        print(f"  {sha[:10]} {o.verdict:5} {seconds:6.1f} s  {o.subject[:60]}", flush=True)
        if jsonl is not None:
            with jsonl.open("a") as out:
                out.write(json.dumps({"project": name, "sha": sha, "seconds": seconds, "report": report}) + "\n")
    return outcomes


def table(name: str, outcomes: list[Outcome], existed: int | None, sites: int) -> str:
    times = [o.seconds for o in outcomes if o.verdict != "error"]
    count = {v: sum(1 for o in outcomes if o.verdict == v) for v in ("block", "pass", "error")}
    lines = [f"== {name}: replayed {len(outcomes)}"
             + (f" (of {existed} pre-filtered; {sum(o.interface_with_callers for o in outcomes)} reported as an "
                "interface change with callers)" if existed is not None else "")
             + f"  blocked {count['block']}  passed {count['pass']}  errors {count['error']}"]
    if times:
        lines.append(f"   check wall time: median {statistics.median(times):.2f} s  p95 {percentile(times, 0.95):.2f} s"
                     f"  max {max(times):.2f} s  (n={len(times)})")
    for o in outcomes:
        if o.verdict == "block":
            lines.append(f"   BLOCK {o.sha[:10]} {o.subject}")
            lines.extend(f"      {site}" for site in o.broken[:sites])
            if len(o.broken) > sites:
                lines.append(f"      ... and {len(o.broken) - sites} more broken sites (--sites, --jsonl)")
        elif o.verdict == "error":
            lines.append(f"   ERROR {o.sha[:10]} {o.subject}: {o.detail}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("projects", nargs="+", help="NAME=SOURCE (a mirror's git directory or a clone)")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--last", type=int, help="the last N first-parent commits")
    mode.add_argument("--refactors", action="store_true", help="commits that change a def line and call it anew")
    mode.add_argument("--commits", nargs="+", metavar="SHA", help="these commits (one project), oldest first")
    p.add_argument("--since", default="2024-12-02")
    p.add_argument("--until", default="2026-12-02")
    p.add_argument("--cap", type=int, default=150)
    p.add_argument("--graphguard", type=Path, default=HERE, help="a checkout whose graphguard package to run")
    p.add_argument("--jsonl", type=Path, help="append every report here")
    p.add_argument("--sites", type=int, default=12, help="broken sites printed per blocked commit")
    args = p.parse_args()
    launch = interpreter(args.graphguard.resolve())
    tables = []
    for spec in args.projects:
        name, _, source = spec.partition("=")
        repo = clone(name, Path(source))
        existed = None
        if args.commits:
            shas = [git(repo, "rev-parse", sha).decode().strip() for sha in args.commits]
        elif args.last:
            shas = last_commits(repo, args.last)
        else:
            since = args.since
            newest = git(repo, "log", "-1", "--format=%cI", "HEAD").decode().strip()[:10]
            if newest < args.since:  # history older than the window: its own last two years
                since = f"{int(newest[:4]) - 2}{newest[4:]}"
            found = refactor_commits(repo, since, args.until)
            existed, shas = len(found), found[-args.cap:]
            print(f"{name}: {existed} pre-filtered commits since {since}; replaying {len(shas)}", flush=True)
        if not shas:
            continue
        tables.append(table(name, replay(name, Path(source), shas, launch, args.jsonl), existed, args.sites))
        print(tables[-1], flush=True)
    if len(tables) > 1:
        print("\n".join(["", *tables]))
    print(f"graphguard: {args.graphguard.resolve()}  load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
