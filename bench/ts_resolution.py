"""TypeScript/JavaScript module resolution against the compiler, and its speed (imports/s, cold).

usage: .venv/bin/python bench/ts_resolution.py REPO ORACLE.jsonl [REPO ORACLE.jsonl ...]

REPO is a git checkout; ORACLE.jsonl has one line per import statement as tsc 5.9 resolves it
(`{"file", "spec", "kind": static|require|dynamic, "target": repo path or null}`), written by a small node
script over `ts.resolveModuleName` with each file's governing tsconfig (workspace packages linked into
node_modules as npm would; no external installs). graphguard's `ModuleResolver` answers the same
(file, specifier, kind) from the commit's blobs only. Agreement: of the imports tsc resolves to a TS/JS
file of the repository, the share graphguard resolves to the same file; `wrong` counts those it resolves
to another file; `beyond` the imports tsc leaves unresolved that graphguard resolves (ESM specifiers
without extension, unbuilt `dist/` outputs read as sources) to a TS/JS file; `non-code files` those it resolves
to a file no language reads (`./App.vue`, `./styles.css`) that tsc leaves unresolved. Speed: a fresh resolver (configs parsed) over
every import, after the blobs are read (wall and CPU: on a loaded machine the CPU rate is the steadier).
Prints a markdown table with the load average.
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from graphguard import git
from graphguard.index.plan import is_config
from graphguard.languages.typescript.grammar import SUFFIXES
from graphguard.languages.typescript.resolution import ImportKind, ModuleResolver

_KINDS = {"static": ImportKind.STATIC, "require": ImportKind.REQUIRE, "dynamic": ImportKind.DYNAMIC}


def measure(repo: str, oracle: str) -> dict[str, object]:
    head = git.resolve_commit(repo, "HEAD") or "HEAD"
    entries = [e for e in git.ls_tree(repo, head) if "node_modules" not in e.path.split("/")]
    sources = [e.path for e in entries if e.path.endswith(SUFFIXES) and e.mode != git.MODE_SYMLINK]
    links = {e.path: e.sha for e in entries if e.path.endswith(SUFFIXES) and e.mode == git.MODE_SYMLINK}
    assets = [e.path for e in entries if not e.path.endswith(SUFFIXES) and e.mode not in (git.MODE_SYMLINK, git.MODE_SUBMODULE)]
    configs = {e.path: e.sha for e in entries if is_config(e.path) or e.path.endswith(".json")}
    blobs = dict(git.read_blobs(repo, set(configs.values())))
    bundler = {e.path: e.sha for e in entries if "config" in e.path.rpartition("/")[2] and e.path.endswith(SUFFIXES)}
    blobs.update(git.read_blobs(repo, set(bundler.values())))
    blobs.update(git.read_blobs(repo, set(links.values())))
    shas = {**configs, **bundler, **links}

    def read(path: str) -> bytes | None:
        sha = shas.get(path)
        return blobs.get(sha) if sha is not None else None

    rows = [json.loads(line) for line in open(oracle) if line.strip()]
    cpu0, t0 = time.process_time(), time.perf_counter()
    resolver = ModuleResolver(sources, read, [p for p in configs if is_config(p)], list(links), assets)
    answers = [resolver.resolve(r["file"], r["spec"], _KINDS.get(r["kind"], ImportKind.STATIC)) for r in rows]
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    same = wrong = beyond = counted = other = 0
    misses, extra = [], []
    for r, a in zip(rows, answers):
        want = r["target"]
        if want is not None and want.endswith(SUFFIXES):
            counted += 1
            if a.target == want:
                same += 1
            else:
                wrong += a.target is not None
                misses.append((r["file"], r["spec"], want, a.target, a.category.value))
        elif want is None and a.target is not None and a.target.endswith(SUFFIXES):
            beyond += 1
            extra.append((r["file"], r["spec"], a.target, a.category.value))
        elif want is None and a.target is not None:
            other += 1
    return {"repo": os.path.basename(repo.rstrip("/")), "files": len(sources), "imports": len(rows), "counted": counted,
            "same": same, "wrong": wrong, "beyond": beyond, "other": other, "wall": wall, "cpu": cpu, "misses": misses,
            "extra": extra}


def main(argv: list[str]) -> int:
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__)
        return 2
    print(f"load: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores")
    print("| repository | TS/JS files | imports | tsc resolves to a repo file | same file | other file | beyond tsc "
          "| non-code files | imports/s (cold, wall) | imports per CPU s | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for repo, oracle in zip(argv[::2], argv[1::2]):
        m = measure(repo, oracle)
        share = 100.0 * int(m["same"]) / max(int(m["counted"]), 1)  # type: ignore[call-overload]
        rate = int(m["imports"]) / max(float(m["wall"]), 1e-9)  # type: ignore[call-overload, arg-type]
        print(f"| {m['repo']} | {m['files']} | {m['imports']} | {m['counted']} | {m['same']} ({share:.2f}%) | {m['wrong']} "
              f"| {m['beyond']} | {m['other']} | {rate:,.0f} | {int(m['imports']) / max(float(m['cpu']), 1e-9):,.0f} "  # type: ignore[call-overload, arg-type]
              f"| {float(m['cpu']):.2f} |")  # type: ignore[arg-type]
        for miss in m["misses"][:15]:  # type: ignore[index]
            print("  miss:", *miss, file=sys.stderr)
        for more in m["extra"][:15]:  # type: ignore[index]
            print("  beyond tsc:", *more, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
