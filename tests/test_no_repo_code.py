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
    _f.write("\\n".join(_sys.argv))
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
    _f.write("\\n".join(_sys.argv))
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


def is_graphguard(argv: list[str]) -> bool:
    """Whether a process is graphguard's, by what it runs (never by a folder name in its paths: a clone of this
    project is itself a folder named graphguard): the console script, `python -m graphguard`, the refresher."""
    program = Path(argv[0])
    return (program.name == "graphguard" or (program.name == "__main__.py" and program.parent.name == "graphguard")
            or argv[:2] == ["-c", "graphguard-refresher"])


def fired(sentinels: Path, only_graphguard: bool = False) -> list[str]:
    """Sentinels written (by a graphguard process only, if asked): 'module: argv'."""
    out = []
    for p in sorted(sentinels.iterdir()):
        argv = p.read_text().split("\n")  # one argument a line: a path may hold spaces
        if not only_graphguard or is_graphguard(argv):
            out.append(f"{p.name}: {' '.join(argv)}")
    return out


def test_a_graphguard_process_is_known_by_its_program_not_by_a_folder_named_graphguard() -> None:
    clone = "/home/dev/graphguard"  # what `git clone` of this project gives
    assert is_graphguard([f"{clone}/.venv/bin/graphguard", "check"])
    assert is_graphguard([f"{clone}/graphguard/__main__.py", "check", "--staged"])
    assert is_graphguard(["-c", "graphguard-refresher", f"{clone}/repo", "post-commit", "3"])
    assert not is_graphguard([f"{clone}/.venv/lib/python3.11/site-packages/pre_commit/__main__.py", "hook-impl"])
    assert not is_graphguard([f"{clone}/repo/.git/hooks/pre-commit", "--", "graphguard"])


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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# --- PYTHONPATH entries that name the repository ----------------------------------------------------
# `PYTHONPATH=$PYTHONPATH:$HOME/lib` with an empty PYTHONPATH gives an empty first entry, which Python
# reads as the current directory, as it does `.`: inside a hook, that is the analysed repository.

#: id -> PYTHONPATH ({lib} is a real folder outside the repository, as $HOME/lib would be).
HOSTILE_PYTHONPATHS = {"empty-entry": ":{lib}", "dot": "."}

# Imported by `site` while the interpreter starts, from anywhere on sys.path, before the program's first line.
CUSTOMIZE = """\
import os as _os, sys as _sys
with open(_os.path.join({sentinels!r}, "{name}-%d" % _os.getpid()), "w") as _f:
    _f.write("\\n".join(_sys.argv))
"""


def _customize_files(sentinels: Path) -> dict[str, str]:
    return {f"{name}.py": CUSTOMIZE.format(sentinels=str(sentinels), name=name) for name in ("sitecustomize", "usercustomize")}


def hostile_env(pythonpath: str, tmp_path: Path) -> dict[str, str]:
    lib = tmp_path / "home-lib"
    lib.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    env["PYTHONPATH"] = pythonpath.format(lib=lib)
    return env


def commit_with(repo: GitRepo, files: dict[str, str | None], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    repo.write(files)
    repo.git("add", "-A")
    return run_git(repo, "commit", "-m", "change", env=env)


pythonpaths = pytest.mark.parametrize("pythonpath", list(HOSTILE_PYTHONPATHS.values()), ids=list(HOSTILE_PYTHONPATHS))


@pytest.mark.slow
@pythonpaths
def test_native_hooks_and_the_refresher_ignore_a_pythonpath_that_names_the_repository(
    make_repo: Callable[..., GitRepo], graphguard: Run, sentinels: Path, tmp_path: Path, pythonpath: str,
) -> None:
    repo = trapped_repo(make_repo, sentinels, _customize_files(sentinels))
    assert graphguard(repo, "install").code == 0
    env = hostile_env(pythonpath, tmp_path)
    proc = commit_with(repo, BREAK, env)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout and "BLOCK" in proc.stdout
    proc = commit_with(repo, FIX, env)  # pre-commit passes; post-commit starts the refresher, in the same environment
    assert proc.returncode == 0, proc.stdout
    assert run_git(repo, "checkout", "-q", "-b", "side", env=env).returncode == 0
    assert wait_for_refresher(repo)
    assert "graph at" in (repo.graph_path.parent / "refresh.log").read_text()
    assert fired(sentinels) == []


@pytest.mark.slow
@pythonpaths
def test_console_script_drops_pythonpath_entries_that_name_the_repository_before_its_imports(
    make_repo: Callable[..., GitRepo], sentinels: Path, tmp_path: Path, pythonpath: str,
) -> None:
    # What Python itself imports before the console script's first line (sitecustomize, the graphguard
    # package, what the .pth files of site-packages import: an editable install's finder imports pathlib
    # and fnmatch) cannot be kept out from inside: see the next test for the way to run it that can.
    probe = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"], cwd=tmp_path,
                           capture_output=True, text=True, check=True)
    at_start = set(probe.stdout.split())
    repo = make_repo({**LIB, **{k: v for k, v in _trap_files(sentinels).items()
                                if not k.startswith("graphguard/") and k.removesuffix(".py") not in at_start}})
    repo.write(BREAK)
    repo.git("add", "-A")
    script = Path(sys.executable).parent / "graphguard"
    env = hostile_env(pythonpath, tmp_path)
    for args, code, says in ((["check", "--staged"], 1, "pkg/use.py:5"), (["callers", "pkg.mod.f"], 0, "pkg/use.py:5"),
                             (["index"], 0, "graph"), (["stats"], 0, "files")):
        proc = subprocess.run([str(script), *args], cwd=repo.root, capture_output=True, text=True, env=env, check=False)
        assert proc.returncode == code, proc.stdout + proc.stderr
        assert says in proc.stdout + proc.stderr, args
        assert fired(sentinels) == [], args


def test_console_script_says_which_repository_files_python_ran_before_it(
    make_repo: Callable[..., GitRepo], sentinels: Path, tmp_path: Path,
) -> None:
    repo = make_repo({**LIB, **_customize_files(sentinels)})
    script = Path(sys.executable).parent / "graphguard"
    proc = subprocess.run([str(script), "stats"], cwd=repo.root, capture_output=True, text=True,
                          env=hostile_env(":{lib}", tmp_path), check=False)
    assert proc.returncode == 0, proc.stderr
    assert "imported sitecustomize" in proc.stderr and "python -I -m graphguard" in proc.stderr
    # Python's start ran them (usercustomize only where the user site is on), nothing of graphguard's
    assert "sitecustomize" in {s.split("-")[0] for s in fired(sentinels)} <= {"sitecustomize", "usercustomize"}


@pythonpaths
def test_python_isolated_m_graphguard_runs_nothing_of_the_repository(
    make_repo: Callable[..., GitRepo], sentinels: Path, tmp_path: Path, pythonpath: str,
) -> None:
    # The way to start graphguard by hand that nothing in the repository can shadow (the README's advice).
    repo = trapped_repo(make_repo, sentinels, _customize_files(sentinels))
    repo.write(BREAK)
    repo.git("add", "-A")
    proc = subprocess.run([sys.executable, "-I", "-m", "graphguard", "check", "--staged"], cwd=repo.root,
                          capture_output=True, text=True, env=hostile_env(pythonpath, tmp_path), check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "pkg/use.py:5" in proc.stdout
    assert fired(sentinels) == []


@pytest.mark.slow
@pythonpaths
def test_pre_commit_framework_hooks_ignore_a_pythonpath_that_names_the_repository(
    make_repo: Callable[..., GitRepo], hook_repo: tuple[Path, str], pre_commit_home: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch, sentinels: Path, tmp_path: Path, pythonpath: str,
) -> None:
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    repo = trapped_repo(make_repo, sentinels, {**_customize_files(sentinels),
                                               ".pre-commit-config.yaml": _config(hook_repo, install_types=ALL_TYPES)})
    _run([sys.executable, "-m", "pre_commit", "install"], repo.root, dict(os.environ))
    env = hostile_env(pythonpath, tmp_path)
    proc = commit_with(repo, BREAK, env)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout
    proc = commit_with(repo, FIX, env)
    assert proc.returncode == 0, proc.stdout
    assert wait_for_refresher(repo)
    assert "graph at" in (repo.graph_path.parent / "refresh.log").read_text()
    # The framework's own interpreter runs the repository's sitecustomize.py (not graphguard's to prevent).
    assert fired(sentinels, only_graphguard=True) == []
