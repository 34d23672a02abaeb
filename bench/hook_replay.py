"""The hooks' cost on real commits, as a user committing them one after another meets it (issue 19 §3).

    python bench/hook_replay.py NAME=SOURCE [NAME=SOURCE ...] [--last 40]

SOURCE is a git repository (a `fetch`ed mirror or a clone). It is cloned into a temporary folder, the
parent of its last N first-parent commits is checked out on a branch, graphguard's native hooks are
installed (with this checkout's .venv) and the graph built and settled (not timed; the one-time
background fit of the retrieval profile is turned off, `retrieval_fit = false`). Then each of the
N commits is applied (its diff against its first parent, `git apply --index`) and committed with the
hooks, back to back: each `git commit` runs pre-commit (the check, waiting for the refresh the
previous commit's post-commit started, if it is still running) and post-commit (which starts the next
refresh and returns). A commit the hook blocks is counted and made again with --no-verify. Prints
per project the median, p95 and max wall time of `git commit`, the blocked commits, and the machine's
load, and the slowest commits with their CPU time in the foreground; nothing is asserted. Takes a few minutes per project.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import children_cpu
from common import git_proc as git

HERE = Path(__file__).resolve().parent.parent
PYTHON = HERE / ".venv" / "bin" / "python"


def graphguard(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run((str(PYTHON), "-I", "-m", "graphguard", *args, "--repo", str(repo)), capture_output=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def replay(name: str, source: str, last: int) -> str:
    work = Path(tempfile.mkdtemp(prefix=f"hook-replay-{name}-"))
    try:
        repo = work / name
        subprocess.run(("git", "clone", "-q", source, str(repo)), check=True)
        commits = git(repo, "rev-list", "--first-parent", f"--max-count={last}", "HEAD").stdout.decode().split()[::-1]
        git(repo, "checkout", "-q", "-b", "hook-replay", f"{commits[0]}~1")
        git(repo, "config", "user.email", "bench@example.invalid")
        git(repo, "config", "user.name", "bench")
        # The background fit of the retrieval profile after the cold index (30 s of CPU, once) is not a hook's
        # cost: turned off here (an untracked .graphguard.toml, which no replayed commit adds).
        (repo / ".graphguard.toml").write_text("retrieval_fit = false\n")
        with (repo / ".git" / "info" / "exclude").open("a") as f:
            f.write("/.graphguard.toml\n")
        for step in (("install",), ("index",)):
            r = graphguard(repo, *step)
            if r.returncode:
                return f"== {name}: {' '.join(step)} failed: {r.stderr.decode(errors='replace')[:300]}"
        graphguard(repo, "stats")  # waits for any refresher the install or index started
        times: list[float] = []
        cpus: list[float] = []
        blocked: list[str] = []
        slow: list[tuple[float, float, str]] = []
        for sha in commits:
            diff = git(repo, "diff", "--binary", f"{sha}^1", sha).stdout
            if git(repo, "apply", "--index", "--whitespace=nowarn", stdin=diff).returncode:
                continue  # the replayed branch differs from upstream here (a file mode, a submodule)
            subject = git(repo, "log", "-1", "--format=%s", sha).stdout.decode().strip()
            files = len(git(repo, "diff", "--cached", "--name-only").stdout.split())
            t0, cpu0 = time.monotonic(), children_cpu()
            r = git(repo, "commit", "-q", "--allow-empty", "-m", subject)
            times.append(time.monotonic() - t0)
            cpus.append(children_cpu() - cpu0)
            slow.append((times[-1], cpus[-1], f"{sha[:10]} {files:>4} files  {subject[:60]}"))
            if r.returncode:
                blocked.append(f"{sha[:10]} {subject[:60]}")
                git(repo, "commit", "-q", "--allow-empty", "--no-verify", "-m", subject)
        lines = [f"== {name}: {len(times)} commits with hooks, blocked {len(blocked)}"]
        if times:
            lines.append(f"   git commit wall time: median {statistics.median(times):.2f} s  p95 {percentile(times, 0.95):.2f} s"
                         f"  max {max(times):.2f} s")
            lines.append(f"   its CPU in the foreground (git and the hooks, not the detached refresher): median"
                         f" {statistics.median(cpus):.2f} s  p95 {percentile(cpus, 0.95):.2f} s")
            lines.extend(f"   slow: {wall:5.2f} s wall {cpu:5.2f} s CPU  {what}" for wall, cpu, what in sorted(slow, reverse=True)[:5])
        lines.extend(f"   BLOCK {b}" for b in blocked)
        return "\n".join(lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("projects", nargs="+", help="NAME=SOURCE")
    p.add_argument("--last", type=int, default=40)
    args = p.parse_args()
    for spec in args.projects:
        name, _, source = spec.partition("=")
        print(replay(name, source, args.last), flush=True)
    print(f"graphguard: {HERE}  load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
