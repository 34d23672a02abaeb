"""A name still bound is no removal; one module name of two files is two modules.

Each case is a correct commit of a real project that graphguard once blocked (issue 19 §1,
items 1, 2 and 6), as a small real repository, with the true breaks beside it that the fix
must keep blocking. The analysed code is data: it is never imported or run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo, Result, callers, change_of

Check = Callable[..., tuple[int, dict[str, Any]]]


@pytest.fixture
def check(graphguard: Callable[..., Result]) -> Check:
    """`check(repo, *flags)` -> (exit code, parsed `check --format json`), asserting it did not error."""

    def run(repo: GitRepo, *flags: str) -> tuple[int, dict[str, Any]]:
        r = graphguard(repo, "check", "--format", "json", *flags)
        assert r.code in (0, 1), f"exit {r.code}: {r.err}"
        assert (r.code == 1) == (r.json["verdict"] == "block"), r.json
        return r.code, r.json

    return run


def staged(repo: GitRepo, files: dict[str, str | None]) -> None:
    repo.write(files)
    repo.git("add", "-A")


def broken(data: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(c["path"], c["line"], c["reason"]) for ch in data["changes"] for c in ch["callers"] if c["status"] == "broken"]


# --- 1. a definition replaced by an import or an assignment keeps its name ------------------

# ansible "Use sentinel everywhere", reduced: a class and a function of pkg/token.py, both imported by pkg/cli.py.
TOKEN: dict[str, str] = {
    "pkg/__init__.py": "",
    "pkg/common.py": """
        class Sentinel:
            def __new__(cls, *args, **kwargs):
                return cls
        """,
    "pkg/token.py": """
        class NoTokenSentinel:
            pass


        def is_ident(s):
            return s.isidentifier()
        """,
    "pkg/cli.py": """
        from pkg.token import NoTokenSentinel, is_ident


        def run(name):
            if not is_ident(name):
                return NoTokenSentinel()
            return NoTokenSentinel
        """,
}

TOKEN_NOW = """
    from pkg.common import Sentinel as NoTokenSentinel

    is_ident = str.isidentifier
    """


@pytest.mark.parametrize("mode", ["staged", "commits"])
def test_definitions_replaced_by_an_import_and_an_assignment_are_not_removed(
        make_repo: Callable[..., GitRepo], check: Check, mode: str) -> None:
    repo = make_repo(TOKEN)
    base = repo.head
    if mode == "staged":
        staged(repo, {"pkg/token.py": TOKEN_NOW})
        code, data = check(repo, "--staged")
    else:
        head = repo.commit("use the sentinel everywhere", {"pkg/token.py": TOKEN_NOW})
        code, data = check(repo, "--base", base, "--head", head)
    assert code == 0, broken(data)
    # The class's name leads to the repository's Sentinel now: its uses are decided against Sentinel's signature.
    sentinel = change_of(data, "pkg.token.NoTokenSentinel")
    assert sentinel["change"] == "moved"
    assert sentinel["breaking"][0] == "moved:pkg.common.Sentinel"
    assert sentinel["after"] == "class Sentinel(*args, **kwargs)"
    assert callers(sentinel)[("pkg/cli.py", 1)] == ("ok", "imports it")
    assert callers(sentinel)[("pkg/cli.py", 6)] == ("ok", "binds")
    # The function's name holds a builtin's method now: no signature to compare, and the report says so.
    ident = change_of(data, "pkg.token.is_ident")
    assert ident["change"] == "moved"
    assert ident["breaking"] == ["moved:str.isidentifier"]
    assert callers(ident)[("pkg/cli.py", 1)][0] == "ok"
    status, reason = callers(ident)[("pkg/cli.py", 5)]
    assert status == "unknown"
    assert reason == "'is_ident' is still bound, to str.isidentifier (line 3): its signature is not known here"


def test_a_name_imported_from_a_definition_that_does_not_take_the_call_still_blocks(
        make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({**TOKEN, "pkg/common.py": "def strict_ident(s, strict):\n    return s.isidentifier()\n"})
    staged(repo, {"pkg/token.py": """
        from pkg.common import strict_ident as is_ident

        NoTokenSentinel = object
        """})
    code, data = check(repo, "--staged")
    assert code == 1
    ident = change_of(data, "pkg.token.is_ident")
    assert ident["change"] == "moved"
    assert ident["breaking"][0] == "moved:pkg.common.strict_ident"
    assert callers(ident)[("pkg/cli.py", 5)] == ("broken", "missing required argument 'strict'")
    assert broken(data) == [("pkg/cli.py", 5, "missing required argument 'strict'")]


def test_a_name_imported_only_under_type_checking_is_removed(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """`if TYPE_CHECKING:` runs nowhere: `from pkg.token import is_ident` fails when the code runs."""
    repo = make_repo(TOKEN)
    staged(repo, {"pkg/token.py": """
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg.common import Sentinel as NoTokenSentinel


        def is_ident(s):
            return s.isidentifier()
        """})
    code, data = check(repo, "--staged")
    assert code == 1
    gone = change_of(data, "pkg.token.NoTokenSentinel")
    assert gone["change"] == "removed"
    assert callers(gone)[("pkg/cli.py", 1)] == ("broken", "imports a name that no longer exists: 'NoTokenSentinel'")


def test_a_name_bound_on_each_branch_of_type_checking_is_bound(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(TOKEN)
    staged(repo, {"pkg/token.py": """
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg.common import Sentinel as NoTokenSentinel
        else:
            NoTokenSentinel = object


        def is_ident(s):
            return s.isidentifier()
        """})
    code, data = check(repo, "--staged")
    assert code == 0, broken(data)
    assert change_of(data, "pkg.token.NoTokenSentinel")["change"] == "moved"


# --- 2. a move whose old module imports the name back -------------------------------------

# poetry: SimpleRepositoryRootPage moved from link_sources/html.py to link_sources/base.py; html.py imports
# it back, and a new subclass in html.py uses it.
PAGES: dict[str, str] = {
    "repo/__init__.py": "",
    "repo/link_sources/__init__.py": "",
    "repo/link_sources/base.py": """
        class LinkSource:
            def __init__(self, url):
                self.url = url
        """,
    "repo/link_sources/html.py": """
        from repo.link_sources.base import LinkSource


        class HTMLPage(LinkSource):
            def __init__(self, url, content):
                super().__init__(url)
                self.content = content


        class SimpleRepositoryRootPage:
            def __init__(self, content=None):
                self.content = content

            def search(self, query):
                return []
        """,
    "repo/legacy.py": """
        from repo.link_sources.html import SimpleRepositoryRootPage


        def root_page(content):
            return SimpleRepositoryRootPage(content).search("x")
        """,
}


def moved_to_base(init: str = "def __init__(self, content=None):") -> dict[str, str | None]:
    return {
        "repo/link_sources/base.py": f"""
            class LinkSource:
                def __init__(self, url):
                    self.url = url


            class SimpleRepositoryRootPage:
                {init}
                    self.content = content

                def search(self, query):
                    return []
            """,
        "repo/link_sources/html.py": """
            from repo.link_sources.base import LinkSource
            from repo.link_sources.base import SimpleRepositoryRootPage


            class HTMLPage(LinkSource):
                def __init__(self, url, content):
                    super().__init__(url)
                    self.content = content


            class SimpleRepositoryHTMLRootPage(SimpleRepositoryRootPage):
                def __init__(self, content=None):
                    super().__init__(content)
            """,
    }


@pytest.mark.parametrize("mode", ["staged", "commits"])
def test_a_class_moved_and_imported_back_is_moved_not_renamed(make_repo: Callable[..., GitRepo], check: Check, mode: str) -> None:
    repo = make_repo(PAGES)
    base = repo.head
    if mode == "staged":
        staged(repo, moved_to_base())
        code, data = check(repo, "--staged")
    else:
        head = repo.commit("move the root page to base", moved_to_base())
        code, data = check(repo, "--base", base, "--head", head)
    assert code == 0, broken(data)
    page = change_of(data, "repo.link_sources.html.SimpleRepositoryRootPage")
    assert page["change"] == "moved"
    assert page["breaking"] == ["moved:repo.link_sources.base.SimpleRepositoryRootPage"]
    # Every use through the old module still binds: the import, the call, the new subclass.
    assert callers(page) == {
        ("repo/legacy.py", 1): ("ok", "imports it"),
        ("repo/legacy.py", 5): ("ok", "binds"),
        ("repo/link_sources/html.py", 2): ("ok", "imports it"),
        ("repo/link_sources/html.py", 11): ("ok", "subclasses it"),
    }
    assert all(c["change"] == "moved" for c in data["changes"]), [(c["symbol"], c["change"]) for c in data["changes"]]


def test_a_class_moved_and_imported_back_with_a_new_required_parameter_blocks(
        make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(PAGES)
    staged(repo, moved_to_base(init="def __init__(self, content, session):"))
    code, data = check(repo, "--staged")
    assert code == 1
    assert ("repo/legacy.py", 5, "missing required argument 'session'") in broken(data)


# --- 6. same-named top-level modules are two modules --------------------------------------

# ansible: two vyos.py in plugin folders without __init__.py (each folder an import root): both are `vyos`.
PLUGINS: dict[str, str] = {
    "plugins/action/vyos.py": """
        from ansible.plugins.action import ActionBase


        class ActionModule(ActionBase):
            def run(self, tmp=None):
                return super(ActionModule, self).run(tmp)


        def factory():
            class ActionModule(ActionBase):
                def run(self, tmp=None):
                    return super(ActionModule, self).run(tmp)
            return ActionModule
        """,
    "plugins/action/other.py": "x = 1\n",
    "plugins/cliconf/vyos.py": """
        from ansible.plugins.cliconf import CliconfBase


        class ActionModule(CliconfBase):
            def run(self, tmp=None):
                return super(ActionModule, self).run(tmp)


        def helper(a):
            return a
        """,
    "plugins/cliconf/use.py": """
        from vyos import helper


        def go():
            return helper(1)
        """,
}


@pytest.mark.parametrize("mode", ["staged", "commits"])
def test_deleting_one_of_two_same_named_modules_leaves_the_others_own_names_alone(
        make_repo: Callable[..., GitRepo], check: Check, mode: str) -> None:
    repo = make_repo(PLUGINS)
    base = repo.head
    gone: dict[str, str | None] = {"plugins/cliconf/vyos.py": None, "plugins/cliconf/use.py": None}
    if mode == "staged":
        staged(repo, gone)
        code, data = check(repo, "--staged")
    else:
        head = repo.commit("drop the cliconf plugin", gone)
        code, data = check(repo, "--base", base, "--head", head)
    assert code == 0, broken(data)
    # plugins/action/vyos.py's `super(ActionModule, self)` names its own class, three lines above.
    assert ("plugins/action/vyos.py", 6) not in callers(change_of(data, "vyos.ActionModule"))


def test_a_signature_change_in_one_of_two_same_named_modules_still_blocks_its_callers(
        make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo(PLUGINS)
    text = repo.path("plugins/cliconf/vyos.py").read_text(encoding="utf-8")
    staged(repo, {"plugins/cliconf/vyos.py": text.replace("def helper(a):", "def helper(a, b):")})
    code, data = check(repo, "--staged")
    assert code == 1
    assert broken(data) == [("plugins/cliconf/use.py", 5, "missing required argument 'b'")]


def test_an_import_of_a_module_name_two_folders_hold_equally_near_is_one_of_them(
        make_repo: Callable[..., GitRepo], check: Check) -> None:
    """`from vyos import helper` in lib/: which `vyos` runs depends on sys.path. A change to one of them is
    undecided for such a caller, never taken for the other module's (nor the two merged)."""
    both = PLUGINS["plugins/action/vyos.py"] + "\n\ndef helper(a):\n    return a\n"
    repo = make_repo({**PLUGINS, "plugins/action/vyos.py": both,
                      "lib/runner.py": "from vyos import helper\n\n\ndef go():\n    return helper(1)\n"})
    text = repo.path("plugins/cliconf/vyos.py").read_text(encoding="utf-8")
    staged(repo, {"plugins/cliconf/vyos.py": text.replace("def helper(a):", "def helper(a, b):")})
    code, data = check(repo, "--staged")
    helper = change_of(data, "vyos.helper")
    status, reason = callers(helper)[("lib/runner.py", 5)]
    assert status == "unknown"
    assert "on other paths the name holds another" in reason
    # The caller beside it in plugins/cliconf/ imports that folder's module: still a break.
    assert broken(data) == [("plugins/cliconf/use.py", 5, "missing required argument 'b'")]
    assert code == 1


def test_a_function_replaced_by_a_literal_cannot_be_called(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """`is_ident = None` keeps the name importable, but no call of it runs."""
    repo = make_repo(TOKEN)
    staged(repo, {"pkg/token.py": "from pkg.common import Sentinel as NoTokenSentinel\n\nis_ident = None\n"})
    code, data = check(repo, "--staged")
    assert code == 1
    ident = change_of(data, "pkg.token.is_ident")
    assert ident["breaking"] == ["moved:None"]
    assert callers(ident)[("pkg/cli.py", 1)][0] == "ok"
    assert broken(data) == [("pkg/cli.py", 5, "'is_ident' now holds None (line 3), which cannot be called")]


@pytest.mark.parametrize(("inherited", "verdict"), [("def search(self, query):", 0), ("def search(self, query, limit):", 1)])
def test_a_method_of_a_class_imported_back_is_decided_against_the_method_it_inherits_now(
        make_repo: Callable[..., GitRepo], check: Check, inherited: str, verdict: int) -> None:
    repo = make_repo(PAGES)
    staged(repo, {
        "repo/link_sources/base.py": f"""
            class LinkSource:
                def __init__(self, url):
                    self.url = url


            class RootPage:
                {inherited}
                    return []


            class SimpleRepositoryRootPage(RootPage):
                def __init__(self, content=None):
                    self.content = content
            """,
        "repo/link_sources/html.py": """
            from repo.link_sources.base import LinkSource
            from repo.link_sources.base import SimpleRepositoryRootPage


            class HTMLPage(LinkSource):
                def __init__(self, url, content):
                    super().__init__(url)
                    self.content = content
            """,
    })
    code, data = check(repo, "--staged")
    search = change_of(data, "repo.link_sources.html.SimpleRepositoryRootPage.search")
    assert search["change"] == "moved"
    assert search["breaking"][0] == "moved:repo.link_sources.base.RootPage.search"
    assert code == verdict
    expected = ("ok", "binds") if verdict == 0 else ("broken", "missing required argument 'limit'")
    assert callers(search)[("repo/legacy.py", 5)] == expected


def test_the_uses_of_the_definition_a_name_now_leads_to_are_its_own(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """Three sentinels became one: a use of `Sentinel` written as such is no use of `NoTokenSentinel`."""
    repo = make_repo({**TOKEN, "pkg/other.py": "from pkg.common import Sentinel\n\nDEFAULT = Sentinel\n"})
    staged(repo, {"pkg/token.py": TOKEN_NOW, "pkg/other.py": "from pkg.common import Sentinel\n\nDEFAULT = Sentinel()\n",
                  "pkg/cli.py": """
                      from pkg.common import Sentinel
                      from pkg.token import NoTokenSentinel, is_ident


                      def run(name):
                          if not is_ident(name):
                              return NoTokenSentinel()
                          return NoTokenSentinel


                      def other():
                          return Sentinel
                      """})
    code, data = check(repo, "--staged")
    assert code == 0, broken(data)
    sentinel = change_of(data, "pkg.token.NoTokenSentinel")
    assert {path for path, _ in callers(sentinel)} == {"pkg/cli.py"}
    assert sorted(line for _, line in callers(sentinel)) == [2, 7, 8]
