"""Fixtures: an isolated git environment, real repositories, and graphguard runs (in process or not)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    GIT_LEAKS,
    GitRepo,
    Result,
    init_repo,
    refresher_processes,
    run_cli,
    run_main,
    stop_refresher,
    wait_for_refresher,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite the golden files under tests/data/golden/ (as GRAPHGUARD_GOLDEN=write does); review the diff")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether golden files are rewritten rather than compared: `--update-golden` or GRAPHGUARD_GOLDEN=write."""
    return bool(request.config.getoption("--update-golden")) or os.environ.get("GRAPHGUARD_GOLDEN") == "write"


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point HOME at an empty temp dir and ignore system config, so no test reads or writes the user's git config."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    for name in GIT_LEAKS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def make_repo(tmp_path: Path) -> Iterator[Callable[..., GitRepo]]:
    """Factory: `make_repo({path: text|bytes}, name="repo")` -> a git repo with those files committed (none: no commit).
    Afterwards no background refresher a hook started in one of them is left running."""
    counter = iter(range(1_000_000))
    made: list[GitRepo] = []

    def make(files: Mapping[str, str | bytes] | None = None, *, name: str | None = None) -> GitRepo:
        made.append(init_repo(tmp_path / (name or f"repo{next(counter)}"), files))
        return made[-1]

    yield make
    left = [repo for repo in made if not wait_for_refresher(repo) and stop_refresher(repo)]
    assert not left, f"a background refresher was still running in {left}"
    # Its lock is let go just before it exits: give the processes a moment to be gone.
    deadline = time.monotonic() + 30
    while any(refresher_processes(repo) for repo in made) and time.monotonic() < deadline:
        time.sleep(0.02)
    stray = {str(repo.root): refresher_processes(repo) for repo in made if refresher_processes(repo)}
    assert not stray, f"refresher processes left behind: {stray}"


@pytest.fixture
def graphguard(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run graphguard in process: `graphguard(repo, "callers", "pkg.f", "--format", "json")` -> Result."""

    def run(repo: GitRepo | Path | str, *args: str) -> Result:
        return run_main(repo, args, capsys)

    return run


@pytest.fixture
def graphguard_cli() -> Callable[..., Result]:
    """Run graphguard as a subprocess (`python -m graphguard`) in the repository: same call shape as `graphguard`."""

    def run(repo: GitRepo | Path | str, *args: str, **kwargs: Any) -> Result:
        return run_cli(repo, *args, **kwargs)

    return run
