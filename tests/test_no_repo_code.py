"""No file of the analysed repository is ever imported, from any entry point.

The repository holds modules named like graphguard's own package and like what it
imports (stdlib and dependencies). Each writes a sentinel file when imported, named
after itself, holding the importing process's argv. The check must still run: a
broken caller still blocks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import BREAK, FIX, GIT_LEAKS, LIB, GitRepo, Result, run_git, wait_for_refresher
from tests.test_precommit import _config, _run, hook_repo, pre_commit_home  # noqa: F401  (fixtures)

Run = Callable[..., Result]

#: Top-level modules graphguard (or the interpreter running it) imports after start-up.
SHADOWED = ("sqlite3", "tree_sitter", "libcst", "json", "subprocess", "hashlib", "argparse", "dataclasses",
            "tomllib", "tomli", "shlex", "typing", "pathspec", "fnmatch", "tempfile")

# Writes the sentinel, then turns into the real module, so that another program that imports
# it from the repository (the pre-commit framework's own `python -m pre_commit`) keeps working.
SHADOW = """\
import os as _os, sys as _sys
with open(_os.path.join({sentinels!r}, "{name}-%d" % _os.getpid()), "w") as _f:
    _f.write(" ".join(_sys.argv))
_here = _os.path.dirname(_os.path.abspath(__file__))
_sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") != _here]
del _sys.modules[__name__]
import importlib as _importlib
_sys.modules[__name__] = _importlib.import_module(__name__)
"""

# graphguard's own names: nothing else imports them, so they only write the sentinel and fail loudly.
OWN = """\
import os as _os, sys as _sys
with open(_os.path.join({sentinels!r}, "{name}-%d" % _os.getpid()), "w") as _f:
    _f.write(" ".join(_sys.argv))
raise SystemExit("repository code ran: {name}")
"""


def _trap_files(sentinels: Path) -> dict[str, str]:
    files = {f"{name}.py": SHADOW.format(sentinels=str(sentinels), name=name) for name in SHADOWED}
    for rel, name in (("graphguard/__init__.py", "graphguard"), ("graphguard/__main__.py", "graphguard.__main__"),
                      ("graphguard/main.py", "graphguard.main")):
        files[rel] = OWN.format(sentinels=str(sentinels), name=name)
    return files


@pytest.fixture
def sentinels(tmp_path: Path) -> Path:
    path = tmp_path / "sentinels"
    path.mkdir()
    return path


def fired(sentinels: Path, only_graphguard: bool = False) -> list[str]:
    """Sentinels written (by a graphguard process only, if asked): 'module: argv'."""
    out = []
    for p in sorted(sentinels.iterdir()):
        argv = p.read_text()
        if not only_graphguard or "graphguard" in argv:
            out.append(f"{p.name}: {argv}")
    return out


def trapped_repo(make_repo: Callable[..., GitRepo], sentinels: Path, extra: dict[str, str] | None = None) -> GitRepo:
    """The library with one caller, beside the trap modules, all committed."""
    repo = make_repo({**LIB, **_trap_files(sentinels), **(extra or {})}, name="trapped repo")
    assert fired(sentinels) == []  # committing ran nothing
    return repo


def commit(repo: GitRepo, files: dict[str, str | None], msg: str = "change") -> subprocess.CompletedProcess[str]:
    repo.write(files)
    repo.git("add", "-A")
    return run_git(repo, "commit", "-m", msg)


def merge_a_branch(repo: GitRepo) -> None:
    """Branch `topic` and main each gain a file; main merges topic (pre-merge-commit, post-merge)."""
    assert run_git(repo, "checkout", "-q", "-b", "topic").returncode == 0
    assert commit(repo, {"pkg/b.py": "def b():\n    return 2\n"}).returncode == 0
    assert run_git(repo, "checkout", "-q", "main").returncode == 0
    assert commit(repo, {"pkg/c.py": "def c():\n    return 3\n"}).returncode == 0
    proc = run_git(repo, "merge", "--no-edit", "topic")
    assert proc.returncode == 0, proc.stdout


def test_native_hooks_never_import_repository_code(make_repo: Callable[..., GitRepo], graphguard: Run, sentinels: Path) -> None:
    repo = trapped_repo(make_repo, sentinels)
    assert graphguard(repo, "install").code == 0
    # pre-commit: the check really ran (it blocks the broken caller) and imported nothing of the repository
    proc = commit(repo, BREAK)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout and "BLOCK" in proc.stdout
    assert fired(sentinels) == []
    # pre-commit passes, post-commit refreshes
    proc = commit(repo, FIX)
    assert proc.returncode == 0, proc.stdout
    # post-checkout, then a real merge (pre-merge-commit, post-merge), then a rebase (post-rewrite)
    merge_a_branch(repo)
    assert len(repo.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    assert run_git(repo, "checkout", "-q", "-b", "side", "HEAD~1").returncode == 0
    assert commit(repo, {"pkg/d.py": "def d():\n    return 4\n"}).returncode == 0
    proc = run_git(repo, "rebase", "main")
    assert proc.returncode == 0, proc.stdout
    assert wait_for_refresher(repo)  # the post-* hooks' background refresher ran in the repository too
    assert "graph at" in (repo.graph_path.parent / "refresh.log").read_text()
    assert fired(sentinels) == []


def test_console_script_never_imports_repository_code(make_repo: Callable[..., GitRepo], sentinels: Path) -> None:
    repo = trapped_repo(make_repo, sentinels)
    repo.write(BREAK)
    repo.git("add", "-A")
    script = Path(sys.executable).parent / "graphguard"
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    proc = subprocess.run([str(script), "check", "--staged"], cwd=repo.root, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "pkg/use.py:5" in proc.stdout
    assert fired(sentinels) == []


def test_python_m_graphguard_drops_the_repository_from_sys_path(make_repo: Callable[..., GitRepo], sentinels: Path) -> None:
    # `python -m graphguard` in a repository with its own graphguard/ package runs that package (python
    # imports it before any of our code): only modules imported later can be kept out, and are.
    repo = make_repo({**LIB, **{k: v for k, v in _trap_files(sentinels).items() if not k.startswith("graphguard/")}})
    repo.write(BREAK)
    repo.git("add", "-A")
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    proc = subprocess.run([sys.executable, "-m", "graphguard", "check", "--staged"], cwd=repo.root,
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert fired(sentinels) == []


ALL_TYPES = "[pre-commit, pre-merge-commit, post-commit, post-checkout, post-merge, post-rewrite]"


def test_pre_commit_framework_hooks_never_import_repository_code(
    make_repo: Callable[..., GitRepo], hook_repo: tuple[Path, str], pre_commit_home: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch, sentinels: Path,
) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    repo = trapped_repo(make_repo, sentinels, {".pre-commit-config.yaml": _config(hook_repo, install_types=ALL_TYPES)})
    _run([sys.executable, "-m", "pre_commit", "install"], repo.root, dict(os.environ))
    assert (repo.root / ".git" / "hooks" / "pre-merge-commit").is_file()
    proc = commit(repo, BREAK)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout
    assert commit(repo, FIX).returncode == 0
    merge_a_branch(repo)
    assert wait_for_refresher(repo)
    assert "graph at" in (repo.graph_path.parent / "refresh.log").read_text()
    # The framework's own `python -m pre_commit` does import the repository's json.py (its problem,
    # not graphguard's: the trap lets it go on); no graphguard process may.
    assert fired(sentinels, only_graphguard=True) == []


def test_pre_commit_framework_pre_merge_commit_checks_a_merge_against_each_parent(
    make_repo: Callable[..., GitRepo], hook_repo: tuple[Path, str], pre_commit_home: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.test_edge_verdicts import BASE, BRANCH, MAIN

    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    repo = make_repo({**BASE, ".pre-commit-config.yaml": _config(hook_repo, install_types=ALL_TYPES)})
    _run([sys.executable, "-m", "pre_commit", "install"], repo.root, dict(os.environ))
    assert run_git(repo, "checkout", "-q", "-b", "topic").returncode == 0
    assert commit(repo, BRANCH).returncode == 0
    assert run_git(repo, "checkout", "-q", "main").returncode == 0
    assert commit(repo, MAIN).returncode == 0  # each side passes on its own
    before = repo.head
    proc = run_git(repo, "merge", "--no-edit", "topic")
    assert proc.returncode != 0, proc.stdout
    assert repo.head == before
    assert "pkg/added.py:5" in proc.stdout
