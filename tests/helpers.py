"""Helpers shared by the tests: real git repositories in temp dirs, and graphguard runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphguard.main import main
from graphguard.model import CallShape

#: Environment variables that would point git at another repository (set inside a hook, say).
GIT_LEAKS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX")


def source(text: str) -> str:
    """Dedent a triple-quoted source text and drop its leading newline."""
    return textwrap.dedent(text).lstrip("\n")


@dataclass
class GitRepo:
    """A real git repository in a temp dir, with one-line helpers to write, commit and run git."""

    root: Path

    def git(self, *args: str, check: bool = True) -> str:
        """Run git in the repository and return its stdout (decoded, stripped)."""
        proc = subprocess.run(("git", *args), cwd=self.root, capture_output=True, check=False)
        if check and proc.returncode:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode("utf-8", "replace").strip()

    def path(self, rel: str) -> Path:
        """The absolute path of a file of the work tree."""
        return self.root / rel

    def write(self, files: Mapping[str, str | bytes | None]) -> None:
        """Write files into the work tree: str is dedented, bytes are written as-is, None deletes."""
        for rel, content in files.items():
            p = self.root / rel
            if content is None:
                p.unlink()
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content if isinstance(content, bytes) else source(content).encode("utf-8"))

    def commit(self, msg: str = "commit", files: Mapping[str, str | bytes | None] | None = None) -> str:
        """Write `files` (if any), stage everything, commit without running hooks, and return the new HEAD sha."""
        if files:
            self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "--no-verify", "-m", msg)
        return self.head

    @property
    def head(self) -> str:
        """HEAD's commit sha."""
        return self.git("rev-parse", "HEAD")

    @property
    def graph_path(self) -> Path:
        """Where the graph of this work tree is stored."""
        return self.root / ".git" / "graphguard" / "graph.sqlite3"


def init_repo(root: Path, files: Mapping[str, str | bytes] | None = None) -> GitRepo:
    """`git init -b main` at `root` with a local identity; commit `files` when given."""
    root.mkdir(parents=True, exist_ok=True)
    repo = GitRepo(root)
    repo.git("init", "-q", "-b", "main")
    repo.git("config", "user.email", "test@example.com")
    repo.git("config", "user.name", "Test")
    repo.git("config", "commit.gpgsign", "false")
    repo.git("config", "core.autocrlf", "false")
    if files:
        repo.commit("initial", files)
    return repo


@dataclass
class Result:
    """Exit code and output of one graphguard run."""

    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.out)


def run_main(repo: GitRepo | Path | str, args: Sequence[str], capsys: Any) -> Result:
    """Run `graphguard ARGS --repo REPO` in this process and capture its output (earlier prints are dropped)."""
    root = repo.root if isinstance(repo, GitRepo) else repo
    capsys.readouterr()
    try:
        code = main([*args, "--repo", str(root)])
    except SystemExit as e:  # argparse errors
        code = e.code if isinstance(e.code, int) else 2
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def cli_command(*args: str) -> list[str]:
    """The argv that runs graphguard as a subprocess with this interpreter."""
    return [sys.executable, "-m", "graphguard", *args]


def run_cli(repo: GitRepo | Path | str, *args: str, timeout: float = 120) -> Result:
    """Run `python -m graphguard ARGS` as a subprocess in the repository's directory."""
    root = repo.root if isinstance(repo, GitRepo) else repo
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    proc = subprocess.run(cli_command(*args), cwd=root, capture_output=True, env=env, timeout=timeout, check=False)
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def stored_meta(repo: GitRepo, key: str = "head") -> str | None:
    """A value of the stored graph's meta table, read straight from SQLite: refreshes nothing (None: no graph or no key)."""
    import sqlite3

    if not repo.graph_path.exists():
        return None
    conn = sqlite3.connect(repo.graph_path)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def refresher_running(repo: GitRepo) -> bool:
    """Whether a background refresher (started by a post-* hook) holds the repository's refresh lock."""
    from graphguard.background import state

    return state.running(str(repo.graph_path.parent))


def wait_for_refresher(repo: GitRepo, timeout: float = 120) -> bool:
    """Wait until no background refresher runs in the repository; False if one still does after `timeout`
    (only against hanging: a hook's launcher holds the lock before it returns, so there is no race)."""
    import time

    deadline = time.monotonic() + timeout
    while refresher_running(repo):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def settled_meta(repo: GitRepo, key: str = "head") -> str | None:
    """stored_meta once the background refresher a hook may have started is done: what the graph says
    after the hook's work, without refreshing anything."""
    assert wait_for_refresher(repo), "the background refresher is still running"
    return stored_meta(repo, key)


def refresher_processes(repo: GitRepo) -> list[int]:
    """Pids of the repository's background refresher and of its forked parse workers (they share its
    command line, which names it): none once everything is done. Empty where there is no /proc."""
    marker = b"graphguard-refresher\0" + str(repo.root).encode() + b"\0"
    pids = []
    for entry in Path("/proc").glob("[0-9]*") if Path("/proc/self/cmdline").exists() else ():
        try:
            if marker in (entry / "cmdline").read_bytes() and b"Z" not in (entry / "stat").read_bytes().rsplit(b")", 1)[1][:3]:
                pids.append(int(entry.name))
        except OSError:
            continue  # it ended while we looked
    return pids


def stop_refresher(repo: GitRepo) -> bool:
    """Kill a background refresher still running in the repository (its pid is in refresh.json while it
    holds the lock); True when there was one."""
    if not refresher_running(repo):
        return False
    try:
        pid = json.loads((repo.graph_path.parent / "refresh.json").read_text())["pid"]
        os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return True


def run_git(repo: GitRepo | Path, *args: str, env: Mapping[str, str] | None = None, input: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run git with its hooks, never raising: stdout and stderr merged in order in `.stdout` (what a user sees)."""
    root = repo.root if isinstance(repo, GitRepo) else repo
    base = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS} if env is None else dict(env)
    return subprocess.run(("git", *args), cwd=root, input=input, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=base, timeout=timeout, check=False)


# A library with one caller, a change that breaks the caller, and the caller's fix: the
# commit scenario the hook tests (native and pre-commit framework) drive.
LIB = {
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f(a):\n    return a\n",
    "pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1)\n",
}
BREAK = {"pkg/mod.py": "def f(a, b):\n    return a\n"}
FIX = {"pkg/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, 2)\n"}


def reap(proc: subprocess.Popen[bytes]) -> None:
    """Kill what is left of a process group a test started (a killed index may leave parse workers), so a failure leaks nothing."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def change_of(data: dict[str, Any], symbol: str) -> dict[str, Any]:
    """The one change of a check's JSON answer for `symbol`."""
    found = [c for c in data["changes"] if c["symbol"] == symbol]
    assert len(found) == 1, f"{symbol}: {[c['symbol'] for c in data['changes']]}"
    return found[0]


def callers(change: dict[str, Any]) -> dict[tuple[str, int], tuple[str, str]]:
    """(path, line) -> (status, reason) of a change's callers."""
    return {(c["path"], c["line"]): (c["status"], c["reason"]) for c in change["callers"]}


def call_shape(args: str) -> CallShape:
    """`"1, 2, tz=0, *a, **k"` -> the shape of a call written with those arguments."""
    parts = [a.strip() for a in args.split(",") if a.strip()]
    return CallShape(
        n_positional=sum(1 for a in parts if "=" not in a and not a.startswith("*")),
        keywords=tuple(a.split("=")[0] for a in parts if "=" in a),
        has_star=any(a.startswith("*") and not a.startswith("**") for a in parts),
        has_starstar=any(a.startswith("**") for a in parts),
    )
