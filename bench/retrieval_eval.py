"""Retrieval on real history: does `graphguard context|related` find the files a commit changed?

    python bench/retrieval_eval.py REPO [REPO ...] [--commits 60] [--readme docs/retrieval.md]

REPO is a local git repository or a URL to clone; either way the script works
in its own clone (under --workdir, default bench/.cache/retrieval) and never
touches the original. For each project it takes the newest `--commits`
non-merge commits that modified between --min-files and --max-files existing
`.py` files, checks out each one's parent, lets graphguard bring its graph to
it (as the post-checkout hook would), and asks two questions:

- text task: `graphguard context "<commit message>"`; the answer should hold
  every `.py` file the commit modified;
- seeded task: `graphguard related <seed>`, the seed being the modified
  non-test file with the most changed lines; the answer should hold the other
  modified files.

Each answer's files, in order of first appearance, are scored by recall@10,
recall@20 and MRR, beside three baselines computed here at the same parent:
BM25 over whole files with graphguard's tokenizer (text task), the seed's
import neighbours (seeded task), and git co-change (the files committed most
often with the seed in the history before the parent). graphguard's own
history only ever covers the parent's ancestors (it follows HEAD), so
nothing leaks from the commit or later. Query times are whole processes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from common import git_bytes as git

from graphguard.config import Config
from graphguard.retrieval.tokenize import query_terms, tokens

GG = [sys.executable, "-m", "graphguard"]
LIMIT = 60  # results asked for (symbols; a file can give two)
MARK_START = "<!-- retrieval-eval:start -->"
MARK_END = "<!-- retrieval-eval:end -->"


# --- the project -------------------------------------------------------------------------------


def clone(spec: str, workdir: str) -> tuple[str, str]:
    """(name, path of a private clone) of a local repository or a URL."""
    name = re.sub(r"\.git$", "", spec.rstrip("/").rsplit("/", 1)[-1]) or "repo"
    if os.path.isdir(spec):
        name = os.path.basename(os.path.abspath(spec))
    dest = os.path.join(workdir, name)
    if not os.path.isdir(os.path.join(dest, ".git")):
        os.makedirs(workdir, exist_ok=True)
        subprocess.run(("git", "clone", "-q", "--no-local" if os.path.isdir(spec) else "-q", spec, dest), check=True)
    tip = git(dest, "rev-parse", "origin/HEAD").decode().strip() if git(dest, "branch", "-r").strip() else "HEAD"
    git(dest, "checkout", "-q", "--detach", tip)
    return name, dest


@dataclass
class Case:
    sha: str
    parent: str
    time: int
    message: str
    modified: list[str]  # .py files the commit modified (they exist at the parent)
    seed: str


_TRAILER = re.compile(r"^[A-Za-z-]+-by:.*$|^\(cherry picked from .*\)$", re.MULTILINE)


def select_cases(repo: str, n: int, min_files: int, max_files: int, suffixes: tuple[str, ...] = (".py",)) -> list[Case]:
    # --raw reads no blob (a mirror may lack its largest ones); line counts are asked only of the commits that qualify.
    out = git(repo, "log", "--no-merges", "--no-renames", "--raw", "-z", "--format=%x01%H %P%x00%ct%x00%B%x00", "HEAD")
    cases = []
    for rec in out.split(b"\x01"):
        if not rec:
            continue
        head, ts, message, rest = rec.split(b"\0", 3)
        shas = head.decode().split()
        if len(shas) != 2:
            continue  # a root commit
        status: dict[str, str] = {}
        fields = rest.lstrip(b"\0").split(b"\0")
        for meta, path in zip(fields[0::2], fields[1::2]):
            meta = meta.strip(b"\n")
            p = path.decode("utf-8", "surrogateescape")
            if meta.startswith(b":") and p.endswith(suffixes):
                status[p] = meta.split()[-1].decode()
        if not (min_files <= len(status) <= max_files):
            continue
        modified = sorted(p for p, st in status.items() if st == "M")
        if len(modified) < min_files:
            continue  # the truth is the modified files (an added one cannot be retrieved at the parent)
        sources = [p for p in modified if not is_test_path(p)]
        if not sources:
            continue
        proc = subprocess.run(("git", "diff", "--numstat", "--no-renames", "-z", shas[1], shas[0], "--", *modified),
                              cwd=repo, capture_output=True)
        if proc.returncode:
            continue  # a blob the clone lacks
        changed: dict[str, int] = {}
        for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
            parts = entry.strip("\n").split("\t")
            if len(parts) == 3:
                a, d, path = parts
                changed[path] = (int(a) if a.isdigit() else 0) + (int(d) if d.isdigit() else 0)
        seed = max(sources, key=lambda p: (changed.get(p, 0), p))
        text = _TRAILER.sub("", message.decode("utf-8", "replace")).strip()
        cases.append(Case(shas[0], shas[1], int(ts), text, modified, seed))
        if len(cases) >= n:
            break
    return sorted(cases, key=lambda c: c.time)  # oldest first: history moves forward


# --- baselines ---------------------------------------------------------------------------------


class FileBM25:
    """BM25 over whole .py files at a commit (graphguard's tokenizer; token counts cached per blob)."""

    def __init__(self, repo: str, k1: float = 1.2, b: float = 0.75, suffixes: tuple[str, ...] = (".py",)):
        self.repo, self.k1, self.b, self.suffixes = repo, k1, b, suffixes
        self.cache: dict[str, Counter[str]] = {}
        self.sizes: dict[str, int] = {}  # path -> bytes at the last ranked commit
        self.blob_sizes: dict[str, int] = {}

    def rank(self, rev: str, text: str) -> list[str]:
        entries = []
        for rec in git(self.repo, "ls-tree", "-r", "-z", rev).split(b"\0"):
            if not rec:
                continue
            meta, _, path = rec.partition(b"\t")
            mode, kind, sha = meta.decode().split(" ")
            p = path.decode("utf-8", "surrogateescape")
            if kind == "blob" and p.endswith(self.suffixes):
                entries.append((p, sha))
        missing = [sha for _, sha in entries if sha not in self.cache]
        if missing:
            out = git(self.repo, "cat-file", "--batch", stdin="".join(s + "\n" for s in missing).encode())
            pos = 0
            for sha in missing:
                nl = out.index(b"\n", pos)
                header = out[pos:nl].split()
                if header[-1] == b"missing":  # a blob the clone lacks: an empty file
                    self.cache[sha] = Counter()
                    pos = nl + 1
                    continue
                size = int(header[2])
                self.cache[sha] = Counter(tokens(out[nl + 1 : nl + 1 + size].decode("utf-8", "replace")))
                self.blob_sizes[sha] = size
                pos = nl + 1 + size + 1
        self.sizes = {p: self.blob_sizes.get(sha, 0) for p, sha in entries}
        docs = [(p, self.cache[sha]) for p, sha in entries]
        n = len(docs)
        avg = sum(sum(c.values()) for _, c in docs) / max(1, n)
        terms = query_terms(text)
        df = {t: sum(1 for _, c in docs if t in c) for t in terms}
        scores = {}
        for p, c in docs:
            length = sum(c.values())
            s = 0.0
            for t in terms:
                tf = c.get(t, 0)
                if tf:
                    idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                    s += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / avg))
            if s > 0:
                scores[p] = s
        return sorted(scores, key=lambda p: (-scores[p], p))


class CoChange:
    """Files most often committed together with the seed, over the commits before the parent."""

    def __init__(self, repo: str, suffixes: tuple[str, ...] = (".py",)):
        self.repo = repo
        self.files: dict[str, list[str]] = {}
        self.by_path: dict[str, list[str]] = {}
        out = git(repo, "log", "--no-merges", "--no-renames", "--name-only", "-z", "--format=%x01%H", "HEAD")
        for rec in out.split(b"\x01"):
            if not rec:
                continue
            sha, _, rest = rec.partition(b"\0")
            paths = [p.decode("utf-8", "surrogateescape") for p in rest.lstrip(b"\n").split(b"\0") if p.strip(b"\n")]
            paths = [p for p in paths if p.endswith(suffixes)]
            self.files[sha.decode()] = paths
            for p in paths:
                self.by_path.setdefault(p, []).append(sha.decode())

    def rank(self, parent: str, seed: str, existing: set[str]) -> list[str]:
        ancestors = set(git(self.repo, "rev-list", parent).decode().split())
        counts: Counter[str] = Counter()
        for c in self.by_path.get(seed, []):
            if c in ancestors:
                counts.update(p for p in self.files[c] if p != seed and p in existing)
        return sorted(counts, key=lambda p: (-counts[p], p))


def history_head(repo: str) -> str | None:
    db = sqlite3.connect(os.path.join(repo, ".git", "graphguard", "graph.sqlite3"))
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'history_head'").fetchone()
    finally:
        db.close()
    return row[0] if row else None


def import_neighbours(repo: str, seed: str) -> list[str]:
    db = sqlite3.connect(os.path.join(repo, ".git", "graphguard", "graph.sqlite3"))
    try:
        rows = db.execute(
            "SELECT d.path, e.n_symbols FROM file_edges e JOIN files s ON s.id = e.src JOIN files d ON d.id = e.dst"
            " WHERE s.path = ? AND e.kind = 'import'"
            " UNION ALL SELECT s.path, e.n_symbols FROM file_edges e JOIN files s ON s.id = e.src JOIN files d ON d.id = e.dst"
            " WHERE d.path = ? AND e.kind = 'import'",
            (seed, seed),
        ).fetchall()
    finally:
        db.close()
    best: dict[str, int] = {}
    for p, n in rows:
        best[p] = max(best.get(p, 0), n)
    return sorted(best, key=lambda p: (-best[p], p))


# --- graphguard ----------------------------------------------------------------------------------


def ask(repo: str, args: Sequence[str], profile: str) -> tuple[list[str], float]:
    t = time.perf_counter()
    proc = subprocess.run([*GG, *args, "--repo", repo, "--format", "json", "--limit", str(LIMIT), "--budget", "1000000",
                           "--profile", profile], capture_output=True)
    elapsed = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"graphguard {' '.join(args[:1])} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    # The task is about .py files (the baselines rank nothing else): a stub or a data file never counts.
    paths = list(dict.fromkeys(r["path"] for r in json.loads(proc.stdout)["results"] if r["path"].endswith(".py")))
    return paths, elapsed


# --- metrics -------------------------------------------------------------------------------------


def recall(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def mrr(ranked: Sequence[str], relevant: set[str]) -> float:
    return next((1.0 / (i + 1) for i, p in enumerate(ranked) if p in relevant), 0.0)


@dataclass
class Scores:
    r10: list[float] = field(default_factory=list)
    r20: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)

    def add(self, ranked: Sequence[str], relevant: set[str]) -> None:
        self.r10.append(recall(ranked, relevant, 10))
        self.r20.append(recall(ranked, relevant, 20))
        self.rr.append(mrr(ranked, relevant))


def run_project(spec: str, args: argparse.Namespace) -> dict[str, object]:
    name, repo = clone(spec, args.workdir)
    cases = select_cases(repo, args.commits, args.min_files, args.max_files)
    if not cases:
        raise SystemExit(f"{name}: no commit modified {args.min_files}..{args.max_files} existing .py files")
    bm25 = FileBM25(repo)
    co = CoChange(repo)
    keys = ["text:graphguard", "text:bm25", "seeded:graphguard", "seeded:imports", "seeded:cochange"]
    if args.compare:
        keys += ["text:compare", "seeded:compare"]
    methods = {k: Scores() for k in keys}
    unfitted = 0
    times: dict[str, list[float]] = {"context": [], "related": [], "index": []}
    dump = open(args.dump, "a", encoding="utf-8") if args.dump else None
    for i, case in enumerate(cases, 1):
        git(repo, "checkout", "-q", "--detach", case.parent)
        t = time.perf_counter()
        subprocess.run([*GG, "index", "--repo", repo], check=True, capture_output=True)
        times["index"].append(time.perf_counter() - t)
        assert history_head(repo) == case.parent, "graphguard's history must describe the parent, nothing later"
        relevant = set(case.modified)
        existing = {p for p in git(repo, "ls-tree", "-r", "--name-only", "-z", case.parent).decode().split("\0") if p.endswith(".py")}
        text_ranked, dt = ask(repo, ["context", case.message], args.profile)
        times["context"].append(dt)
        methods["text:graphguard"].add(text_ranked, relevant)
        bm25_ranked = bm25.rank(case.parent, case.message)
        methods["text:bm25"].add(bm25_ranked, relevant)
        others = relevant - {case.seed}
        ranked, dt = ask(repo, ["related", case.seed], args.profile)
        times["related"].append(dt)
        methods["seeded:graphguard"].add([p for p in ranked if p != case.seed], others)
        methods["seeded:imports"].add(import_neighbours(repo, case.seed), others)
        methods["seeded:cochange"].add(co.rank(case.parent, case.seed, existing), others)
        if args.compare:  # the same questions with the other profile (fitted at the parent: history before it only)
            try:
                methods["text:compare"].add(ask(repo, ["context", case.message], args.compare)[0], relevant)
                methods["seeded:compare"].add([p for p in ask(repo, ["related", case.seed], args.compare)[0] if p != case.seed], others)
            except SystemExit:  # no fitted profile yet (too little history): the shipped one answers
                unfitted += 1
                methods["text:compare"].add(text_ranked, relevant)
                methods["seeded:compare"].add([p for p in ranked if p != case.seed], others)
        if dump is not None:  # the rankings, to read the misses
            dump.write(json.dumps({"project": name, "sha": case.sha, "message": case.message, "modified": case.modified,
                                   "seed": case.seed, "text": text_ranked[:20], "bm25": bm25_ranked[:20],
                                   "related": [p for p in ranked if p != case.seed][:20]}) + "\n")
        if args.save:  # after every case: a run stopped early still leaves its cases so far
            _save(args.save, {"name": name, "cases": i, "files": 0, "methods": methods, "times": times,
                              "unfitted": unfitted, "span": (_day(cases[0].time), _day(case.time))})
        if args.verbose:
            print(f"  {i}/{len(cases)} {case.sha[:10]} {len(case.modified)} files  seed {case.seed}", file=sys.stderr)
    if dump is not None:
        dump.close()
    n_files = len([p for p in git(repo, "ls-tree", "-r", "--name-only", "-z", "HEAD").decode().split("\0") if p.endswith(".py")])
    return {"name": name, "cases": len(cases), "files": n_files, "methods": methods, "times": times, "unfitted": unfitted,
            "span": (time.strftime("%Y-%m-%d", time.gmtime(cases[0].time)), time.strftime("%Y-%m-%d", time.gmtime(cases[-1].time)))}


LABELS = {
    "text:graphguard": ("text", "graphguard context"),
    "text:bm25": ("text", "BM25 over files"),
    "seeded:graphguard": ("seeded", "graphguard related"),
    "seeded:imports": ("seeded", "import neighbours"),
    "seeded:cochange": ("seeded", "git co-change"),
    "text:compare": ("text", "graphguard context, profile {compare}"),
    "seeded:compare": ("seeded", "graphguard related, profile {compare}"),
}


def table(results: Iterable[dict[str, object]], profile: str, compare: str = "") -> str:
    lines = []
    for r in results:
        methods: dict[str, Scores] = r["methods"]  # type: ignore[assignment]
        times: dict[str, list[float]] = r["times"]  # type: ignore[assignment]
        span = r["span"]
        lines.append(f"**{r['name']}** ({r['files']} .py files at HEAD; {r['cases']} commits from {span[0]} to {span[1]};"  # type: ignore[index]
                     f" profile `{profile}`)")
        lines.append("")
        lines.append("| task | method | recall@10 | recall@20 | MRR | median recall@10 |")
        lines.append("|---|---|---:|---:|---:|---:|")
        for key, (task, label) in LABELS.items():
            if key not in methods:
                continue
            s = methods[key]
            label = label.format(compare=compare)
            bold = "**" if key.endswith("graphguard") else ""
            lines.append(f"| {task} | {bold}{label}{bold} | {statistics.fmean(s.r10):.3f} | {statistics.fmean(s.r20):.3f} |"
                         f" {statistics.fmean(s.rr):.3f} | {statistics.median(s.r10):.3f} |")
        def ratio(a: str, *bs: str) -> str:
            best = max(statistics.fmean(methods[x].r10) for x in bs)
            return f"{statistics.fmean(methods[a].r10) / max(1e-9, best):.2f}x"

        lines.append("")
        lines.append(f"recall@10, graphguard over: BM25 {ratio('text:graphguard', 'text:bm25')} (text task);"
                     f" co-change {ratio('seeded:graphguard', 'seeded:cochange')},"
                     f" the better of co-change and import neighbours {ratio('seeded:graphguard', 'seeded:cochange', 'seeded:imports')}"
                     f" (seeded task). Whole-process query times, median / p90: context {_ms(times['context'])},"
                     f" related {_ms(times['related'])}; index at each parent {_ms(times['index'])}.")
        if "text:compare" in methods:
            lines.append("")
            lines.append(f"Profile `{compare}` over `{profile}`, recall@10: text {ratio('text:compare', 'text:graphguard')},"
                         f" seeded {ratio('seeded:compare', 'seeded:graphguard')}; {r.get('unfitted', 0)} of {r['cases']}"
                         f" parents had no `{compare}` profile (too little history) and count the `{profile}` answer.")
        lines.append("")
    return "\n".join(lines)


def _day(t: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def _save(path: str, result: dict[str, object]) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump({**result, "methods": {k: vars(v) for k, v in result["methods"].items()}}, f)  # type: ignore[attr-defined]
    os.replace(path + ".tmp", path)


def mean_table(results: Sequence[dict[str, object]]) -> str:
    """The projects side by side and their mean (each project weighs the same, whatever its number of commits)."""
    cols = [("text:graphguard", "r10"), ("text:bm25", "r10"), ("text:graphguard", "r20"), ("text:bm25", "r20"),
            ("text:graphguard", "rr"), ("text:bm25", "rr"), ("seeded:graphguard", "r10"), ("seeded:cochange", "r10"),
            ("seeded:imports", "r10"), ("seeded:graphguard", "r20"), ("seeded:cochange", "r20"), ("seeded:imports", "r20")]
    head = ["text r@10 gg", "BM25", "text r@20 gg", "BM25", "text MRR gg", "BM25",
            "seeded r@10 gg", "co-change", "imports", "seeded r@20 gg", "co-change", "imports"]
    if all("text:compare" in r["methods"] for r in results):  # type: ignore[operator]
        cols += [("text:compare", "r10"), ("text:compare", "r20"), ("seeded:compare", "r10")]
        head += ["text r@10 fitted", "text r@20 fitted", "seeded r@10 fitted"]
    lines = ["| project | commits | " + " | ".join(head) + " | text gg/BM25 @10 | seeded gg/best @10 |",
             "|---|---:|" + "---:|" * (len(head) + 2)]
    sums: list[list[float]] = [[] for _ in cols]
    ratios: list[tuple[float, float]] = []
    for r in results:
        methods: dict[str, Scores] = r["methods"]  # type: ignore[assignment]
        vals = [statistics.fmean(getattr(methods[m], attr)) for m, attr in cols]
        for acc, v in zip(sums, vals):
            acc.append(v)
        ratios.append((vals[0] / max(1e-9, vals[1]), vals[6] / max(1e-9, vals[7], vals[8])))
        lines.append(f"| {r['name']} | {r['cases']} | " + " | ".join(f"{v:.3f}" for v in vals)
                     + f" | {ratios[-1][0]:.2f}x | {ratios[-1][1]:.2f}x |")
    mean = [statistics.fmean(v) for v in sums]
    lines.append("| **mean** | | " + " | ".join(f"**{v:.3f}**" for v in mean)
                 + f" | **{mean[0] / max(1e-9, mean[1]):.2f}x** | **{mean[6] / max(1e-9, mean[7], mean[8]):.2f}x** |")
    return "\n".join(lines) + "\n"


def _ms(values: list[float]) -> str:
    v = sorted(values)
    return f"{statistics.median(v) * 1000:.0f} / {v[int(0.9 * (len(v) - 1))] * 1000:.0f} ms"


def write_readme(path: str, text: str) -> None:
    with open(path, encoding="utf-8") as f:
        readme = f.read()
    if MARK_START not in readme or MARK_END not in readme:
        raise SystemExit(f"{path} has no {MARK_START} ... {MARK_END} block to fill")
    head, _, rest = readme.partition(MARK_START)
    _, _, tail = rest.partition(MARK_END)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{head}{MARK_START}\n{text.strip()}\n{MARK_END}{tail}")


def is_test_path(path: str) -> bool:
    """A test file by graphguard's default test globs (the projects here configure none)."""
    return bool(_DEFAULT_CONFIG.is_test(path))


_DEFAULT_CONFIG = Config()


def time_queries(repo: str, runs: int, tasks: Sequence[str] = ()) -> str:
    """Whole-process times of `context` and `related` on a repository as it is (graph warm after the first run):
    the given tasks (default: the subjects of its last three commits), its three largest non-test .py files as
    seeds."""
    subprocess.run([*GG, "index", "--repo", repo], check=True, capture_output=True)
    tasks = list(tasks) or [t for t in git(repo, "log", "-3", "--format=%s").decode().splitlines() if t.strip()]
    sized = []
    for rec in git(repo, "ls-tree", "-r", "-l", "-z", "HEAD").split(b"\0"):
        meta, _, path = rec.partition(b"\t")
        p = path.decode("utf-8", "surrogateescape")
        if p.endswith(".py") and not is_test_path(p):
            sized.append((int(meta.split()[3]), p))
    seeds = [p for _, p in sorted(sized, reverse=True)[:3]]
    out: dict[str, list[float]] = {"context": [], "related": []}
    for command, args in [("context", [t]) for t in tasks] + [("related", [s]) for s in seeds]:
        subprocess.run([*GG, command, *args, "--repo", repo], check=True, capture_output=True)  # warm: text index, caches
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([*GG, command, *args, "--repo", repo], check=True, capture_output=True)
            out[command].append(time.perf_counter() - t)
    name = os.path.basename(os.path.abspath(repo))
    n_files = sum(1 for p in git(repo, "ls-files", "-z").decode().split("\0") if p.endswith(".py"))
    return (f"{name} ({n_files} .py files), graph warm, {runs} runs of each of {len(tasks)} tasks and {len(seeds)} seeds,"
            f" default budget and limit; median / p90: context {_ms(out['context'])}, related {_ms(out['related'])}")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="*", metavar="REPO", help="a local git repository or a URL to clone")
    ap.add_argument("--time", metavar="REPO", action="append", default=[],
                    help="also time context and related on this repository as it is (e.g. a Django checkout)")
    ap.add_argument("--runs", type=int, default=5, help="runs per query for --time")
    ap.add_argument("--task", action="append", default=[], help="a task text for --time (repeatable)")
    ap.add_argument("--commits", type=int, default=60, help="commits per project (the newest that qualify)")
    ap.add_argument("--min-files", type=int, default=3, help="fewest modified .py files a commit must have")
    ap.add_argument("--max-files", type=int, default=12, help="most modified .py files a commit may have")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--workdir", default=os.path.join(HERE, ".cache", "retrieval"), help="where the private clones go")
    ap.add_argument("--readme", help="also write the table into this file's retrieval-eval block (docs/retrieval.md)")
    ap.add_argument("--compare", default="", help="also ask with this profile (e.g. fitted) and compare it")
    ap.add_argument("--save", help="write the (first) project's scores to this JSON file")
    ap.add_argument("--load", action="append", default=[], help="add a project saved by --save to the tables")
    ap.add_argument("--dump", help="append each case's rankings (JSON lines) to this file, to read the misses")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    results = []
    for spec in args.repos:
        t = time.perf_counter()
        results.append(run_project(spec, args))
        print(f"{results[-1]['name']}: evaluated in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    for path in args.load:  # projects evaluated by earlier runs (--save), to make one table of all of them
        with open(path, encoding="utf-8") as f:
            saved = json.load(f)
        saved["methods"] = {k: Scores(**v) for k, v in saved["methods"].items()}
        saved["span"] = tuple(saved["span"])
        results.append(saved)
    if args.save and results:
        _save(args.save, results[0])
    text = table(results, args.profile, args.compare) if results else ""
    if len(results) > 1:
        text += "\n" + mean_table(results)
    for repo in args.time:
        text += f"\nQuery times: {time_queries(repo, args.runs, args.task)}.\n"
    print(text)
    if args.readme:
        write_readme(args.readme, text)


if __name__ == "__main__":
    main()
