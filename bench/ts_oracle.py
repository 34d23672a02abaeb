"""The TypeScript compiler as graphguard's oracle (issue 21): imports, breaks and speed on real repositories.

    python bench/ts_oracle.py [--repos ky,express,zod,trpc,query,shadcn] [--parts imports,tsgo,breaks,speed]
                              [--per-kind 2] [--seed 21] [--runs 5] [--work /tmp/ts-oracle] [--out FILE.md]
    python bench/ts_oracle.py --render RUN1.json RUN2.json     # one set of tables from several runs

Needs node and npm; installs typescript@5 (5.9.x: tsc and the compiler API) and typescript@latest (7.x, the Go
port `tsgo`) under --work once, and checks out each repository from its mirror (/work/.mirror, brought by the
`fetch` tool) under --work/repos, with node_modules links to the workspace's own packages (no external installs).
Kept between runs: the compilers, the clones, the compiler's answers per repository commit (--work/cache).

1. imports: per file and module specifier, what tsc 5's resolver picks (the compiler API over each tsconfig's
   program, allowJs and checkJs on, the nearest config governing a file) against `graphguard imports --format json`.
   tsgo: the same pairs as tsgo (TypeScript 7) resolves them, read from its --traceResolution (bench/ts_oracle_tsgo.py).
2. breaks: seeded mutations of exported functions, methods and constructors some other file uses, and harmless
   controls; tsc's new caller errors in other files (pristine diagnostics subtracted) against `check --staged`.
3. speed, side by side: `check --staged` of a one-file change, incremental and whole-project `tsc --noEmit`
   (tsc 5 and tsgo), cold `index` against tree-sitter's own parse of the same blobs, no-op check and index.
Prints markdown tables (medians; CPU seconds beside wall; the load line) and writes them to --out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from collections import Counter
from typing import Any

import ts_oracle_seeds
from ts_oracle_breaks import JS_SUFFIXES, Kind, Outcome, judge, select
from ts_oracle_setup import REPOS, Compiler, Oracle, RepoSpec, Timed, checkout, configs_of, git, graphguard, install_compilers, link_workspace, timed, tracked
from ts_oracle_tsgo import agreement, tsgo_imports


def load_line() -> str:
    return f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs"


def cached(work: str, key: str, compute: Any) -> Any:
    """The compiler's answer for `key` (repository commit, compiler, request), computed once per --work."""
    path = os.path.join(work, "cache", hashlib.sha1(key.encode()).hexdigest() + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    value = compute()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f)
    return value


# -- 1. imports ----------------------------------------------------------------------------------------------

CODE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def score_imports(oracle: list[dict[str, Any]], ours: list[dict[str, Any]]) -> dict[str, Any]:
    """Joined on (file, specifier): the compiler's target against graphguard's."""
    theirs: dict[tuple[str, str], set[str | None]] = {}
    for i in oracle:
        theirs.setdefault((i["path"], i["specifier"]), set()).add(i["target"])
    mine: dict[tuple[str, str], set[tuple[str, str | None, str | None]]] = {}
    for i in ours:
        mine.setdefault((i["path"], i["specifier"]), set()).add((i["kind"], i["target"], i["category"]))
    tally: Counter[str] = Counter()
    missed_by: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for key, targets in sorted(theirs.items()):
        target = next(iter(sorted(targets, key=str)))
        ours_here = mine.get(key, set())
        # An internal row without a target is a file that is not code (CSS, images, JSON): not the code graph.
        internal = {t for k, t, _ in ours_here if k == "internal" and t is not None}
        if target is not None and not target.endswith(CODE_SUFFIXES):
            outcome = "not-code"  # tsc's resolveJsonModule picks data.json; graphguard keeps no target for it
        elif target is None:
            outcome = "false-internal" if internal else "agree-not-internal"
        elif internal == {target}:
            outcome = "same"
        elif internal:
            outcome = "other-file"
        elif ours_here:
            outcome = "missed"
            missed_by.update(f"{k}/{c}" for k, _, c in ours_here)
        else:
            outcome = "not-seen"
        tally[outcome] += 1
        if outcome not in ("same", "agree-not-internal", "not-code"):
            examples.setdefault(outcome, []).append(f"{key[0]}: {key[1]!r} tsc={target} gg={sorted(map(str, ours_here))}")
    resolved = tally["same"] + tally["other-file"] + tally["missed"] + tally["not-seen"]
    return {"tsc_internal": resolved, "same": tally["same"], "share": tally["same"] / resolved if resolved else None,
            "other_file": tally["other-file"], "missed": tally["missed"], "not_seen": tally["not-seen"],
            "not_code": tally["not-code"], "false_internal": tally["false-internal"], "tsc_not_internal": tally["false-internal"] + tally["agree-not-internal"],
            "missed_by": dict(missed_by.most_common(6)), "examples": {k: v[:6] for k, v in examples.items()}}


# -- 2. breaks -----------------------------------------------------------------------------------------------

def score_breaks(outcomes: list[Outcome]) -> dict[str, Any]:
    def of(js: bool) -> dict[str, Any]:
        tsc = [(o, s) for o in outcomes if not o.mutation.kind.control for s in o.tsc if s[0].endswith(JS_SUFFIXES) == js]
        ours = [(o, s) for o in outcomes if not o.mutation.kind.control for s in o.broken
                if s[0].endswith(JS_SUFFIXES) == js and s not in o.outside and s not in o.unreached]
        found = sum(1 for o, s in tsc if s in o.found)
        confirmed = sum(1 for o, s in ours if s in o.confirmed)
        return {"tsc_sites": len(tsc), "found": found, "recall": found / len(tsc) if tsc else None,
                "gg_sites": len(ours), "confirmed": confirmed,
                "outside": sum(1 for o in outcomes if not o.mutation.kind.control for s in o.outside if s[0].endswith(JS_SUFFIXES) == js),
                "unreached": sum(1 for o in outcomes if not o.mutation.kind.control for s in o.unreached if s[0].endswith(JS_SUFFIXES) == js),
                "precision": confirmed / len(ours) if ours else None}
    controls = [o for o in outcomes if o.mutation.kind.control]
    return {"mutations": len(outcomes) - len(controls), "controls": len(controls),
            "controls_blocked": sum(o.blocked for o in controls), "controls_tsc_errors": sum(len(o.tsc) for o in controls),
            "ts": of(False), "js": of(True), "unknown": sum(o.unknown for o in outcomes),
            "check_p50_s": statistics.median(o.check_s for o in outcomes) if outcomes else None}


def breaks_rows(outcomes: list[Outcome]) -> list[str]:
    rows = []
    for o in outcomes:
        m = o.mutation
        rows.append(f"| {m.kind.value} | {m.target} `{m.symbol}` | `{m.path}` | {len(o.tsc)} | {len(o.found)} | "
                    f"{len(o.broken)} | {len(o.confirmed)} | {o.unknown} | {'block' if o.blocked else 'pass'} |")
    return rows


# -- 3. speed ------------------------------------------------------------------------------------------------

def median_of(runs: list[Timed]) -> str:
    if not runs:
        return "-"
    return f"{statistics.median(r.wall for r in runs):.2f} s ({statistics.median(r.cpu for r in runs):.2f} CPU)"


def governing_config(path: str, configs: list[str]) -> str | None:
    best = None
    for c in configs:
        folder = os.path.dirname(c)
        if (not folder or path.startswith(folder + "/")) and (best is None or len(folder) > len(os.path.dirname(best))):
            best = c
    return best


def project_args(repo: str, config: str | None, work: str, name: str) -> list[str]:
    """`-p` for the file's tsconfig; with none (express), a config in --work naming the repository's JS."""
    if config is not None:
        return ["-p", os.path.join(repo, config)]
    path = os.path.join(work, "cfg", f"{name}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"compilerOptions": {"allowJs": True, "checkJs": True, "noEmit": True, "skipLibCheck": True},
                   "include": [f"{repo}/**/*"], "exclude": [f"{repo}/node_modules"]}, f)
    return ["-p", path]


def tree_sitter_parse(repo: str, files: list[str]) -> tuple[float, float, int]:
    """tree-sitter's own parse of every TS/JS blob at HEAD with graphguard's grammars: wall and CPU seconds."""
    from graphguard.languages.typescript.grammar import dialect_of, parser

    blobs = []
    for path in files:
        dialect = dialect_of(path)
        if dialect is not None:
            blobs.append((dialect, git_blob(repo, path)))
    wall, cpu = time.perf_counter(), time.process_time()
    for dialect, data in blobs:
        parser(dialect).parse(data)
    return time.perf_counter() - wall, time.process_time() - cpu, len(blobs)


def git_blob(repo: str, path: str) -> bytes:
    import subprocess

    return subprocess.run(["git", "show", f"HEAD:{path}"], cwd=repo, capture_output=True, check=True).stdout


def speed(repo: str, spec: RepoSpec, files: list[str], configs: list[str], change: Any, compilers: list[Compiler],
          runs: int, work: str) -> dict[str, str]:
    full = os.path.join(repo, change.path)
    pristine = open(full, encoding="utf-8", newline="").read()
    project = project_args(repo, governing_config(change.path, configs), work, spec.name)
    out: dict[str, str] = {"file": change.path, "change": change.kind.value, "project": project[1].replace(repo + "/", "")}
    checks, inc, whole = [], {c.name: [] for c in compilers}, {c.name: [] for c in compilers}
    for c in compilers:
        buildinfo = os.path.join(work, "buildinfo", f"{spec.name}-{c.name}.tsbuildinfo")
        os.makedirs(os.path.dirname(buildinfo), exist_ok=True)
        if os.path.exists(buildinfo):
            os.remove(buildinfo)
        timed([c.tsc, *project, "--noEmit", "--incremental", "--tsBuildInfoFile", buildinfo], cwd=repo)  # warm
    for _ in range(runs):
        for text in (change.text, pristine):  # a change, then its undoing: both are one-file changes
            with open(full, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            git(repo, "add", "--", change.path)
            checks.append(graphguard(repo, "check", "--staged", "--format", "json"))
            for c in compilers:
                buildinfo = os.path.join(work, "buildinfo", f"{spec.name}-{c.name}.tsbuildinfo")
                inc[c.name].append(timed([c.tsc, *project, "--noEmit", "--incremental", "--tsBuildInfoFile", buildinfo], cwd=repo))
    git(repo, "checkout", "HEAD", "--", change.path)
    for c in compilers:
        whole[c.name] = [timed([c.tsc, *project, "--noEmit"], cwd=repo) for _ in range(max(1, min(runs, 3)))]
    out["check"] = median_of(checks)
    for c in compilers:
        out[f"inc-{c.name}"] = median_of(inc[c.name])
        out[f"whole-{c.name}"] = median_of(whole[c.name])
        out[f"whole-{c.name}-exit"] = str(whole[c.name][0].returncode)
    noop_check = [graphguard(repo, "check", "--staged", "--format", "json") for _ in range(runs)]
    noop_index = [graphguard(repo, "index") for _ in range(runs)]
    cold = []
    for _ in range(max(1, min(runs, 2))):
        graphguard(repo, "clean")
        cold.append(graphguard(repo, "index"))
    ts_wall, ts_cpu, parsed = tree_sitter_parse(repo, files)
    out.update({"noop-check": median_of(noop_check), "noop-index": median_of(noop_index), "cold-index": median_of(cold),
                "tree-sitter": f"{ts_wall:.2f} s ({ts_cpu:.2f} CPU), {parsed} files"})
    return out


# -- the run -------------------------------------------------------------------------------------------------

def run_repo(spec: RepoSpec, args: argparse.Namespace, compilers: list[Compiler], report: list[str]) -> dict[str, Any]:
    api = next(c for c in compilers if c.module)
    t0 = time.perf_counter()
    repo = checkout(spec, args.work)
    files = tracked(repo)
    links = link_workspace(repo, files)
    configs = configs_of(spec, files)
    head = git(repo, "rev-parse", "HEAD")
    key = f"{spec.name}@{head}@{api.version}@{hashlib.sha1(open(__file__.replace('ts_oracle.py', 'ts_oracle_node.cjs'), 'rb').read()).hexdigest()}"
    oracle = Oracle(api, repo)
    loaded = oracle.ask(op="load", configs=configs)
    result: dict[str, Any] = {"repo": spec.name, "head": head[:10], "covers": spec.covers, "files": len(files),
                              "configs": len(configs), "workspace_links": len(links), "governed": len(loaded["governed"]),
                              "config_errors": sorted({e for p in loaded["projects"] for e in p["errors"]})[:5]}
    print(f"{spec.name}: {len(files)} files, {len(configs)} configs, {len(links)} workspace links, "
          f"{len(loaded['governed'])} files governed ({time.perf_counter() - t0:.0f} s)", flush=True)
    t = time.perf_counter()
    imports = cached(args.work, key + "imports", lambda: oracle.ask(op="imports")["imports"])
    if "imports" in args.parts:
        ours = json.loads(graphguard(repo, "imports", "--format", "json").stdout)["imports"]
        result["imports"] = score_imports(imports, ours)
        result["imports_s"] = time.perf_counter() - t
        print(f"  imports: {json.dumps({k: v for k, v in result['imports'].items() if k != 'examples'})}", flush=True)
    tsgo = [c for c in compilers if c.module is None]
    if "tsgo" in args.parts and tsgo:
        t = time.perf_counter()
        deepest_first = sorted(configs, key=lambda c: -c.count("/"))
        projects = [project_args(repo, c, args.work, spec.name) for c in deepest_first] or [project_args(repo, None, args.work, spec.name)]
        result["tsgo_imports"] = agreement(imports, tsgo_imports(tsgo[0].tsc, repo, projects))
        result["tsgo_s"] = time.perf_counter() - t
        print(f"  tsgo imports: {json.dumps(result['tsgo_imports'])}", flush=True)
    outcomes: list[Outcome] = []
    if "breaks" in args.parts or "speed" in args.parts:
        t = time.perf_counter()
        candidates = cached(args.work, key + "candidates", lambda: oracle.ask(op="candidates")["candidates"])
        chosen = select(candidates, imports, repo, args.per_kind, args.seed, args.js_per_kind)
        graphguard(repo, "index")
        baseline: dict[str, Any] = {}
        if "breaks" in args.parts:
            for mutation, closure in chosen:
                started = time.perf_counter()
                outcomes.append(judge(oracle, repo, mutation, closure, baseline, set(loaded["governed"])))
                o = outcomes[-1]
                print(f"  {mutation.kind.value:22} {mutation.path}#{mutation.symbol}: tsc {len(o.tsc)} found {len(o.found)}"
                      f" gg {len(o.broken)} confirmed {len(o.confirmed)} unknown {o.unknown}"
                      f" ({len(closure)} files checked, {time.perf_counter() - started:.0f} s)", flush=True)
            result["breaks"] = score_breaks(outcomes)
            result["breaks_rows"] = breaks_rows(outcomes)
            result["breaks_detail"] = [{"kind": o.mutation.kind.value, "path": o.mutation.path, "symbol": o.mutation.symbol,
                                        "tsc": o.tsc, "broken": o.broken, "found": sorted(o.found)} for o in outcomes]
            result["breaks_s"] = time.perf_counter() - t
            if args.js_seeds:
                t = time.perf_counter()
                texts = {m.path: open(os.path.join(repo, m.path), encoding="utf-8", newline="").read() for m, _ in chosen}
                planted = ts_oracle_seeds.seeds(chosen, candidates, texts)
                seeded = ts_oracle_seeds.run(oracle, repo, planted, set(loaded["governed"]))
                result["js_seeds"] = ts_oracle_seeds.score(seeded) | {"seconds": time.perf_counter() - t}
                print(f"  seeded JS callers: {json.dumps(result['js_seeds'])}", flush=True)
    oracle.close()
    if "speed" in args.parts:
        t = time.perf_counter()
        signature = [m for m, _ in chosen if m.kind is Kind.REQUIRED_ADDED] or [m for m, _ in chosen]
        if signature:
            result["speed"] = speed(repo, spec, files, configs, signature[0], compilers, args.runs, args.work)
        result["speed_s"] = time.perf_counter() - t
        print(f"  speed: {json.dumps(result.get('speed'))}", flush=True)
    return result


def tables(results: list[dict[str, Any]], compilers: list[Compiler], graphguard_sha: str) -> str:
    from ts_oracle_report import render

    return render(results, compilers, graphguard_sha, load_line())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", default=",".join(r.name for r in REPOS))
    parser.add_argument("--parts", default="imports,tsgo,breaks,speed")
    parser.add_argument("--per-kind", type=int, default=2, help="mutations of each kind per repository")
    parser.add_argument("--js-per-kind", type=int, default=1,
                        help="more mutations of each kind of TS definitions that JavaScript files use")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--js-seeds", type=int, default=1,
                        help="1: also judge each TS function or constructor mutation on a seeded JS caller (bench/ts_oracle_seeds.py)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", default="/tmp/ts-oracle")
    parser.add_argument("--out", default=None, help="markdown file for the tables (default: --work/results.md)")
    parser.add_argument("--render", nargs="+", default=None, metavar="RESULTS.json",
                        help="print the tables of earlier runs' results (their .json beside the .md), run nothing")
    args = parser.parse_args(argv)
    if args.render:
        merged = [r for path in args.render for r in json.load(open(path))]
        print(tables(merged, install_compilers(args.work), "(see each run)"))
        return 0
    args.parts = set(args.parts.split(","))
    wanted = args.repos.split(",")
    compilers = install_compilers(args.work)
    if not any(c.module for c in compilers):
        print("typescript@5 did not install: the compiler API is needed")
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    sha = git(os.path.dirname(here), "rev-parse", "--short", "HEAD")
    print(f"graphguard at {sha}; compilers {', '.join(f'{c.name} {c.version}' for c in compilers)}; {load_line()}", flush=True)
    results = []
    for spec in REPOS:
        if spec.name in wanted:
            try:
                results.append(run_repo(spec, args, compilers, []))
            except Exception as e:  # noqa: BLE001 - one repository's failure is reported, the others still run
                print(f"{spec.name}: failed: {e!r}", flush=True)
    text = tables(results, compilers, sha)
    out = args.out or os.path.join(args.work, "results.md")
    with open(out, "w") as f:
        f.write(text)
    with open(out.removesuffix(".md") + ".json", "w") as f:
        json.dump(results, f, indent=1)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
