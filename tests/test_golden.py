"""Every `check --format` rendered from one real CheckResult, byte for byte against tests/data/golden/.

The result comes from a real repository whose last commit really breaks a
caller, leaves one unknown and one binding, and reaches a test. After a deliberate change to a renderer,
`pytest tests/test_golden.py --update-golden` (or GRAPHGUARD_GOLDEN=write) rewrites the files: review the diff.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphguard.check import run
from graphguard.main import _parser
from graphguard.repo import open_repo
from graphguard.report import PRINTS_TESTS, RENDERERS, runner
from graphguard.result import CheckResult, Status, Verdict
from tests.helpers import GIT_LEAKS, init_repo, wait_for_refresher

GOLDEN = Path(__file__).parent / "data" / "golden"

#: Every choice of `check --format`, and the compact JSON of `--compact`: one golden file each.
FORMATS = {"text": "txt", "json": "json", "compact": "json", "markdown": "md", "sarif": "sarif", "github": "txt", "codequality": "json"}

BEFORE = {
    "billing/__init__.py": "",
    "billing/proration.py": '''\
        def calculate_proration(sub, at):
            """The share of the period left at `at`."""
            return (sub.end - at) / (sub.end - sub.start)
        ''',
    "partners/__init__.py": "",
    "partners/api.py": '''\
        from billing.proration import calculate_proration


        def create_subscription(sub, now):
            return calculate_proration(sub, now)
        ''',
    "partners/forward.py": '''\
        from billing.proration import calculate_proration


        def forward(*args, **kwargs):
            return calculate_proration(*args, **kwargs)
        ''',
    "billing/ok.py": '''\
        from billing.proration import calculate_proration


        def renew(sub, zone):
            return calculate_proration(sub, tz=zone)
        ''',
    "tests/test_proration.py": '''\
        from billing.proration import calculate_proration


        def test_half():
            assert calculate_proration(SUB, 5) == 0.5
        ''',
}
# `at` gives way to a required keyword-only `tz`: api.py and the test break, forward.py cannot be told, ok.py binds.
AFTER = {"billing/proration.py": '''\
    def calculate_proration(sub, *, tz):
        """The share of the period left now, in zone `tz`."""
        return (sub.end - sub.now(tz)) / (sub.end - sub.start)
    '''}

DATE = "2024-01-02T03:04:05+00:00"


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CheckResult, str]]:
    """(the result of checking the breaking commit against its parent, the repository's root)."""
    home = tmp_path_factory.mktemp("golden-home")
    with pytest.MonkeyPatch.context() as mp:  # the per-test isolation is not there yet at module scope
        mp.setenv("HOME", str(home))
        mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for name in (*GIT_LEAKS, "GIT_CONFIG_GLOBAL"):
            mp.delenv(name, raising=False)
        for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
            mp.setenv(name, DATE)
        repo = init_repo(tmp_path_factory.mktemp("golden") / "shop", BEFORE)
        repo.commit("calculate_proration takes the zone", AFTER)
        result = run(open_repo(str(repo.root)), base="HEAD~1", head="HEAD")
        assert wait_for_refresher(repo)
        yield result, str(repo.root)


def normalised(result: CheckResult) -> CheckResult:
    """What may differ between runs, machines and git versions, fixed: the time taken and the commits' shas."""
    fresh = result.freshness and dataclasses.replace(result.freshness, head="a" * 40, refresh_ms=0)
    return dataclasses.replace(result, elapsed_ms=0, base="a" * 40, head="b" * 40, freshness=fresh)


def test_the_result_is_the_realistic_one(checked: tuple[CheckResult, str]) -> None:
    result, _ = checked
    assert result.verdict is Verdict.BLOCK
    (change,) = result.changes
    assert change.symbol == "billing.proration.calculate_proration"
    sites = {status: {f"{k.path}:{k.line}" for k in change.callers if k.status is status} for status in Status}
    assert sites[Status.BROKEN] == {"partners/api.py:5", "tests/test_proration.py:5"}
    assert sites[Status.UNKNOWN] == {"partners/forward.py:5"}
    assert "billing/ok.py:5" in sites[Status.OK]
    assert [t.path for t in change.tests] == ["tests/test_proration.py"]


def test_every_format_of_check_has_a_golden_file(update_golden: bool) -> None:
    (choices,) = [a.choices for a in _subparser_actions("check") if a.dest == "format"]
    assert set(choices) | {"compact"} == set(FORMATS) <= set(RENDERERS)
    assert update_golden or sorted(p.name for p in GOLDEN.glob("check-*")) == sorted(f"check-{fmt}.{ext}" for fmt, ext in FORMATS.items())


def _subparser_actions(command: str) -> list:  # type: ignore[type-arg]
    import argparse

    (sub,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices[command]._actions)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_golden(checked: tuple[CheckResult, str], fmt: str, update_golden: bool) -> None:
    result, root = checked
    test_runner = runner.find(root, result) if fmt in PRINTS_TESTS else None  # reads the real head commit
    out = RENDERERS[fmt](normalised(result), runner=test_runner)
    assert root not in out  # nothing of this machine's paths
    golden = GOLDEN / f"check-{fmt}.{FORMATS[fmt]}"
    if update_golden:
        golden.write_text(out, encoding="utf-8")
    assert golden.exists(), f"{golden.name} is missing: run pytest {__file__} --update-golden"
    assert out == golden.read_text(encoding="utf-8"), f"{golden.name} differs: if deliberate, rewrite it with --update-golden"
