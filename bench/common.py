"""What the bench scripts share: git in a repository, a graphguard version launched, an sdist made a one-commit
repository, the load line.

A script imports it as `from common import ...` (run as `python bench/x.py`, bench/ is first on sys.path).
"""

from __future__ import annotations

import glob
import os
import resource
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Sequence

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


# A version's folder goes first on sys.path, ahead of the working directory: `python -m graphguard` and `-c` put that
# first (a checkout's own graphguard/ would answer), and PYTHONPATH comes after it. An editable install's finder
# (setuptools' __editable__ on sys.meta_path) comes off too: it hands out the installed package's module for any
# graphguard.X the folder lacks, mixing two versions without a word. The working directory (the analysed repository)
# stays off sys.path, as graphguard/__main__.py takes it off, and the package found is checked to be the folder's.
#: The exit code of a launch that found another graphguard: none of graphguard's own (0, 1, 2, 130).
WRONG_PACKAGE = 3
FIRST = ("""import os, sys
_src = sys.argv.pop(1)
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]
sys.path.insert(0, _src)
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
import graphguard
if not os.path.abspath(graphguard.__file__).startswith(os.path.join(_src, "graphguard", "")):
    sys.stderr.write(f"bench: graphguard came from {graphguard.__file__}, not from {_src}\\n")
""" f"    raise SystemExit({WRONG_PACKAGE})\n")
# What `python -m graphguard` does after its sys.path line (graphguard/__main__.py).
MAIN = """os.environ.setdefault("PYTHONSAFEPATH", "1")
from graphguard.main import main
raise SystemExit(main(sys.argv[1:]))
"""


def graphguard_argv(src: str | os.PathLike[str] | None, python: str = sys.executable,
                    flags: Sequence[str] = ()) -> list[str]:
    """The command line of `python -m graphguard` for the graphguard package in folder `src` (one holding a
    `graphguard/`, e.g. `git archive REV graphguard | tar -x -C SRC`), its arguments to be appended; with no
    `src`, the one `python` has installed. `flags` go to the interpreter (-I, -P)."""
    if not src:
        return [python, *flags, "-m", "graphguard"]
    return graphguard_code_argv(src, MAIN, python, flags)


def graphguard_code_argv(src: str | os.PathLike[str] | None, code: str, python: str = sys.executable,
                         flags: Sequence[str] = ()) -> list[str]:
    """The command line of `python -c CODE` with the graphguard package of folder `src` first on sys.path (as in
    graphguard_argv), its arguments to be appended; with no `src`, the installed one. A folder without a
    graphguard package stops the bench here, before the first run (the installed one would not stand in)."""
    if not src:
        return [python, *flags, "-c", code]
    folder = os.path.abspath(os.fspath(src))
    if not os.path.isfile(os.path.join(folder, "graphguard", "__init__.py")):
        raise SystemExit(f"{folder} holds no graphguard package (git archive REV graphguard | tar -x -C {folder})")
    _compiled(folder, python)
    return [python, *flags, "-c", FIRST + code, folder]


def _compiled(folder: str, python: str) -> None:
    """Byte-compile a version's package once, as an install does: a fresh `git archive` has no __pycache__, and with
    PYTHONDONTWRITEBYTECODE set (as on some machines) every run would compile every module again (0.1-0.2 s of a
    hook's time), charged to the version with more modules."""
    if (folder, python) in _COMPILED:
        return
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([python, "-m", "compileall", "-q", os.path.join(folder, "graphguard")], env=env, check=True,
                   capture_output=True)
    _COMPILED.add((folder, python))


_COMPILED: set[tuple[str, str]] = set()


def children_cpu() -> float:
    """CPU seconds of the waited-for child processes so far (user + system): a run's cost is the difference."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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

