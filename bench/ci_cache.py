"""`check --base` in a fresh CI clone: no cache, the blob cache restored, the blob cache and the graph restored.

    python bench/ci_cache.py [--source /tmp/dj/django-5.2.8] [--work /tmp/cicache] [--runs 3]
        [--version LABEL=SRC]

What a pull request's CI job does (docs/ci.md, "CI: start warm from a cache"): a fresh
`git clone`, the CI cache restored into `.git/graphguard`, then `graphguard check --base
main`. The script copies SOURCE (a git repository, e.g. Django 5.2.8; its own
`.git/graphguard` is left out) to WORK/origin and adds history to it:

    old-main --- main --- pr1 --- pr2 --- pr3     (branch pr)

`main` changes three files after `old-main`; the pull request adds a required parameter to
`django.utils.text.slugify` (callers break), edits a body and adds a module. The cache is
what an earlier CI run left: a clone at `old-main`, at another path, indexed, and its
`.git/graphguard` packed into a tarball (as actions/cache or GitLab's cache does). Then per
run, alternating the three cases in one clone each (checked out at `pr`), `.git/graphguard` is
removed, the case's part of the cache unpacked, and `check --base main --format json` timed as
a whole process:

- none:        no cache: the merge base is indexed from scratch (every blob parsed);
- blobs:       blobs.sqlite3 restored: only blobs that are not in it are parsed (main's three
               files), but the graph of the merge base is resolved and written whole;
- blobs+graph: the whole `.git/graphguard` restored: the graph of old-main is brought to the
               merge base incrementally.

Every case must give the same report (the bench stops if not). Prints medians of wall and
CPU time, what was parsed, the sizes of the cache, the load average and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

from common import graphguard_argv

GIT_ID = ["-c", "user.email=bench@example.invalid", "-c", "user.name=bench"]
CASES = ("none", "blobs", "blobs+graph")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: list[str], cwd: str, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> str:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(args[:5])} failed ({proc.returncode}) in {cwd}: {proc.stderr[-1500:]}")
    return proc.stdout


def git(cwd: str, *args: str) -> str:
    return run(["git", *GIT_ID, *args], cwd).strip()


def edit(repo: str, path: str, old: str, new: str) -> None:
    full = os.path.join(repo, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if old not in text:
        raise SystemExit(f"{path}: no {old!r} (is SOURCE Django 5.2.8?)")
    with open(full, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


def append(repo: str, path: str, text: str) -> None:
    with open(os.path.join(repo, path), "a", encoding="utf-8") as f:
        f.write(text)


def make_origin(source: str, origin: str) -> None:
    """A copy of SOURCE with old-main, main and a pull request branch on top."""
    shutil.rmtree(origin, ignore_errors=True)
    shutil.copytree(source, origin, symlinks=True, ignore=lambda d, names: ["graphguard"] if d.endswith(".git") else [])
    git(origin, "checkout", "-q", "-B", "main")
    git(origin, "reset", "-q", "--hard")
    git(origin, "tag", "-f", "old-main")
    for i, path in enumerate(("django/utils/html.py", "django/db/models/query.py", "django/http/request.py")):
        append(origin, path, f"\n\ndef _bench_main_{i}():\n    return {i}\n")
    git(origin, "commit", "-qam", "main moves on: three files")
    git(origin, "checkout", "-q", "-b", "pr")
    edit(origin, "django/utils/text.py", "def slugify(value, allow_unicode=False):", "def slugify(value, sep, allow_unicode=False):")
    git(origin, "commit", "-qam", "pr 1: slugify takes a separator")
    append(origin, "django/http/response.py", "\n\ndef _bench_pr():\n    return 1\n")
    git(origin, "commit", "-qam", "pr 2: a body")
    with open(os.path.join(origin, "django/utils/bench_pr.py"), "w", encoding="utf-8") as f:
        f.write("from django.utils.timezone import now\n\n\ndef stamp():\n    return now().isoformat()\n")
    git(origin, "add", "django/utils/bench_pr.py")
    git(origin, "commit", "-qm", "pr 3: a new module")
    git(origin, "checkout", "-q", "main")


def graphguard(repo: str, src: str, *args: str) -> tuple[float, float, str]:
    """Wall and CPU seconds of a whole `graphguard` process (children included), and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = run([*graphguard_argv(src), *args], repo, ok=(0, 1))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def make_cache(origin: str, work: str, src: str) -> tuple[str, dict[str, int]]:
    """What an earlier CI run left: a clone at old-main, indexed, its .git/graphguard packed."""
    earlier = os.path.join(work, "earlier-run")
    shutil.rmtree(earlier, ignore_errors=True)
    git(work, "clone", "-q", origin, earlier)
    git(earlier, "checkout", "-q", "old-main")
    wall, cpu, _ = graphguard(earlier, src, "index")
    log(f"cache: indexed old-main in {wall:.1f} s wall, {cpu:.1f} s CPU")
    store = os.path.join(earlier, ".git", "graphguard")
    sizes = {name: os.path.getsize(os.path.join(store, name)) for name in ("blobs.sqlite3", "graph.sqlite3")}
    tarball = os.path.join(work, "ci-cache.tar.gz")
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(store, arcname="graphguard")
    sizes["tar.gz"] = os.path.getsize(tarball)
    return tarball, sizes


def restore(clone: str, tarball: str, case: str) -> float:
    """Empty the clone's .git/graphguard and unpack the case's part of the cache; the seconds it took."""
    store = os.path.join(clone, ".git", "graphguard")
    shutil.rmtree(store, ignore_errors=True)
    t = time.perf_counter()
    if case != "none":
        with tarfile.open(tarball) as tar:
            members = [m for m in tar.getmembers() if case == "blobs+graph" or m.name in ("graphguard", "graphguard/blobs.sqlite3")]
            tar.extractall(os.path.join(clone, ".git"), members=members, filter="data")
    return time.perf_counter() - t


def report_of(stdout: str) -> str:
    """The check's report without what differs between runs (timings)."""
    data = json.loads(stdout)

    def strip(x: object) -> object:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if "elapsed" not in k and not k.endswith("_ms")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return json.dumps(strip(data), sort_keys=True)


def machine() -> str:
    model = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="/tmp/dj/django-5.2.8", help="a git repository of Django 5.2.8 (copied, never indexed)")
    ap.add_argument("--work", default="/tmp/cicache")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--version", default="", metavar="LABEL=SRC", help="a folder holding the graphguard package to run (first on sys.path)")
    args = ap.parse_args()
    src = os.path.abspath(args.version.split("=", 1)[-1]) if args.version else ""
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    origin = os.path.join(work, "origin")
    log(f"copying {args.source} to {origin} and adding a pull request ...")
    make_origin(args.source, origin)
    tarball, sizes = make_cache(origin, work, src)
    clones = {}
    for case in CASES:
        clones[case] = os.path.join(work, f"pr-{case.replace('+', '-')}")
        shutil.rmtree(clones[case], ignore_errors=True)
        git(work, "clone", "-q", origin, clones[case])
        git(clones[case], "checkout", "-q", "pr")
    times: dict[str, list[tuple[float, float]]] = {c: [] for c in CASES}
    restores: dict[str, list[float]] = {c: [] for c in CASES}
    reports: dict[str, str] = {}
    parsed: dict[str, tuple[int, int]] = {}
    for i in range(args.runs):
        for case in CASES if i % 2 == 0 else reversed(CASES):
            restores[case].append(restore(clones[case], tarball, case))
            wall, cpu, out = graphguard(clones[case], src, "check", "--base", "main", "--format", "json")
            times[case].append((wall, cpu))
            reports.setdefault(case, report_of(out))
            if reports[case] != report_of(out):
                raise SystemExit(f"{case}: the report differs between runs")
            log(f"run {i + 1} {case}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    base = reports["none"]
    for case in CASES:
        if reports[case] != base:
            raise SystemExit(f"{case}: the report differs from the one without a cache:\n{reports[case][:800]}\n{base[:800]}")
    # What was parsed: the same restore, then `index --format json` at the merge base (after the timed runs).
    merge_base = git(clones["none"], "merge-base", "main", "pr")
    for case in CASES:
        restore(clones[case], tarball, case)
        git(clones[case], "checkout", "-q", merge_base)
        _, _, out = graphguard(clones[case], src, "index", "--format", "json")
        parsed[case] = (json.loads(out)["parsed"], json.loads(out)["resolved"])
        git(clones[case], "checkout", "-q", "pr")
    verdict = json.loads(base).get("verdict")
    files = len(git(origin, "ls-files", "*.py").split())
    print(f"{os.path.basename(os.path.abspath(args.source))}: {files} Python files; fresh clone at pr, "
          f"`graphguard check --base main` (verdict {verdict}, same report in every case); median of {args.runs} whole-process runs")
    print(f"cache from a run at old-main (main is one commit ahead): blobs.sqlite3 {sizes['blobs.sqlite3'] / 1e6:.1f} MB, "
          f"graph.sqlite3 {sizes['graph.sqlite3'] / 1e6:.1f} MB, .git/graphguard as tar.gz {sizes['tar.gz'] / 1e6:.1f} MB")
    print(f"{'cache restored':<16} {'wall s':>7} {'CPU s':>7} {'restore s':>10} {'parsed':>7} {'resolved':>9} {'vs none':>8}")
    none_wall = statistics.median(w for w, _ in times["none"])
    for case in CASES:
        wall = statistics.median(w for w, _ in times[case])
        cpu = statistics.median(c for _, c in times[case])
        print(f"{case:<16} {wall:>7.2f} {cpu:>7.2f} {statistics.median(restores[case]):>10.2f} {parsed[case][0]:>7} {parsed[case][1]:>9} {wall / none_wall:>7.2f}x")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {machine()}; "
          f"parsed, resolved: blobs parsed and files resolved by `index` at the merge base after the same restore")


if __name__ == "__main__":
    main()
