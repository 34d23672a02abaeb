"""Does the cost of a check follow what the change changes? Two synthetic repositories, under a minute.

    python bench/edit_cost.py [--version LABEL=SRC ...] [--runs 3] [--calls 80000] [--moved 300]

1. A comment edit (the first line) of a file holding CALLS calls `f(1, 2)` to a `def f(a, b)` of
   another module, against the same edit of a 100-line file: `check --staged`, then the `index`
   after committing it (what the post-commit refresh runs); and a body edit (the middle call's
   arguments changed too).
2. A test folder of MOVED files, each calling a helper whose signature did not change, moved to
   another folder with `git mv`: `check --staged`.

Each version is a folder holding a `graphguard` package (e.g. `git archive main graphguard | tar -x
-C /tmp/old`), run first on sys.path (common.graphguard_argv); without --version, the installed one.
Runs alternate between the versions. Prints medians of whole-process wall times, their CPU times (user + system) and the
peak RSS of the process, and the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from common import git, graphguard_argv, load_line

Sample = tuple[float, float, float]  # wall s, CPU s, peak RSS MB


def graphguard(repo: str, src: str, *args: str) -> Sample:
    """One whole graphguard process: (wall, CPU, peak RSS). Bytecode is cached, as for an installed graphguard."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t = time.perf_counter()
    proc = subprocess.Popen([*graphguard_argv(src), *args], cwd=repo, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed: {err.decode()[-400:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def new_repo(files: dict[str, str]) -> str:
    root = tempfile.mkdtemp(prefix="gg-editcost-")
    git(root, "init", "-q", "-b", "main")
    for k, v in (("user.email", "b@example.com"), ("user.name", "bench"), ("commit.gpgsign", "false")):
        git(root, "config", k, v)
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "initial")
    return root


def calls_repo(n: int) -> str:
    body = "".join("    f(1, 2)\n" for _ in range(n))
    return new_repo({"pkg/__init__.py": "", "pkg/lib.py": "def f(a, b):\n    return a + b\n",
                     "pkg/big.py": f"# a comment\nfrom pkg.lib import f\n\n\ndef main():\n{body}"})


def moved_repo(n: int) -> str:
    files = {"tests/__init__.py": "", "tests/old/__init__.py": "", "tests/new/__init__.py": "", "tests/new/placeholder.py": "",
             "tests/helpers.py": "def make(a, b=None):\n    return a\n\n\ndef check(x, *, strict=False):\n    return x\n"}
    for i in range(n):
        files[f"tests/old/test_{i}.py"] = ("from tests.helpers import check, make\n\n\n"
                                           + "".join(f"def test_{i}_{j}():\n    check(make({j}), strict=True)\n    make({j}, b={i})\n\n\n"
                                                     for j in range(10)))
    return new_repo(files)


def edit(repo: str, path: str, n: int, kind: str) -> None:
    """The first line's comment edited, or (kind "body") the middle call's arguments too."""
    full = os.path.join(repo, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    text = f"# a comment, edited {n}\n" + text.split("\n", 1)[1]
    if kind == "body":
        lines = text.split("\n")
        lines[len(lines) // 2] = f"    f({n}, 2)"
        text = "\n".join(lines)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)
    git(repo, "add", path)


def median(samples: list[Sample]) -> str:
    return "  ".join(f"{statistics.median(s[i] for s in samples):>7.3f}" if i < 2 else f"{max(s[i] for s in samples):>6.0f}"
                     for i in range(3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", action="append", default=[], metavar="LABEL=SRC")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=80_000)
    ap.add_argument("--moved", type=int, default=300)
    args = ap.parse_args()
    versions = [tuple(v.split("=", 1)) for v in args.version] or [("installed", "")]
    rows: dict[tuple[str, str], list[Sample]] = {}
    big, small, moved = calls_repo(args.calls), calls_repo(95), moved_repo(args.moved)
    for label, src in versions:
        for repo in (big, small, moved):
            graphguard(repo, src, "index")
    edits = 0
    for _ in range(args.runs):
        for label, src in versions:
            for kind in ("comment", "body"):
                for name, repo in ((f"{kind} edit, {args.calls} calls", big), (f"{kind} edit, 100 lines", small)):
                    edits += 1
                    edit(repo, "pkg/big.py", edits, kind)
                    rows.setdefault((label, f"{name}: check --staged"), []).append(graphguard(repo, src, "check", "--staged"))
                    git(repo, "commit", "-q", "--no-verify", "-m", f"edit {edits}")
                    rows.setdefault((label, f"{name}: index after commit"), []).append(graphguard(repo, src, "index"))
            git(moved, "mv", "tests/old", "tests/moved")
            rows.setdefault((label, f"{args.moved} files moved: check --staged"), []).append(graphguard(moved, src, "check", "--staged"))
            git(moved, "reset", "-q", "--hard")
    for repo in (big, small, moved):
        shutil.rmtree(repo, ignore_errors=True)
    print(f"median of {args.runs} whole-process runs: wall s, CPU s, peak RSS MB (max)")
    for (label, what), samples in rows.items():
        print(f"{label:<10} {what:<50} {median(samples)}")
    print(load_line())


if __name__ == "__main__":
    main()
