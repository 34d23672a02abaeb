"""Issue 23's measure: graphguard against BM25 over files, side by side on the same commits.

    python bench/retrieval_files.py NAME=REPO [NAME=REPO ...] [--commits 40] [--save DIR] [--load FILE ...]

REPO is a git repository (a bare mirror will do); it is cloned under --workdir and never touched. For each
project the newest --commits non-merge commits that modified 3..12 existing source files of the project's
language (Python, or TypeScript/JavaScript, whichever has more files at HEAD) are replayed as in
bench/retrieval_eval.py: check out the parent, `graphguard index`, then

- text task: `context "<commit message>"`, truth = the source files the commit modified. Files in answer
  order, scored against BM25 over whole files (graphguard's tokenizer) at the same parent: recall@10,
  recall@20, MRR; and recall within 4k, 8k and 16k tokens. A token is 4 characters for both:
  graphguard's answer to `--budget B` (no `--limit`) holds the files whose source it shows (a best or nested
  symbol in full or by signature; a bare reference does not count), BM25's list is read whole file by whole
  file at bytes/4 each until B (the file that crosses B counts: it is shown in part);
- seeded task: `related <the most-changed non-test file>`, truth = the other modified files, against git
  co-change before the parent: recall@10;
- named tasks: the messages that write a definition's or file's name as code (retrieval.tokenize's
  `written_names`/`written_files`) matching definitions in at most 3 non-test files of the parent's graph;
  the share of them whose first result is such a file. Names defined in more files are counted apart.

Latency: p50 of the whole `context` process at the 8k budget (graph warm) beside BM25's in-process ranking.
Fitting is switched off in the clones (`retrieval_fit = false` in an untracked .graphguard.toml): the shipped
`default` profile answers, as it does for a repository without enough history.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from common import git_bytes as git
from retrieval_eval import GG, CoChange, FileBM25, is_test_path, mrr, recall, select_cases

from graphguard.retrieval.tokenize import about_tests, written_files, written_names

SUFFIXES = {"python": (".py",), "typescript": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")}
BUDGETS = (4000, 8000, 16000)
CHARS_PER_TOKEN = 4
NAMED_FILES = 3


@dataclass
class Project:
    name: str
    language: str
    files: int = 0
    cases: int = 0
    span: tuple[str, str] = ("", "")
    metrics: dict[str, list[float]] = field(default_factory=dict)
    named: list[int] = field(default_factory=list)  # per named task: 1 when its first result defines the name
    ambiguous: int = 0  # tasks writing a name defined in more than NAMED_FILES files (not counted in named)
    times: dict[str, list[float]] = field(default_factory=dict)
    misses: list[dict[str, object]] = field(default_factory=list)

    def add(self, key: str, value: float) -> None:
        self.metrics.setdefault(key, []).append(value)

    def time(self, key: str, value: float) -> None:
        self.times.setdefault(key, []).append(value)


def prepare(spec: str, workdir: str) -> tuple[str, str]:
    name, _, path = spec.partition("=")
    if not path:
        name, path = os.path.basename(os.path.abspath(spec)), spec
    dest = os.path.join(workdir, name)
    if not os.path.isdir(os.path.join(dest, ".git")):
        os.makedirs(workdir, exist_ok=True)
        if subprocess.run(("git", "clone", "-q", "--no-local", path, dest)).returncode:
            # A mirror without its largest blobs cannot be packed: share its objects, check nothing out (graphguard
            # reads HEAD's blobs, and each case only moves HEAD).
            subprocess.run(("rm", "-rf", dest), check=True)
            subprocess.run(("git", "clone", "-q", "--shared", "--no-checkout", path, dest), check=True)
    with open(os.path.join(dest, ".graphguard.toml"), "w", encoding="utf-8") as f:
        f.write("retrieval_fit = false\n")
    return name, dest


def language_of(repo: str) -> str:
    paths = git(repo, "ls-tree", "-r", "--name-only", "-z", "HEAD").decode("utf-8", "replace").split("\0")
    counts = {lang: sum(1 for p in paths if p.endswith(sfx)) for lang, sfx in SUFFIXES.items()}
    return max(counts, key=lambda k: counts[k])


def ask(repo: str, args: Sequence[str]) -> tuple[list[dict[str, object]], float]:
    t = time.perf_counter()
    proc = subprocess.run([*GG, *args, "--repo", repo, "--format", "json", "--profile", "default"], capture_output=True)
    elapsed = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"graphguard {args[0]} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    return json.loads(proc.stdout)["results"], elapsed


def files_of(results: Sequence[dict[str, object]], suffixes: tuple[str, ...], *, shown: bool = False) -> list[str]:
    """The answer's files in order; `shown`: only those some of whose source it shows."""
    out: list[str] = []
    for r in results:
        path = str(r["path"])
        if not path.endswith(suffixes):
            continue
        levels = [r["disclosure"], *(n["disclosure"] for n in r.get("symbols", []))]  # type: ignore[attr-defined]
        if shown and all(level == "reference" for level in levels):
            continue
        out.append(path)
    return list(dict.fromkeys(out))


def within(ranked: Sequence[str], sizes: dict[str, int], budget: int) -> list[str]:
    """Whole files in rank order at bytes/4 tokens each, until the budget (the file crossing it counts)."""
    out, used = [], 0
    for p in ranked:
        if used >= budget:
            break
        out.append(p)
        used += (sizes.get(p, 0) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
    return out


def named_files(repo: str, message: str) -> tuple[set[str], bool]:
    """The files the message names as code (definitions in at most NAMED_FILES non-test files, or a file name), and
    whether it wrote a name defined in more files."""
    db = sqlite3.connect(os.path.join(repo, ".git", "graphguard", "graph.sqlite3"))
    try:
        found: set[str] = set()
        ambiguous = False
        for name in written_files(message):
            paths = {r[0] for r in db.execute("SELECT path FROM files WHERE path = ? OR substr(path, -?) = ?",
                                              (name, len(name) + 1, "/" + name))}
            if 0 < len(paths) <= NAMED_FILES:
                found |= paths
        tests = about_tests(message)
        for name in written_names(message):
            rows = db.execute("SELECT s.qualname, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ?",
                              (name.rpartition(".")[2],)).fetchall()
            paths = {p for q, p in rows
                     if (q == name or q.endswith(("." + name, "#" + name))) and (tests or not is_test_path(p))}
            if len(paths) > NAMED_FILES:
                ambiguous = True
            elif paths:
                found |= paths
        return found, ambiguous
    finally:
        db.close()


def run_project(spec: str, args: argparse.Namespace) -> Project:
    name, repo = prepare(spec, args.workdir)
    lang = language_of(repo)
    sfx = SUFFIXES[lang]
    cases = select_cases(repo, args.commits, 3, 12, sfx)
    if not cases:
        raise SystemExit(f"{name}: no commit modified 3..12 existing {lang} files")
    bm25, co = FileBM25(repo, suffixes=sfx), CoChange(repo, sfx)
    proj = Project(name, lang, cases=len(cases), span=(_day(cases[0].time), _day(cases[-1].time)))
    env_index = [*GG, "index", "--repo", repo]
    for i, case in enumerate(cases, 1):
        git(repo, "update-ref", "--no-deref", "HEAD", case.parent)  # HEAD alone: the working tree is not read
        t = time.perf_counter()
        subprocess.run(env_index, check=True, capture_output=True)
        proj.time("index", time.perf_counter() - t)
        truth = set(case.modified)
        results, _ = ask(repo, ["context", case.message, "--limit", "60", "--budget", "1000000"])
        ranked = files_of(results, sfx)
        t = time.perf_counter()
        bm = bm25.rank(case.parent, case.message)
        proj.time("bm25", time.perf_counter() - t)
        for label, r in (("gg", ranked), ("bm25", bm)):
            proj.add(f"text:{label}:r10", recall(r, truth, 10))
            proj.add(f"text:{label}:r20", recall(r, truth, 20))
            proj.add(f"text:{label}:mrr", mrr(r, truth))
        for b in BUDGETS:
            res_b, dt = ask(repo, ["context", case.message, "--budget", str(b)])
            if b == 8000:
                proj.time("context", dt)
            shown = files_of(res_b, sfx, shown=True)
            proj.add(f"text:gg:b{b}", len(set(shown) & truth) / len(truth))
            proj.add(f"text:bm25:b{b}", len(set(within(bm, bm25.sizes, b)) & truth) / len(truth))
        others = truth - {case.seed}
        rel, dt = ask(repo, ["related", case.seed, "--limit", "60", "--budget", "1000000"])
        proj.time("related", dt)
        existing = {p for p in git(repo, "ls-tree", "-r", "--name-only", "-z", case.parent).decode().split("\0") if p.endswith(sfx)}
        proj.add("seeded:gg:r10", recall([p for p in files_of(rel, sfx) if p != case.seed], others, 10))
        proj.add("seeded:cochange:r10", recall(co.rank(case.parent, case.seed, existing), others, 10))
        named, ambiguous = named_files(repo, case.message)
        if named:
            proj.named.append(1 if ranked[:1] and ranked[0] in named else 0)
        elif ambiguous:
            proj.ambiguous += 1
        if named and not (ranked[:1] and ranked[0] in named) or recall(ranked, truth, 10) < recall(bm, truth, 10):
            proj.misses.append({"sha": case.sha[:10], "message": case.message.splitlines()[0][:100], "truth": sorted(truth),
                                "named": sorted(named), "gg": ranked[:10], "bm25": bm[:10]})
        if args.verbose:
            print(f"  {name} {i}/{len(cases)} {case.sha[:10]}", file=sys.stderr)
    proj.files = len([p for p in git(repo, "ls-tree", "-r", "--name-only", "-z", "HEAD").decode().split("\0") if p.endswith(sfx)])
    return proj


def _day(t: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def _p50(xs: Sequence[float]) -> str:
    return f"{statistics.median(xs) * 1000:.0f}" if xs else "-"


COLUMNS = [("r10", "recall@10"), ("r20", "recall@20"), ("b4000", "@4k tok"), ("b8000", "@8k tok"), ("b16000", "@16k tok"),
           ("mrr", "MRR")]


def table(projects: Sequence[Project]) -> str:
    head = " | ".join(f"{label} gg / BM25" for _, label in COLUMNS)
    lines = [f"| project | lang | files | cases | {head} | context p50 ms / BM25 | seeded r@10 gg / co-change |"
             " named at rank 1 |",
             "|---|---|---:|---:|" + "---:|" * (len(COLUMNS) + 3)]
    for p in projects:
        m = {k: _mean(v) for k, v in p.metrics.items()}
        cells = " | ".join(f"{m[f'text:gg:{k}']:.3f} / {m[f'text:bm25:{k}']:.3f}" for k, _ in COLUMNS)
        named = f"{sum(p.named)}/{len(p.named)}" + (f" (+{p.ambiguous} ambiguous)" if p.ambiguous else "")
        lines.append(f"| {p.name} | {p.language} | {p.files} | {p.cases} | {cells} | {_p50(p.times['context'])} /"
                     f" {_p50(p.times['bm25'])} | {m['seeded:gg:r10']:.3f} / {m['seeded:cochange:r10']:.3f} | {named} |")
    lines.append("")
    lines.append(ratios(projects))
    return "\n".join(lines)


TARGETS = [("r10", 1.10), ("r20", 1.05), ("b8000", 1.15)]


def ratios(projects: Sequence[Project]) -> str:
    """Per language and over all: the means of the projects' means, and graphguard over the baseline."""
    out = []
    for lang in sorted({p.language for p in projects}) + ["all"]:
        ps = [p for p in projects if lang in ("all", p.language)]
        if not ps:
            continue

        def mean(key: str) -> float:
            return statistics.fmean(_mean(p.metrics[key]) for p in ps)

        parts = [f"{label} {mean(f'text:gg:{k}') / max(1e-9, mean(f'text:bm25:{k}')):.2f}x" for k, label in COLUMNS]
        seeded = mean("seeded:gg:r10") / max(1e-9, mean("seeded:cochange:r10"))
        named = [x for p in ps for x in p.named]
        share = f"{sum(named)}/{len(named)} = {sum(named) / len(named):.0%}" if named else "none"
        out.append(f"- **{lang}** ({len(ps)} projects), graphguard over BM25: {', '.join(parts)}; seeded recall@10 over"
                   f" co-change {seeded:.2f}x; named symbol's file at rank 1: {share}.")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="*", metavar="NAME=REPO")
    ap.add_argument("--commits", type=int, default=40)
    ap.add_argument("--workdir", default="/tmp/graphguard-retrieval-files")
    ap.add_argument("--save", help="a folder: each project's figures as NAME.json")
    ap.add_argument("--load", action="append", default=[], help="a project saved by --save (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    projects = []
    for spec in args.repos:
        t, c = time.perf_counter(), os.times()
        p = run_project(spec, args)
        c2 = os.times()
        cpu = c2.children_user + c2.children_system - c.children_user - c.children_system
        print(f"{p.name}: {p.cases} cases in {time.perf_counter() - t:.0f} s, {cpu:.0f} s CPU of child processes,"
              f" load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        projects.append(p)
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            with open(os.path.join(args.save, f"{p.name}.json"), "w", encoding="utf-8") as f:
                json.dump(asdict(p), f)
    for path in args.load:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        d["span"] = tuple(d["span"])
        projects.append(Project(**d))
    print(table(projects))


if __name__ == "__main__":
    main()
