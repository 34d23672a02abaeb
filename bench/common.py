"""What the bench scripts share: git in a repository, an sdist made a one-commit repository, the load line.

A script imports it as `from common import ...` (run as `python bench/x.py`, bench/ is first on sys.path).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
#: Downloads and unpacked sdists (ignored by git).
CACHE = os.path.join(HERE, ".cache")
#: An identity and no signing for the commits a bench makes, whatever the machine's git config says.
IDENTITY = ("-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false")


def git(repo: str, *args: str) -> str:
    """Run git in `repo`; its stdout, stripped. A failure raises (CalledProcessError), as a bench's setup should."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def git_bytes(repo: str | os.PathLike[str], *args: str, stdin: bytes | None = None,
              env: dict[str, str] | None = None) -> bytes:
    """Run git in `repo`; its stdout as bytes (unstripped: `-z` output and blobs stay exact). A failure exits the
    bench with git's own message."""
    proc = subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, env=env)
    if proc.returncode:
        raise SystemExit(f"git {' '.join(args[:3])} failed in {repo}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def git_proc(repo: str | os.PathLike[str], *args: str, stdin: bytes | None = None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git in `repo` and hand back the finished process unchecked (a bench that reads the exit code itself)."""
    return subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, env=env)


def load_line() -> str:
    """The machine's load, for every table's header: figures of a loaded machine are read as such."""
    return f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs"


def sdist_tree(spec: str, cache: str = CACHE, local: str | None = None) -> str:
    """The unpacked sdist of `spec` (name==version) under `cache`, downloaded once with pip (or copied from `local`)."""
    name, version = spec.split("==")
    src = os.path.join(cache, f"{name}-{version}")
    if os.path.isdir(src):
        return src
    os.makedirs(cache, exist_ok=True)
    wanted = f"{name}-{version}.tar.gz".lower()
    archives = [p for p in glob.glob(os.path.join(cache, "*.tar.gz")) if os.path.basename(p).lower() == wanted]
    if not archives and local and os.path.exists(local):
        archives = [shutil.copy(local, os.path.join(cache, os.path.basename(local)))]
    if not archives:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", spec, "-d", cache],
                       check=True, capture_output=True)
        archives = [p for p in glob.glob(os.path.join(cache, "*.tar.gz")) if os.path.basename(p).lower() == wanted]
    with tarfile.open(archives[0]) as tar:
        tar.extractall(cache, filter="data")
    # The archive's folder may be spelt another way (Django-5.2 for django==5.2).
    found = [d for d in glob.glob(os.path.join(cache, "*")) if os.path.isdir(d) and os.path.basename(d).lower() == f"{name}-{version}".lower()]
    if found and found[0] != src:
        os.rename(found[0], src)
    return src


def one_commit_repo(src: str, dest: str) -> str:
    """A fresh git repository at `dest` holding a copy of `src` in one commit on main; returns `dest`."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), (*IDENTITY, "commit", "-qm", "import")):
        git(dest, *args)
    return dest

