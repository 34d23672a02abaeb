"""Runtime oracle: break a definition, run the project's own tests, and see what really fails.

    python bench/runtime_oracle.py [--projects click,jinja2,toolz] [--mutations N] [--seed S] [--timeout SEC]

Per project (an sdist from PyPI in bench/.cache, made a git repository of one commit; its
test dependencies and ty in a bench venv, bench/.cache/rt-env, never graphguard's own):

1. baseline: the test suite (pytest, no -x, -p no:cacheprovider) on the clean tree: the tests
   that pass; `ty check` once: its diagnostics before;
2. mutations: the breaking kinds of bench/mutation_bench.py (remove, rename, add-required,
   remove-param, rename-kw-param, keyword-only, remove-default), round-robin over the
   project's functions, methods and classes that have an exact call site in graphguard's
   graph (its source files only, not its tests);
3. per mutation: stage it, `graphguard check --staged --format json`, run the tests again
   (a pytest plugin, bench/runtime_oracle_plugin.py, records every outcome and the frames of
   each TypeError / AttributeError / ImportError / NameError), run `ty check` again.

Runtime truth:
- failing tests: failed now (setup, call or teardown; or its file no longer collects) and
  passed before; failing files: their files;
- broken sites: the innermost frame in the project's files of such an exception, when that
  line holds a call, an attribute, an import or a name of the changed definition's name (for
  a TypeError, its message names it too): the call that failed, not the callee.

Measured, per mutation that makes a test fail:
- tests[] "before" (graphguard's selection until this branch: a file per test file that calls
  a caller, a line per file) and "after" (graphguard.testselect.select_tests over the same
  callers): the share of failing test files and of failing tests it names (a file entry names
  every test of the file, `path::test_f` every parametrisation of test_f), its length, and the
  share of the suite it runs;
- graphguard's broken callers against the broken sites: recall, and precision among the
  graphguard sites that can be judged: one that failed is confirmed, one that ran after the
  change (a line tracer watches them) and did not fail is a false alarm, one that did not run
  (no test reaches it, or an earlier failure stopped the test) is not counted;
- ty's recall: a broken site with a new call-related ty diagnostic (ty before vs after).
"""

from __future__ import annotations

import argparse
import ast
import collections
import glob
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from common import sdist_tree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(HERE, ".cache")
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import mutation_bench as mb  # bench/ is not a package: found through sys.path above

GG = [sys.executable, "-m", "graphguard"]
ENV = os.path.join(CACHE, "rt-env")
ENV_DEPS = ["pytest==8.3.5", "markupsafe==3.0.4", "trio==0.35.0", "ty==0.0.108"]
GIT_ID = ["-c", "user.email=bench@example.invalid", "-c", "user.name=bench"]
# ty's rules for a call that no longer binds or a name that is gone.
TY_RULES = {"missing-argument", "unknown-argument", "too-many-positional-arguments", "parameter-already-assigned",
            "unresolved-attribute", "possibly-missing-attribute", "unresolved-import", "possibly-unresolved-import",
            "unresolved-reference", "possibly-unresolved-reference", "no-matching-overload", "positional-only-parameter-as-kwarg",
            "missing-attribute", "call-non-callable"}
_TY_LINE = re.compile(r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?:error|warning)\[(?P<rule>[\w-]+)\] (?P<msg>.*)$")


@dataclass(frozen=True)
class RProject:
    spec: str
    source: tuple[str, ...]  # folders of the package's code (mutations are drawn there)
    tests: tuple[str, ...]  # what pytest runs
    pythonpath: str  # the import root of the package
    own_ini: bool = True  # a pytest configuration of its own; else an empty one (not one found in folders above)


PROJECTS = {
    "click": RProject("click==8.1.8", ("src",), ("tests",), "src"),
    "jinja2": RProject("jinja2==3.1.6", ("src",), ("tests",), "src"),
    "toolz": RProject("toolz==1.0.0", ("toolz", "tlz"), ("toolz/tests",), ".", own_ini=False),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: list[str], cwd: str | None = None, check: bool = True, timeout: float = 900, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} ... failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


# --- setup ----------------------------------------------------------------------------------


def ensure_env() -> str:
    python = os.path.join(ENV, "bin", "python")
    if not os.path.exists(os.path.join(ENV, ".ready")):
        log("making the bench environment (pytest, the projects' test dependencies, ty) ...")
        shutil.rmtree(ENV, ignore_errors=True)
        run([sys.executable, "-m", "venv", ENV])
        run([python, "-m", "pip", "install", "-q", *ENV_DEPS])
        open(os.path.join(ENV, ".ready"), "w").close()
    return python


def fetch(name: str, project: RProject) -> str:
    """A fresh git repository (one commit) of the project's sdist."""
    pkg, version = project.spec.split("==")
    src = os.path.join(CACHE, f"{pkg}-{version}")
    if not os.path.isdir(src):
        sdist_tree(project.spec, CACHE)
    repo = os.path.join(CACHE, f"rt-{name}")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*GIT_ID, "commit", "-qm", "import"]):
        run(["git", *args], cwd=repo)
    run([*GG, "index"], cwd=repo)
    return repo


# --- the test suite ---------------------------------------------------------------------------


@dataclass
class Outcome:
    tests: dict[str, bool] = field(default_factory=dict)  # node id -> passed (every phase)
    collect_errors: set[str] = field(default_factory=set)  # files that did not collect
    exceptions: list[dict[str, object]] = field(default_factory=list)
    aborted: bool = False  # pytest stopped before running tests (a conftest that does not import)
    ran: set[tuple[str, int]] = field(default_factory=set)  # watched lines that ran
    timed_out: bool = False
    seconds: float = 0.0


def run_tests(python: str, repo: str, project: RProject, timeout: float, trace: str = "", watch: list[tuple[str, int]] | None = None) -> Outcome:
    out_file = os.path.join(CACHE, f"rt-events-{os.path.basename(repo)}.jsonl")  # one per project: runs may go side by side
    if os.path.exists(out_file):
        os.remove(out_file)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(repo, project.pythonpath), HERE]),
           "GG_RT_OUT": out_file, "GG_RT_ROOT": os.path.realpath(repo), "PYTHONDONTWRITEBYTECODE": "1", **({"GG_RT_TRACE": trace} if trace else {}), "GG_RT_LINES": json.dumps(watch or [])}
    ini = [] if project.own_ini else ["-c", os.path.join(CACHE, "rt-empty-pytest.ini"), f"--rootdir={repo}"]
    if ini and not os.path.exists(ini[1]):
        with open(ini[1], "w") as f:
            f.write("[pytest]\n")
    pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", *ini, "-p", "runtime_oracle_plugin", "--continue-on-collection-errors",
              "-o", "addopts=", "--tb=no", "-W", "ignore", *project.tests]
    args = [python, *pytest]
    t = time.perf_counter()
    text = ""
    try:
        proc = run(args, cwd=repo, check=False, timeout=timeout, env=env)
        rc, text = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        rc = -1
    o = Outcome(seconds=time.perf_counter() - t, timed_out=rc == -1)
    prefix = ""  # pytest's node ids are relative to its rootdir (toolz: the tests folder); ours to the repository
    if os.path.exists(out_file):
        with open(out_file, encoding="utf-8") as f:
            for line in f:
                ev = json.loads(line)
                if ev["event"] == "rootdir":
                    rel = os.path.relpath(ev["path"], os.path.realpath(repo))
                    prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
                elif ev["event"] == "test":
                    node = prefix + ev["nodeid"]
                    o.tests[node] = o.tests.get(node, True) and ev["outcome"] != "failed"
                elif ev["event"] == "collect-error":
                    o.collect_errors.add(prefix + ev["nodeid"])
                elif ev["event"] == "ran":
                    o.ran = {(p, line) for p, line in ev["lines"]}
                else:
                    o.exceptions.append(ev)
    o.aborted = not o.tests and rc not in (0, 1, 5)
    if o.aborted:  # pytest stopped loading a conftest: the plugin saw nothing, the traceback is in the output
        o.exceptions += _printed_exceptions(text, repo)
    return o


_FRAME = re.compile(r"^(?P<path>[^\s:][^:]*\.py):(?P<line>\d+): in ")
_ERROR = re.compile(r"^E\s+(?P<type>TypeError|AttributeError|ImportError|NameError|ModuleNotFoundError): (?P<msg>.*)")


def _printed_exceptions(text: str, repo: str) -> list[dict[str, object]]:
    """The exceptions of a traceback pytest printed (`path:line: in <module>` ... `E   ImportError: ...`)."""
    out: list[dict[str, object]] = []
    frames: list[list[object]] = []
    for line in text.splitlines():
        m = _FRAME.match(line)
        if m:
            path = os.path.relpath(os.path.join(repo, m["path"]), repo)
            if not path.startswith(".."):
                frames.append([path, int(m["line"])])
            continue
        e = _ERROR.match(line)
        if e and frames:
            out.append({"event": "exception", "nodeid": "", "type": e["type"], "message": e["msg"], "frames": frames})
            frames = []
    return out


def failing(before: Outcome, after: Outcome) -> set[str]:
    """Tests that passed before and fail now: failed in a phase, or in a file that no longer collects (or a run that stopped)."""
    passed = {t for t, ok in before.tests.items() if ok}
    if after.aborted:
        return passed
    out = {t for t in passed if after.tests.get(t) is False}
    for f in after.collect_errors:
        out |= {t for t in passed if t == f or t.startswith(f + "::") or (f.endswith("/") or not f.endswith(".py")) and t.startswith(f.rstrip("/") + "/")}
    # A test that ran before and is absent now (its file did not collect, its parametrisation vanished).
    out |= {t for t in passed if t not in after.tests and t.split("::", 1)[0] in after.collect_errors}
    return out


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


# --- runtime truth: the failing sites -------------------------------------------------------------


def broken_sites(repo: str, exceptions: list[dict[str, object]], name: str) -> set[tuple[str, int, int]]:
    """(path, line, end line) of the expressions that failed and name `name`."""
    out = set()
    trees: dict[str, ast.Module | None] = {}
    for ev in exceptions:
        frames = ev["frames"]
        assert isinstance(frames, list)
        if not frames:
            continue
        if name not in str(ev["message"]):
            continue  # an exception about something else (every counted kind names what it is about)
        # From the innermost frame out: the first line that names it is the failing use (a `__getattr__`
        # that delegates raises deeper, in a line that does not name it).
        best = None
        for path, line in reversed(frames):
            best = _use_at(repo, path, line, name, trees)
            if best is not None:
                break
        if best is not None:
            out.add((path, best[0], best[1]))
    return out


def _use_at(repo: str, path: str, line: int, name: str, trees: dict[str, ast.Module | None]) -> tuple[int, int] | None:
    """The span of the smallest expression on `line` that calls, imports or names `name`."""
    if path not in trees:
        try:
            with open(os.path.join(repo, path), encoding="utf-8") as f:
                trees[path] = ast.parse(f.read())
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            trees[path] = None
    tree = trees[path]
    if tree is None:
        return None
    best = None
    for n in ast.walk(tree):
        hit = (isinstance(n, ast.Call) and _called(n.func) == name or isinstance(n, ast.Attribute) and n.attr == name
               or isinstance(n, ast.Name) and n.id == name
               or isinstance(n, (ast.ImportFrom, ast.Import)) and any(a.name.rsplit(".", 1)[-1] == name for a in n.names))
        if hit and n.lineno <= line <= (n.end_lineno or n.lineno):
            span = (n.lineno, n.end_lineno or n.lineno)
            if best is None or span[1] - span[0] < best[1] - best[0]:
                best = span
    return best


def _called(func: ast.expr) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def overlaps(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


# --- ty ----------------------------------------------------------------------------------------


def ty_diagnostics(repo: str, project: RProject) -> collections.Counter[tuple[str, int, str, str]]:
    exe = os.path.join(ENV, "bin", "ty")
    proc = run([exe, "check", "--python", ENV, "--output-format", "concise", *project.source, *project.tests], cwd=repo, check=False)
    out: collections.Counter[tuple[str, int, str, str]] = collections.Counter()
    for line in proc.stdout.splitlines():
        m = _TY_LINE.match(line.strip())
        if m and m["rule"] in TY_RULES:
            out[(m["path"], int(m["line"]), m["rule"], m["msg"])] += 1
    return out


# --- graphguard's selections ----------------------------------------------------------------------


def legacy_tests(graph, config, callers) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    """graphguard's tests[] until this branch (commands/check.py `_tests`): one (path, line) per test file."""
    direct: dict[str, int] = {}
    for c in callers:
        if config.is_test(c.path):
            direct[c.path] = min(direct.get(c.path, c.line), c.line)
    out = sorted(direct.items())
    for c in callers:
        if config.is_test(c.path):
            continue
        for test_path, line in graph.db.execute(
            "SELECT s.path, min(i.line) FROM file_edges e JOIN files d ON d.id = e.dst JOIN files s ON s.id = e.src"
            " LEFT JOIN imports i ON i.file_id = s.id AND i.target_file = d.id WHERE d.path = ? AND e.kind = 'test-of' GROUP BY s.path",
                (c.path,)):
            if test_path not in direct:
                direct[test_path] = line or 1
                out.append((test_path, line or 1))
    return out


def test_spans(repo: str, path: str, cache: dict[str, list[tuple[int, int, str]]]) -> list[tuple[int, int, str]]:
    """(first line, last line, node id without parameters) of each test function of a test file."""
    if path not in cache:
        spans = []
        try:
            with open(os.path.join(repo, path), encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"):
                spans.append((n.lineno, n.end_lineno or n.lineno, f"{path}::{n.name}"))
            elif isinstance(n, ast.ClassDef):
                for m in n.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test"):
                        spans.append((m.lineno, m.end_lineno or m.lineno, f"{path}::{n.name}::{m.name}"))
        cache[path] = spans
    return cache[path]


def named_by(entries: set[str], test: str) -> bool:
    """Does a list of node ids run `test` (a file, a class, a function: all its parametrisations)?"""
    base = test.split("[", 1)[0]
    parts = base.split("::")
    return test in entries or any("::".join(parts[:i]) in entries for i in range(1, len(parts) + 1))


# --- mutations ----------------------------------------------------------------------------------


def plan(repo: str, project: RProject, n: int, seed: int) -> list[mb.Mutation]:
    db = sqlite3.connect(os.path.join(repo, ".git", "graphguard", "graph.sqlite3"))
    modules = dict(db.execute("SELECT path, module FROM files"))
    files = sorted(p for p in modules if p.endswith(".py") and p.startswith(tuple(s.rstrip("/") + "/" for s in project.source))
                   and "/tests/" not in p)
    symbols, _ = mb.symbols_of(repo, files, modules)
    called = {t for (t,) in db.execute("SELECT DISTINCT target FROM sites WHERE kind = 'call' AND resolution = 'exact' AND target IS NOT NULL")}
    called |= {t for (t,) in db.execute("SELECT DISTINCT init_target FROM sites WHERE kind = 'call' AND init_target IS NOT NULL")}
    db.close()
    rng = random.Random(f"{seed}:{project.spec}")
    pool = [s for s in symbols if s.full in called or s.kind == "class" and f"{s.full}.__init__" in called]
    rng.shuffle(pool)
    texts: dict[str, str] = {}
    out: list[mb.Mutation] = []
    used: set[str] = set()
    for i in range(n):
        kind = mb.BREAKING[i % len(mb.BREAKING)]
        for sym in pool:
            if sym.full in used:
                continue
            if sym.path not in texts:
                with open(os.path.join(repo, sym.path), encoding="utf-8") as f:
                    texts[sym.path] = f.read()
            src = mb.Source(texts[sym.path])
            try:
                m = mb.mutate(kind, sym, src, random.Random(f"{seed}:{sym.full}:{kind}"),
                              _keyword_uses(repo, sym.name) if kind == "rename-kw-param" else collections.Counter())
                if m is not None:
                    ast.parse(m.new_text)
            except (ValueError, StopIteration, AssertionError, SyntaxError, mb.tokenize.TokenError):
                m = None
            if m is None or m.new_text.count("\n") != src.text.count("\n"):
                continue
            used.add(sym.full)
            out.append(m)
            break
    return out


def _keyword_uses(repo: str, name: str) -> collections.Counter[str]:
    uses: collections.Counter[str] = collections.Counter()
    for path in glob.glob(os.path.join(repo, "**", "*.py"), recursive=True):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if name not in text:
                continue
            tree = ast.parse(text)
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and _called(n.func) == name:
                uses.update(k.arg for k in n.keywords if k.arg)
    return uses


# --- one mutation --------------------------------------------------------------------------------


@dataclass
class Result:
    project: str
    kind: str
    symbol: str
    failing_tests: int = 0
    failing_files: int = 0
    before_files: float = 0.0  # shares of the failing files / tests that the list names
    before_tests: float = 0.0
    before_len: int = 0
    before_run: float = 0.0  # share of the suite the list runs
    after_files: float = 0.0
    after_tests: float = 0.0
    after_len: int = 0
    after_run: float = 0.0
    cut: bool = False
    wired: bool = False  # the check's own tests[] equals select_tests (the selection is wired in)
    truth: int = 0  # broken sites at runtime
    gg_found: int = 0
    gg_flagged_ran: int = 0  # graphguard broken sites the baseline executed
    gg_confirmed: int = 0  # ... that failed at runtime
    ty_found: int = 0
    check_ms: float = 0.0
    select_ms: float = 0.0  # select_tests, all changes of the mutation (in this process, graph warm)
    tests_s: float = 0.0
    missed: list[str] = field(default_factory=list)  # failing tests the list does not name
    disputed: list[str] = field(default_factory=list)  # graphguard broken sites that ran and did not fail; runtime sites it missed


def measure(name: str, project: RProject, repo: str, python: str, m: mb.Mutation, base: Outcome,
            ty_before: collections.Counter[tuple[str, int, str, str]], timeout: float) -> Result | None:
    from graphguard.config import load as load_config
    from graphguard.result import CallerImpact, Status
    from graphguard.store.reads import CodeGraph
    from graphguard.testselect import select_tests

    r = Result(name, m.kind, m.symbol.full)
    path = os.path.join(repo, m.symbol.path)
    with open(path, encoding="utf-8") as f:
        original = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(m.new_text)
    try:
        run(["git", "add", m.symbol.path], cwd=repo)
        t = time.perf_counter()
        proc = run([*GG, "check", "--staged", "--format", "json"], cwd=repo, check=False)
        r.check_ms = 1000 * (time.perf_counter() - t)
        report = json.loads(proc.stdout) if proc.returncode in (0, 1) else {"changes": []}
        flagged = {(c["path"], c["line"], c["end_line"]) for ch in report["changes"] for c in ch["callers"] if c["status"] == "broken"}
        watch = sorted({(p, line) for p, lo, hi in flagged for line in range(lo, hi + 1)})
        after = run_tests(python, repo, project, timeout, trace=m.symbol.name, watch=watch)
        r.tests_s = after.seconds
        ty_after = ty_diagnostics(repo, project)
        truth = broken_sites(repo, after.exceptions, m.symbol.name)
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original)
        run(["git", "reset", "-q"], cwd=repo)
    if after.timed_out:
        log(f"  {m.kind} {m.symbol.full}: the test suite timed out; left out")
        return None
    fails = failing(base, after)
    suite = {t for t, ok in base.tests.items() if ok}
    r.failing_tests, r.failing_files = len(fails), len({file_of(t) for t in fails})
    # graphguard's lists: before (one file entry per test file) and after (select_tests), over the check's callers.
    db = sqlite3.connect(os.path.join(repo, ".git", "graphguard", "graph.sqlite3"))
    graph, config = CodeGraph(db), load_config(repo)
    spans: dict[str, list[tuple[int, int, str]]] = {}
    before_files, before_tests, after_entries = set(), set(), set()
    wired = bool(report["changes"])
    for ch in report["changes"]:
        callers = [CallerImpact(c["path"], c["line"], c["end_line"], c["caller"], Status(c["status"]), c["reason"], c["kind"], c["resolution"])
                   for c in ch["callers"]]
        for p, line in legacy_tests(graph, config, callers):
            before_files.add(p)
            before_tests.update(t for lo, hi, t in test_spans(repo, p, spans) if lo <= line <= hi)
        t = time.perf_counter()
        sel = select_tests(graph, config, callers, ch["symbol"], changed_path=ch["path"])
        r.select_ms += 1000 * (time.perf_counter() - t)
        r.cut = r.cut or sel.omitted > 0
        names = {h.name for h in sel.hits if h.name}
        after_entries |= names
        wired = wired and names == {t.get("name") for t in ch.get("tests", [])}
    db.close()
    r.wired = wired
    r.before_len, r.after_len = len(before_files), len(after_entries)
    fail_files = {file_of(t) for t in fails}
    if fails:
        r.before_files = len(fail_files & before_files) / len(fail_files)
        r.before_tests = len({t for t in fails if t.split("[", 1)[0] in before_tests}) / len(fails)
        r.after_files = len({f for f in fail_files if any(file_of(e) == f for e in after_entries)}) / len(fail_files)
        r.after_tests = len({t for t in fails if named_by(after_entries, t)}) / len(fails)
    if suite:
        r.before_run = len({t for t in suite if file_of(t) in before_files}) / len(suite)  # its files are what one runs
        r.after_run = len({t for t in suite if named_by(after_entries, t)}) / len(suite)
    # Broken sites: graphguard's broken callers, ty's new diagnostics.
    r.truth = len(truth)
    r.gg_found = sum(any(overlaps(t, g) for g in flagged) for t in truth)
    # Judged: a flagged site that failed, or that ran after the change (it did not fail there: a false alarm).
    # One that did not run cannot be judged (no test reaches it, or an earlier failure stopped the test).
    ran = {g for g in flagged if any(overlaps(t, g) for t in truth) or any((g[0], line) in after.ran for line in range(g[1], g[2] + 1))}
    r.gg_flagged_ran = len(ran)
    r.gg_confirmed = sum(any(overlaps(t, g) for t in truth) for g in ran)
    r.disputed = [f"gg-only {g[0]}:{g[1]}" for g in sorted(ran) if not any(overlaps(t, g) for t in truth)]
    r.disputed += [f"runtime-only {t[0]}:{t[1]}" for t in sorted(truth) if not any(overlaps(t, g) for g in flagged)]
    r.missed = sorted(t for t in fails if not named_by(after_entries, t))
    new_ty = ty_after - ty_before
    r.ty_found = sum(any(p == t[0] and t[1] <= line <= t[2] for (p, line, _, _) in new_ty) for t in truth)
    return r


# --- the report ----------------------------------------------------------------------------------


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def tables(results: list[Result]) -> str:
    rows = ["| project | mutations | with failing tests | failing tests (median) | failing files (median) "
            "| tests[] files named: before / after | tests named: before / after | mean tests named: before / after "
            "| list length: before / after | suite run: before / after | lists cut | wired |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for project in sorted({r.project for r in results}) + ["all"]:
        rs = [r for r in results if project in ("all", r.project)]
        f = [r for r in rs if r.failing_tests]
        rows.append(
            f"| {project} | {len(rs)} | {len(f)} | {med([r.failing_tests for r in f]):.0f} | {med([r.failing_files for r in f]):.0f} "
            f"| {med([r.before_files for r in f]):.0%} / {med([r.after_files for r in f]):.0%} "
            f"| {med([r.before_tests for r in f]):.0%} / {med([r.after_tests for r in f]):.0%} "
            f"| {statistics.fmean([r.before_tests for r in f]) if f else 0:.0%} / {statistics.fmean([r.after_tests for r in f]) if f else 0:.0%} "
            f"| {med([r.before_len for r in f]):.0f} files / {med([r.after_len for r in f]):.0f} entries "
            f"| {med([r.before_run for r in f]):.0%} / {med([r.after_run for r in f]):.0%} "
            f"| {sum(r.cut for r in f)} | {sum(r.wired for r in rs)}/{len(rs)} |")
    rows += ["", "| project | runtime broken sites | graphguard recall | graphguard precision (sites judged) | ty recall | check ms (median) | of which select_tests ms (median / max) | tests s (median) |",
             "|---|---|---|---|---|---|---|---|"]
    for project in sorted({r.project for r in results}) + ["all"]:
        rs = [r for r in results if project in ("all", r.project)]
        truth = sum(r.truth for r in rs)
        ran = sum(r.gg_flagged_ran for r in rs)

        def share(a: int, b: int) -> str:
            return f"{a / b:.2f} ({a}/{b})" if b else "-"

        rows.append(f"| {project} | {truth} | {share(sum(r.gg_found for r in rs), truth)} | {share(sum(r.gg_confirmed for r in rs), ran)} "
                    f"| {share(sum(r.ty_found for r in rs), truth)} | {med([r.check_ms for r in rs]):.0f} "
                    f"| {med([r.select_ms for r in rs]):.0f} / {max([r.select_ms for r in rs], default=0):.0f} | {med([r.tests_s for r in rs]):.1f} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--projects", default="click,jinja2")
    ap.add_argument("--mutations", type=int, default=14, help="per project (default 14: each breaking kind twice)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300, help="seconds per test-suite run")
    ap.add_argument("--json", help="write the per-mutation results here")
    ap.add_argument("--verbose", action="store_true", help="one line per mutation")
    ap.add_argument("--only", help="run only the planned mutations of this symbol (full name)")
    ap.add_argument("--show", action="store_true", help="with --verbose: the failing tests the list misses")
    args = ap.parse_args()
    python = ensure_env()
    results: list[Result] = []
    t0 = time.perf_counter()
    for name in args.projects.split(","):
        project = PROJECTS[name]
        repo = fetch(name, project)
        base = run_tests(python, repo, project, args.timeout)
        ty_before = ty_diagnostics(repo, project)
        mutations = [m for m in plan(repo, project, args.mutations, args.seed) if not args.only or m.symbol.full == args.only]
        log(f"{name}: {sum(base.tests.values())} tests pass at baseline ({base.seconds:.1f} s); {len(mutations)} mutations")
        for m in mutations:
            r = measure(name, project, repo, python, m, base, ty_before, args.timeout)
            if r is None:
                continue
            results.append(r)
            if args.verbose:
                log(f"  {m.kind:16} {m.symbol.full:50} fail {r.failing_tests:4} tests/{r.failing_files:2} files | files named {r.before_files:4.0%} -> "
                    f"{r.after_files:4.0%} | tests named {r.before_tests:4.0%} -> {r.after_tests:4.0%} | len {r.before_len} -> {r.after_len}"
                    f"{' (cut)' if r.cut else ''} | sites {r.truth}: gg {r.gg_found} ty {r.ty_found} | gg ran {r.gg_flagged_ran} ok {r.gg_confirmed}")
                for d in r.disputed:
                    log(f"      {d}")
                if args.show and r.missed:
                    log("      missed: " + " ".join(r.missed[:20]))
    print(f"runtime oracle, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())},"
          f" {os.cpu_count()} CPUs, seed {args.seed}, {args.mutations} mutations per project, {time.perf_counter() - t0:.0f} s\n")
    print(tables(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.__dict__ for r in results], f, indent=1)


if __name__ == "__main__":
    main()
