"""How long the post-checkout hook holds git, and how long until the graph is current, for one or more versions.

    python bench/hook_latency.py REPO --from REF_A --to REF_B [--version LABEL=SRC ...] [--runs 3]

REPO is a git repository; each version's native hooks are installed before its runs. Each run moves HEAD
from A to B and back without hooks (`core.hooksPath=/dev/null`), then runs the post-checkout
hook script as git does (stdin from /dev/null, stdout and stderr pipes that must be closed
before git goes on) and times it: whole process, until every copy of its pipes is closed. Then
a `graphguard stats` started at once (stderr on a pseudo-terminal, as at a prompt) shows what
the next command costs and prints, and the graph's stored head is polled until it is B: the
time until the graph is current, counted from the start of the hook. Each version is a folder
holding a `graphguard` package (`git archive REV graphguard | tar -x -C /tmp/old`): its `install`
and `stats` run with the folder first on sys.path (common.graphguard_argv); without --version, the
installed one. The hook runs what that version's hook script starts, and hook scripts start Python
with -E (PYTHONPATH, still set for older scripts that honoured it, is ignored): a script that records
graphguard's folder (GRAPHGUARD_HOME, since 3e8cea2) runs the folder `install` ran from, an older one
(a8ffa2b's, say) the interpreter's installed graphguard, whatever the version: time such a version's
hook by running this script, without --version, with a Python that has it installed. Versions
alternate run by run, so a change in the machine's load hits them alike; every hook does real work (the graph is at the
other side each time). Prints medians of whole-process wall times, and the load average.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import sqlite3
import statistics
import subprocess
import sys
import time

from common import git, graphguard_argv, load_line

NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


def stored_head(repo: str) -> str | None:
    path = os.path.join(git(repo, "rev-parse", "--absolute-git-dir"), "graphguard", "graph.sqlite3")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def refresher_running(repo: str) -> bool:
    """Whether a background refresher holds `<git-dir>/graphguard/refresh.lock` (a version without one: never)."""
    import fcntl

    path = os.path.join(git(repo, "rev-parse", "--absolute-git-dir"), "graphguard", "refresh.lock")
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops a lock taken here
    return False


def env_for(src: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return dict(env, PYTHONPATH=src) if src else env  # for hook scripts older than -E (1335beb)


def hook_run(repo: str, src: str, old: str, new: str) -> dict[str, float | str]:
    """Move HEAD old -> new without hooks, run post-checkout as git would, then the next command."""
    git(repo, *NO_HOOKS, "checkout", "-q", new)
    # Each version's own hook script (the template is part of what is measured).
    subprocess.run([*graphguard_argv(src), "install"], cwd=repo, env=env_for(src), check=True, capture_output=True)
    hook = os.path.join(git(repo, "rev-parse", "--git-path", "hooks"), "post-checkout")
    hook = hook if os.path.isabs(hook) else os.path.join(repo, hook)
    env = env_for(src)
    t0 = time.perf_counter()
    proc = subprocess.run([hook, old, new, "1"], cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    hook_s = time.perf_counter() - t0
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"hook failed ({proc.returncode}): {proc.stderr.decode()[-400:]}")
    # The next command at a prompt: stderr a terminal, so a waiting command shows its progress line.
    master, slave = pty.openpty()
    t1 = time.perf_counter()
    cmd = subprocess.Popen([*graphguard_argv(src), "stats", "--format", "json"], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    current_s = hook_s if stored_head(repo) == new else None
    while cmd.poll() is None or current_s is None:
        if select.select([master], [], [], 0.02)[0]:
            try:
                seen += os.read(master, 4096)
            except OSError:
                pass
        if current_s is None and stored_head(repo) == new:
            current_s = time.perf_counter() - t0
    next_s = time.perf_counter() - t1
    cmd.communicate()
    os.close(master)
    if cmd.returncode != 0:
        raise SystemExit(f"stats failed: {seen.decode(errors='replace')[-400:]}")
    while refresher_running(repo):  # the next run starts on a quiet repository (the refresher verifies after it writes)
        time.sleep(0.05)
    lines = [line.strip() for line in seen.decode(errors="replace").split("\r") if line.strip()]
    return {"hook": hook_s, "current": current_s or 0.0, "next": next_s, "line": lines[-1] if lines else ""}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--from", dest="a", required=True, metavar="REF_A")
    ap.add_argument("--to", dest="b", required=True, metavar="REF_B")
    ap.add_argument("--version", action="append", default=[], metavar="LABEL=SRC")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    versions = [tuple(v.split("=", 1)) for v in args.version] or [("installed", "")]
    repo = os.path.abspath(args.repo)
    a, b = git(repo, "rev-parse", args.a), git(repo, "rev-parse", args.b)
    first = env_for(versions[0][1])
    subprocess.run([*graphguard_argv(versions[0][1]), "install"], cwd=repo, env=first, check=True, capture_output=True)
    # Both sides' blobs in the cache (a first checkout parses; the figures are for a repository in use).
    for ref in (b, a):
        git(repo, *NO_HOOKS, "checkout", "-q", ref)
        subprocess.run([*graphguard_argv(versions[0][1]), "index"], cwd=repo, env=first, check=True, capture_output=True)
    results: dict[tuple[str, str], list[dict[str, float | str]]] = {}
    for _ in range(args.runs):
        for label, src in versions:  # each version's pair of runs starts with the graph and HEAD at A
            for old, new, direction in ((a, b, "A->B"), (b, a, "B->A")):
                r = hook_run(repo, src, old, new)
                results.setdefault((label, direction), []).append(r)
                print(f"  {label:<10} {direction}  hook {r['hook']:.3f} s  current after {r['current']:.1f} s"
                      f"  next command {r['next']:.1f} s", file=sys.stderr, flush=True)
    print(f"{repo}: post-checkout between {args.a} ({a[:10]}) and {args.b} ({b[:10]}), median of {args.runs} runs (s)")
    print(f"{'version':<12} {'direction':<9} {'hook p50':>9} {'hook max':>9} {'graph current':>14} {'next command':>13}")
    for (label, direction), rs in results.items():
        hooks = [float(r["hook"]) for r in rs]
        print(f"{label:<12} {direction:<9} {statistics.median(hooks):>9.3f} {max(hooks):>9.3f}"
              f" {statistics.median(float(r['current']) for r in rs):>14.1f}"
              f" {statistics.median(float(r['next']) for r in rs):>13.1f}")
    lines = [str(r["line"]) for rs in results.values() for r in rs if r["line"]]
    if lines:
        print(f"the next command's last progress line: {lines[-1]!r}")
    print(load_line())


if __name__ == "__main__":
    main()
