"""What one ordinary edit costs the graph: whole-process wall times, medians, with the machine's load.

    python bench/refresh_cost.py --ansible CLONE [--runs N]

1. ansible (a clone of github:ansible/ansible; the bench works on a clone of it in a temporary folder and
   never touches CLONE): a cold `index`, then, per run, the return-annotation edit on `Display.warning`
   (lib/ansible/utils/display.py, `-> None` to `-> "None"` and back; 200+ files call it) as a commit, and
   the incremental `index` of it (what the post-commit refresh does): files re-resolved, seconds; then the
   next commit's `check` (the pre-commit) of a one-line edit, and the sum: "the next commit".
2. A keyword rename (`key=` to `size=` in a function's signature, its 20 callers fixed in the same commit)
   in a 6,000-line module against the same rename in a 100-line one, synthetic: `check` of the staged
   rename, then `index` of the commit; the ratio of the two sums.

Nothing is asserted: the figures are printed as a table (issue 19 §3's targets beside them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GG = [sys.executable, "-m", "graphguard"]
DISPLAY = "lib/ansible/utils/display.py"
WARNING = "    def warning(self, msg: str, formatted: bool = False) -> {}:"
GIT_ID = ["-c", "user.email=bench@example.com", "-c", "user.name=bench", "-c", "commit.gpgsign=false"]


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", *GIT_ID, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def run(repo: str, *args: str) -> tuple[float, dict[str, object]]:
    """Seconds of one graphguard process, and its JSON answer ({} if none)."""
    t = time.perf_counter()
    proc = subprocess.run([*GG, *args], cwd=repo, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-800:]}")
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        answer = {}
    return elapsed, answer if isinstance(answer, dict) else {}


def settle(repo: str, limit: float = 180.0) -> float:
    """Wait for the background refresher (a cold index starts a fit of the retrieval profile) to end: the
    figures are of the edit alone. Seconds waited."""
    from graphguard import background

    t = time.monotonic()
    while background.running(os.path.join(repo, ".git", "graphguard")) and time.monotonic() - t < limit:
        time.sleep(0.5)
    return time.monotonic() - t


def commit_edit(repo: str, path: str, old: str, new: str, message: str) -> None:
    full = os.path.join(repo, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if old not in text:
        raise SystemExit(f"{path}: {old!r} not found (another ansible revision?)")
    with open(full, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))
    git(repo, "commit", "-qam", message)


def next_commit_check(repo: str, n: int) -> float:
    """The next commit's pre-commit: `check` of a staged one-line edit to a file nobody imports."""
    path = os.path.join(repo, "bench_note.py")
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"NOTE_{n} = {n}\n")
    git(repo, "add", "bench_note.py")
    seconds, _ = run(repo, "check", "--format", "json")
    git(repo, "commit", "-qm", f"note {n}")
    return seconds


def ansible(clone: str, runs: int) -> list[tuple[str, str, str]]:
    work = tempfile.mkdtemp(prefix="gg-refresh-")
    try:
        repo = os.path.join(work, "ansible")
        subprocess.run(["git", "clone", "-q", clone, repo], check=True)
        cold, answer = run(repo, "index", "--format", "json")
        files = answer.get("files")
        fit = settle(repo)
        resolved: list[int] = []
        index_s: list[float] = []
        check_s: list[float] = []
        for i in range(runs):
            old, new = ("None", '"None"') if i % 2 == 0 else ('"None"', "None")
            commit_edit(repo, DISPLAY, WARNING.format(old), WARNING.format(new), f"Display.warning returns {new}")
            seconds, answer = run(repo, "index", "--format", "json")
            index_s.append(seconds)
            resolved.append(int(str(answer.get("resolved", -1))))
            check_s.append(next_commit_check(repo, i))
        med = statistics.median
        return [
            ("ansible: cold index", f"{cold:.1f} s ({files} files)", ""),
            ("ansible: its background fit (waited before the edits)", f"{fit:.0f} s", ""),
            ("ansible: Display.warning return annotation, files re-resolved", f"{med(resolved):.0f}", "only those using the result"),
            ("ansible: incremental index of it", f"{med(index_s):.2f} s", f"<= cold ({cold:.1f} s)"),
            ("ansible: next commit's check", f"{med(check_s):.2f} s", ""),
            ("ansible: the next commit (index + check)", f"{med(a + b for a, b in zip(index_s, check_s)):.2f} s", "<= 1 s"),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def module_text(lines: int) -> str:
    """A module of about `lines` lines whose first function takes `key=`."""
    out = ["def target(a, *, key=1):", "    return a + key", ""]
    i = 0
    while len(out) < lines:
        out += ["", f"def helper_{i}(x, y=2):", f'    """Helper {i}."""', f"    z = x * y + {i}", "    return z", ""]
        i += 1
    return "\n".join(out) + "\n"


def rename_cost(lines: int, runs: int) -> float:
    """Median seconds of `check` of the staged keyword rename plus `index` of its commit, in a module of `lines`."""
    work = tempfile.mkdtemp(prefix="gg-rename-")
    try:
        files = {"pkg/__init__.py": "", "pkg/mod.py": module_text(lines)}
        files.update({f"pkg/use{i}.py": f"from pkg.mod import target\n\n\ndef use{i}():\n    return target({i}, key=2)\n" for i in range(20)})
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(work, path)) or work, exist_ok=True)
            with open(os.path.join(work, path), "w", encoding="utf-8") as f:
                f.write(text)
        git(work, "init", "-q", "-b", "main")
        git(work, "add", "-A")
        git(work, "commit", "-qm", "start")
        run(work, "index")
        settle(work)
        costs = []
        for i in range(runs):
            old, new = ("key", "size") if i % 2 == 0 else ("size", "key")
            for path in files:
                full = os.path.join(work, path)
                with open(full, encoding="utf-8") as f:
                    text = f.read()
                with open(full, "w", encoding="utf-8") as f:
                    f.write(text.replace(f"{old}=", f"{new}=").replace(f"+ {old}", f"+ {new}"))
            git(work, "add", "-A")
            check, _ = run(work, "check", "--format", "json")
            git(work, "commit", "-qm", f"rename {old} to {new}")
            index, _ = run(work, "index", "--format", "json")
            costs.append(check + index)
        return statistics.median(costs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ansible", required=True, help="a git clone of ansible (github:ansible/ansible)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    load = os.getloadavg()
    rows = ansible(os.path.abspath(args.ansible), args.runs)
    big, small = rename_cost(6000, args.runs), rename_cost(100, args.runs)
    rows += [
        ("keyword rename, 100-line module (check + index)", f"{small:.2f} s", ""),
        ("keyword rename, 6,000-line module (check + index)", f"{big:.2f} s", ""),
        ("ratio 6,000 / 100 lines", f"{big / small:.2f}x", "<= 1.5x"),
    ]
    load_after = os.getloadavg()
    width = max(len(r[0]) for r in rows)
    print(f"refresh cost: medians of {args.runs} runs; {os.cpu_count()} cores, load {load[0]:.1f} at start, {load_after[0]:.1f} at end")
    print(f"{'what':<{width}}  {'figure':>22}  target")
    for what, figure, target in rows:
        print(f"{what:<{width}}  {figure:>22}  {target}")


if __name__ == "__main__":
    main()
