"""`graphguard check --staged` against `ty check` on small projects, over seeded signature changes.

    python bench/small_vs_ty.py [--projects requests,click,rich,pytest] [--changes 150] [--seed 0]
        [--version LABEL=SRC ...] [--ty PATH]

Issue 10's target: on small projects p50 of graphguard's `check` <= 0.5x `ty check` of the
same project with its baseline. For each project (an sdist from PyPI, cached in
bench/.cache, unpacked and made a git repository of one commit; one clone per graphguard
version, each indexed by its own version, so versions with different store formats do not
rebuild each other's graph) the script:

1. runs `ty check` on the whole project once: its errors are the baseline (what a user
   who adopts ty on an existing project suppresses or diffs against);
2. lists the functions and methods defined in the package (`ast`; not tests, not dunders)
   whose name is called somewhere else in the project (a text search for `name(`), shuffles
   them with the seed, and deals out the changes round-robin over two kinds: a required
   parameter added (after the last parameter without a default, so the header stays valid)
   and a keyword parameter renamed (one with a default, and its uses in the body with it, so that
   only callers passing it by keyword break); the edit is staged;
3. per change, times whole processes, alternating which goes first: `graphguard check
   --staged --format json` in each version's clone, and `ty check` of the project (ty's whole
   run; its new errors are those not in the baseline, a multiset difference by file, line,
   rule and message); then resets the clones.

Prints per project and overall: p50 (and p90) of each graphguard version and of ty, the
ratio of the p50s, how many changes each one flagged (graphguard: verdict block; ty: any new
error), the load average and the machine. ty is a benchmark dependency only (installed into
a venv under bench/.cache, as bench/mutation_bench.py does, unless --ty names one); the
projects' own dependencies are installed into another venv there, so that ty sees them as a
user's environment would.
"""

from __future__ import annotations

import argparse
import ast
import collections
import glob
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from common import graphguard_argv, one_commit_repo, sdist_tree

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
TY_VERSION = "0.0.104"  # as bench/mutation_bench.py
SHARED_TY = "/work/benchcache/modes/ty-env/bin/ty"  # an earlier session's install of the same version, if present
GIT_ID = ["-c", "user.email=bench@example.invalid", "-c", "user.name=bench"]
KINDS = ("add-required", "rename-kw-param")
NEW_PARAM = "bench_required"


@dataclass(frozen=True)
class Project:
    spec: str
    package: tuple[str, ...]  # where the changed functions are drawn from (not tests)
    deps: tuple[str, ...]  # runtime dependencies, for ty's environment


PROJECTS = {
    "requests": Project("requests==2.32.3", ("src/requests",), ("urllib3<3", "idna", "charset-normalizer", "certifi")),
    "click": Project("click==8.1.8", ("src/click",), ()),
    "rich": Project("rich==13.9.4", ("rich",), ("markdown-it-py", "pygments")),
    "pytest": Project("pytest==8.3.4", ("src/_pytest", "src/pytest"), ("iniconfig", "packaging", "pluggy<2")),
}
LOCAL_SDISTS = {"click": "/work/benchcache/testsel/click-8.1.8.tar.gz"}  # from an earlier session: no download


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: list[str], cwd: str | None = None, check: bool = True, env: dict[str, str] | None = None,
        timeout: float = 900) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} ... failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


# --- setup ---------------------------------------------------------------------------------


def clone(repo: str, dest: str) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    run(["git", "clone", "-q", repo, dest])


def ensure_ty(explicit: str) -> str:
    if explicit:
        return explicit
    own = os.path.join(CACHE, "ty-env", "bin", "ty")
    for exe in (own, SHARED_TY):
        if os.path.exists(exe) and TY_VERSION in run([exe, "--version"], check=False).stdout:
            return exe
    log(f"installing ty {TY_VERSION} (PyPI) into {os.path.dirname(os.path.dirname(own))} ...")
    run([sys.executable, "-m", "venv", os.path.dirname(os.path.dirname(own))])
    run([os.path.join(os.path.dirname(own), "python"), "-m", "pip", "install", "-q", f"ty=={TY_VERSION}"])
    return own


def ensure_deps_env(projects: list[Project]) -> str:
    """A venv holding the projects' runtime dependencies (the environment ty resolves imports in)."""
    env = os.path.join(CACHE, "small-deps-env")
    python = os.path.join(env, "bin", "python")
    deps = sorted({d for p in projects for d in p.deps})
    stamp = os.path.join(env, "deps.json")
    if os.path.exists(stamp):
        with open(stamp) as f:
            if set(json.load(f)) >= set(deps):
                return python
    if not os.path.exists(python):
        run([sys.executable, "-m", "venv", env])
    if deps:
        log(f"installing {', '.join(deps)} into {env} (ty's view of the projects' environment) ...")
        run([python, "-m", "pip", "install", "-q", *deps])
    with open(stamp, "w") as f:
        json.dump(deps, f)
    return python


# --- changes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    line: int  # 1-based
    col: int  # byte offset in that line
    delete: int  # bytes removed there
    insert: str


@dataclass(frozen=True)
class Change:
    path: str
    symbol: str
    kind: str
    edits: tuple[Edit, ...]


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and methods of module-level classes, with a dotted name."""
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            out += [(f"{node.name}.{n.name}", n) for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _open_paren(lines: list[bytes], fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    line = fn.lineno
    at = lines[line - 1].index(b"def ", fn.col_offset) + 4
    at = lines[line - 1].index(fn.name.encode(), at) + len(fn.name)
    while b"(" not in lines[line - 1][at:]:  # a name and its parenthesis on different lines: rare
        line, at = line + 1, 0
    return line, lines[line - 1].index(b"(", at) + 1


def change_of(kind: str, path: str, symbol: str, fn: ast.FunctionDef | ast.AsyncFunctionDef,
              lines: list[bytes]) -> Change | None:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if kind == "add-required":
        required = positional[:len(positional) - len(fn.args.defaults)]
        if required:
            last = required[-1]
            assert last.end_lineno is not None and last.end_col_offset is not None
            return Change(path, symbol, kind, (Edit(last.end_lineno, last.end_col_offset, 0, f", {NEW_PARAM}"),))
        line, col = _open_paren(lines, fn)
        empty = not positional and not fn.args.kwonlyargs and fn.args.vararg is None and fn.args.kwarg is None
        return Change(path, symbol, kind, (Edit(line, col, 0, NEW_PARAM if empty else f"{NEW_PARAM}, "),))
    # rename-kw-param: a parameter with a default that a caller may pass by keyword
    with_default = positional[len(positional) - len(fn.args.defaults):] if fn.args.defaults else []
    with_default += [a for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    with_default = [a for a in with_default if a not in fn.args.posonlyargs and not a.arg.startswith("_")]
    if not with_default:
        return None
    arg = with_default[0]
    # The body's uses follow the rename (a refactoring, not a typo): only callers passing it by keyword break.
    uses = [n for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == arg.arg]
    edits = [Edit(n.lineno, n.col_offset, len(arg.arg.encode()), f"{arg.arg}_renamed") for n in [arg, *uses]]
    return Change(path, symbol, kind, tuple(edits))


def plan(repo: str, project: Project, n: int, seed: int) -> list[Change]:
    """n changes of functions of the package that are called elsewhere, round-robin over KINDS."""
    files = sorted(p for d in project.package for p in glob.glob(os.path.join(repo, d, "**", "*.py"), recursive=True))
    every_py = sorted(glob.glob(os.path.join(repo, "**", "*.py"), recursive=True))
    text = "\n".join(open(p, encoding="utf-8", errors="replace").read() for p in every_py)
    candidates = []
    for full in files:
        with open(full, "rb") as f:
            source = f.read()
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for symbol, fn in _functions(tree):
            name = fn.name
            if name.startswith("__") and name.endswith("__"):
                continue
            if len(re.findall(rf"(?<![\w]){re.escape(name)}\(", text)) < 2:  # the def and at least one call
                continue
            candidates.append((os.path.relpath(full, repo), symbol, fn, source.splitlines(keepends=True)))
    rng = random.Random(seed)
    rng.shuffle(candidates)
    pools: dict[str, list[Change]] = {kind: [] for kind in KINDS}  # a symbol goes to the pool of the kinds it allows
    for path, symbol, fn, lines in candidates:
        for kind in KINDS:
            change = change_of(kind, path, symbol, fn, lines)
            if change is not None:
                pools[kind].append(change)
    changes: list[Change] = []
    used: set[tuple[str, str]] = set()
    while len(changes) < n and any(pools.values()):
        for kind in KINDS:  # round-robin over the kinds; a symbol is changed once
            while pools[kind] and (pools[kind][0].path, pools[kind][0].symbol) in used:
                pools[kind].pop(0)
            if pools[kind] and len(changes) < n:
                change = pools[kind].pop(0)
                used.add((change.path, change.symbol))
                changes.append(change)
    return changes


def apply(repo: str, change: Change) -> None:
    full = os.path.join(repo, change.path)
    with open(full, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    for e in sorted(change.edits, key=lambda e: (e.line, e.col), reverse=True):  # later edits first: offsets hold
        line = lines[e.line - 1]
        lines[e.line - 1] = line[:e.col] + e.insert.encode() + line[e.col + e.delete:]
    with open(full, "wb") as f:
        f.write(b"".join(lines))
    run(["git", "add", change.path], cwd=repo)


def reset(repo: str) -> None:
    run(["git", "reset", "-q", "--hard", "HEAD"], cwd=repo)


# --- timed runs ----------------------------------------------------------------------------


def gg_check(repo: str, src: str) -> tuple[float, bool]:
    """Whole-process wall time of `graphguard check --staged --format json`, and whether it blocked."""
    t = time.perf_counter()
    proc = run([*graphguard_argv(src), "check", "--staged", "--format", "json"], cwd=repo, check=False)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard check failed in {repo}: {proc.stderr[-600:]}")
    return elapsed, json.loads(proc.stdout).get("verdict") == "block"


def ty_errors(stdout: str) -> collections.Counter[tuple[str, int, str, str]]:
    errors: collections.Counter[tuple[str, int, str, str]] = collections.Counter()
    for d in json.loads(stdout or "[]"):
        if d.get("severity") in ("major", "critical", "blocker"):  # errors: what a hook blocks on
            errors[(os.path.normpath(d["location"]["path"]), d["location"]["positions"]["begin"]["line"],
                    d["check_name"], d["description"])] += 1
    return errors


def ty_check(ty: str, python: str, repo: str) -> tuple[float, collections.Counter[tuple[str, int, str, str]]]:
    """Whole-process wall time of `ty check` of the project, and its errors."""
    args = [ty, "check", "--output-format", "gitlab", "--exit-zero", "--no-progress", "--python", python,
            "--python-version", "3.11"]
    t = time.perf_counter()
    proc = run(args, cwd=repo, check=False)
    elapsed = time.perf_counter() - t
    try:
        return elapsed, ty_errors(proc.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"ty failed ({proc.returncode}): {proc.stdout[-800:]} {proc.stderr[-800:]}") from None


# --- report --------------------------------------------------------------------------------


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def row(name: str, files: int, n: int, times: dict[str, list[float]], flagged: dict[str, int], labels: list[str]) -> str:
    ty50 = statistics.median(times["ty"])
    cells = [f"{name:<10} {files:>5} {n:>7}"]
    for label in labels:
        gg50 = statistics.median(times[label])
        cells.append(f"{gg50 * 1000:>7.0f} {pct(times[label], 0.9) * 1000:>7.0f} {gg50 / ty50:>6.2f}x {flagged[label]:>4}")
    cells.append(f"{ty50 * 1000:>7.0f} {pct(times['ty'], 0.9) * 1000:>7.0f} {flagged['ty']:>4}  {load()}")
    return " | ".join(cells)


def header(labels: list[str]) -> str:
    cells = [f"{'project':<10} {'files':>5} {'changes':>7}"]
    cells += [f"{label[:7] + ' p50':>11} {'p90':>7} {'/ty':>7} {'blk':>4}" for label in labels]
    cells.append(f"{'ty p50':>7} {'p90':>7} {'new':>4}  load")
    return " | ".join(cells)


# --- main ----------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--projects", default=",".join(PROJECTS))
    ap.add_argument("--changes", type=int, default=150, help="in all, shared out evenly between the projects")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--version", action="append", default=[], metavar="LABEL=SRC",
                    help="a folder holding a graphguard package (first on sys.path); repeat to compare versions; default: the installed one")
    ap.add_argument("--ty", default="", help=f"a ty executable (default: ty {TY_VERSION} in bench/.cache/ty-env)")
    args = ap.parse_args()
    names = [n.strip() for n in args.projects.split(",") if n.strip()]
    unknown = [n for n in names if n not in PROJECTS]
    if unknown:
        raise SystemExit(f"unknown project(s): {', '.join(unknown)} (known: {', '.join(PROJECTS)})")
    versions = [(v.split("=", 1)[0], os.path.abspath(v.split("=", 1)[1])) for v in args.version] or [("graphguard", "")]
    labels = [label for label, _ in versions]
    ty = ensure_ty(args.ty)
    python = ensure_deps_env([PROJECTS[n] for n in names])
    per_project = [args.changes // len(names) + (i < args.changes % len(names)) for i in range(len(names))]

    print(f"graphguard check --staged vs ty check, whole processes (ms); {machine()}; ty {TY_VERSION}; seed {args.seed}")
    print(f"load average at start: {load()}")
    print(header(labels))
    all_times: dict[str, list[float]] = collections.defaultdict(list)
    all_flagged: collections.Counter[str] = collections.Counter()
    total_files = 0
    for name, n in zip(names, per_project):
        project = PROJECTS[name]
        base = os.path.join(CACHE, f"small-{name}")
        one_commit_repo(sdist_tree(project.spec, CACHE, local=LOCAL_SDISTS.get(name)), base)
        repos = {}
        for label, src in versions:
            repos[label] = os.path.join(CACHE, f"small-{name}-{label}")
            clone(base, repos[label])
            run([*graphguard_argv(src), "index"], cwd=repos[label])
        files = len(run(["git", "ls-files", "*.py"], cwd=base).stdout.split())
        changes = plan(base, project, n, args.seed)
        if len(changes) < n:
            log(f"{name}: only {len(changes)} changes found of {n}")
        ty_check(ty, python, base)  # warm the page cache
        _, baseline = ty_check(ty, python, base)
        times: dict[str, list[float]] = collections.defaultdict(list)
        flagged: collections.Counter[str] = collections.Counter()
        for i, change in enumerate(changes):
            for repo in {base, *repos.values()}:
                apply(repo, change)
            order: list[tuple[str, str]] = [*versions, ("ty", "")]
            if i % 2:  # alternate which one runs first, so a change in the load hits both alike
                order.reverse()
            for label, src in order:
                if label == "ty":
                    elapsed, errors = ty_check(ty, python, base)
                    new = errors - baseline
                    flagged["ty"] += bool(new)
                else:
                    elapsed, blocked = gg_check(repos[label], src)
                    flagged[label] += blocked
                times[label].append(elapsed)
            for repo in {base, *repos.values()}:
                reset(repo)
            log(f"{name} {i + 1}/{len(changes)} {change.kind} {change.path}:{change.symbol} "
                + " ".join(f"{label}={times[label][-1] * 1000:.0f}" for label, _ in order))
        if changes:
            print(row(name, files, len(changes), times, flagged, labels), flush=True)
        total_files += files
        for label, xs in times.items():
            all_times[label] += xs
        all_flagged += flagged
    if all_times:
        print(row("all", total_files, len(all_times["ty"]), all_times, all_flagged, labels))
    print(f"load average at end: {load()}; blk: changes graphguard blocked, new: changes where ty reported an error "
          f"not in its baseline; /ty: graphguard p50 / ty p50 (target <= 0.5x)")


if __name__ == "__main__":
    main()
