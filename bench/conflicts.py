"""`graphguard conflicts` on Django: a rename on main against a branch adding calls to the old name, a moved
argument against a branch passing it by position, and an independent branch; time per branch pair.

    python bench/conflicts.py [--runs 5] [--dest /tmp/gg-conflicts-django] [--local PATH.tar.gz] [--reuse]

Django 5.2.8's sdist (pip download, or --local) is made a one-commit repository; `main` then renames
`django.utils.text.capfirst` to `capitalize_first` and makes `wrap`'s `width` keyword-only (fixing the
callers a regular expression finds), while three branches from the import commit add calls to `capfirst`,
a positional `wrap(s, 70)`, and an unrelated module. Before each timed run the graph is brought back to
HEAD (untimed: `graphguard index`; a no-op, since `conflicts` leaves the graph where it is), so a run pays
what a user pays with the graph warm at HEAD: the merge-tree and the comparisons. Prints per pair the medians of whole-process wall
and CPU time (user + system, the process and its git children), the verdict and the sites found, and the
load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from common import CACHE, IDENTITY, children_cpu, git, load_line, one_commit_repo, sdist_tree

SPEC = "django==5.2.8"
ADDED_CALLS = "from django.utils.text import capfirst\n\n\ndef labels(names):\n    first = capfirst(names[0])\n    rest = [capfirst(n) for n in names[1:]]\n    return [first, *rest, capfirst('end')]\n"
POSITIONAL = "from django.utils import text\n\n\ndef folded(s):\n    return text.wrap(s, 70)\n"
UNRELATED = "def page_count(total, per_page):\n    return -(-total // per_page)\n"


def commit(repo: str, msg: str) -> None:
    git(repo, "add", "-A")
    git(repo, *IDENTITY, "commit", "-qm", msg)


def rewrite(repo: str, pattern: str, repl: str) -> int:
    """Apply a regular expression to every Python file; the number of files changed."""
    n = 0
    for path in git(repo, "ls-files", "*.py").splitlines():
        full = os.path.join(repo, path)
        with open(full, encoding="utf-8") as f:
            old = f.read()
        new = re.sub(pattern, repl, old)
        if new != old:
            with open(full, "w", encoding="utf-8") as f:
                f.write(new)
            n += 1
    return n


def add_file(repo: str, path: str, text: str) -> None:
    with open(os.path.join(repo, path), "w", encoding="utf-8") as f:
        f.write(text)


def setup(dest: str, local: str | None) -> str:
    repo = one_commit_repo(sdist_tree(SPEC, CACHE, local), dest)
    for name, path, text in (("topic-calls", "django/utils/labels.py", ADDED_CALLS),
                             ("topic-positional", "django/utils/folding.py", POSITIONAL),
                             ("topic-independent", "django/core/paginator_count.py", UNRELATED)):
        git(repo, "checkout", "-q", "-b", name, "main")
        add_file(repo, path, text)
        commit(repo, f"{name}: new module")
    git(repo, "checkout", "-q", "main")
    renamed = rewrite(repo, r"\bcapfirst\b", "capitalize_first")
    commit(repo, "rename capfirst to capitalize_first")
    text_py = os.path.join(repo, "django/utils/text.py")
    with open(text_py, encoding="utf-8") as f:
        src = f.read()
    with open(text_py, "w", encoding="utf-8") as f:
        f.write(src.replace("def wrap(text, width):", "def wrap(text, *, width):", 1))
    fixed = rewrite(repo, r"(\bwrap\((?:[^()]|\([^()]*\))*?), (\d+|int\(arg\))\)", r"\1, width=\2)")
    commit(repo, "wrap: width keyword-only")
    print(f"main: capfirst renamed in {renamed} files; wrap's callers fixed in {fixed} files")
    return repo


def run(repo: str, *args: str) -> tuple[float, float, int, str]:
    cpu, t = children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "graphguard", *args], cwd=repo, capture_output=True, check=False)
    wall, used = time.perf_counter() - t, children_cpu() - cpu
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed: {proc.stderr.decode(errors='replace')[-400:]}")
    return wall, used, proc.returncode, proc.stdout.decode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dest", default="/tmp/gg-conflicts-django")
    ap.add_argument("--local", default=None, help="Django's sdist already on disk")
    ap.add_argument("--reuse", action="store_true", help="--dest made by an earlier run: set up nothing")
    a = ap.parse_args()
    repo = a.dest if a.reuse else setup(a.dest, a.local)
    t = time.perf_counter()
    run(repo, "index")
    print(f"first index at HEAD: {time.perf_counter() - t:.1f} s (untimed below)")
    print(load_line())
    print(f"{'branch':18} {'wall s':>7} {'cpu s':>6} {'verdict':8} sites")
    for ref in ("topic-calls", "topic-positional", "topic-independent"):
        walls, cpus, doc = [], [], {}
        for _ in range(a.runs):
            run(repo, "index")  # the graph warm at HEAD, as after a commit
            wall, cpu, _code, out = run(repo, "conflicts", "--against", ref, "--format", "json")
            walls.append(wall)
            cpus.append(cpu)
            doc = json.loads(out)
        [b] = doc["branches"]
        found = sorted(f"{c['path']}:{c['line']}" for ch in b["changes"] for c in ch["callers"])
        print(f"{ref:18} {statistics.median(walls):7.2f} {statistics.median(cpus):6.2f} {b['verdict']:8} {', '.join(found) or '-'}")
    run(repo, "index")
    wall, cpu, code, out = run(repo, "conflicts", "--format", "json")
    verdicts = {b["ref"]: b["verdict"] for b in json.loads(out)["branches"]}
    print(f"default set (all {len(verdicts)} branches, one process): {wall:.2f} s wall, {cpu:.2f} s CPU, exit {code}: {verdicts}")
    print(load_line())


if __name__ == "__main__":
    main()
