"""`check --staged` latency of a body-only and a signature edit, for one or more graphguard versions.

    python bench/check_latency.py REPO [--version LABEL=SRC ...] [--runs 5]
        [--file django/utils/timezone.py] [--function now] [--signature-edit rename-keyword]

REPO is a git repository (e.g. a copy of Django 5.2.8 made a git repository), indexed
first. Each version is a folder holding a `graphguard` package (e.g. `git archive REV
graphguard | tar -x -C /tmp/old`), first on sys.path (common.graphguard_argv); without
--version, the installed one. Runs alternate between the versions, so a change in the machine's load
hits them alike. Prints medians of whole-process wall times and of their CPU times (user +
system, of the process and its git children: on a loaded machine the wall time mostly measures
the wait for a core, the CPU time what the check costs), and the load average.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time

from common import children_cpu, graphguard_argv, load_line


def run(repo: str, src: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole `check --staged --format json` process."""
    cpu, t = children_cpu(), time.perf_counter()
    proc = subprocess.run([*graphguard_argv(src), "check", "--staged", "--format", "json"], cwd=repo, capture_output=True)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"check failed: {proc.stderr.decode()[-400:]}")
    return elapsed, children_cpu() - cpu


def edit(repo: str, path: str, function: str, kind: str) -> None:
    """Stage an edit of `function`: a statement added to its body, a required parameter added
    (kind "signature"), or its last parameter with a default renamed ("rename-keyword")."""
    full = os.path.join(repo, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"^(\s*)def {function}\((.*?)\)[^:\n]*:\n", text, re.MULTILINE | re.DOTALL)
    if m is None:
        raise SystemExit(f"no `def {function}(` in {path}")
    if kind == "body":
        indent = m.group(1) + "    "
        new = text[:m.end()] + f"{indent}_bench = 1\n" + text[m.end():]
    elif kind == "rename-keyword":
        last = [k for k in re.finditer(r"(\w+)\s*(?::[^,=]*)?=", m.group(2))][-1]
        at = m.start(2) + last.end(1)
        new = text[:at] + "_renamed" + text[at:]
    else:
        params = m.group(2)
        new = text[:m.start(2)] + (params + ", " if params else "") + "bench_required" + text[m.end(2):]
    with open(full, "w", encoding="utf-8") as f:
        f.write(new)
    subprocess.run(["git", "add", path], cwd=repo, check=True)


def reset(repo: str) -> None:
    subprocess.run(["git", "reset", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--version", action="append", default=[], metavar="LABEL=SRC")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", default="django/utils/timezone.py")
    ap.add_argument("--function", default="now")
    ap.add_argument("--signature-edit", choices=("signature", "rename-keyword"), default="signature",
                    help="the signature edit: a required parameter added, or the last keyword parameter renamed")
    args = ap.parse_args()
    versions = [tuple(v.split("=", 1)) for v in args.version] or [("installed", "")]
    reset(args.repo)
    subprocess.run([*graphguard_argv(versions[0][1]), "index"], cwd=args.repo, check=True, capture_output=True)
    print(f"{args.repo}: check --staged, {args.file} {args.function}(), median of {args.runs} whole-process runs (s)")
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for kind in ("body", "signature"):
        edit(args.repo, args.file, args.function, kind if kind == "body" else args.signature_edit)
        for label, src in versions:  # warm the page cache and the blob cache once
            run(args.repo, src)
        for _ in range(args.runs):
            for label, src in versions:
                times.setdefault((label, kind), []).append(run(args.repo, src))
        reset(args.repo)
    print(f"{'version':<14} {'body edit':>10} {'(CPU)':>7} {'signature edit':>15} {'(CPU)':>7}")
    for label, _ in versions:
        cells = []
        for k in ("body", "signature"):
            cells += [statistics.median(w for w, _ in times[(label, k)]), statistics.median(c for _, c in times[(label, k)])]
        print(f"{label:<14} {cells[0]:>10.3f} {cells[1]:>7.3f} {cells[2]:>15.3f} {cells[3]:>7.3f}")
    print(load_line())


if __name__ == "__main__":
    main()
