"""Whole-process latency of the agent editors' hooks (`graphguard agent-hook`), as the editor runs them.

    python bench/agent_hook.py [--repo REPO] [--runs 15] [--editor claude-code]

REPO defaults to Django 5.2.8 as a one-commit repository under bench/.cache (downloaded once with
`pip download --no-deps --no-binary :all:`), indexed first. Each case is one hook process fed the
editor's documented JSON on stdin, started as `install --agent` writes it (`python -I -m graphguard
agent-hook EDITOR EVENT`); the cases alternate run by run, so a change in the machine's load hits
them alike. Each case runs twice per round: answered by the work tree's agent server (started before the
runs, as the first hook starts it) and in the hook's own process (GRAPHGUARD_AGENT_SERVER=0). Cases: a one-file Edit of a function's body (allowed, no output), the same file's
signature changed (denied: the check walks every caller), an Edit of a file graphguard does not
read (allowed before the graph is opened), and the Stop hook over a clean working tree. Prints, per
case and mode, the median and p90 of wall time, the median CPU time of the hook process and its git
children with (served) the server's CPU time for the answer, read from /proc (its git children too), the
server's share on its own,
the decision, and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from common import CACHE, git, load_line, one_commit_repo, sdist_tree

FILE = "django/utils/timezone.py"


def cases(root: str, editor: str) -> dict[str, tuple[str, dict[str, object]]]:
    path = os.path.join(root, FILE)

    def pre(tool_input: dict[str, object]) -> tuple[str, dict[str, object]]:
        return "pre-write", {"session_id": "bench", "transcript_path": "/dev/null", "cwd": root, "permission_mode": "default",
                             "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": tool_input,
                             "tool_use_id": "toolu_bench"}

    return {
        "edit body (allow)": pre({"file_path": path, "old_string": "def now():\n", "new_string": "def now():\n    # bench\n"}),
        "edit signature (deny)": pre({"file_path": path, "old_string": "def now():", "new_string": "def now(tz):"}),
        "edit non-code file (allow)": pre({"file_path": os.path.join(root, "README.rst"), "old_string": "Django",
                                           "new_string": "Django!", "replace_all": True}),
        "stop, clean tree (allow)": ("stop", {"session_id": "bench", "transcript_path": "/dev/null", "cwd": root,
                                              "hook_event_name": "Stop", "stop_hook_active": False}),
    }


def fresh(payload: dict[str, object], tag: str) -> dict[str, object]:
    """A denied write made new each run, of each bench too (a comment added): the same write sent again goes through once."""
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or "(tz)" not in str(tool_input.get("new_string")):
        return payload
    return {**payload, "tool_input": {**tool_input, "new_string": f"{tool_input['new_string']}  # {tag}"}}


def server_pid(root: str) -> int | None:
    marker = b"agent-hook\0--serve\0--repo\0" + root.encode() + b"\0"
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker in open(f"/proc/{entry}/cmdline", "rb").read():
                return int(entry)
        except OSError:
            continue
    return None


def server_cpu(pid: int | None) -> float:
    """utime + stime + cutime + cstime of the server, in seconds (0 without one)."""
    if pid is None:
        return 0.0
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def run_once(root: str, editor: str, event: str, payload: dict[str, object], served: bool) -> tuple[float, float, str, float]:
    env = dict(os.environ, GRAPHGUARD_AGENT_SERVER="1" if served else "0")
    pid = server_pid(root) if served else None
    before, before_server = resource.getrusage(resource.RUSAGE_CHILDREN), server_cpu(pid)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-I", "-m", "graphguard", "agent-hook", editor, event], cwd=root,
                          input=json.dumps(payload), capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = server_cpu(pid) - before_server
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime) + server
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"{event}: exit {proc.returncode}: {proc.stderr.strip()}")
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    decision = out.get("hookSpecificOutput", {}).get("permissionDecision") or out.get("decision") or "allow"
    return wall, cpu, str(decision), server


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--editor", default="claude-code")
    args = ap.parse_args()
    root = args.repo or os.path.join(CACHE, "agent-hook-django")
    if not os.path.isdir(os.path.join(root, ".git")):
        one_commit_repo(sdist_tree("django==5.2.8"), root)
    subprocess.run([sys.executable, "-m", "graphguard", "index", "--repo", root], check=True, capture_output=True)
    head = git(root, "rev-parse", "--short", "HEAD")
    table = cases(root, args.editor)
    modes = {"served": True, "in process": False}
    times: dict[tuple[str, str], list[tuple[float, float, str, float]]] = {(n, m): [] for n in table for m in modes}
    for name, (event, payload) in table.items():  # one warm-up each (the OS's file cache; the server started)
        for served in modes.values():
            run_once(root, args.editor, event, payload, served)
    deadline = time.monotonic() + 30
    while server_pid(root) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    for i in range(args.runs):
        for name, (event, payload) in table.items():
            for mode, served in modes.items():
                times[(name, mode)].append(run_once(root, args.editor, event, fresh(payload, f"{os.getpid()} {i} {mode}"), served))
    print(f"graphguard agent-hook {args.editor} on {root} at {head}; {args.runs} runs per case; {load_line()}")
    print(f"{'case':30} {'mode':10} {'wall p50':>9} {'wall p90':>9} {'cpu p50':>8} {'server':>7}  decisions")
    for (name, mode), rows in times.items():
        walls = sorted(r[0] for r in rows)
        p90 = walls[min(len(walls) - 1, int(0.9 * len(walls)))]
        decisions = ", ".join(sorted({r[2] for r in rows}))
        print(f"{name:30} {mode:10} {statistics.median(walls) * 1000:7.0f}ms {p90 * 1000:7.0f}ms "
              f"{statistics.median(r[1] for r in rows) * 1000:6.0f}ms {statistics.median(r[3] for r in rows) * 1000:5.0f}ms  {decisions}")
    from graphguard.commands import agent_server

    sock = agent_server.socket_path(os.path.join(root, ".git", "graphguard"))
    if sock is not None:
        agent_server.stop(sock)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
