"""What one ordinary edit costs the graph: whole-process wall times, medians, with the machine's load.

    python bench/refresh_cost.py [--ansible CLONE] [--runs N]

1. ansible (a clone of github:ansible/ansible; the bench works on a clone of it in a temporary folder and
   never touches CLONE): a cold `index`, then, per run, the return-annotation edit on `Display.warning`
   (lib/ansible/utils/display.py, `-> None` to `-> "None"` and back; 200+ files call it) as a commit, and
   the incremental `index` of it (what the post-commit refresh does): files re-resolved, seconds; then the
   next commit's `check` (the pre-commit) of a one-line edit, and the sum: "the next commit".
2. A keyword rename (`key=` to `size=` in a function's signature, its 20 callers fixed in the same commit)
   in a 6,000-line module against the same rename in a 100-line one, synthetic: `check` of the staged
   rename, then `index` of the commit; the ratio of the two sums. The two cases run interleaved (which goes
   first alternates), and each process's CPU time (user + sys, os.wait4) is reported beside its wall time:
   on a shared machine CPU time is the steadier figure. Without --ansible only this part runs.

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

import common

GG = [sys.executable, "-m", "graphguard"]
#: The graphguard processes of part 2 may write their bytecode: an installed package has it (pip compiles it), and
#: with PYTHONDONTWRITEBYTECODE (set on some machines) every process compiled the package again, about half a second
#: of CPU in both cases that hid the difference between them.
BYTECODE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
DISPLAY = "lib/ansible/utils/display.py"
WARNING = "    def warning(self, msg: str, formatted: bool = False) -> {}:"
GIT_ID = ["-c", "user.email=bench@example.com", "-c", "user.name=bench", "-c", "commit.gpgsign=false"]


def git(repo: str, *args: str) -> str:
    return common.git(repo, *GIT_ID, *args)


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
    from graphguard.background import state

    t = time.monotonic()
    while state.running(os.path.join(repo, ".git", "graphguard")) and time.monotonic() - t < limit:
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


def timed(repo: str, *args: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + sys, from os.wait4: the process and the children it waited for) of
    one graphguard process. CPU time barely moves with the machine's load, wall time does."""
    t = time.perf_counter()
    proc = subprocess.Popen([*GG, *args], cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=BYTECODE_ENV)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)} failed ({proc.returncode}): {err[-800:].decode(errors='replace')}")
    return elapsed, usage.ru_utime + usage.ru_stime


class RenameCase:
    """A repo whose pkg/mod.py has `lines` lines and whose first function's keyword 20 callers pass."""

    def __init__(self, lines: int) -> None:
        self.lines = lines
        self.work = tempfile.mkdtemp(prefix=f"gg-rename-{lines}-")
        self.files = {"pkg/__init__.py": "", "pkg/mod.py": module_text(lines)}
        self.files.update({f"pkg/use{i}.py": f"from pkg.mod import target\n\n\ndef use{i}():\n    return target({i}, key=2)\n" for i in range(20)})
        for path, text in self.files.items():
            os.makedirs(os.path.dirname(os.path.join(self.work, path)) or self.work, exist_ok=True)
            with open(os.path.join(self.work, path), "w", encoding="utf-8") as f:
                f.write(text)
        git(self.work, "init", "-q", "-b", "main")
        git(self.work, "add", "-A")
        git(self.work, "commit", "-qm", "start")
        timed(self.work, "index")  # also writes the package's bytecode, once
        settle(self.work)
        self.renames = 0

    def rename(self) -> tuple[float, float]:
        """Wall and CPU seconds of `check` of the staged rename plus `index` of its commit."""
        old, new = ("key", "size") if self.renames % 2 == 0 else ("size", "key")
        self.renames += 1
        for path in self.files:
            full = os.path.join(self.work, path)
            with open(full, encoding="utf-8") as f:
                text = f.read()
            with open(full, "w", encoding="utf-8") as f:
                f.write(text.replace(f"{old}=", f"{new}=").replace(f"+ {old}", f"+ {new}"))
        git(self.work, "add", "-A")
        check_wall, check_cpu = timed(self.work, "check", "--format", "json")
        git(self.work, "commit", "-qm", f"rename {old} to {new}")
        index_wall, index_cpu = timed(self.work, "index", "--format", "json")
        settle(self.work)
        return check_wall + index_wall, check_cpu + index_cpu

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)


def rename_rows(runs: int) -> list[tuple[str, str, str]]:
    """The keyword rename in a 100-line and a 6,000-line module, the two interleaved run by run (which goes first
    alternates) so that a change of the machine's load falls on both; medians of wall and CPU seconds."""
    small, big = RenameCase(100), RenameCase(6000)
    try:
        walls: dict[int, list[float]] = {100: [], 6000: []}
        cpus: dict[int, list[float]] = {100: [], 6000: []}
        loads = []
        for i in range(runs):
            loads.append(os.getloadavg()[0])
            for case in (small, big) if i % 2 == 0 else (big, small):
                wall, cpu = case.rename()
                walls[case.lines].append(wall)
                cpus[case.lines].append(cpu)
    finally:
        small.close()
        big.close()
    med = statistics.median
    rows = []
    for lines in (100, 6000):
        rows.append((f"keyword rename, {lines:,}-line module (check + index)", f"{med(walls[lines]):.2f} s wall, {med(cpus[lines]):.2f} s CPU", ""))
    rows += [
        ("ratio 6,000 / 100 lines, wall", f"{med(walls[6000]) / med(walls[100]):.2f}x", "<= 1.5x"),
        ("ratio 6,000 / 100 lines, CPU", f"{med(cpus[6000]) / med(cpus[100]):.2f}x", "<= 1.5x"),
        ("  per-run CPU ratios", " ".join(f"{b / s:.2f}" for b, s in zip(cpus[6000], cpus[100])), ""),
        ("  load at each round's start", " ".join(f"{x:.1f}" for x in loads), ""),
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ansible", help="a git clone of ansible (github:ansible/ansible); without it, part 2 only")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    load = os.getloadavg()
    rows = ansible(os.path.abspath(args.ansible), args.runs) if args.ansible else []
    rows += rename_rows(args.runs)
    load_after = os.getloadavg()
    width = max(len(r[0]) for r in rows)
    print(f"refresh cost: medians of {args.runs} runs; {os.cpu_count()} cores, load {load[0]:.1f} at start, {load_after[0]:.1f} at end")
    print(f"{'what':<{width}}  {'figure':>26}  target")
    for what, figure, target in rows:
        print(f"{what:<{width}}  {figure:>26}  {target}")


if __name__ == "__main__":
    main()
