"""Same answers: `check --format json` of two graphguard versions over seeded edits, byte for byte.

    python bench/check_parity.py REPO --old SRC --new SRC [--edits 30] [--seed 1]
        [--modes staged,worktree,base] [--keep DIR]

REPO is a git repository (a project made a git repository of one commit), indexed
first. Each version is a folder holding a `graphguard` package, run first on
sys.path (common.graphguard_argv; e.g. `git archive main graphguard | tar -x -C /tmp/old`). Edits are
text edits of a function, a method or a class found with `ast` (seeded): a
required parameter added, a parameter removed, a parameter renamed, the
definition renamed, a statement added to its body. Each edit is checked by both
versions in every mode: staged (the hook), worktree, and base (the edit
committed, `check --base HEAD~1`: the graph at the old commit). The reports are
compared with `stats.elapsed_ms` dropped; the first differences are printed (and
kept in --keep DIR), and the whole-process times of both (medians) are printed
with the load average.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import statistics
import subprocess
import time

from common import git, graphguard_argv, load_line

KINDS = ("add-required", "remove-param", "rename-param", "rename", "body")


def check(repo: str, src: str, *flags: str) -> tuple[str, float]:
    t = time.perf_counter()
    proc = subprocess.run([*graphguard_argv(src), "check", "--format", "json", *flags], cwd=repo, capture_output=True,
                          text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        return f"exit {proc.returncode}: {proc.stderr[-600:]}", elapsed
    report = json.loads(proc.stdout)
    report.get("stats", {}).pop("elapsed_ms", None)
    report.pop("freshness", None)  # whether this run found the graph current or refreshed it
    return json.dumps(report, indent=1, sort_keys=True), elapsed


def definitions(repo: str) -> list[tuple[str, int, str]]:
    """(path, line, kind) of the functions, methods and classes of the repository's Python files (not its tests)."""
    out = []
    for path in git(repo, "ls-files", "*.py").splitlines():
        if "test" in path:
            continue
        try:
            with open(os.path.join(repo, path), encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("__"):
                out.append((path, node.lineno, "def"))
            elif isinstance(node, ast.ClassDef):
                out.append((path, node.lineno, "class"))
    return sorted(out)


def edit(repo: str, path: str, line: int, kind: str, rng: random.Random) -> str | None:
    """Apply one edit of the definition at `line`; a description, or None when it does not apply."""
    full = os.path.join(repo, path)
    with open(full, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header = lines[line - 1]
    m = re.match(r"^(\s*)(async\s+def|def|class)\s+(\w+)(\(([^()]*)\))?:\s*$", header)
    if m is None:
        return None
    indent, keyword, name, _, params = m.groups()
    params = params or ""
    plist = [p.strip() for p in params.split(",") if p.strip()]
    if kind == "rename":
        lines[line - 1] = header.replace(f"{keyword} {name}", f"{keyword} {name}_renamed", 1)
    elif kind == "body":
        lines.insert(line, f"{indent}    _parity = 1")
    elif keyword == "class":
        return None
    elif kind == "add-required":
        plain = [p for p in plist if not p.startswith("*") and "=" not in p and p != "/"]
        at = len(plain)
        lines[line - 1] = header.replace(f"({params})", "(" + ", ".join([*plist[:at], "parity_required", *plist[at:]]) + ")", 1)
    else:
        named = [i for i, p in enumerate(plist) if re.match(r"^\w+", p) and p.split(":")[0].split("=")[0].strip() not in ("self", "cls")]
        if not named:
            return None
        i = rng.choice(named)
        if kind == "remove-param":
            new = plist[:i] + plist[i + 1:]
        else:
            p = plist[i]
            head = re.match(r"^\w+", p)
            assert head is not None
            new = [*plist[:i], "parity_" + p, *plist[i + 1:]]
        lines[line - 1] = header.replace(f"({params})", "(" + ", ".join(new) + ")", 1)
    with open(full, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return f"{kind} {path}:{line} {name}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modes", default="staged,worktree,base")
    ap.add_argument("--keep", default="")
    args = ap.parse_args()
    repo, modes = args.repo, args.modes.split(",")
    git(repo, "reset", "-q", "--hard")
    start = git(repo, "rev-parse", "HEAD").strip()
    subprocess.run([*graphguard_argv(args.new), "index"], cwd=repo, check=True, capture_output=True)
    rng = random.Random(args.seed)
    defs = definitions(repo)
    rng.shuffle(defs)
    times: dict[str, list[float]] = {"old": [], "new": []}
    same = differ = done = 0
    for path, line, _ in defs:
        if done >= args.edits:
            break
        what = edit(repo, path, line, KINDS[done % len(KINDS)], rng)
        if what is None:
            continue
        done += 1
        for mode in modes:
            if mode == "staged":
                git(repo, "add", "-A")
                flags: tuple[str, ...] = ("--staged",)
            elif mode == "worktree":
                git(repo, "reset", "-q")
                flags = ("--worktree",)
            else:
                git(repo, "add", "-A")
                git(repo, "-c", "user.name=parity", "-c", "user.email=p@example.com", "commit", "-q", "--no-verify", "-m", "parity")
                flags = ("--base", "HEAD~1")
            pair = []
            for label in ("old", "new") if done % 2 else ("new", "old"):  # alternated
                out, elapsed = check(repo, getattr(args, label), *flags)
                times[label].append(elapsed)
                pair.append((label, out))
            outs = dict(pair)
            if outs["old"] == outs["new"]:
                same += 1
            else:
                differ += 1
                print(f"DIFFERENT: {what} [{mode}]")
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    for label, out in outs.items():
                        with open(os.path.join(args.keep, f"{differ}-{label}.json"), "w", encoding="utf-8") as f:
                            f.write(out)
            if mode == "base":
                git(repo, "reset", "-q", "--hard", start)
        git(repo, "reset", "-q", "--hard", start)
    print(f"{repo}: {done} edits x {len(modes)} modes: {same} identical, {differ} different")
    for label, ts in times.items():
        if ts:
            print(f"{label:<4} median {statistics.median(ts):.3f} s over {len(ts)} checks")
    print(load_line())


if __name__ == "__main__":
    main()
