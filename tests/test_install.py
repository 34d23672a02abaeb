"""`graphguard install`: native git hooks, chained with the hooks that were there, run by real git commands."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard.commands.install import HOOK_TYPES, LEGACY_SUFFIX, MARKER
from tests.helpers import BREAK, FIX, GIT_LEAKS, LIB, GitRepo, Result, run_git, settled_meta

HOOKS = ("pre-commit", "pre-merge-commit", "pre-applypatch", "post-commit", "post-checkout", "post-merge", "post-rewrite")


Run = Callable[..., Result]


def hooks_dir(repo: GitRepo) -> Path:
    return repo.root / ".git" / "hooks"


def foreign_hook(path: Path, body: str, mode: int = 0o755) -> bytes:
    """Write a hook that is not graphguard's; return its bytes."""
    data = f"#!/bin/sh\n# someone else's hook\n{body}\n".encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)
    return data


def commit(
    repo: GitRepo, files: dict[str, str | None] | None = None, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Write, stage and `git commit` with the hooks; stdout holds everything the user saw."""
    if files:
        repo.write(files)
    repo.git("add", "-A")
    return run_git(repo, "commit", "-m", "change", *args, env=env)


@pytest.fixture
def hooked(make_repo: Callable[..., GitRepo], graphguard: Run) -> GitRepo:
    """A repository (with a space in its path) with graphguard's native hooks installed."""
    repo = make_repo(LIB, name="my repo")
    assert graphguard(repo, "install").code == 0
    return repo


# --- what install writes ------------------------------------------------------------------------


def test_writes_every_hook(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    r = graphguard(repo, "install")
    assert r.code == 0, r.err
    assert set(HOOK_TYPES) == set(HOOKS)
    for hook in HOOKS:
        path = hooks_dir(repo) / hook
        assert os.access(path, os.X_OK), hook
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n")
        assert MARKER in text
        assert f"HOOK_TYPE={hook}\n" in text
        # The interpreter graphguard runs with is baked in: no reliance on PATH.
        assert f"INSTALL_PYTHON={shlex.quote(sys.executable)}\n" in text
        assert "__" not in text.replace("__main__", "")  # every placeholder filled
        assert hook in r.out
    assert not list(hooks_dir(repo).glob("*" + LEGACY_SUFFIX))


def test_honours_a_relative_core_hooks_path(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    repo.git("config", "core.hooksPath", ".githooks")
    # Run from a subdirectory: the relative path is the work tree's, not the current directory's.
    assert graphguard(repo.root / "pkg", "install").code == 0
    for hook in HOOKS:
        assert (repo.root / ".githooks" / hook).is_file(), hook
        assert not (hooks_dir(repo) / hook).exists(), hook
        assert not (repo.root / "pkg" / ".githooks").exists()
    # and git runs them from there
    proc = commit(repo, BREAK)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout


def test_honours_an_absolute_core_hooks_path(make_repo: Callable[..., GitRepo], graphguard: Run, tmp_path: Path) -> None:
    repo = make_repo(LIB)
    shared = tmp_path / "shared hooks"
    repo.git("config", "core.hooksPath", str(shared))
    assert graphguard(repo, "install").code == 0
    assert sorted(p.name for p in shared.iterdir()) == sorted(HOOKS)


def test_installing_twice_is_idempotent(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    first = {h: (hooks_dir(repo) / h).read_bytes() for h in HOOKS}
    r = graphguard(repo, "install")
    assert r.code == 0
    assert {h: (hooks_dir(repo) / h).read_bytes() for h in HOOKS} == first
    # It recognised its own scripts: nothing was kept as a "legacy" hook.
    assert not list(hooks_dir(repo).glob("*" + LEGACY_SUFFIX))
    assert "kept the existing" not in r.out


def test_uninstall_without_previous_hooks_removes_them(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    r = graphguard(repo, "install", "--uninstall")
    assert r.code == 0
    for hook in HOOKS:
        assert not (hooks_dir(repo) / hook).exists()
    # git's own samples are untouched
    assert (hooks_dir(repo) / "pre-commit.sample").exists()


def test_uninstall_leaves_a_hook_that_replaced_ours(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    data = foreign_hook(hooks_dir(repo) / "post-merge", "exit 0")
    assert graphguard(repo, "install", "--uninstall").code == 0
    assert (hooks_dir(repo) / "post-merge").read_bytes() == data


# --- chaining a hook that was there -------------------------------------------------------------


def test_existing_hook_is_kept_and_restored_byte_for_byte(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    hooks = hooks_dir(repo)
    pre = foreign_hook(hooks / "pre-commit", "echo legacy pre-commit ran\nexit 0")
    merge = foreign_hook(hooks / "post-merge", "exit 0", mode=0o700)
    r = graphguard(repo, "install")
    assert r.code == 0
    assert "kept the existing pre-commit hook" in r.out
    assert (hooks / ("pre-commit" + LEGACY_SUFFIX)).read_bytes() == pre
    assert (hooks / ("post-merge" + LEGACY_SUFFIX)).read_bytes() == merge
    assert MARKER in (hooks / "pre-commit").read_text()
    # Installing again keeps the legacy hook as it was (ours is not mistaken for it).
    assert graphguard(repo, "install").code == 0
    assert (hooks / ("pre-commit" + LEGACY_SUFFIX)).read_bytes() == pre

    r = graphguard(repo, "install", "--uninstall")
    assert r.code == 0
    assert (hooks / "pre-commit").read_bytes() == pre
    assert (hooks / "post-merge").read_bytes() == merge
    assert stat.S_IMODE((hooks / "post-merge").stat().st_mode) == 0o700
    assert not list(hooks.glob("*" + LEGACY_SUFFIX))
    for hook in ("post-commit", "post-checkout", "post-rewrite"):
        assert not (hooks / hook).exists()


def test_symlinked_hooks_are_chained_and_restored_not_written_through(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**LIB, "scripts/check.sh": "#!/bin/sh\necho linked hook ran\n"})
    (repo.root / "scripts" / "check.sh").chmod(0o755)
    hooks = hooks_dir(repo)
    (hooks / "pre-commit").symlink_to("../../scripts/check.sh")
    (hooks / "post-merge").symlink_to("../../scripts/gone.sh")  # dangling
    assert graphguard(repo, "install").code == 0
    # Nothing was written through the links.
    assert (repo.root / "scripts" / "check.sh").read_text() == "#!/bin/sh\necho linked hook ran\n"
    assert not (repo.root / "scripts" / "gone.sh").exists()
    assert os.readlink(hooks / ("pre-commit" + LEGACY_SUFFIX)) == "../../scripts/check.sh"
    assert os.readlink(hooks / ("post-merge" + LEGACY_SUFFIX)) == "../../scripts/gone.sh"
    assert MARKER in (hooks / "pre-commit").read_text()
    proc = commit(repo, {**BREAK, **FIX})  # a complete refactor: passes (FIX alone is f(1, 2) for def f(a): a broken new call)
    assert proc.returncode == 0, proc.stdout
    assert "linked hook ran" in proc.stdout

    assert graphguard(repo, "install", "--uninstall").code == 0
    assert os.readlink(hooks / "pre-commit") == "../../scripts/check.sh"
    assert os.readlink(hooks / "post-merge") == "../../scripts/gone.sh"
    assert (repo.root / "scripts" / "check.sh").read_text() == "#!/bin/sh\necho linked hook ran\n"


def test_reinstall_over_another_tools_hook_never_loses_the_kept_one(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """install (the user's hook is kept) -> another tool overwrites ours -> install again."""
    repo = make_repo(LIB)
    hooks = hooks_dir(repo)
    mine = foreign_hook(hooks / "pre-commit", "echo mine")
    assert graphguard(repo, "install").code == 0
    theirs = foreign_hook(hooks / "pre-commit", "echo another tool")
    r = graphguard(repo, "install")
    assert r.code == 2
    assert len(r.err.strip().splitlines()) == 1 and LEGACY_SUFFIX in r.err
    assert (hooks / ("pre-commit" + LEGACY_SUFFIX)).read_bytes() == mine
    assert (hooks / "pre-commit").read_bytes() == theirs


def test_first_commit_of_an_empty_repository(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(None)
    assert graphguard(repo, "install").code == 0
    proc = commit(repo, LIB)
    assert proc.returncode == 0, proc.stdout
    assert settled_meta(repo) == repo.head


def test_existing_pre_commit_hook_runs_first(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    foreign_hook(hooks_dir(repo) / "pre-commit", "echo legacy pre-commit ran\nexit 0")
    assert graphguard(repo, "install").code == 0
    proc = commit(repo, BREAK)
    assert proc.returncode != 0, proc.stdout
    assert "legacy pre-commit ran" in proc.stdout and "BLOCK" in proc.stdout
    assert proc.stdout.index("legacy pre-commit ran") < proc.stdout.index("BLOCK")


def test_failing_existing_pre_commit_hook_stops_the_commit(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    foreign_hook(hooks_dir(repo) / "pre-commit", "echo legacy says no\nexit 3")
    assert graphguard(repo, "install").code == 0
    before = repo.head
    proc = commit(repo, {"pkg/other.py": "def o():\n    return 0\n"})
    assert proc.returncode != 0
    assert "legacy says no" in proc.stdout
    assert "graphguard: pass" not in proc.stdout  # graphguard's check did not even run
    assert repo.head == before


def test_failing_existing_pre_merge_commit_hook_stops_the_merge(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(LIB)
    foreign_hook(hooks_dir(repo) / "pre-merge-commit", "echo legacy merge check says no\nexit 3")
    assert graphguard(repo, "install").code == 0
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("topic", {"pkg/other.py": "def o():\n    return 0\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"pkg/more.py": "def m():\n    return 1\n"})
    before = repo.head
    proc = run_git(repo, "merge", "--no-edit", "topic")
    assert proc.returncode != 0
    assert "legacy merge check says no" in proc.stdout
    assert "graphguard: pass" not in proc.stdout
    assert repo.head == before


def test_existing_post_hooks_get_their_arguments_and_stdin(make_repo: Callable[..., GitRepo], graphguard: Run, tmp_path: Path) -> None:
    repo = make_repo(LIB)
    log = tmp_path / "legacy.log"
    foreign_hook(hooks_dir(repo) / "post-checkout", f'echo "post-checkout $*" >> "{log}"')
    # The usual way to read post-rewrite's mapping: `read` drops a last line without its newline.
    foreign_hook(
        hooks_dir(repo) / "post-rewrite",
        f'echo "post-rewrite $*" >> "{log}"\nwhile read old new extra; do echo "rewrote $old $new" >> "{log}"; done',
    )
    assert graphguard(repo, "install").code == 0
    first = repo.head
    assert run_git(repo, "checkout", "-q", "-b", "x").returncode == 0
    proc = run_git(repo, "commit", "--amend", "-m", "amended")
    assert proc.returncode == 0, proc.stdout
    lines = log.read_text().splitlines()
    assert f"post-checkout {first} {first} 1" in lines
    assert "post-rewrite amend" in lines
    assert f"rewrote {first} {repo.head}" in lines
    # and graphguard's own post-rewrite refreshed the graph
    assert settled_meta(repo) == repo.head


def test_existing_post_checkout_hook_keeps_its_exit_status(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    """git checkout returns post-checkout's status: chained, the old hook's failure still shows; graphguard still refreshes."""
    repo = make_repo(LIB)
    foreign_hook(hooks_dir(repo) / "post-checkout", "echo old hook failed\nexit 3")
    without_graphguard = run_git(repo, "checkout", "-q", "-b", "before").returncode
    assert without_graphguard != 0
    assert graphguard(repo, "install").code == 0
    first = repo.head
    repo.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", "two")
    proc = run_git(repo, "checkout", "-q", first)
    assert proc.returncode == without_graphguard, proc.stdout
    assert "old hook failed" in proc.stdout
    assert settled_meta(repo) == first == repo.head


# --- real git commands with the installed hooks -------------------------------------------------


def test_breaking_commit_is_rejected_and_a_fine_one_passes(hooked: GitRepo) -> None:
    before = hooked.head
    proc = commit(hooked, BREAK)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout
    assert "BLOCK" in proc.stdout
    assert hooked.head == before

    proc = commit(hooked, FIX)
    assert proc.returncode == 0, proc.stdout
    assert hooked.head != before
    assert "graphguard: pass" in proc.stdout
    # post-commit brought the graph to the new commit
    assert settled_meta(hooked) == hooked.head


@pytest.mark.parametrize("how", ["-a", "pathspec"])
def test_commit_all_and_partial_commit_are_checked(hooked: GitRepo, how: str) -> None:
    """`git commit -a` and `git commit PATH` use a temporary index: the check reads that one."""
    hooked.write(BREAK)
    args = ["commit", "-a", "-m", "x"] if how == "-a" else ["commit", "-m", "x", "pkg/mod.py"]
    before = hooked.head
    proc = run_git(hooked, *args)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout
    assert hooked.head == before


@pytest.mark.slow
def test_branch_checkout_and_merge_refresh_the_graph(hooked: GitRepo) -> None:
    assert run_git(hooked, "checkout", "-q", "-b", "x").returncode == 0
    assert commit(hooked, {"pkg/b.py": "from pkg.mod import f\n\n\ndef b():\n    return f(2)\n"}).returncode == 0
    assert settled_meta(hooked) == hooked.head

    proc = run_git(hooked, "checkout", "-q", "main")
    assert proc.returncode == 0, proc.stdout
    assert settled_meta(hooked) == hooked.head == hooked.git("rev-parse", "main")

    assert commit(hooked, {"pkg/c.py": "def c():\n    return 3\n"}).returncode == 0
    proc = run_git(hooked, "merge", "--no-edit", "x")
    assert proc.returncode == 0, proc.stdout
    assert len(hooked.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3  # a merge commit
    assert settled_meta(hooked) == hooked.head


@pytest.mark.slow
def test_amend_refreshes_through_post_rewrite(hooked: GitRepo) -> None:
    assert commit(hooked, {"pkg/b.py": "def b():\n    return 2\n"}).returncode == 0
    # Without post-commit, only post-rewrite can bring the graph to the amended commit.
    (hooks_dir(hooked) / "post-commit").unlink()
    hooked.write({"pkg/b.py": "def b(x=0):\n    return x\n"})
    hooked.git("add", "-A")
    before = hooked.head
    proc = run_git(hooked, "commit", "--amend", "-m", "amended")
    assert proc.returncode == 0, proc.stdout
    assert hooked.head != before
    assert settled_meta(hooked) == hooked.head


def _path_without_graphguard() -> str:
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not shutil.which("graphguard", path=d)]
    dirs = [d for d in dirs if Path(d).resolve() != Path(sys.executable).parent.resolve()]
    path = os.pathsep.join(dirs)
    assert shutil.which("graphguard", path=path) is None
    assert shutil.which("git", path=path) is not None
    return path


def test_hook_finds_graphguard_without_path(hooked: GitRepo) -> None:
    env = {**os.environ, "PATH": _path_without_graphguard()}
    proc = commit(hooked, BREAK, env=env)
    assert proc.returncode != 0, proc.stdout
    assert "pkg/use.py:5" in proc.stdout
    assert "not found" not in proc.stdout


def test_hook_without_graphguard_lets_the_commit_through_with_a_message(hooked: GitRepo) -> None:
    """The interpreter graphguard was installed with is gone and graphguard is not on PATH."""
    hook = hooks_dir(hooked) / "pre-commit"
    hook.write_text(hook.read_text().replace(shlex.quote(sys.executable), "/nonexistent/python3"))
    env = {**os.environ, "PATH": _path_without_graphguard()}
    proc = commit(hooked, BREAK, env=env)
    assert proc.returncode == 0, proc.stdout
    assert "graphguard: not found" in proc.stdout
    assert "graphguard install" in proc.stdout


def test_install_refuses_an_interpreter_that_finds_graphguard_only_through_pythonpath(
    make_repo: Callable[..., GitRepo], tmp_path: Path,
) -> None:
    # The hooks start their interpreter with -E (an empty PYTHONPATH entry would be the repository), so a
    # graphguard reachable only through PYTHONPATH would fail every commit: install says so and writes nothing.
    import sysconfig
    import venv

    repo = make_repo(LIB)
    bare = tmp_path / "bare-venv"
    venv.create(bare, with_pip=False)
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1]), sysconfig.get_paths()["purelib"]])
    proc = subprocess.run([str(bare / "bin" / "python"), "-m", "graphguard", "install"], cwd=repo.root, env=env,
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "-E" in proc.stderr and "PYTHONPATH" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (repo.root / ".git" / "hooks" / "pre-commit").exists()


def test_hooks_run_a_graphguard_installed_in_the_user_site_whatever_pythonpath_says(
    make_repo: Callable[..., GitRepo], tmp_path: Path,
) -> None:
    # -E, not -I: the user site-packages (`pip install --user`) stays on the hooks' sys.path.
    import sysconfig

    base = getattr(sys, "_base_executable", sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    env["HOME"] = str(tmp_path / "home")
    where = subprocess.run([base, "-s", "-c", "import site; print(site.getusersitepackages())"], env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    user_site = Path(where)
    user_site.mkdir(parents=True)
    # What `pip install --user graphguard` leaves there: the package and its dependencies, importable.
    (user_site / "graphguard-under-test.pth").write_text(f"{Path(__file__).parents[1]}\n{sysconfig.get_paths()['purelib']}\n")
    repo = make_repo(LIB)
    proc = subprocess.run([base, "-m", "graphguard", "install"], cwd=repo.root, env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"INSTALL_PYTHON={shlex.quote(base)}" in (repo.root / ".git" / "hooks" / "pre-commit").read_text()
    repo.write(BREAK)
    repo.git("add", "-A")
    proc = run_git(repo, "commit", "-m", "brk", env={**env, "PYTHONPATH": ":" + str(tmp_path)})
    assert proc.returncode == 1, proc.stdout
    assert "pkg/use.py:5" in proc.stdout


# --- the first index ------------------------------------------------------------------------------


def _many(n: int) -> dict[str, str]:
    return {"pkg/__init__.py": "", **{f"pkg/m{i}.py": f"def f{i}(x):\n    return x\n" for i in range(n)}}


def test_install_starts_the_first_index_in_the_background(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    from tests.helpers import refresher_running, stored_meta, wait_for_refresher

    repo = make_repo(_many(60))
    r = graphguard(repo, "install")
    assert r.code == 0, r.err
    assert "building the graph in the background (its log:" in r.out and "waits for it and says so" in r.out
    assert wait_for_refresher(repo)
    assert stored_meta(repo) == repo.head
    # Installed again with the graph there: nothing more to start.
    assert "building the graph" not in graphguard(repo, "install").out
    # A small repository's first commit indexes it at once: nothing started.
    small = make_repo(LIB)
    assert "building the graph" not in graphguard(small, "install").out and not refresher_running(small)


def test_a_commit_that_builds_the_first_graph_says_why_and_shows_progress_without_a_terminal(
        make_repo: Callable[..., GitRepo], graphguard: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHGUARD_REFRESH", "foreground")
    repo = make_repo(_many(80))
    r = graphguard(repo, "install")
    assert "no graph yet: run graphguard index now, or the first commit builds it" in r.out
    proc = commit(repo, {"pkg/m0.py": "def f0(x, y=1):\n    return x\n"})  # stderr is a pipe here, as in an IDE
    assert proc.returncode == 0, proc.stdout
    assert "graphguard: no graph of this repository yet: building it from 81 files, once" in proc.stdout
    assert "graphguard: parsing 0/81\n" in proc.stdout and "graphguard: parsing 81/81 in " in proc.stdout
    assert "\r" not in proc.stdout and "\x1b[K" not in proc.stdout


# --- the post-* hooks' fast start -------------------------------------------------------------------


def test_post_checkout_hook_starts_without_site_and_finds_the_dependencies_when_it_needs_them(
        make_repo: Callable[..., GitRepo], graphguard: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.helpers import stored_meta, wait_for_refresher

    repo = make_repo(LIB)
    assert graphguard(repo, "install").code == 0
    hook = (repo.root / ".git" / "hooks" / "post-checkout").read_text()
    assert '-E -S -c "$RUN_POST"' in hook and f"GRAPHGUARD_HOME={shlex.quote(str(Path(__file__).parents[1]))}" in hook
    repo.git("checkout", "-q", "-b", "other")
    repo.write(FIX)
    repo.git("-c", "core.hooksPath=/dev/null", "commit", "-qam", "other side")
    moved = repo.head
    # Foreground: the refresh parses in the hook's process, whose sys.path lacked site-packages (tree-sitter).
    monkeypatch.setenv("GRAPHGUARD_REFRESH", "foreground")
    proc = run_git(repo, "checkout", "-q", "main")
    assert proc.returncode == 0 and "graphguard" not in proc.stdout, proc.stdout
    assert stored_meta(repo) == repo.head != moved
    # Background: the hook's process imports only graphguard; the refresher brings the graph over.
    monkeypatch.delenv("GRAPHGUARD_REFRESH")
    proc = run_git(repo, "checkout", "-q", "other")
    assert proc.returncode == 0 and "graphguard" not in proc.stdout, proc.stdout
    assert wait_for_refresher(repo) and stored_meta(repo) == moved
