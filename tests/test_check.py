"""`graphguard check` end to end: real git repositories in temp dirs, the JSON contract asserted.

Every test builds a small repository, changes it the way a developer (or an agent)
would, and runs `graphguard check` in process. The analysed code is data: it is
never imported or run (several fixtures import packages that are not installed).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import GitRepo, Result, callers, change_of, init_repo, source

Check = Callable[..., tuple[int, dict[str, Any]]]

# A small repository used by most tests: one function, two callers, a direct and an indirect test.
BASE: dict[str, str] = {
    "pkg/__init__.py": "",
    "pkg/clock.py": """
        def stamp(ts):
            return ts


        def unused(a):
            return a
        """,
    "app/__init__.py": "",
    "app/jobs.py": """
        from pkg.clock import stamp


        def run():
            return stamp(1)
        """,
    "app/report.py": """
        from pkg.clock import stamp


        def render():
            return stamp(2)
        """,
    "tests/test_clock.py": """
        from pkg.clock import stamp


        def test_stamp():
            assert stamp(3) == 3
        """,
    "tests/test_jobs.py": """
        from app.jobs import run


        def test_run():
            assert run() == 1
        """,
}


@pytest.fixture
def check(graphguard: Callable[..., Result]) -> Check:
    """`check(repo, *flags)` -> (exit code, parsed `check --format json`), asserting it did not error."""

    def run(repo: GitRepo, *flags: str) -> tuple[int, dict[str, Any]]:
        r = graphguard(repo, "check", "--format", "json", *flags)
        assert r.code in (0, 1), f"exit {r.code}: {r.err}"
        data = r.json
        assert data["schema"] == "graphguard.check/1"
        assert (r.code == 1) == (data["verdict"] == "block"), data
        return r.code, data

    return run


def line_of(repo: GitRepo, path: str, text: str) -> int:
    """1-based line of the first line of a work-tree file holding `text`."""
    lines = repo.path(path).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def all_callers(data: dict[str, Any]) -> dict[tuple[str, int], set[str]]:
    """(path, line) -> statuses, across every change."""
    out: dict[tuple[str, int], set[str]] = {}
    for ch in data["changes"]:
        for c in ch["callers"]:
            out.setdefault((c["path"], c["line"]), set()).add(c["status"])
    return out


def hits_of(change: dict[str, Any]) -> dict[str, bool]:
    return {t["path"]: t["direct"] for t in change["tests"]}


NEW_STAMP = """
    def stamp(ts, tz):
        return ts


    def unused(a):
        return a
    """


# --- the two refactors --------------------------------------------------------------------


def test_complete_refactor_passes(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, tz='UTC')"),
        "app/report.py": BASE["app/report.py"].replace("stamp(2)", "stamp(2, 'UTC')"),
        "tests/test_clock.py": BASE["tests/test_clock.py"].replace("stamp(3)", "stamp(3, tz=None)"),
    })
    repo.git("add", "-A")
    code, data = check(repo)
    assert code == 0
    assert data["verdict"] == "pass"
    assert data["head"] == "INDEX"
    assert data["base"] == repo.head
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "signature"
    assert ch["breaking"] == ["required-param-added:tz"]
    assert ch["path"] == "pkg/clock.py" and ch["line"] == 1
    assert ch["after"] == "def stamp(ts, tz)"
    found = callers(ch)
    for path in ("app/jobs.py", "app/report.py", "tests/test_clock.py"):
        assert found[(path, 5)][0] == "ok", found
    assert {c["status"] for c in ch["callers"]} == {"ok"}


def test_half_done_refactor_blocks(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, tz='UTC')"),
    })
    repo.git("add", "-A")
    code, data = check(repo)
    assert code == 1
    assert data["verdict"] == "block"
    ch = change_of(data, "pkg.clock.stamp")
    found = callers(ch)
    assert found[("app/report.py", 5)] == ("broken", "missing required argument 'tz'")
    assert found[("tests/test_clock.py", 5)][0] == "broken"
    assert found[("app/jobs.py", 5)][0] == "ok"
    report = next(c for c in ch["callers"] if (c["path"], c["line"]) == ("app/report.py", 5))
    assert report["end_line"] == 5
    assert report["caller"] == "app.report.render"
    tests = hits_of(ch)
    assert tests["tests/test_clock.py"] is True
    assert tests["tests/test_jobs.py"] is False  # reaches stamp through app.jobs.run


# --- what is compared ---------------------------------------------------------------------


def test_partial_staging_checks_exactly_the_staged_blob(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    # Stage a breaking version, then make the working tree harmless (a default for tz).
    repo.write({"pkg/clock.py": NEW_STAMP})
    repo.git("add", "pkg/clock.py")
    repo.write({"pkg/clock.py": NEW_STAMP.replace("tz)", "tz=None)")})

    code, data = check(repo, "--staged")
    assert code == 1
    assert data["head"] == "INDEX"
    assert change_of(data, "pkg.clock.stamp")["after"] == "def stamp(ts, tz)"

    code, data = check(repo)  # default: staged changes, with a note about the rest
    assert code == 1
    assert data["head"] == "INDEX"
    assert any("unstaged changes were not checked" in n for n in data["notes"]), data["notes"]

    code, data = check(repo, "--worktree")
    assert code == 0
    assert data["head"] == "WORKTREE"
    assert change_of(data, "pkg.clock.stamp")["breaking"] == ["optional-param-added:tz"]


def test_partial_staging_harmless_stage_broken_worktree(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": NEW_STAMP.replace("tz)", "tz=None)")})
    repo.git("add", "pkg/clock.py")
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo, "--staged")
    assert code == 0
    assert {c["status"] for c in change_of(data, "pkg.clock.stamp")["callers"]} == {"ok"}
    code, _ = check(repo, "--worktree")
    assert code == 1


def test_staged_callers_are_read_from_the_index(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    fixed = BASE["app/report.py"].replace("stamp(2)", "stamp(2, tz=None)")
    repo.write({
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, None)"),
        "app/report.py": fixed,
        "tests/test_clock.py": BASE["tests/test_clock.py"].replace("stamp(3)", "stamp(3, tz=3)"),
    })
    repo.git("add", "-A")
    # The working tree goes back to the old call: the commit would still hold the fixed one.
    repo.write({"app/report.py": BASE["app/report.py"]})
    code, data = check(repo, "--staged")
    assert code == 0
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/report.py", 5)] == ("ok", "binds")
    code, data = check(repo, "--worktree")
    assert code == 1
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/report.py", 5)][0] == "broken"


def test_nothing_staged_checks_the_working_tree(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo)
    assert code == 1
    assert data["head"] == "WORKTREE"
    assert data["notes"] == []


def test_worktree_sees_unstaged_edits_and_untracked_callers(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, tz=1)"),
        "app/report.py": BASE["app/report.py"].replace("stamp(2)", "stamp(2, tz=2)"),
        "tests/test_clock.py": BASE["tests/test_clock.py"].replace("stamp(3)", "stamp(3, 3)"),
        "app/fresh.py": """
            from pkg.clock import stamp

            VALUE = 1


            def late():
                return stamp(VALUE)
            """,
    })
    assert "app/fresh.py" in repo.git("status", "--porcelain", "--untracked-files=all")
    code, data = check(repo, "--worktree")
    assert code == 1
    assert data["head"] == "WORKTREE"
    found = callers(change_of(data, "pkg.clock.stamp"))
    assert found[("app/fresh.py", 7)] == ("broken", "missing required argument 'tz'")
    assert found[("app/jobs.py", 5)][0] == "ok"
    assert found[("app/report.py", 5)][0] == "ok"
    # --staged sees none of it.
    code, data = check(repo, "--staged")
    assert code == 0
    assert data["changes"] == []


def test_base_and_head_use_the_merge_base(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    fork = repo.head
    repo.git("checkout", "-q", "-b", "feature")
    feature = repo.commit("break stamp", {"pkg/clock.py": NEW_STAMP})
    repo.git("checkout", "-q", "main")
    # main moves on: its new file must not count as a change of the branch.
    main = repo.commit("main moves on", {"pkg/extra.py": "def extra(a):\n    return a\n"})
    code, data = check(repo, "--base", "main", "--head", "feature")
    assert code == 1
    assert data["base"] == fork != main
    assert data["head"] == feature
    assert data["stats"]["files_changed"] == 1
    found = callers(change_of(data, "pkg.clock.stamp"))
    assert found[("app/report.py", 5)] == ("broken", "missing required argument 'tz'")
    # From the branch itself (HEAD is the default head).
    repo.git("checkout", "-q", "feature")
    code, data = check(repo, "--base", "main")
    assert code == 1
    assert data["head"] == feature


def test_repository_without_commits_passes(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo()
    repo.write({"pkg/a.py": "def f(a):\n    return a\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["verdict"] == "pass"
    assert r.json["changes"] == []


def _shallow_setup(tmp_path: Path) -> tuple[GitRepo, GitRepo]:
    origin = init_repo(tmp_path / "origin", BASE)
    origin.commit("main 2", {"pkg/a.py": "A = 1\n"})
    origin.commit("main 3", {"pkg/b.py": "B = 1\n"})
    origin.git("checkout", "-q", "-b", "feature", "HEAD~2")
    origin.commit("f1", {"pkg/clock.py": NEW_STAMP})
    origin.commit("f2", {"pkg/c.py": "C = 1\n"})
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--branch", "feature", (tmp_path / "origin").as_uri(), str(tmp_path / "ci")],
        check=True, capture_output=True,
    )
    ci = GitRepo(tmp_path / "ci")
    assert ci.git("rev-parse", "--is-shallow-repository") == "true"
    return origin, ci


def _assert_one_line_error(r: Result, *words: str) -> None:
    assert r.code == 2
    assert r.out == ""
    assert "Traceback" not in r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    for word in words:
        assert word in lines[0], lines[0]


def test_shallow_clone_without_the_base_commit_is_an_error(tmp_path: Path, graphguard: Callable[..., Result]) -> None:
    _, ci = _shallow_setup(tmp_path)
    # The base branch is there, the history joining it is not.
    ci.git("fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    r = graphguard(ci, "check", "--format", "json", "--base", "origin/main")
    _assert_one_line_error(r, "fetch-depth", "shallow")


def test_shallow_clone_without_the_base_ref_is_an_error(tmp_path: Path, graphguard: Callable[..., Result]) -> None:
    _, ci = _shallow_setup(tmp_path)
    r = graphguard(ci, "check", "--format", "json", "--base", "origin/main")
    _assert_one_line_error(r, "origin/main", "fetch-depth")


def test_unknown_base_is_an_error(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(BASE)
    r = graphguard(repo, "check", "--format", "json", "--base", "no-such-branch")
    _assert_one_line_error(r, "no-such-branch")


# --- how callers reach the changed symbol ---------------------------------------------------


def test_caller_through_an_alias(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "app/alias.py": """
        from pkg.clock import stamp as make


        def go():
            return make(7)
        """})
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo)
    assert code == 1
    found = callers(change_of(data, "pkg.clock.stamp"))
    assert found[("app/alias.py", 5)] == ("broken", "missing required argument 'tz'")
    assert found[("app/alias.py", 1)][0] == "ok"  # the import itself still works


def test_caller_through_a_chain_of_two_reexports(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        **BASE,
        "pkg/api.py": "from pkg.clock import stamp\n",
        "pkg/__init__.py": "from .api import stamp\n",
        "app/top.py": """
            import pkg
            from pkg import stamp


            def go():
                return stamp(5), pkg.stamp(6)
            """,
    })
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo)
    assert code == 1
    found = callers(change_of(data, "pkg.clock.stamp"))
    assert found[("app/top.py", 6)] == ("broken", "missing required argument 'tz'")
    assert sum(1 for c in change_of(data, "pkg.clock.stamp")["callers"]
               if c["path"] == "app/top.py" and c["line"] == 6 and c["status"] == "broken") == 2


def test_removed_reexport_blocks(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "pkg/__init__.py": "from .clock import stamp\n", "app/top.py": "from pkg import stamp\n\nstamp(1)\n"})
    repo.write({"pkg/__init__.py": "\n"})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.stamp")
    assert ch["change"] == "removed"
    assert [(c["path"], c["line"], c["status"]) for c in ch["callers"]] == [("app/top.py", 1, "broken")]


def test_removed_reexport_with_importer_updated_passes(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "pkg/__init__.py": "from .clock import stamp\n", "app/top.py": "from pkg import stamp\n\nstamp(1)\n"})
    repo.write({"pkg/__init__.py": "\n", "app/top.py": "from pkg.clock import stamp\n\nstamp(1)\n"})
    code, data = check(repo)
    assert code == 0, data


def test_caller_through_import_module_as(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "app/mod.py": """
        import pkg.clock as c


        def go():
            return c.stamp(
                8,
            )
        """})
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.clock.stamp")
    hit = next(c for c in ch["callers"] if c["path"] == "app/mod.py")
    assert (hit["line"], hit["end_line"], hit["status"]) == (5, 7, "broken")
    assert hit["reason"] == "missing required argument 'tz'"


SERVICE = {
    "pkg/__init__.py": "",
    "pkg/svc.py": """
        class Service:
            def get(self, key):
                return key

            def run(self):
                return self.get(1)
        """,
    "app/__init__.py": "",
    "app/sub.py": """
        from pkg.svc import Service


        class Cached(Service):
            def warm(self):
                return self.get(2)


        class Proxy(Service):
            def get(self, key):
                return super().get(key)


        def use():
            return Proxy().get(3), Service().get(4), Service.get(Service(), 5)
        """,
}
NEW_SERVICE = """
    class Service:
        def get(self, key, strict):
            return key

        def run(self):
            return self.get(1)
    """


def test_method_calls_through_self_subclass_super_and_override(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(SERVICE)
    repo.write({"pkg/svc.py": NEW_SERVICE})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.svc.Service.get")
    assert ch["breaking"] == ["required-param-added:strict"]
    found = callers(ch)
    missing = ("broken", "missing required argument 'strict'")
    assert found[("pkg/svc.py", 6)] == missing  # self.get(1) in the changed file
    assert found[("app/sub.py", 6)] == missing  # inherited, called through self in a subclass
    assert found[("app/sub.py", 11)] == missing  # super().get(key)
    use_line = [c for c in ch["callers"] if c["path"] == "app/sub.py" and c["line"] == 15]
    # Service().get(4) and Service.get(Service(), 5) are broken; Proxy().get(3) reaches the override.
    assert sorted(c["status"] for c in use_line) == ["broken", "broken"], use_line
    assert all(c["reason"] == "missing required argument 'strict'" for c in use_line)


def test_method_called_on_a_class_passes_self_explicitly(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**SERVICE, "app/explicit.py": """
        from app.sub import Cached
        from pkg.svc import Service as S


        def f(obj):
            return Cached.get(obj, 1)


        def g(obj):
            return S.get(obj, 2, True)
        """})
    repo.write({"pkg/svc.py": NEW_SERVICE})
    code, data = check(repo)
    assert code == 1
    found = callers(change_of(data, "pkg.svc.Service.get"))
    assert found[("app/explicit.py", 6)] == ("broken", "missing required argument 'strict'")
    assert found[("app/explicit.py", 10)] == ("ok", "binds")


def test_override_changed_alone_leaves_base_callers_alone(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(SERVICE)
    repo.write({"app/sub.py": SERVICE["app/sub.py"].replace("def get(self, key):", "def get(self, key, strict):")})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "app.sub.Proxy.get")
    found = callers(ch)
    assert found[("app/sub.py", 15)] == ("broken", "missing required argument 'strict'")
    assert ("pkg/svc.py", 6) not in found  # self.get in Service binds to Service.get


def test_method_on_typed_receivers(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/client.py": """
            class Client:
                def get(self, key):
                    return key
            """,
        "app/__init__.py": "",
        "app/use.py": """
            from pkg.client import Client


            def fetch():
                c = Client()
                return c.get(1)


            def fetch_typed(c: Client):
                return c.get(2)
            """,
    })
    repo.write({"pkg/client.py": """
        class Client:
            def get(self, key, *, timeout):
                return key
        """})
    code, data = check(repo)
    assert code == 1
    found = callers(change_of(data, "pkg.client.Client.get"))
    missing = ("broken", "missing required keyword-only argument 'timeout'")
    assert found[("app/use.py", 6)] == missing
    assert found[("app/use.py", 10)] == missing


def test_dataclass_field_added(make_repo: Callable[..., GitRepo], check: Check) -> None:
    geo = """
        from dataclasses import dataclass


        @dataclass
        class Point:
            x: int
            y: int
        """
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/geo.py": geo,
        "app/__init__.py": "",
        "app/draw.py": """
            from pkg.geo import Point


            def origin():
                return Point(0, 0), Point(x=1, y=2, z=3)
            """,
    })
    repo.write({"pkg/geo.py": geo + "    z: int\n"})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.geo.Point")
    assert ch["change"] == "signature"
    assert ch["breaking"] == ["required-param-added:z"]
    assert ch["after"] == "class Point(x: int, y: int, z: int)"
    statuses = sorted((c["status"], c["reason"]) for c in ch["callers"] if c["path"] == "app/draw.py" and c["line"] == 5)
    assert statuses == [("broken", "missing required argument 'z'"), ("ok", "binds")]


GEO = """
    from dataclasses import dataclass


    @dataclass
    class Point:
        x: int
        y: int
    """


def test_dataclass_subclass_elsewhere_runs_the_generated_constructor(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/geo.py": GEO,
        "pkg/named.py": "from pkg.geo import Point\n\n\nclass Named(Point):\n    pass\n\n\nclass Deeper(Named):\n    pass\n",
        "app.py": "from pkg.named import Deeper, Named\n\nNamed(1, 2)\nDeeper(3, 4)\nNamed(5, 6, z=7)\n",
    })
    repo.write({"pkg/geo.py": GEO + "    z: int\n"})
    code, data = check(repo)
    assert code == 1
    found = callers(change_of(data, "pkg.geo.Point"))
    assert found[("app.py", 3)] == ("broken", "missing required argument 'z'")
    assert found[("app.py", 4)] == ("broken", "missing required argument 'z'")
    assert found[("app.py", 5)] == ("ok", "binds")


@pytest.mark.xfail(reason="a dataclass subclass generates its own __init__ from its base's fields and its own:"
                          " its instantiations are not linked to the base's change", strict=True)
def test_dataclass_subclass_with_own_fields(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/geo.py": GEO,
        "pkg/named.py": "from dataclasses import dataclass\n\nfrom pkg.geo import Point\n\n\n@dataclass\nclass Named(Point):\n    name: str = ''\n",
        "app.py": "from pkg.named import Named\n\nNamed(1, 2)\n",
    })
    repo.write({"pkg/geo.py": GEO + "    z: int\n"})
    code, data = check(repo)
    assert code == 1


def test_plain_class_init_changed(make_repo: Callable[..., GitRepo], check: Check) -> None:
    conn = """
        class Conn:
            def __init__(self, url):
                self.url = url
        """
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/conn.py": conn,
        "pkg/secure.py": """
            from pkg.conn import Conn


            class SecureConn(Conn):
                pass
            """,
        "app/__init__.py": "",
        "app/net.py": """
            from pkg.conn import Conn
            from pkg.secure import SecureConn


            def open_all():
                a = Conn("u")
                b = SecureConn("v")
                c = Conn("w", token="t")
                return a, b, c
            """,
    })
    repo.write({"pkg/conn.py": conn.replace("(self, url)", "(self, url, token)")})
    code, data = check(repo)
    assert code == 1
    found = all_callers(data)
    assert found[("app/net.py", 6)] == {"broken"}
    assert found[("app/net.py", 7)] == {"broken"}  # a subclass that inherits __init__
    assert found[("app/net.py", 8)] == {"ok"}
    reasons = {(c["path"], c["line"]): c["reason"] for ch in data["changes"] for c in ch["callers"]}
    assert reasons[("app/net.py", 6)] == "missing required argument 'token'"
    assert reasons[("app/net.py", 7)] == "missing required argument 'token'"


def test_function_passed_as_a_value_is_unknown(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/util.py": """
            def helper(x):
                return x


            def now():
                return 0
            """,
        "app/__init__.py": "",
        "app/models.py": """
            from pydantic import BaseModel, Field

            from pkg.util import helper, now


            def order(xs):
                return sorted(xs, key=helper)


            class Model(BaseModel):
                created: int = Field(default=now)
            """,
    })
    repo.write({"pkg/util.py": """
        def helper(x, y):
            return x


        def now(tz):
            return 0
        """})
    code, data = check(repo)
    assert code == 0  # unknown does not block by default
    helper = callers(change_of(data, "pkg.util.helper"))
    status, reason = helper[("app/models.py", 7)]
    assert status == "unknown"
    # The new signature is the change's (`after`), printed once, not repeated in each such site's reason.
    assert "value" in reason and "def helper" not in reason and change_of(data, "pkg.util.helper")["after"] == "def helper(x, y)"
    status, reason = callers(change_of(data, "pkg.util.now"))[("app/models.py", 11)]
    assert status == "unknown"
    assert "def now" not in reason and change_of(data, "pkg.util.now")["after"] == "def now(tz)"


def test_args_kwargs_forwarding_is_unknown(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "app/wrap.py": """
        from pkg.clock import stamp


        def wrap(*args, **kwargs):
            return stamp(*args, **kwargs)
        """})
    repo.write({
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, tz='UTC')"),
        "app/report.py": BASE["app/report.py"].replace("stamp(2)", "stamp(2, 'UTC')"),
        "tests/test_clock.py": BASE["tests/test_clock.py"].replace("stamp(3)", "stamp(3, tz=None)"),
    })
    code, data = check(repo)
    assert code == 0
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/wrap.py", 5)] == ("unknown", "*args/**kwargs forwarding")


# --- kinds of change ----------------------------------------------------------------------------


def test_removed_function(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": "def unused(a):\n    return a\n"})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "removed"
    assert ch["breaking"] == ["removed"]
    assert ch["after"] is None
    found = callers(ch)
    assert found[("app/report.py", 5)] == ("broken", "calls 'stamp', which no longer exists")
    assert found[("app/report.py", 1)] == ("broken", "imports a name that no longer exists: 'stamp'")


def test_renamed_function(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": BASE["pkg/clock.py"].replace("def stamp", "def make_stamp"),
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp", "make_stamp"),
    })
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "renamed"
    assert ch["breaking"][0] == "renamed:make_stamp"
    found = callers(ch)
    assert found[("app/report.py", 5)] == ("broken", "calls 'stamp', which no longer exists (renamed to 'make_stamp')")
    assert found[("app/jobs.py", 5)][0] == "ok"
    assert found[("app/jobs.py", 1)][0] == "ok"


def test_moved_function(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": "def unused(a):\n    return a\n",
        "pkg/timeutil.py": "def stamp(ts):\n    return ts\n",
        "app/jobs.py": BASE["app/jobs.py"].replace("pkg.clock", "pkg.timeutil"),
    })
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "moved"
    assert ch["breaking"] == ["moved:pkg.timeutil.stamp"]
    found = callers(ch)
    assert found[("app/report.py", 5)][0] == "broken"
    assert "moved to 'pkg.timeutil.stamp'" in found[("app/report.py", 5)][1]
    assert found[("app/jobs.py", 5)][0] == "ok"


def test_moved_function_reported_where_it_is_now_with_its_marker(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": "def unused(a):\n    return a\n",
        "pkg/timeutil.py": "import os\n\n\ndef stamp(ts):  # graphguard: ignore[moved]\n    return ts\n",
    })
    code, data = check(repo)
    assert code == 0
    ch = change_of(data, "pkg.clock.stamp")
    assert (ch["change"], ch["path"], ch["line"], ch["ignored"]) == ("moved", "pkg/timeutil.py", 4, ["moved"])
    assert callers(ch)[("app/report.py", 5)][0] == "broken"  # accepted, still listed


def test_move_that_leaves_a_reexport_behind_passes(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": "from pkg.timeutil import stamp\n\n\ndef unused(a):\n    return a\n",
        "pkg/timeutil.py": "def stamp(ts):\n    return ts\n",
    })
    code, data = check(repo)
    assert code == 0
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "moved"
    found = callers(ch)
    assert found[("app/report.py", 5)] == ("ok", "binds")
    assert found[("app/report.py", 1)] == ("ok", "imports it")


def test_rename_that_keeps_an_alias_passes(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    renamed = source(BASE["pkg/clock.py"]).replace("def stamp", "def make_stamp") + "\n\nstamp = make_stamp\n"
    repo.write({"pkg/clock.py": renamed})
    code, data = check(repo)
    assert code == 0
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "renamed"
    assert {c["status"] for c in ch["callers"]} == {"ok"}, ch["callers"]


CLIENT = """
    class Client:
        @classmethod
        def create(cls, url):
            return cls()

        def get(self, key):
            return key


    def make() -> Client:
        return Client()
    """


def test_renamed_class(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/client.py": CLIENT,
        "app/__init__.py": "",
        "app/use.py": """
            from pkg.client import Client, make


            def a():
                return Client.create("u"), make().get(1)
            """,
    })
    repo.write({"pkg/client.py": CLIENT.replace("Client", "Klient")})
    code, data = check(repo)
    assert code == 1
    assert change_of(data, "pkg.client.Client")["change"] == "renamed"
    create = callers(change_of(data, "pkg.client.Client.create"))
    assert create[("app/use.py", 5)] == ("broken", "calls 'create', which no longer exists (renamed to 'Klient.create')")
    # make() now returns a Klient: the method call on its result still works.
    assert callers(change_of(data, "pkg.client.Client.get"))[("app/use.py", 5)] == ("ok", "binds")


def test_base_mode_sees_the_callers_the_hook_sees(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """The same breaking commit, checked staged (graph at its parent) and in CI (graph at the commit)."""
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/client.py": CLIENT,
        "app/__init__.py": "",
        "app/use.py": """
            from pkg.client import Client


            def a(c):
                d = Client.create("v")
                return d.fetch(3)
            """,
    })
    repo.write({"pkg/client.py": CLIENT.replace("get(self, key)", "fetch(self, key)")})
    repo.commit("a method whose name no builtin type has")
    repo.write({"pkg/client.py": CLIENT.replace("get(self, key)", "fetch(self, key, strict)")})
    repo.git("add", "-A")
    code, staged = check(repo)
    assert code == 1
    before = repo.head
    repo.git("commit", "-q", "--no-verify", "-m", "break get")
    code, ci = check(repo, "--base", before)
    assert code == 1
    for data in (staged, ci):
        hit = next(c for c in change_of(data, "pkg.client.Client.fetch")["callers"] if c["path"] == "app/use.py")
        assert (hit["line"], hit["status"], hit["resolution"]) == (6, "broken", "by-name")


def test_body_only_change_is_no_change(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"].replace("return ts", "return ts + 0  # same interface")})
    repo.git("add", "-A")
    code, data = check(repo)
    assert code == 0
    assert data["changes"] == []
    assert data["stats"]["files_changed"] == 1


def test_deleted_file(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.git("rm", "-q", "pkg/clock.py")
    code, data = check(repo)
    assert code == 1
    assert data["head"] == "INDEX"
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "removed"
    found = callers(ch)
    assert found[("app/jobs.py", 5)] == ("broken", "calls 'stamp', which no longer exists")
    assert found[("app/jobs.py", 1)] == ("broken", "imports a name that no longer exists: 'stamp'")
    # The commit that only deletes the module, checked in CI.
    before = repo.head
    repo.git("commit", "-q", "--no-verify", "-m", "delete clock")
    code, data = check(repo, "--base", before)
    assert code == 1
    assert data["stats"]["files_changed"] == 1
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/report.py", 5)][0] == "broken"


def test_unicode_and_spaces_in_paths(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        **BASE,
        "app/módulo.py": """
            from pkg.clock import stamp


            def größe():
                return stamp(9)
            """,
        "tests/my tests/test_x.py": """
            from pkg.clock import stamp


            def test_x():
                assert stamp(4)
            """,
    })
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo)
    assert code == 1
    ch = change_of(data, "pkg.clock.stamp")
    found = callers(ch)
    assert found[("app/módulo.py", 5)] == ("broken", "missing required argument 'tz'")
    assert found[("tests/my tests/test_x.py", 5)] == ("broken", "missing required argument 'tz'")
    assert hits_of(ch)["tests/my tests/test_x.py"] is True


# --- files that cannot be read ---------------------------------------------------------------


def test_syntax_error_is_a_warning_and_the_rest_is_checked(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": "from pkg.clock import stamp\n\n\ndef run(:\n    return stamp(1)\n",
    })
    repo.git("add", "-A")
    code, data = check(repo)
    assert code == 1
    warning = next(w for w in data["warnings"] if w["path"] == "app/jobs.py")
    assert "syntax error" in warning["message"]
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/report.py", 5)][0] == "broken"


@pytest.mark.parametrize(
    "deep",
    [
        pytest.param("x = " + "(" * 500 + "1" + ")" * 500 + "\n", id="parens"),
        pytest.param("f(" * 500 + ")" * 500 + "\n", id="calls"),
    ],
)
def test_deeply_nested_file_is_a_warning(make_repo: Callable[..., GitRepo], check: Check, deep: str) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/deep.py": deep.encode(), "pkg/clock.py": NEW_STAMP})
    repo.git("add", "-A")
    code, data = check(repo)
    assert code == 1  # the breaking change elsewhere is still seen
    assert any(w["path"] == "pkg/deep.py" and "nested" in w["message"] for w in data["warnings"]), data["warnings"]
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/report.py", 5)][0] == "broken"
    # Once committed, the graph is built around it, and a later check still works.
    repo.git("commit", "-q", "--no-verify", "-m", "deep")
    repo.write({"pkg/deep.py": deep.encode() + b"def g(a):\n    return a\n"})
    code, data = check(repo)
    assert code == 0
    assert any(w["path"] == "pkg/deep.py" for w in data["warnings"])


# --- markers and configuration --------------------------------------------------------------


def test_ignore_marker_accepts_the_change(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"].replace(
        "def stamp(ts):", "def stamp():  # graphguard: ignore[param-removed]")})
    code, data = check(repo)
    assert code == 0
    assert data["verdict"] == "pass"
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["breaking"] == ["param-removed:ts"]
    assert ch["ignored"] == ["param-removed"]
    assert callers(ch)[("app/report.py", 5)][0] == "broken"  # still reported


def test_ignore_marker_for_another_code_does_not_accept(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"].replace(
        "def stamp(ts):", "def stamp():  # graphguard: ignore[default-removed]")})
    code, _ = check(repo)
    assert code == 1


def _pyproject(table: str) -> str:
    return "[project]\nname = 'x'\n\n[tool.graphguard]\n" + table + "\n"


def test_block_on_removed(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": "def stamp(ts):\n    return ts\n"})  # `unused` removed: no callers
    code, data = check(repo)
    assert code == 0
    assert change_of(data, "pkg.clock.unused")["callers"] == []
    repo.write({"pyproject.toml": _pyproject('block_on = ["removed"]')})
    code, data = check(repo)
    assert code == 1
    assert change_of(data, "pkg.clock.unused")["change"] == "removed"


def test_fail_on_unknown(make_repo: Callable[..., GitRepo], check: Check) -> None:
    forward = "\n\ndef forward(*a, **k):\n    return unused(*a, **k)\n"
    repo = make_repo({**BASE, "pkg/clock.py": source(BASE["pkg/clock.py"]) + forward})
    repo.write({"pkg/clock.py": source(BASE["pkg/clock.py"]).replace("unused(a)", "unused(a, b)") + forward})
    code, data = check(repo)
    assert code == 0
    assert {c["status"] for c in change_of(data, "pkg.clock.unused")["callers"]} == {"unknown"}
    repo.write({"pyproject.toml": _pyproject("fail_on_unknown = true")})
    code, _ = check(repo)
    assert code == 1


def test_public_api_blocks_without_callers(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**BASE, "pyproject.toml": _pyproject('public_api = ["pkg"]')})
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"].replace("unused(a)", "unused(a, b)")})
    code, data = check(repo)
    assert code == 1
    assert change_of(data, "pkg.clock.unused")["callers"] == []
    # An optional parameter breaks nobody, inside the repository or out.
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"].replace("unused(a)", "unused(a, b=None)")})
    code, _ = check(repo)
    assert code == 0


def test_generated_callers_are_not_reported(make_repo: Callable[..., GitRepo], check: Check) -> None:
    gen = {"gen/__init__.py": "", "gen/stubs.py": "from pkg.clock import stamp\n\n\ndef g():\n    return stamp(0)\n"}
    repo = make_repo({**BASE, **gen, "pyproject.toml": _pyproject('generated = ["gen/**"]')})
    repo.write({"pkg/clock.py": NEW_STAMP})
    code, data = check(repo)
    assert code == 1
    paths = {c["path"] for c in change_of(data, "pkg.clock.stamp")["callers"]}
    assert "app/report.py" in paths
    assert not any(p.startswith("gen/") for p in paths)


def test_generated_only_callers_pass(make_repo: Callable[..., GitRepo], check: Check) -> None:
    gen = {"gen/__init__.py": "", "gen/stubs.py": "from pkg.clock import unused\n\n\ndef g():\n    return unused(0)\n"}
    repo = make_repo({**BASE, **gen, "pyproject.toml": _pyproject('generated = ["gen/**"]')})
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"].replace("unused(a)", "unused(a, b)")})
    code, data = check(repo)
    assert code == 0
    assert change_of(data, "pkg.clock.unused")["callers"] == []


def test_unknown_config_key_is_an_error(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({**BASE, "pyproject.toml": _pyproject('block_on = ["removed"]\nblock_onn = ["removed"]')})
    repo.write({"pkg/clock.py": NEW_STAMP})
    r = graphguard(repo, "check", "--format", "json")
    _assert_one_line_error(r, "block_onn")


# --- text format -------------------------------------------------------------------------------


def test_text_format(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": NEW_STAMP})
    r = graphguard(repo, "check")
    assert r.code == 1, r.err
    assert "\x1b[" not in r.out
    lines = r.out.strip().splitlines()
    assert "pkg/clock.py:1:" in lines[0]
    assert any("app/report.py:5:" in line and "broken" in line and "missing required argument 'tz'" in line
               for line in lines)
    summaries = [line for line in lines if line.startswith("graphguard:")]
    assert summaries == [lines[-1]]
    assert lines[-1].startswith("graphguard: BLOCK")
    # A pass is one summary line too.
    repo.write({"pkg/clock.py": BASE["pkg/clock.py"]})
    r = graphguard(repo, "check")
    assert r.code == 0
    assert r.out.strip().splitlines()[-1].startswith("graphguard: pass")


def test_console_script_end_to_end(make_repo: Callable[..., GitRepo], graphguard_cli: Callable[..., Result]) -> None:
    """One run through a real process: exit codes and stdout as a hook sees them."""
    repo = make_repo(BASE)
    repo.write({"pkg/clock.py": NEW_STAMP})
    repo.git("add", "-A")
    r = graphguard_cli(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err
    assert ("app/report.py", 5) in callers(change_of(r.json, "pkg.clock.stamp"))


# --- regressions found by the mutation benchmark (bench/mutation_bench.py) ---------------------------------


def test_renamed_function_used_in_its_own_file_blocks(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/m.py": "def helper(x):\n    return x\n\n\ndef use():\n    return helper(1)\n"})
    repo.write({"pkg/m.py": "def helper2(x):\n    return x\n\n\ndef use():\n    return helper(1)\n"})
    code, data = check(repo)
    assert code == 1
    assert [(c["line"], c["status"]) for c in change_of(data, "pkg.m.helper")["callers"]] == [(6, "broken")]


def test_removed_override_falls_back_to_the_base(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/h.py": (
        "class Base:\n    def run(self, x):\n        return x\n\n\n"
        "class Sub(Base):\n    def run(self, x):\n        return 2\n\n\nSub().run(1)\n")})
    repo.write({"pkg/h.py": "class Base:\n    def run(self, x):\n        return x\n\n\nclass Sub(Base):\n    pass\n\n\nSub().run(1)\n"})
    code, data = check(repo)
    assert code == 0
    (caller,) = change_of(data, "pkg.h.Sub.run")["callers"]
    assert caller["status"] == "unknown" and "inherited from pkg.h.Base.run" in caller["reason"]


def test_method_name_builtin_types_also_have_does_not_block(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/cache.py": "class LRUCache:\n    def values(self):\n        return []\n",
        "pkg/env.py": "def f(env):\n    return sorted(env.extensions.values())\n",
    })
    repo.write({"pkg/cache.py": "class LRUCache:\n    def values(self, reverse):\n        return []\n"})
    code, data = check(repo)
    assert code == 0
    (caller,) = change_of(data, "pkg.cache.LRUCache.values")["callers"]
    assert (caller["path"], caller["status"]) == ("pkg/env.py", "unknown")


# --- type annotations are references, not calls ------------------------------------------------

MODE = """
    class Mode:
        def __init__(self, line_length=88):
            self.line_length = line_length


    DEFAULT = Mode()
    """

ANNOTATED = """
    from typing import Optional

    import pkg.mode as m
    from pkg import mode


    default: m.Mode = m.DEFAULT


    class Settings:
        mode: "m.Mode" = m.DEFAULT
        other: mode.Mode = m.DEFAULT


    def fmt(src: str, mode: m.Mode = m.DEFAULT, modes: list[m.Mode] = [], last: Optional[mode.Mode] = None) -> m.Mode:
        return mode


    def pick(x: m.Mode | None) -> "list[m.Mode]":
        return [x]


    def later(register):
        register(m.Mode)


    def check(x):
        return isinstance(x, m.Mode) or typing.cast(m.Mode, x)
    """


def test_a_type_annotation_or_check_of_a_changed_class_is_not_a_call(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": source(MODE), "app/__init__.py": "", "app/fmt.py": source(ANNOTATED)})
    repo.write({"pkg/mode.py": source(MODE).replace("line_length=88", "line_length").replace("Mode()", "Mode(88)")})
    repo.git("add", "-A")
    code, data = check(repo, "--staged")
    callers = {(c["path"], c["line"]): c for ch in data["changes"] for c in ch["callers"]}
    annotations = [c for (path, line), c in callers.items() if path == "app/fmt.py" and line in (7, 15, 19)]
    assert len(annotations) == 3, callers
    assert all(c["status"] == "ok" and "used as a type" in c["reason"] for c in annotations)
    # A class checked (isinstance) or named to the type checker (cast) is not called either.
    assert callers["app/fmt.py", 28]["status"] == "ok", callers["app/fmt.py", 28]
    # Passed as a value it may be called elsewhere: that one stays undecidable.
    assert callers["app/fmt.py", 24]["status"] == "unknown" and "callback" in callers["app/fmt.py", 24]["reason"]
    assert code == 0


def test_an_annotation_of_a_removed_class_is_still_broken(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mode.py": source(MODE), "app/__init__.py": "", "app/fmt.py": source(ANNOTATED)})
    repo.write({"pkg/mode.py": "DEFAULT = None\n"})
    repo.git("add", "-A")
    code, data = check(repo, "--staged")
    (gone,) = [ch for ch in data["changes"] if ch["symbol"] == "pkg.mode.Mode"]
    assert {c["line"] for c in gone["callers"] if c["path"] == "app/fmt.py" and c["status"] == "broken"} >= {7, 15, 19}
    assert code == 1
