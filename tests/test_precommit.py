"""The real pre-commit framework, with this project as the hook repository, against real temp repositories.

pre-commit installs a hook repository at a commit, so the project's manifest and package are
copied into a throwaway git repository and committed: the tests see the working tree as it is,
not the last commit. The hook environment (`language: python`, built with pip) is built once
per session in a session-wide PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import BREAK, FIX, GIT_LEAKS, LIB, GitRepo, run_cli, run_git, settled_meta

# Every test drives the real pre-commit framework, whose hook environment (a pip install) is built once per session.
pytestmark = pytest.mark.slow

PROJECT = Path(__file__).parents[1]
#: What pre-commit needs of the project to build the hook environment (`pip install .`).
PROJECT_FILES = ("graphguard", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "hooks")
ALL_STAGES = "[pre-commit, post-commit, post-checkout, post-merge, post-rewrite]"



def _clean_env(home: Path) -> dict[str, str]:
    """Session fixtures run before the per-test isolation: give git an empty HOME of their own."""
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1")
    env.pop("GIT_CONFIG_GLOBAL", None)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> str:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _config(hook_repo: tuple[Path, str], *, install_types: str | None = ALL_STAGES) -> str:
    path, rev = hook_repo
    head = f"default_install_hook_types: {install_types}\n" if install_types else ""
    return head + f"repos:\n- repo: {path}\n  rev: {rev}\n  hooks:\n  - id: graphguard\n  - id: graphguard-refresh\n"


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A committed copy of this project: (path, sha) for a `.pre-commit-config.yaml`."""
    dest = tmp_path_factory.mktemp("hook-repo")
    for name in PROJECT_FILES:
        src = PROJECT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copy2(src, dest / name)
    env = _clean_env(tmp_path_factory.mktemp("git-home"))
    ident = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]
    _run(["git", "init", "-q", "-b", "main"], dest, env)
    _run(["git", "add", "-A"], dest, env)
    _run(["git", *ident, "commit", "-q", "--no-verify", "-m", "hooks"], dest, env)
    return dest, _run(["git", "rev-parse", "HEAD"], dest, env).strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory, hook_repo: tuple[Path, str]) -> Path:
    """PRE_COMMIT_HOME with the hook environment already built (once per session: pip takes seconds)."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    scratch = tmp_path_factory.mktemp("env-builder")
    env = {**_clean_env(tmp_path_factory.mktemp("git-home")), "PRE_COMMIT_HOME": str(home)}
    _run(["git", "init", "-q", "-b", "main"], scratch, env)
    (scratch / ".pre-commit-config.yaml").write_text(_config(hook_repo))
    _run([sys.executable, "-m", "pre_commit", "install-hooks"], scratch, env)
    return home


@pytest.fixture
def pc_repo(
    make_repo: Callable[..., GitRepo], hook_repo: tuple[Path, str], pre_commit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> GitRepo:
    """A repository whose hooks are the pre-commit framework's, running graphguard from the hook repository."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    monkeypatch.setenv("PRE_COMMIT_COLOR", "never")
    repo = make_repo({**LIB, ".pre-commit-config.yaml": _config(hook_repo)})
    _run([sys.executable, "-m", "pre_commit", "install"], repo.root, dict(os.environ))
    for hook in ("pre-commit", "post-commit", "post-checkout", "post-merge", "post-rewrite"):
        assert (repo.root / ".git" / "hooks" / hook).is_file(), hook
    return repo


def commit(repo: GitRepo, files: dict[str, str | None] | None = None, msg: str = "change", **env: str) -> subprocess.CompletedProcess[str]:
    """Write, stage and `git commit` with the hooks; stdout holds everything the user saw."""
    if files:
        repo.write(files)
    repo.git("add", "-A")
    return run_git(repo, "commit", "-m", msg, env={**os.environ, **env} if env else None)


def test_manifest_is_valid_for_pre_commit() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = {h["id"]: h for h in load_manifest(str(PROJECT / ".pre-commit-hooks.yaml"))}
    check, refresh = hooks["graphguard"], hooks["graphguard-refresh"]
    # -I: PYTHONPATH (an empty entry is the repository) cannot put the repository's files before graphguard's
    assert check["entry"] == "python -I -m graphguard check --staged"
    assert check["stages"] == ["pre-commit", "pre-merge-commit"]
    # deletions pass no file names: the check must run anyway, on the whole staged change
    assert check["always_run"] and not check["pass_filenames"] and check["require_serial"]
    assert check["verbose"]
    # No file filter: TS/JS files (and tsconfig.json, package.json) reach the check as Python ones do.
    assert (check["files"], check["types"], check["types_or"], check["exclude"]) == ("", ["file"], [], "^$")
    assert refresh["entry"] == "python -I -m graphguard refresh"
    assert set(refresh["stages"]) == {"post-commit", "post-checkout", "post-merge", "post-rewrite"}
    assert refresh["always_run"] and not refresh["pass_filenames"]
    push = hooks["graphguard-pre-push"]
    assert push["entry"] == "python -I -m graphguard hook-impl --hook-type pre-push" and push["stages"] == ["pre-push"]
    assert push["always_run"] and not push["pass_filenames"]
    for hook in hooks.values():
        assert tuple(int(p) for p in hook["minimum_pre_commit_version"].split(".")) >= (3, 2, 0)


def test_breaking_commit_is_rejected_with_the_broken_caller(pc_repo: GitRepo) -> None:
    before = pc_repo.head
    proc = commit(pc_repo, BREAK)
    assert proc.returncode != 0, proc.stdout
    assert pc_repo.head == before
    assert "graphguard" in proc.stdout and "Failed" in proc.stdout
    assert "pkg/use.py:5" in proc.stdout
    assert "BLOCK" in proc.stdout


def test_fixed_commit_passes_and_still_shows_the_interface_change(pc_repo: GitRepo) -> None:
    assert commit(pc_repo, BREAK).returncode != 0
    before = pc_repo.head
    proc = commit(pc_repo, FIX)
    assert proc.returncode == 0, proc.stdout
    assert pc_repo.head != before
    # verbose: true in the manifest: a passing commit's report reaches the user.
    assert "pkg.mod.f signature" in proc.stdout
    assert "required-param-added:b" in proc.stdout
    assert "graphguard: pass" in proc.stdout
    # graphguard-refresh ran as post-commit.
    assert settled_meta(pc_repo) == pc_repo.head


def test_skip_is_honoured(pc_repo: GitRepo) -> None:
    proc = commit(pc_repo, BREAK, SKIP="graphguard")
    assert proc.returncode == 0, proc.stdout
    assert any(line.startswith("graphguard.") and line.endswith("Skipped") for line in proc.stdout.splitlines()), proc.stdout
    assert "BLOCK" not in proc.stdout
    assert "def f(a, b)" in pc_repo.git("show", "HEAD:pkg/mod.py")
    # Only the check was skipped: the post-commit refresh still ran.
    assert settled_meta(pc_repo) == pc_repo.head


def test_commit_that_only_deletes_a_module_is_checked(pc_repo: GitRepo) -> None:
    before = pc_repo.head
    pc_repo.git("rm", "-q", "pkg/mod.py")
    proc = run_git(pc_repo, "commit", "-m", "drop mod")
    assert proc.returncode != 0, proc.stdout
    assert pc_repo.head == before
    assert "pkg.mod.f removed" in proc.stdout
    assert "pkg/use.py:5" in proc.stdout


TS = {
    "web/cart.ts": "export function total(tax: number): number { return tax; }\n",
    "web/page.tsx": 'import { total } from "./cart";\nexport const Page = () => total(1);\n',
    "web/old.js": 'import { total } from "./cart.js";\nexport const old = () => total(2);\n',
}


def test_a_commit_of_typescript_files_alone_runs_the_check_and_is_rejected_when_it_breaks_a_caller(pc_repo: GitRepo) -> None:
    assert commit(pc_repo, TS, msg="web").returncode == 0  # the hook lets TS/JS files through (no types filter)
    before = pc_repo.head
    proc = commit(pc_repo, {"web/cart.ts": "export function total(tax: number, rate: number): number { return tax; }\n"})
    assert proc.returncode != 0, proc.stdout
    assert pc_repo.head == before
    assert "web/cart.ts#total" in proc.stdout and "web/old.js:2" in proc.stdout and "web/page.tsx:2" in proc.stdout
    fixed = commit(pc_repo, {"web/cart.ts": "export function total(tax: number, rate?: number): number { return tax; }\n"})
    assert fixed.returncode == 0, fixed.stdout
    assert "web/cart.ts#total" in fixed.stdout  # the interface change is still shown (verbose)


def test_checkout_and_merge_refresh_the_graph(pc_repo: GitRepo) -> None:
    assert commit(pc_repo, {"pkg/a.py": "def a():\n    return 1\n"}).returncode == 0
    main_head = pc_repo.head
    assert settled_meta(pc_repo) == main_head

    assert run_git(pc_repo, "checkout", "-q", "-b", "topic").returncode == 0
    assert commit(pc_repo, {"pkg/b.py": "from pkg.mod import f\n\n\ndef b():\n    return f(2)\n"}).returncode == 0
    topic_head = pc_repo.head
    assert settled_meta(pc_repo) == topic_head

    # post-checkout: switching branches moves HEAD back.
    proc = run_git(pc_repo, "checkout", "-q", "main")
    assert proc.returncode == 0, proc.stdout
    assert pc_repo.head == main_head
    assert settled_meta(pc_repo) == main_head

    assert commit(pc_repo, {"pkg/c.py": "def c():\n    return 3\n"}).returncode == 0
    # post-merge: a real merge commit (git runs no post-commit hook for it).
    proc = run_git(pc_repo, "merge", "--no-edit", "topic")
    assert proc.returncode == 0, proc.stdout
    assert len(pc_repo.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    assert settled_meta(pc_repo) == pc_repo.head


def test_file_checkout_leaves_the_graph_alone(pc_repo: GitRepo) -> None:
    """`git checkout -- path` runs post-checkout with PRE_COMMIT_CHECKOUT_TYPE=0: nothing to do."""
    assert commit(pc_repo, {"pkg/z.py": "def z():\n    return 0\n"}).returncode == 0
    assert settled_meta(pc_repo) == pc_repo.head
    # A commit that runs no hook at all (--no-verify would still run post-commit): the graph is now stale.
    pc_repo.write({"pkg/a.py": "def a():\n    return 1\n"})
    pc_repo.git("add", "-A")
    pc_repo.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "no hooks")
    stale = settled_meta(pc_repo)
    assert stale != pc_repo.head
    pc_repo.write({"pkg/a.py": "def a():\n    return 2\n"})
    proc = run_git(pc_repo, "checkout", "--", "pkg/a.py")
    assert proc.returncode == 0, proc.stdout
    assert settled_meta(pc_repo) == stale


def test_rebase_refreshes_the_graph(pc_repo: GitRepo) -> None:
    assert run_git(pc_repo, "checkout", "-q", "-b", "topic").returncode == 0
    assert commit(pc_repo, {"pkg/b.py": "def b():\n    return 2\n"}).returncode == 0
    assert run_git(pc_repo, "checkout", "-q", "main").returncode == 0
    assert commit(pc_repo, {"pkg/c.py": "def c():\n    return 3\n"}).returncode == 0
    assert run_git(pc_repo, "checkout", "-q", "topic").returncode == 0
    proc = run_git(pc_repo, "rebase", "main")
    assert proc.returncode == 0, proc.stdout
    assert pc_repo.git("rev-parse", "HEAD~1") == pc_repo.git("rev-parse", "main")
    assert settled_meta(pc_repo) == pc_repo.head


def test_a_cherry_pick_and_a_rebase_under_the_framework_say_what_broke(pc_repo: GitRepo) -> None:
    assert run_git(pc_repo, "checkout", "-q", "-b", "other").returncode == 0
    assert commit(pc_repo, {**BREAK, **FIX}, msg="f needs b").returncode == 0
    assert run_git(pc_repo, "checkout", "-q", "main").returncode == 0
    assert commit(pc_repo, {"pkg/new.py": "from pkg.mod import f\n\nf(5)\n"}, msg="a new caller").returncode == 0
    proc = run_git(pc_repo, "cherry-pick", "other")
    assert proc.returncode == 0, proc.stdout
    assert "graphguard: WARNING: the cherry-pick committed" in proc.stdout and "broken  pkg/new.py:3" in proc.stdout
    assert run_git(pc_repo, "reset", "-q", "--hard", "HEAD~1").returncode == 0
    assert run_git(pc_repo, "checkout", "-q", "other").returncode == 0
    proc = run_git(pc_repo, "rebase", "main")
    assert proc.returncode == 0, proc.stdout
    assert "graphguard: WARNING: the rebase committed" in proc.stdout and "broken  pkg/new.py:3" in proc.stdout


def test_the_pre_push_hook_refuses_a_broken_head(pc_repo: GitRepo, tmp_path: Path) -> None:
    config = pc_repo.path(".pre-commit-config.yaml")
    config.write_text(config.read_text() + "  - id: graphguard-pre-push\n")
    _run([sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-push"], pc_repo.root, dict(os.environ))
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(tmp_path / "remote.git")], check=True)
    pc_repo.git("remote", "add", "origin", str(tmp_path / "remote.git"))
    assert commit(pc_repo, msg="config").returncode == 0
    assert run_git(pc_repo, "push", "-q", "origin", "main").returncode == 0
    pc_repo.write(BREAK)
    pc_repo.git("add", "-A")
    pc_repo.git("commit", "-q", "--no-verify", "-m", "skip the check")
    proc = run_git(pc_repo, "push", "origin", "main")
    assert proc.returncode != 0 and "push refused" in proc.stdout and "pkg/use.py:5" in proc.stdout, proc.stdout


# --- graphguard as a guest of the framework's hooks ---------------------------------------------


def _commit_without_hooks(repo: GitRepo, files: dict[str, str | None], msg: str) -> None:
    repo.write(files)
    repo.git("add", "-A")
    repo.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", msg)


def test_a_checkout_without_the_config_fails_in_the_framework_and_allow_missing_config_lets_it_through(
        pc_repo: GitRepo) -> None:
    """The failure is the framework's own (its hook-impl, before any hook of the config runs): graphguard's install
    says so, and the framework's `--allow-missing-config` is the way through; a branch whose config lacks graphguard
    passes as it is."""
    main_head = pc_repo.head
    pc_repo.git("checkout", "-q", "-b", "bare")
    _commit_without_hooks(pc_repo, {".pre-commit-config.yaml": None}, "no config")
    pc_repo.git("checkout", "-q", "-b", "others", "main")
    _commit_without_hooks(pc_repo, {".pre-commit-config.yaml": "repos: []\n"}, "a config without graphguard")
    pc_repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "main")

    r = run_cli(pc_repo, "install")
    assert r.code == 0, r.err
    assert "pre-commit install --allow-missing-config" in r.out and "No .pre-commit-config.yaml file was found" in r.out

    proc = run_git(pc_repo, "checkout", "-q", "bare")
    assert proc.returncode == 1 and "No .pre-commit-config.yaml file was found" in proc.stdout, proc.stdout
    proc = run_git(pc_repo, "checkout", "-q", "others")
    assert proc.returncode == 0, proc.stdout

    pc_repo.git("-c", "core.hooksPath=/dev/null", "checkout", "-q", "main")
    _run([sys.executable, "-m", "pre_commit", "install", "--allow-missing-config"], pc_repo.root, dict(os.environ))
    assert "--allow-missing-config" not in run_cli(pc_repo, "install").out
    for branch in ("bare", "others", "main"):
        proc = run_git(pc_repo, "checkout", "-q", branch)
        assert proc.returncode == 0, (branch, proc.stdout)
    assert settled_meta(pc_repo) == main_head


def test_install_over_the_framework_leaves_its_hooks_and_the_check_runs_once(pc_repo: GitRepo) -> None:
    from graphguard.commands.install import LEGACY_SUFFIX

    hooks = pc_repo.root / ".git" / "hooks"
    before = {h: (hooks / h).read_bytes() for h in ("pre-commit", "post-commit", "post-checkout")}
    r = run_cli(pc_repo, "install")
    assert r.code == 0, r.err
    assert f"left the pre-commit framework's pre-commit hook {hooks / 'pre-commit'}" in r.out
    assert "runs graphguard (graphguard) there" in r.out and "runs graphguard (graphguard-refresh) there" in r.out
    assert {h: (hooks / h).read_bytes() for h in before} == before
    assert not list(hooks.glob(f"*{LEGACY_SUFFIX}"))
    # pre-applypatch is no stage of the framework: graphguard's own hook checks `git am`.
    assert "installed" in r.out and (hooks / "pre-applypatch").is_file()
    # A passing commit runs every chained pre-commit hook: graphguard's check once.
    proc = commit(pc_repo, {**BREAK, **FIX})
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.count("graphguard: pass") == 1, proc.stdout


def test_an_earlier_install_chained_over_the_framework_is_undone(pc_repo: GitRepo) -> None:
    from graphguard.commands.install import LEGACY_SUFFIX, is_ours, script

    hooks = pc_repo.root / ".git" / "hooks"
    framework = (hooks / "pre-commit").read_bytes()
    # What install wrote before it knew the framework: the framework's shim kept aside, and run first.
    os.replace(hooks / "pre-commit", hooks / f"pre-commit{LEGACY_SUFFIX}")
    (hooks / "pre-commit").write_text(script("pre-commit"))
    (hooks / "pre-commit").chmod(0o755)
    assert commit(pc_repo, {**BREAK, **FIX}).stdout.count("graphguard: pass") == 2
    pc_repo.git("reset", "-q", "--hard", "HEAD~1")
    r = run_cli(pc_repo, "install")
    assert r.code == 0, r.err
    assert f"restored the pre-commit framework's pre-commit hook {hooks / 'pre-commit'}" in r.out and "twice" in r.out
    assert (hooks / "pre-commit").read_bytes() == framework and not is_ours(str(hooks / "pre-commit"))
    assert not (hooks / f"pre-commit{LEGACY_SUFFIX}").exists()
    assert commit(pc_repo, {**BREAK, **FIX}).stdout.count("graphguard: pass") == 1
