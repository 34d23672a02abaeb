"""Behaviour proof for a restructure (issue 20): the same runs give the same bytes before and after.

    python bench/behaviour_proof.py record --graphguard CHECKOUT --out DIR [--projects django,sqlalchemy,netbox]
    python bench/behaviour_proof.py compare DIR_A DIR_B

`record` runs the graphguard of CHECKOUT (common.graphguard_argv: CHECKOUT first on sys.path, an
editable install's finder off, the package's __file__ checked to lie in CHECKOUT) over fixed projects
and writes each answer's stdout, byte for byte, to DIR/<case>.json and its exit code to DIR/<case>.exit (stderr to DIR/<case>.stderr, not compared;
DIR/_graphguard.txt names the package that answered). CHECKOUT must not move during the run (each
case is a new process): record a commit, not a branch others commit to, e.g. `git archive COMMIT
graphguard | tar -x -C /tmp/gg-COMMIT`. Each project (Django and SQLAlchemy sdists, netbox at a tag
of its mirror; prepared as in mutation_bench.py, cached under bench/.cache) becomes a git repository
of one commit with a fixed author and date, rebuilt at the same path on every run so that commit ids
and paths repeat. Cases:

- `index --format json` and `stats --format json`;
- MUTATIONS seeded signature changes per project, each checked three ways: `check --staged` (the edit
  staged), `check --base HEAD --head C` (C: the edit committed with `git commit-tree`, HEAD unmoved),
  `check --proposed PATH=FILE` (the worktree clean again);
- `callers SYMBOL` for CALLERS symbols and `context TASK` for the project's fixed tasks.

The changes are drawn without graphguard, so both sides get the same inputs: functions and methods
(mutation_bench.symbols_of) whose name is called (`name(`) 2 to 60 times in the project's text, sorted
by path and name, every k-th; kinds in turn: add a required parameter, remove the last one, rename the
last one, swap the first two (skipped to the next candidate when a kind does not apply).

The fields normalised are `elapsed_ms` (check, context, index: a timing), rewritten to 0 in the bytes, and
`freshness` (every answer's last key since issue 22: its state and ms depend on what ran before), dropped.

`compare` prints one row per case (identical, or differing with a short diff) and exits 1 if any differ.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import git_bytes, graphguard_argv, graphguard_code_argv, sdist_tree
from mutation_bench import CACHE, MIRRORS, P, Source, Symbol, _with_params, export_python, implicit_first, params, symbols_of

MUTATIONS = 10
CALLERS = 7
ELAPSED = re.compile(rb'"elapsed_ms": ?\d+')
FRESHNESS = re.compile(rb',\s*"freshness": ?\{[^{}]*\}')
FIXED = {"GIT_AUTHOR_NAME": "proof", "GIT_AUTHOR_EMAIL": "proof@example.invalid", "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
         "GIT_COMMITTER_NAME": "proof", "GIT_COMMITTER_EMAIL": "proof@example.invalid",
         "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z"}


@dataclass(frozen=True)
class Project:
    name: str
    source: str  # bench/.cache/<source>: an unpacked sdist or a tag's export
    spec: str  # pip spec of the sdist, or the tag of the mirror
    root: str  # the folder the dotted names start from
    tasks: tuple[str, ...]


PROJECTS = {
    "django": Project("django", "django-5.2.8", "django==5.2.8", "", (
        "QuerySet.filter ignores the annotate alias when combined with values",
        "fix the migration autodetector renaming a field and its index together",
        "template engine: the include tag loses the context of the for loop",
        "add a timeout parameter to the SMTP email backend send_messages")),
    "sqlalchemy": Project("sqlalchemy", "sqlalchemy-2.0.36", "sqlalchemy==2.0.36", "lib/", (
        "Session.merge loses the loaded relationship when the object is pending",
        "the connection pool recycles connections too early after invalidate",
        "compile a select with a lateral join in the PostgreSQL dialect")),
    "netbox": Project("netbox", "netbox-v4.4.9", "v4.4.9", "netbox/", (
        "the device serializer omits the primary IP address",
        "cable trace fails when a front port has no rear port",
        "add a filter by VLAN group to the prefix list view")),
}


def git(repo: str, *args: str, stdin: bytes | None = None) -> str:
    return git_bytes(repo, *args, stdin=stdin, env={**os.environ, **FIXED}).decode()


def source(project: Project) -> str:
    """The project's files under bench/.cache (downloaded once), as mutation_bench.py prepares them."""
    src = os.path.join(CACHE, project.source)
    if os.path.isdir(src):
        return src
    os.makedirs(CACHE, exist_ok=True)
    if project.name in MIRRORS:
        export_python(MIRRORS[project.name], project.spec, src)
        return src
    return sdist_tree(project.spec, CACHE)


def fresh_repo(project: Project) -> str:
    """bench/.cache/proof-<name>: the project as one commit, the same commit id on every run, no graph yet."""
    repo = os.path.join(CACHE, f"proof-{project.name}")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(source(project), repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "import")
    return repo


# CHECKOUT first on sys.path, an editable install's finder off (common.graphguard_argv); -P keeps the analysed
# repository (the working directory) off sys.path.
FLAGS = ("-P",)


class Runner:
    """Runs one checkout's graphguard and writes each answer under `out`."""

    def __init__(self, checkout: str, out: str) -> None:
        self.checkout, self.out = os.path.abspath(checkout), out
        self.env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "GRAPHGUARD_REFRESH": "foreground"}
        self.cases = 0
        probe = subprocess.run(graphguard_code_argv(self.checkout, "print(graphguard.__file__)", flags=FLAGS),
                               env=self.env, capture_output=True, text=True)
        where = probe.stdout.strip()
        if probe.returncode or not where.startswith(self.checkout + os.sep):
            raise SystemExit(f"graphguard would not come from {self.checkout}: {where or probe.stderr.strip()}")
        print(f"graphguard: {where}", file=sys.stderr)
        with open(os.path.join(out, "_graphguard.txt"), "w") as f:  # not a case: which code answered
            f.write(where + "\n")

    def __call__(self, case: str, repo: str, *args: str) -> None:
        proc = subprocess.run([*graphguard_argv(self.checkout, flags=FLAGS), *args], cwd=repo, env=self.env,
                              capture_output=True, timeout=1800)
        base = os.path.join(self.out, case)
        with open(base + ".json", "wb") as f:
            f.write(FRESHNESS.sub(b"", ELAPSED.sub(b'"elapsed_ms": 0', proc.stdout)))
        with open(base + ".exit", "w") as f:
            f.write(f"{proc.returncode}\n")
        with open(base + ".stderr", "wb") as f:
            f.write(proc.stderr)
        self.cases += 1


KINDS = ("add-required", "remove-last", "rename-last", "swap-first-two")


def mutate(kind: str, sym: Symbol, src: Source) -> str | None:
    """The file's text with `sym`'s parameters changed by `kind`, every line kept in place; None if it does not apply."""
    assert sym.fn is not None
    ps = params(src, sym.fn)[1 if implicit_first(sym) else 0:]
    explicit = [p for p in ps if p.kind in ("pos", "kwonly")]
    new: list[P] | None = None
    if kind == "add-required" and "gg_new" not in {p.name for p in ps}:
        plain = all(p.kind == "pos" and not p.has_default for p in ps)
        at = len(ps) - (1 if ps and ps[-1].kind == "kwarg" else 0)
        new = ps[:at] + [P("pos" if plain else "kwonly", "gg_new", "gg_new", False)] + ps[at:]
    elif kind == "remove-last" and explicit:
        new = [p for p in ps if p is not explicit[-1]]
    elif kind == "rename-last" and explicit:
        last = explicit[-1]
        new = [P(p.kind, p.name + "_gg", p.name + "_gg" + p.text[len(p.name):], p.has_default) if p is last else p for p in ps]
    elif kind == "swap-first-two" and len(ps) >= 2 and ps[0].kind == ps[1].kind == "pos" and ps[0].has_default == ps[1].has_default:
        new = [ps[1], ps[0], *ps[2:]]
    return None if new is None else _with_params(src, sym, new)


def candidates(repo: str) -> list[Symbol]:
    """Functions and methods called 2 to 60 times by name in the project's text, by path and name."""
    files = git(repo, "ls-files", "*.py").split()
    texts = {}
    for path in files:
        with open(os.path.join(repo, path), encoding="utf-8", errors="replace") as f:
            texts[path] = f.read()
    calls = collections.Counter(m for t in texts.values() for m in re.findall(r"(?<!\w)(\w+)\s*\(", t))
    defs = collections.Counter(m for t in texts.values() for m in re.findall(r"\bdef\s+(\w+)\s*\(", t))
    symbols, _ = symbols_of(repo, files, {p: p[:-3].replace("/", ".") for p in files})
    chosen = [s for s in symbols if s.fn is not None and s.kind != "class" and 2 <= calls[s.name] - defs[s.name] <= 60]
    return sorted(chosen, key=lambda s: (s.path, s.qualname))


def dotted(project: Project, sym: Symbol) -> str:
    module = sym.path[len(project.root):-3].replace("/", ".").removesuffix(".__init__")
    return f"{module}.{sym.qualname}"


def check_three_ways(run: Runner, repo: str, case: str, path: str, text: str) -> None:
    """The edit staged, then committed beside HEAD (HEAD and the graph stay), then proposed over a clean worktree."""
    with open(os.path.join(repo, path), "w", encoding="utf-8") as f:
        f.write(text)
    git(repo, "add", path)
    run(f"{case}-staged", repo, "check", "--staged", "--format", "json")
    tree = git(repo, "write-tree").strip()
    commit = git(repo, "commit-tree", tree, "-p", "HEAD", "-m", case).strip()
    run(f"{case}-base", repo, "check", "--base", "HEAD", "--head", commit, "--format", "json")
    git(repo, "checkout", "-q", "HEAD", "--", path)
    proposed = os.path.join(CACHE, "proof-proposed.py")
    with open(proposed, "w", encoding="utf-8") as f:
        f.write(text)
    run(f"{case}-proposed", repo, "check", "--proposed", f"{path}={proposed}", "--format", "json")
    if git(repo, "status", "--porcelain", "--untracked-files=no"):
        raise SystemExit(f"{repo}: not clean after {case}")


def record_project(run: Runner, project: Project) -> None:
    repo = fresh_repo(project)
    name = project.name
    run(f"{name}-index", repo, "index", "--format", "json")
    run(f"{name}-stats", repo, "stats", "--format", "json")
    pool = candidates(repo)
    step = max(1, len(pool) // (MUTATIONS + CALLERS))
    done, at = 0, 0
    while done < MUTATIONS and at < len(pool):
        sym = pool[at]
        with open(os.path.join(repo, sym.path), encoding="utf-8") as f:
            text = mutate(KINDS[done % len(KINDS)], sym, Source(f.read()))
        at += 1 if text is None else step  # an edit that does not apply: the next candidate
        if text is not None:
            check_three_ways(run, repo, f"{name}-m{done:02d}-{KINDS[done % len(KINDS)]}", sym.path, text)
            done += 1
    for i, sym in enumerate(pool[step // 2::step][:CALLERS]):
        run(f"{name}-callers{i:02d}", repo, "callers", dotted(project, sym), "--format", "json")
    for i, task in enumerate(project.tasks):
        run(f"{name}-context{i:02d}", repo, "context", task, "--format", "json")
    print(f"{name}: {done} mutations of {len(pool)} candidates, step {step}", file=sys.stderr)


def record(checkout: str, out: str, names: list[str]) -> None:
    os.makedirs(out, exist_ok=True)
    run = Runner(checkout, out)
    start = time.monotonic()
    for name in names:
        t = time.monotonic()
        record_project(run, PROJECTS[name])
        print(f"{name}: {time.monotonic() - t:.0f} s", file=sys.stderr)
    print(f"{run.cases} cases in {time.monotonic() - start:.0f} s, load {os.getloadavg()[0]:.2f} -> {out}")


def answer(d: str, case: str) -> bytes | None:
    """A recorded case as one text: its exit code, then its stdout; None when it was not recorded."""
    paths = [os.path.join(d, case + ext) for ext in (".exit", ".json")]
    if not all(os.path.exists(p) for p in paths):
        return None
    with open(paths[0], "rb") as code, open(paths[1], "rb") as out:
        return b"exit " + code.read() + out.read()


def compare(a: str, b: str) -> int:
    cases = sorted({f.rsplit(".", 1)[0] for d in (a, b) for f in os.listdir(d) if f.endswith((".json", ".exit"))})
    differing = 0
    print(f"{'case':<44} result")
    for case in cases:
        left, right = answer(a, case), answer(b, case)
        if left == right:
            print(f"{case:<44} identical")
            continue
        differing += 1
        if left is None or right is None:
            print(f"{case:<44} DIFFERS: not recorded in {a if left is None else b}")
            continue
        print(f"{case:<44} DIFFERS")
        diff = difflib.unified_diff(left.decode(errors="replace").splitlines(), right.decode(errors="replace").splitlines(), a, b, lineterm="", n=0)
        for line in list(diff)[2:10]:
            print(f"    {line[:160]}")
    print(f"{len(cases)} cases: {len(cases) - differing} identical, {differing} differing")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--graphguard", required=True, help="the checkout whose graphguard runs")
    rec.add_argument("--out", required=True)
    rec.add_argument("--projects", default=",".join(PROJECTS))
    cmp = sub.add_parser("compare")
    cmp.add_argument("a")
    cmp.add_argument("b")
    args = parser.parse_args()
    if args.command == "compare":
        return compare(args.a, args.b)
    record(args.graphguard, args.out, args.projects.split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
