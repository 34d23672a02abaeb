"""What bench/ts_oracle.py stands on: the compilers in /tmp, the repositories checked out from mirrors, the
workspace's own packages linked into node_modules (as pnpm would), the compiler-API process and timed runs.

Nothing here is imported by graphguard; the compilers are benchmark-only (npm, into --work, never a dependency).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import resource
import shutil
import subprocess
import time
from dataclasses import dataclass
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_SCRIPT = os.path.join(HERE, "ts_oracle_node.cjs")
MIRRORS = "/work/.mirror"


@dataclass(frozen=True)
class RepoSpec:
    name: str
    mirror: str  # owner+name under MIRRORS (what the `fetch` tool brings)
    covers: str  # which of the shapes it stands for
    #: tsconfig/jsconfig paths the oracle leaves out (test fixtures are projects of their own, not the product)
    skip_configs: str = r"(^|/)(fixtures?|__fixtures__|\.test)/"


REPOS = (
    RepoSpec("ky", "sindresorhus+ky", "ESM library, `.js` specifiers (nodenext via an unresolvable shared config)"),
    RepoSpec("express", "expressjs+express", "CommonJS JavaScript, no tsconfig"),
    RepoSpec("zod", "colinhacks+zod", "barrel-heavy pnpm monorepo (`export *`, exports conditions)"),
    RepoSpec("trpc", "trpc+trpc", "pnpm monorepo: per-package tsconfig, extends, references, exports",
             skip_configs=r"(^|/)(fixtures?|__fixtures__|\.test|\.experimental)/|^www/"),
    RepoSpec("query", "TanStack+query", "pnpm monorepo whose examples call the TS packages from `.jsx`/`.js`",
             skip_configs=r"(^|/)(fixtures?|__fixtures__|\.test)/"),
    RepoSpec("shadcn", "shadcn-ui+ui", "Next.js app with `@/*` aliases (apps/v4) in a pnpm monorepo",
             skip_configs=r"(^|/)(fixtures?|__fixtures__|\.test|templates)/"),
)


@dataclass(frozen=True)
class Compiler:
    name: str  # tsc5 | tsgo
    version: str
    tsc: str  # the command-line compiler
    module: str | None  # the package folder the API script requires (None: no JS API, tsgo)


def install_compilers(work: str) -> list[Compiler]:
    """typescript@5 (5.9.x, the JS API and tsc) and typescript@latest (7.x, the Go port) under `work`, once."""
    found = []
    for name, spec in (("tsc5", "typescript@5"), ("tsgo", "typescript@latest")):
        folder = os.path.join(work, f"npm-{name}")
        tsc = os.path.join(folder, "node_modules", ".bin", "tsc")
        if not os.path.exists(tsc):
            os.makedirs(folder, exist_ok=True)
            done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", folder, spec],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{spec} did not install: {done.stderr.strip()[:300]}")
                continue
        version = subprocess.run([tsc, "-v"], capture_output=True, text=True).stdout.strip().removeprefix("Version ")
        module = os.path.join(folder, "node_modules", "typescript")
        found.append(Compiler(name, version, tsc, module if version.startswith("5.") else None))
    return found


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def checkout(spec: RepoSpec, work: str) -> str:
    """A shallow clone of the mirror's HEAD under work/repos (kept between runs; reset to HEAD each time)."""
    dest = os.path.join(work, "repos", spec.name)
    if not os.path.isdir(os.path.join(dest, ".git")):
        shutil.rmtree(dest, ignore_errors=True)
        cloned = subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{MIRRORS}/{spec.mirror}/repo", dest],
                                capture_output=True)
        if cloned.returncode != 0:
            export_head(os.path.join(MIRRORS, spec.mirror, "repo"), dest)
    git(dest, "reset", "-q", "--hard", "HEAD")
    with open(os.path.join(dest, ".git", "info", "exclude"), "a") as f:
        f.write("\nnode_modules/\ntsconfig.tsbuildinfo\n*.tsbuildinfo\n")
    return dest


def export_head(mirror: str, dest: str) -> None:
    """A mirror whose largest blobs are absent cannot be cloned: its HEAD's present blobs, committed once."""
    shutil.rmtree(dest, ignore_errors=True)
    entries = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "-r", "-z", "HEAD"], capture_output=True,
                             check=True).stdout.split(b"\0")
    blobs = [(e.split(b"\t", 1)[1].decode(), e.split()[2].decode()) for e in entries if b" blob " in e]
    batch = subprocess.run(["git", "--git-dir", mirror, "cat-file", "--batch"], capture_output=True, check=True,
                           input="".join(f"{sha}\n" for _, sha in blobs).encode()).stdout
    at = 0
    for path, _ in blobs:
        end = batch.index(b"\n", at)
        header = batch[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        os.makedirs(os.path.dirname(os.path.join(dest, path)) or dest, exist_ok=True)
        with open(os.path.join(dest, path), "wb") as f:
            f.write(batch[at:at + size])
        at += size + 1
    for args in (("init", "-q", "-b", "main"), ("add", "-A"),
                 ("-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false",
                  "commit", "-qm", "the mirror's HEAD (present blobs)")):
        git(dest, *args)


def tracked(repo: str) -> list[str]:
    return git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()


def workspace_globs(repo: str) -> list[str]:
    """The workspace's package globs: pnpm-workspace.yaml's `packages:` list, else package.json `workspaces`."""
    pnpm = os.path.join(repo, "pnpm-workspace.yaml")
    if os.path.exists(pnpm):
        globs, inside = [], False
        for line in open(pnpm).read().splitlines():
            if re.match(r"^packages\s*:", line):
                inside = True
            elif inside and re.match(r"^\s+-\s*", line):
                globs.append(line.split("-", 1)[1].strip().strip("'\""))
            elif inside and line.strip() and not line.startswith(" "):
                inside = False
        return globs
    with open(os.path.join(repo, "package.json")) as f:
        workspaces = json.load(f).get("workspaces", [])
    return workspaces.get("packages", []) if isinstance(workspaces, dict) else list(workspaces)


def link_workspace(repo: str, files: list[str]) -> dict[str, str]:
    """node_modules/<name> -> the package's folder for every workspace package (no external installs)."""
    globs = workspace_globs(repo)
    keep = [g for g in globs if not g.startswith("!")]
    drop = [g[1:] for g in globs if g.startswith("!")]
    links: dict[str, str] = {}
    for manifest in files:
        if not manifest.endswith("package.json") or "node_modules/" in manifest:
            continue
        folder = os.path.dirname(manifest)
        if not any(fnmatch.fnmatch(folder, g.rstrip("/")) for g in keep) or any(fnmatch.fnmatch(folder, g) for g in drop):
            continue
        try:
            name = json.load(open(os.path.join(repo, manifest))).get("name")
        except ValueError:
            continue
        if isinstance(name, str) and name and name not in links:
            links[name] = folder
    for name, folder in links.items():
        link = os.path.join(repo, "node_modules", name)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(os.path.relpath(os.path.join(repo, folder), os.path.dirname(link)), link)
    return links


def configs_of(spec: RepoSpec, files: list[str]) -> list[str]:
    names = ("tsconfig.json", "jsconfig.json")
    return sorted(f for f in files if f.rsplit("/", 1)[-1] in names and "node_modules/" not in f
                  and not re.search(spec.skip_configs, f))


class Oracle:
    """The compiler-API process (bench/ts_oracle_node.cjs) over one repository: one request, one answer."""

    def __init__(self, compiler: Compiler, repo: str) -> None:
        assert compiler.module is not None
        self.proc = subprocess.Popen(["node", "--max-old-space-size=3072", NODE_SCRIPT, compiler.module, repo],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline() or '{"error": "the oracle process ended"}')
        if "error" in answer:
            raise RuntimeError(f"oracle {request.get('op')}: {answer['error'][:2000]}")
        return answer

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float  # user + system of the child
    returncode: int
    stdout: str


def timed(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> Timed:
    """Run `cmd`; wall time and the child's CPU time (getrusage of children, before and after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timed(wall, cpu, done.returncode, done.stdout)


#: graphguard runs as installed: with its bytecode cached. Where PYTHONDONTWRITEBYTECODE is set (this machine), every
#: run compiled the modules it imports again: 0.1 to 0.3 CPU s of each no-op and one-file check.
BYTECODE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_COMPILED: list[str] = []


def graphguard(repo: str, *args: str) -> Timed:
    exe = os.path.join(os.path.dirname(HERE), ".venv", "bin", "graphguard")
    if not _COMPILED:  # once, as an install does
        python = os.path.join(os.path.dirname(exe), "python")
        package = os.path.join(os.path.dirname(HERE), "graphguard")
        subprocess.run([python if os.path.exists(python) else "python3", "-m", "compileall", "-q", package],
                       env=BYTECODE_ENV, capture_output=True, check=False)
        _COMPILED.append(package)
    return timed([exe if os.path.exists(exe) else "graphguard", *args, "--repo", repo], cwd=repo, env=BYTECODE_ENV)
