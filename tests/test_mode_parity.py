"""The same answer in every mode: the hook, CI with a warm graph at either commit, and a cold CI clone.

Each scenario is a real repository: a base commit on `main`, and a change made on a
branch `feature`. The change is checked the way each user meets it:

- worktree: written, not staged (`check --worktree`; the graph describes the base);
- staged: staged, not committed (`check --staged`, the pre-commit hook);
- base, graph at old: committed without hooks, the base checked out, so the stored
  graph describes the old side (`check --base main --head feature`);
- base, graph at new: the feature checked out and indexed, as the post-checkout hook
  leaves it (`check --base main --head feature`);
- cold: a fresh `git clone` with no graph at all (`check --base HEAD~1 --head HEAD`), as in CI.

Every mode must report the same (symbol, path, line, status) for each caller, and the
scenario's known broken sites must be among them (parity alone would pass on silence).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import GitRepo, Result, init_repo

Finding = tuple[str, str, int, str]  # (symbol, caller path, caller line, status)


@dataclass(frozen=True)
class Scenario:
    name: str
    base: Mapping[str, str]
    change: Mapping[str, str | None]
    broken: frozenset[tuple[str, int]]  # (path, line) that must be reported broken in every mode
    known_miss: str = ""  # why a mode still differs: the scenario is xfail(strict) until fixed
    extra: dict[str, Any] = field(default_factory=dict)


SCENARIOS = [
    Scenario(
        "shop: a call through a package re-export under another name",
        {
            "shop/__init__.py": "from .pricing import total as order_total\n",
            "shop/pricing.py": "def total(items, tax_rate):\n    return sum(items) * (1 + tax_rate)\n",
            "shop/cart.py": "from shop import order_total\n\n\ndef checkout(items):\n    return order_total(items, 0.2)\n",
            "tests/test_pricing.py": "from shop.pricing import total\n\n\ndef test_total():\n    assert total([1], 0.0) == 1\n",
        },
        {"shop/pricing.py": "def total(items, *, tax_rate):\n    return sum(items) * (1 + tax_rate)\n"},
        frozenset({("shop/cart.py", 5), ("tests/test_pricing.py", 5)}),
    ),
    Scenario(
        "an aliased import",
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "def f(a):\n    return a\n",
            "app/__init__.py": "",
            "app/use.py": "from pkg.mod import f as g\n\n\ndef run():\n    return g(1)\n",
        },
        {"pkg/mod.py": "def f(a, b):\n    return a\n"},
        frozenset({("app/use.py", 5)}),
    ),
    Scenario(
        "a call through self in a subclass",
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Base:\n    def m(self, a):\n        return a\n",
            "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    def go(self):\n        return self.m(1)\n",
        },
        {"pkg/base.py": "class Base:\n    def m(self, a, b):\n        return a\n"},
        frozenset({("pkg/sub.py", 6)}),
    ),
    Scenario(
        "a method called on an instance of a subclass",
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Base:\n    def m(self, a):\n        return a\n",
            "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    pass\n",
            "app.py": "from pkg.sub import Sub\n\n\ndef run():\n    s = Sub()\n    return s.m(1)\n",
        },
        {"pkg/base.py": "class Base:\n    def m(self, a, b):\n        return a\n"},
        frozenset({("app.py", 6)}),
    ),
    Scenario(
        "a test caller",
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "def f(a):\n    return a\n",
            "tests/test_mod.py": "from pkg.mod import f\n\n\ndef test_f():\n    assert f(1) == 1\n",
        },
        {"pkg/mod.py": "def f(a, b):\n    return a\n"},
        frozenset({("tests/test_mod.py", 5)}),
    ),
    Scenario(
        "a removed function",
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "def f(a):\n    return a\n\n\ndef g(a):\n    return a\n",
            "app.py": "from pkg.mod import f\nfrom pkg import mod\n\n\ndef run():\n    return f(1) + mod.f(2)\n",
        },
        {"pkg/mod.py": "def g(a):\n    return a\n"},
        frozenset({("app.py", 1), ("app.py", 6)}),
    ),
    Scenario(
        "a renamed keyword",
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "def f(a, *, key):\n    return a\n",
            "app.py": "from pkg.mod import f\n\n\ndef run():\n    return f(1, key=2)\n",
        },
        {"pkg/mod.py": "def f(a, *, name):\n    return a\n"},
        frozenset({("app.py", 5)}),
    ),
    Scenario(
        "a re-export chain (same name, then a new name)",
        {
            "pkg/__init__.py": "from pkg.api import run\n",
            "pkg/api.py": "from pkg.core import work as run\n",
            "pkg/core.py": "def work(a):\n    return a\n",
            "app.py": "import pkg\nfrom pkg import run\n\n\ndef go():\n    return run(1) + pkg.run(2)\n",
        },
        {"pkg/core.py": "def work(a, b):\n    return a\n"},
        frozenset({("app.py", 6)}),
    ),
    Scenario(
        "a caller in a file added by the same change",
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "def f(a):\n    return a\n",
        },
        {"pkg/mod.py": "def f(a, b):\n    return a\n", "app/new.py": "from pkg.mod import f\n\n\ndef run():\n    return f(1)\n"},
        frozenset({("app/new.py", 5)}),
    ),
    Scenario(
        "an alias by assignment in a package",
        {
            "pkg/__init__.py": "from pkg.core import work\n\nrun = work\n",
            "pkg/core.py": "def work(a):\n    return a\n",
            "app.py": "from pkg import run\n\n\ndef go():\n    return run(1)\n",
        },
        {"pkg/core.py": "def work(a, b):\n    return a\n"},
        frozenset({("app.py", 5)}),
    ),
    Scenario(
        "a star import",
        {
            "pkg/__init__.py": "from pkg.core import *\n",
            "pkg/core.py": "def work(a):\n    return a\n",
            "app.py": "import pkg\n\n\ndef go():\n    return pkg.work(1)\n",
        },
        {"pkg/core.py": "def work(a, b):\n    return a\n"},
        frozenset({("app.py", 5)}),
    ),
    Scenario(
        "a method on an untyped receiver",
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Engine:\n    def ignite_now(self, a):\n        return a\n",
            "app.py": "def go(engine):\n    return engine.ignite_now(1)\n",
        },
        {"pkg/base.py": "class Engine:\n    def ignite_now(self, a, b):\n        return a\n"},
        frozenset({("app.py", 2)}),
    ),
    Scenario(
        "a renamed function",
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "def f(a):\n    return a\n",
            "app.py": "from pkg import mod\n\n\ndef go():\n    return mod.f(1)\n",
        },
        {"pkg/mod.py": "def g(a):\n    return a\n"},
        frozenset({("app.py", 5)}),
    ),
    Scenario(
        "a constructor called through a re-exported subclass",
        {
            "pkg/__init__.py": "from pkg.sub import Sub as Public\n",
            "pkg/base.py": "class Base:\n    def __init__(self, a):\n        self.a = a\n",
            "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    pass\n",
            "app.py": "from pkg import Public\n\n\ndef go():\n    return Public(1)\n",
        },
        {"pkg/base.py": "class Base:\n    def __init__(self, a, b):\n        self.a = a\n"},
        frozenset({("app.py", 5)}),
    ),
    Scenario(
        "a removed method called on an untyped receiver",
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Engine:\n    def ignite_now(self, a):\n        return a\n\n    def stop(self):\n        return 0\n",
            "app.py": "def go(engine):\n    return engine.ignite_now(1)\n",
        },
        {"pkg/base.py": "class Engine:\n    def stop(self):\n        return 0\n"},
        frozenset(),
    ),
    Scenario(
        "a renamed method called through self",
        {
            "pkg/__init__.py": "",
            "pkg/base.py": "class Base:\n    def m(self, a):\n        return a\n",
            "pkg/sub.py": "from pkg.base import Base\n\n\nclass Sub(Base):\n    def go(self):\n        return self.m(1)\n",
        },
        {"pkg/base.py": "class Base:\n    def n(self, a):\n        return a\n"},
        frozenset({("pkg/sub.py", 6)}),
    ),
]

MODES = ("worktree", "staged", "base, graph at old", "base, graph at new", "cold clone")


def _findings(result: Result) -> set[Finding]:
    assert result.code in (0, 1), f"exit {result.code}: {result.err}"
    data = result.json
    return {(ch["symbol"], c["path"], c["line"], c["status"]) for ch in data["changes"] for c in ch["callers"]}


def run_every_mode(root: Path, scenario: Scenario, graphguard: Callable[..., Result]) -> dict[str, set[Finding]]:
    """Each mode's findings for the scenario, in a repository made under `root`."""
    repo = init_repo(root / "repo", dict(scenario.base))
    assert graphguard(repo, "index").code == 0
    repo.git("checkout", "-q", "-b", "feature")
    repo.write(scenario.change)

    def check(where: GitRepo, *flags: str) -> set[Finding]:
        return _findings(graphguard(where, "check", "--format", "json", *flags))

    out = {"worktree": check(repo, "--worktree")}
    repo.git("add", "-A")
    out["staged"] = check(repo, "--staged")
    repo.git("commit", "-q", "--no-verify", "-m", "change")
    repo.git("checkout", "-q", "main")  # the graph describes main: the old side
    out["base, graph at old"] = check(repo, "--base", "main", "--head", "feature")
    repo.git("checkout", "-q", "feature")
    assert graphguard(repo, "index").code == 0  # the graph describes feature: the new side
    out["base, graph at new"] = check(repo, "--base", "main", "--head", "feature")
    clone = GitRepo(root / "clone")
    subprocess.run(["git", "clone", "-q", str(repo.root), str(clone.root)], check=True, capture_output=True)
    assert not clone.graph_path.exists()
    out["cold clone"] = check(clone, "--base", "HEAD~1", "--head", "HEAD")
    return out


def _param(s: Scenario) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=s.known_miss)] if s.known_miss else []
    return pytest.param(s, id=s.name.split(":")[0].replace(" ", "-"), marks=marks)


@pytest.mark.parametrize("scenario", [_param(s) for s in SCENARIOS])
def test_every_mode_finds_the_same_callers(tmp_path: Path, scenario: Scenario, graphguard: Callable[..., Result]) -> None:
    found = run_every_mode(tmp_path, scenario, graphguard)
    for mode in MODES:
        broken = {(path, line) for _, path, line, status in found[mode] if status == "broken"}
        assert scenario.broken <= broken, f"{mode}: missing {sorted(scenario.broken - broken)}; found {sorted(found[mode])}"
    reference = found["staged"]
    differ = {mode: (sorted(found[mode] - reference), sorted(reference - found[mode])) for mode in MODES if found[mode] != reference}
    assert not differ, f"(only in this mode, only in staged) per mode: {differ}"


def test_a_merge_finds_a_caller_by_alias_against_the_other_parent(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    """Against a merge's other parent the stored graph is not that side: its callers are searched, through aliases too."""
    shop = SCENARIOS[0]
    repo = make_repo({p: t for p, t in shop.base.items() if p != "shop/cart.py"})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("a caller through the package's alias", {"shop/cart.py": shop.base["shop/cart.py"]})
    repo.git("checkout", "-q", "main")
    repo.commit("keyword-only tax_rate", dict(shop.change))
    repo.git("merge", "-q", "--no-ff", "--no-verify", "-m", "merge side", "side")
    for flags in (("--base", "HEAD~1", "--head", "HEAD"), ("--base", "side", "--head", "HEAD")):
        broken = {(path, line) for _, path, line, status in _findings(graphguard(repo, "check", "--format", "json", *flags)) if status == "broken"}
        assert ("shop/cart.py", 5) in broken, (flags, broken)
