"""TypeScript/JavaScript facts on real repositories: files read without a crash, the parse-error rate, and the time
of the facts (`languages.typescript.parse.parse`: tree-sitter's parse, the query, the walk) against tree-sitter's
parse alone of the same bytes with the same grammar.

    python bench/ts_facts.py GITDIR [GITDIR...] [--repeat 3] [--max-files 5000] [--profile N]

Reads the blobs of each repository's HEAD (`git ls-tree -r` + `git cat-file --batch`), never a worktree; files by
the suffixes the language claims, grammar as `TYPESCRIPT.facts_kind` picks it. Times are CPU time of this thread
(`time.thread_time`: a shared loaded machine stretches wall time, not these), the median over --repeat passes of
each repository's sum; the ratio is facts over parse (the issue's target: <= 3x). Prints a markdown table with the
load, then the facts counted; --profile N adds cProfile's top N functions (cumulative) of one facts pass.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(__file__))
from common import load_line

from graphguard.languages.typescript.grammar import parser
from graphguard.languages.typescript.language import TYPESCRIPT, _dialect
from graphguard.languages.typescript.parse import parse


@dataclass
class Repo:
    name: str
    files: list[tuple[str, str, bytes]] = field(default_factory=list)  # (path, facts kind, bytes)
    crashes: list[str] = field(default_factory=list)
    errors: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    parse_s: list[float] = field(default_factory=list)
    facts_s: list[float] = field(default_factory=list)


def blobs(gitdir: str, max_files: int) -> list[tuple[str, str, bytes]]:
    tree = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", "HEAD"], capture_output=True, check=True).stdout
    wanted = []
    for entry in tree.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        name = path.decode("utf-8", "replace")
        if kind == b"blob" and mode != b"120000" and TYPESCRIPT.claims(name) and "node_modules/" not in name:
            wanted.append((name, sha.decode()))
    wanted = wanted[:max_files]
    batch = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "--batch"], input="".join(f"{s}\n" for _, s in wanted).encode(),
                           capture_output=True, check=True).stdout
    out, at = [], 0
    for name, _ in wanted:
        header_end = batch.index(b"\n", at)
        parts = batch[at:header_end].split()
        if parts[1] == b"missing":
            at = header_end + 1
            continue
        size = int(parts[2])
        out.append((name, TYPESCRIPT.facts_kind(name), batch[header_end + 1:header_end + 1 + size]))
        at = header_end + 1 + size + 1
    return out


def one_pass(repo: Repo, *, count: bool) -> None:
    parse_s = facts_s = 0.0
    for path, kind, data in repo.files:
        dialect = _dialect(kind)
        t0 = time.thread_time()
        tree = parser(dialect).parse(data)
        t1 = time.thread_time()
        try:
            facts = TYPESCRIPT.parse(data, kind)
        except Exception as e:  # noqa: BLE001 - a crash is what this counts
            repo.crashes.append(f"{path}: {type(e).__name__}: {e}") if count else None
            continue
        t2 = time.thread_time()
        parse_s += t1 - t0
        facts_s += t2 - t1
        if count:
            repo.errors += tree.root_node.has_error
            for part in ("definitions", "imports", "exports", "calls", "references", "bindings", "errors"):
                repo.counts[part] = repo.counts.get(part, 0) + len(getattr(facts, part))
            repo.counts["warned"] = repo.counts.get("warned", 0) + bool(facts.warnings)
    repo.parse_s.append(parse_s)
    repo.facts_s.append(facts_s)


def profile(repos: list[Repo], top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for repo in repos:
        for _, kind, data in repo.files:
            parse(data, _dialect(kind))
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdirs", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-files", type=int, default=5000)
    ap.add_argument("--profile", type=int, default=0)
    args = ap.parse_args()
    repos = []
    for gitdir in args.gitdirs:
        name = os.path.basename(os.path.dirname(gitdir.rstrip("/"))) if gitdir.rstrip("/").endswith("repo") else gitdir
        repos.append(Repo(name.replace("+", "/"), blobs(gitdir, args.max_files)))
    for repo in repos:
        one_pass(repo, count=True)  # warms the parsers and compiled queries, counts
        for _ in range(args.repeat):
            one_pass(repo, count=False)
    print(f"TypeScript/JavaScript facts, CPU s (median of {args.repeat}); {load_line()}\n")
    print("| repository | files | MB | crashes | parse errors | warned | parse s | facts s | facts / parse |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = [0.0, 0.0]
    for r in repos:
        p, f = statistics.median(r.parse_s), statistics.median(r.facts_s)
        totals[0] += p
        totals[1] += f
        mb = sum(len(d) for _, _, d in r.files) / 1e6
        n = len(r.files)
        print(f"| {r.name} | {n} | {mb:.1f} | {len(r.crashes)} | {r.errors} ({100 * r.errors / max(n, 1):.1f}%) | "
              f"{r.counts.get('warned', 0)} | {p:.2f} | {f:.2f} | {f / p if p else 0:.2f}x |")
    print(f"| all | {sum(len(r.files) for r in repos)} | | {sum(len(r.crashes) for r in repos)} | | | {totals[0]:.2f} | "
          f"{totals[1]:.2f} | {totals[1] / totals[0] if totals[0] else 0:.2f}x |\n")
    keys = ("definitions", "imports", "exports", "calls", "references", "bindings", "errors")
    print("| repository | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for r in repos:
        print(f"| {r.name} | " + " | ".join(str(r.counts.get(k, 0)) for k in keys) + " |")
    for r in repos:
        for crash in r.crashes[:5]:
            print(f"crash: {r.name}: {crash}")
    if args.profile:
        print("\n```\n" + profile(repos, args.profile) + "```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
