"""`graphguard mcp` measured as an agent meets it: a real MCP client session (the SDK's ClientSession over
stdio_client) with the server as a subprocess, against a real repository (a copy of Django 5.2.8), graph warm.

    python bench/mcp_bench.py REPO [--runs 30] [--soak 1000] [--starts 5] [--profile] [--before SRC]

REPO is a git repository indexed first (`graphguard index --repo REPO`), a copy the benchmark may commit
to: the soak commits, checks out and rebases in it (on branches of its own, `mcp-bench-*`), and leaves it
at the commit it found. Prints:

- latency of one call, client to client (p50, p90, max over --runs calls after two warm-ups): check_edit
  of a one-function signature change (django.utils.timezone.now gains a required parameter), callers of
  a symbol with a few dozen callers (django.utils.html.escape), context of a few task texts;
- start to first answer: a server spawned on a pipe, initialize, initialized and a callers call written at once,
  until the callers answer is read (no SDK in this process's way): wall and the server's CPU, medians over --starts;
  with --before SRC also for the graphguard package in folder SRC (`git archive REV graphguard | tar -x -C SRC`);
- the first answer after start through the SDK's client: spawn -> initialize -> callers answered (--starts servers,
  each fresh), and that server's first check_edit (the working tree's first scan, the signature readers' import);
- the server's peak RSS (VmHWM of its process);
- a soak: --soak mixed calls with HEAD moved under the server a few times (a commit, a checkout, a
  rebase); after each move, and every 100 calls, answers compared with a fresh CLI run
  (`graphguard callers --format json`, `graphguard check --proposed`): any difference is a failure;
- with --profile: the tools called in this process (graphguard.server.tools.call over one Session),
  cProfile's top functions by cumulative time for each of the three timed tools.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from common import children_cpu, git, graphguard_argv
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TZ = "django/utils/timezone.py"
CALLERS_OF = "django.utils.html.escape"
TASKS = [
    "timezone aware datetime conversion when USE_TZ is enabled",
    "the admin changelist search does not escape HTML in list_display",
    "QuerySet.bulk_create ignores conflicts on PostgreSQL",
    "CSRF token rotation after login",
    "migrations autodetector renames a field and its index",
]


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} / {five:.2f} on {os.cpu_count()} cpus"


def cli(root: str, *args: str, stdin: bytes | None = None) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "graphguard", *args, "--repo", root, "--format", "json"], cwd="/",
                          input=stdin, capture_output=True, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"graphguard {' '.join(args)}: {proc.stderr.decode()}")
    return dict(json.loads(proc.stdout))


def signature_change(root: str) -> str:
    with open(os.path.join(root, TZ), encoding="utf-8") as f:
        text = f.read()
    changed = text.replace("def now():", "def now(tz):", 1)
    assert changed != text, "no `def now():` in django/utils/timezone.py"
    return changed


def server_pid(parent: int) -> int | None:
    """The `graphguard mcp` process among this process's children."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and b"graphguard\0mcp" in cmd:
            return int(entry)
    return None


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Client:
    def __init__(self, portal: BlockingPortal, session: ClientSession):
        self.portal = portal
        self.session = session

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        t0 = time.perf_counter()
        result = self.portal.call(self.session.call_tool, name, arguments)
        took = (time.perf_counter() - t0) * 1000
        if result.is_error:
            raise SystemExit(f"{name} {arguments}: {result.content[0].text}")
        return took, dict(result.structured_content)


@contextlib.contextmanager
def connect(root: str) -> Iterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphguard", "mcp", "--repo", root],
                                   env=dict(os.environ), cwd="/")
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(stdio_client(params)) as (read, write), \
            portal.wrap_async_context_manager(ClientSession(read, write)) as session:
        portal.call(session.initialize)
        yield Client(portal, session)


def percentiles(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    return f"{statistics.median(values):8.1f} {p90:8.1f} {values[-1]:8.1f}"


def first_answers(root: str, starts: int) -> tuple[list[float], list[float]]:
    """Spawn -> initialize -> callers answered; and then the first check_edit of that fresh server."""
    firsts, edits = [], []
    edit = {"files": {TZ: signature_change(root)}}
    for _ in range(starts):
        t0 = time.perf_counter()
        with connect(root) as c:
            c.call("callers", {"symbol": CALLERS_OF})
            firsts.append((time.perf_counter() - t0) * 1000)
            edits.append(c.call("check_edit", edit)[0])
    return firsts, edits


def start_to_first_answer(root: str, starts: int, src: str | None = None) -> tuple[list[float], list[float]]:
    """Spawn -> the callers answer read, over a raw pipe: (wall ms, the server's CPU ms) per start."""
    hello = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "callers", "arguments": {"symbol": CALLERS_OF}}}]
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in hello)
    walls, cpus = [], []
    for _ in range(starts):
        cpu0, t0 = children_cpu(), time.perf_counter()
        proc = subprocess.Popen([*graphguard_argv(src), "mcp", "--repo", root], cwd="/", stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(lines)
        proc.stdin.flush()
        while (line := proc.stdout.readline()) and json.loads(line).get("id") != 2:
            pass
        walls.append((time.perf_counter() - t0) * 1000)
        assert line and "error" not in json.loads(line), line[:300]
        proc.stdin.close()
        proc.wait(timeout=60)
        cpus.append((children_cpu() - cpu0) * 1000)  # to its exit: the answer, then closing the session
    return walls, cpus


def timed(c: Client, root: str, runs: int) -> dict[str, list[float]]:
    """Each call timed inside the client's event loop, as an agent's async client makes it (no thread hop)."""
    edit = {"files": {TZ: signature_change(root)}}
    calls: list[tuple[str, str, dict[str, Any]]] = [("check_edit", "check_edit (now gains a parameter)", edit),
                                                    ("callers", f"callers ({CALLERS_OF})", {"symbol": CALLERS_OF})]
    calls += [("context", "context (5 tasks, in turn)", {"task": t}) for t in TASKS]
    times: dict[str, list[float]] = {}

    async def run() -> None:
        for name, _, args in calls:  # warm-up: the working tree's scan, the text index, SQLite's page cache
            for _ in range(2):
                await c.session.call_tool(name, args)
        for i in range(runs):  # interleaved, so that the machine's load hits each alike
            for name, label, args in calls[:2] + [calls[2 + i % len(TASKS)]]:
                t0 = time.perf_counter()
                result = await c.session.call_tool(name, args)
                times.setdefault(label, []).append((time.perf_counter() - t0) * 1000)
                assert not result.is_error, result.content
                if name == "check_edit":
                    assert result.structured_content["verdict"] == "block"

    c.portal.call(run)
    return times


# --- the soak ---------------------------------------------------------------------------------


def comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """A verbose answer without its summary is the CLI's document."""
    doc = dict(doc)
    doc.pop("summary", None)
    doc.pop("head", None) if doc.get("schema") == "graphguard.callers/1" else None
    doc.pop("freshness", None)  # the server's refresh and the CLI's differ: the answers must not
    if "stats" in doc:
        doc["stats"] = {k: v for k, v in doc["stats"].items() if k != "elapsed_ms"}
    return doc


def verify(c: Client, root: str, where: str) -> int:
    """The server's answers against fresh CLI runs; the number of differences (printed)."""
    bad = 0
    head = git(root, "rev-parse", "HEAD")
    _, served = c.call("callers", {"symbol": CALLERS_OF, "verbose": True})
    if served["head"] != head:
        print(f"  {where}: callers describes {served['head'][:12]}, HEAD is {head[:12]}")
        bad += 1
    if comparable(served) != comparable(cli(root, "callers", CALLERS_OF)):
        print(f"  {where}: callers differs from the CLI's")
        bad += 1
    proposal = signature_change(root)
    _, checked = c.call("check_edit", {"files": {TZ: proposal}, "verbose": True})
    fresh = cli(root, "check", f"--proposed={TZ}", stdin=proposal.encode())
    if checked["base"] != head or comparable(checked) != comparable(fresh):
        print(f"  {where}: check_edit differs from check --proposed")
        bad += 1
    return bad


def move_head(root: str, step: int, branch: str) -> str:
    """One move of HEAD under the server: a commit that adds a caller (on `branch`), a checkout of a side
    branch from the commit before with a caller of its own, and a rebase of that side branch onto `branch`."""
    kind = ("commit", "checkout", "rebase")[step - 1]
    if kind == "commit":
        path = "django/utils/mcp_bench_main.py"
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write("from django.utils.html import escape\n\n\ndef bench(s):\n    return escape(s)\n")
        git(root, "add", path)
        git(root, "commit", "-q", "--no-verify", "-m", "mcp bench: a caller")
    elif kind == "checkout":
        git(root, "checkout", "-q", "-B", "mcp-bench-side", "HEAD~1")
        path = "django/utils/mcp_bench_side.py"
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write("from django.utils.html import escape\n\nescape('x')\n")
        git(root, "add", path)
        git(root, "commit", "-q", "--no-verify", "-m", "mcp bench: a caller on a side branch")
    else:
        git(root, "rebase", "-q", branch)
    return kind


def soak(c: Client, root: str, calls: int, branch: str) -> tuple[int, list[str], float]:
    rng = random.Random(11)
    edit = {"files": {TZ: signature_change(root)}}
    mix: list[tuple[str, dict[str, Any]]] = [
        ("callers", {"symbol": CALLERS_OF}), ("callers", {"symbol": "django.utils.timezone.now"}),
        ("check_edit", edit), ("context", {"task": TASKS[0]}), ("context", {"task": TASKS[3]}),
        ("related", {"targets": ["django/utils/html.py"]}), ("outline", {"paths": ["django/utils/timezone.py"]}),
        ("impact", {"symbol": "django.utils.text.slugify"}), ("check", {}), ("callers", {"symbol": CALLERS_OF, "compact": True}),
    ]
    moves_at = {calls * k // 4: k for k in (1, 2, 3)}
    bad = verify(c, root, "start")
    moves = []
    t0 = time.perf_counter()
    for i in range(calls):
        if i in moves_at:
            moves.append(move_head(root, moves_at[i], branch))
            bad += verify(c, root, f"after the {moves[-1]} at call {i}")
        elif i % 100 == 0:
            bad += verify(c, root, f"at call {i}")
        name, args = rng.choice(mix)
        c.call(name, args)
    bad += verify(c, root, "end")
    return bad, moves, time.perf_counter() - t0


# --- in-process profile -----------------------------------------------------------------------


def profile(root: str, runs: int) -> None:
    from graphguard.server import tools
    from graphguard.server.session import Session

    session = Session(root)
    for name, args in (("check_edit", {"files": {TZ: signature_change(root)}}), ("callers", {"symbol": CALLERS_OF}),
                       ("context", {"task": TASKS[0]})):
        tools.call(session, name, args)
        tools.call(session, name, args)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        for _ in range(runs):
            tools.call(session, name, args)
        prof.disable()
        print(f"\n## in process: {name}, {(time.perf_counter() - t0) * 1000 / runs:.1f} ms a call (under cProfile)")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(18)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--soak", type=int, default=1000)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--before", help="a folder holding another version's graphguard package, for the start row")
    args = ap.parse_args()
    root = os.path.abspath(args.repo)
    start = git(root, "rev-parse", "HEAD")
    branch = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    print(f"# graphguard mcp on {root} at {start[:12]}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {load()}")
    cli(root, "stats")  # the graph warm before any timing
    print(f"\n{'start to first answer (raw pipe)':42} {'wall p50':>9} {'CPU p50':>9}   n   ({load()})")
    for label, src in (("this version", None), (f"--before {args.before}", args.before)):
        if src is not None or label == "this version":
            walls, cpus = start_to_first_answer(root, args.starts, src)
            print(f"  {label:40} {statistics.median(walls):9.0f} {statistics.median(cpus):9.0f}   {len(walls)}")
    if args.soak == 0 and args.runs == 0:
        print(load())
        return
    firsts, edits = first_answers(root, args.starts)
    print(f"\n{'call':42} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8}   n")
    print(f"{'first answer after start (spawn..callers)':42} {percentiles(firsts)}   {len(firsts)}")
    print(f"{'  then the first check_edit':42} {percentiles(edits)}   {len(edits)}")
    try:
        with connect(root) as c:
            pid = server_pid(os.getpid())
            for label, values in timed(c, root, args.runs).items():
                print(f"{label:42} {percentiles(values)}   {len(values)}")
            print(f"\nserver peak RSS (VmHWM) after the timed calls: {peak_rss_mb(pid):.0f} MB" if pid else "server pid not found")
            if args.soak:
                bad, moves, took = soak(c, root, args.soak, branch)
                rss = f", peak RSS {peak_rss_mb(pid):.0f} MB" if pid else ""
                print(f"soak: {args.soak} mixed calls in {took:.1f} s, HEAD moved by {', '.join(moves)}; "
                      f"{bad} answers differing from a fresh CLI run{rss}")
    finally:
        git(root, "checkout", "-q", "-f", branch if branch != "HEAD" else start)
        git(root, "reset", "-q", "--hard", start)
        for b in git(root, "branch", "--list", "mcp-bench-*").split():
            git(root, "branch", "-q", "-D", b.strip("* "))
    print(load())
    if args.profile:
        profile(root, args.runs)


if __name__ == "__main__":
    main()
