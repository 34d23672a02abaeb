"""`graphguard check` blames only what a change broke: real git repositories, the JSON verdicts asserted.

The regressions of issue 9 on small copies of the code where they were seen: netbox
(an optional parameter on a form-field mixin, a moved parameter of `restrict`, a
keyword renamed behind `**kwargs`), click (a renamed `CliRunner`) and pytest (a
removed `TerminalReporter` whose hook method is called by name).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo, Result

Check = Callable[..., tuple[int, dict[str, Any]]]


@pytest.fixture
def check(graphguard: Callable[..., Result]) -> Check:
    """`check(repo)` -> (exit code, parsed `check --format json` of what is staged)."""

    def run(repo: GitRepo) -> tuple[int, dict[str, Any]]:
        repo.git("add", "-A")
        r = graphguard(repo, "check", "--format", "json")
        assert r.code in (0, 1), f"exit {r.code}: {r.err}"
        return r.code, r.json

    return run


def callers(data: dict[str, Any]) -> dict[tuple[str, str, int], tuple[str, str]]:
    """(symbol, path, line) -> (status, reason), across every change."""
    return {(ch["symbol"], c["path"], c["line"]): (c["status"], c["reason"]) for ch in data["changes"] for c in ch["callers"]}


# --- netbox: utilities/forms/fields/dynamic.py and its callers --------------------------------

FIELDS = """
    from django import forms


    class DynamicModelChoiceMixin:
        def __init__(self, queryset, *, selector=False, **kwargs):
            self.selector = selector
            super().__init__(queryset, **kwargs)


    class DynamicModelChoiceField(DynamicModelChoiceMixin, forms.ModelChoiceField):
        pass
"""
CUSTOMFIELDS = """
    from forms.fields import DynamicModelChoiceField


    def to_form_field(label):
        field_class = DynamicModelChoiceField
        return field_class(label=label, required=False)
"""
BULK_EDIT = """
    from forms.fields import DynamicModelChoiceField


    def tenant_field(tenants):
        return DynamicModelChoiceField(queryset=tenants, selector=True)
"""
NETBOX = {"forms/__init__.py": "", "forms/fields.py": FIELDS, "extras/__init__.py": "",
          "extras/customfields.py": CUSTOMFIELDS, "circuits/__init__.py": "", "circuits/bulk_edit.py": BULK_EDIT}
FIELD = "forms.fields.DynamicModelChoiceField"  # its calls run the mixin's __init__: they are listed under the class


def test_optional_parameter_on_a_mixin_does_not_block_calls_that_failed_before(make_repo: Callable[..., GitRepo],
                                                                               check: Check) -> None:
    """netbox customfields.py:628: `field_class(...)` without a queryset failed before the change too."""
    repo = make_repo(NETBOX)
    repo.write({"forms/fields.py": FIELDS.replace("selector=False,", "selector=False, extra_hint=None,")})
    code, data = check(repo)
    assert code == 0, data
    found = callers(data)
    assert found[(FIELD, "extras/customfields.py", 6)] == (
        "unknown", "did not bind before this change either: missing required argument 'queryset'")
    assert found[(FIELD, "circuits/bulk_edit.py", 5)] == ("ok", "binds")


def test_keyword_renamed_behind_forwarded_kwargs_is_not_ok(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """netbox: `selector` renamed `show_selector`; `selector=True` now goes to Django's Field through **kwargs."""
    repo = make_repo(NETBOX)
    repo.write({"forms/fields.py": FIELDS.replace("selector", "show_selector")})
    _, data = check(repo)
    expected = ("unknown", "keyword 'selector' now falls into **kwargs (was parameter 'selector'), passed on to"
                           " 'super().__init__' (line 7), which graphguard could not follow (a base outside the repository,"
                           " or the class after a mixin)")
    # The class's constructor is the mixin's `__init__`: its forwarding is followed.
    assert callers(data)[(FIELD, "circuits/bulk_edit.py", 5)] == expected


def test_keyword_renamed_behind_kwargs_a_base_in_the_repository_rejects(make_repo: Callable[..., GitRepo],
                                                                        check: Check) -> None:
    """Forwarded to a base class of the repository: decided there."""
    base = """
        class Field:
            def __init__(self, queryset, required=True):
                self.queryset = queryset
    """
    fields = FIELDS.replace("from django import forms", "from forms.base import Field").replace(
        "class DynamicModelChoiceMixin:", "class DynamicModelChoiceMixin(Field):")
    repo = make_repo({**NETBOX, "forms/base.py": base, "forms/fields.py": fields})
    repo.write({"forms/fields.py": fields.replace("selector", "show_selector")})
    code, data = check(repo)
    assert code == 1
    assert callers(data)[(FIELD, "circuits/bulk_edit.py", 5)] == (
        "broken", "keyword 'selector' now falls into **kwargs (was parameter 'selector'), passed on to"
                  " 'super().__init__' (line 7): unexpected keyword argument 'selector'")


def test_keyword_renamed_into_kwargs_that_go_nowhere_is_broken(make_repo: Callable[..., GitRepo], check: Check) -> None:
    lib = """
        def render(items, *, compact=False, **options):
            return items
    """
    repo = make_repo({"lib.py": lib, "app.py": "from lib import render\n\nrender([], compact=True)\n"})
    repo.write({"lib.py": lib.replace("compact=False", "dense=False")})
    code, data = check(repo)
    assert code == 1
    assert callers(data)[("lib.render", "app.py", 3)] == (
        "broken", "keyword 'compact' now falls into **options (was parameter 'compact')")


QUERYSETS = """
    class RestrictedQuerySet:
        def restrict(self, user, action='view'):
            return self
"""
VIEWS = """
    from utilities.querysets import RestrictedQuerySet


    def create(request):
        queryset = RestrictedQuerySet()
        queryset.restrict(request.user, 'add')
        queryset.restrict(request.user)
        return queryset.restrict(user=request.user, action='add')
"""


def test_parameter_moved_before_a_positional_argument_blocks(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """netbox ipam/api/views.py:255: `restrict(request.user, 'add')` would run with the user as the action."""
    repo = make_repo({"utilities/__init__.py": "", "utilities/querysets.py": QUERYSETS, "ipam/__init__.py": "",
                      "ipam/views.py": VIEWS})
    repo.write({"utilities/querysets.py": QUERYSETS.replace("user, action='view'", "action='view', user=None")})
    code, data = check(repo)
    assert code == 1
    found = callers(data)
    symbol = "utilities.querysets.RestrictedQuerySet.restrict"
    assert found[(symbol, "ipam/views.py", 6)] == (
        "broken", "argument 1 now binds to 'action' (was 'user'); argument 2 now binds to 'user' (was 'action')")
    assert found[(symbol, "ipam/views.py", 7)] == ("broken", "argument 1 now binds to 'action' (was 'user')")
    assert found[(symbol, "ipam/views.py", 8)] == ("ok", "binds")


def test_parameter_renamed_in_place_keeps_positional_callers(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({"utilities/__init__.py": "", "utilities/querysets.py": QUERYSETS, "ipam/__init__.py": "",
                      "ipam/views.py": VIEWS.replace("user=request.user, ", "request.user, ")})
    repo.write({"utilities/querysets.py": QUERYSETS.replace("user, action", "owner, action")})
    code, data = check(repo)
    assert code == 0, data
    assert {s for s, _ in callers(data).values()} == {"ok"}


def test_a_call_written_in_the_change_is_judged_on_the_new_signature_alone(make_repo: Callable[..., GitRepo],
                                                                           check: Check) -> None:
    """An old call broken both ways is not this change's; a call written now is."""
    repo = make_repo({"lib.py": "def f(a, b):\n    return a\n", "old.py": "from lib import f\n\nf(1)\n",
                      "new.py": "from lib import f\n"})
    repo.write({"lib.py": "def f(a, b, c=None):\n    return a\n", "new.py": "from lib import f\n\nf(1)\n"})
    code, data = check(repo)
    assert code == 1
    found = callers(data)
    assert found[("lib.f", "old.py", 3)] == ("unknown", "did not bind before this change either: missing required argument 'b'")
    assert found[("lib.f", "new.py", 3)] == ("broken", "missing required argument 'b'")


# --- a removed or renamed class ------------------------------------------------------------------

TESTING = """
    class CliRunner:
        def __init__(self, charset='utf-8'):
            self.charset = charset

        def invoke(self, cli, args=None):
            return cli
"""
TEST_CLI = """
    from click.testing import CliRunner


    def test_hello():
        runner = CliRunner()
        runner.invoke(print, ['x'])
        runner.invoke(print)
"""


def test_renamed_class_blames_the_sites_that_name_it_not_each_method_call(make_repo: Callable[..., GitRepo],
                                                                         check: Check) -> None:
    """click: renaming CliRunner removes none of its methods; `runner.invoke(...)` is not a break of its own."""
    repo = make_repo({"click/__init__.py": "", "click/testing.py": TESTING, "tests/test_cli.py": TEST_CLI})
    repo.write({"click/testing.py": TESTING.replace("CliRunner", "Runner")})
    code, data = check(repo)
    assert code == 1
    broken = {(symbol, path, line) for (symbol, path, line), (s, _) in callers(data).items() if s == "broken"}
    assert broken == {("click.testing.CliRunner", "tests/test_cli.py", 1), ("click.testing.CliRunner", "tests/test_cli.py", 5)}
    assert callers(data)[("click.testing.CliRunner.invoke", "tests/test_cli.py", 6)] == ("ok", "binds")


TERMINAL = """
    class TerminalReporter:
        def write_line(self, line, **markup):
            print(line)

        def pytest_deselected(self, items):
            self.write_line(str(len(items)))
"""
PASTEBIN = """
    from _pytest.terminal import TerminalReporter


    def pytest_configure(config):
        terminalreporter: TerminalReporter = config.pluginmanager.getplugin('terminalreporter')
        terminalreporter.write_line('pastebin session-log')
"""
MAIN = """
    def deselect(config, items):
        config.hook.pytest_deselected(items=items)
"""


def test_removed_class_methods_reached_by_name_are_not_broken(make_repo: Callable[..., GitRepo], check: Check) -> None:
    """pytest: removing TerminalReporter breaks its import; `config.hook.pytest_deselected(...)` is a hook call."""
    repo = make_repo({"_pytest/__init__.py": "", "_pytest/terminal.py": TERMINAL, "_pytest/pastebin.py": PASTEBIN,
                      "_pytest/main.py": MAIN})
    repo.write({"_pytest/terminal.py": "def main():\n    return 0\n"})
    code, data = check(repo)
    assert code == 1
    found = callers(data)
    assert found[("_pytest.terminal.TerminalReporter", "_pytest/pastebin.py", 1)][0] == "broken"
    assert {key for key, (s, _) in found.items() if s == "broken"} <= {
        ("_pytest.terminal.TerminalReporter", "_pytest/pastebin.py", 1),
        ("_pytest.terminal.TerminalReporter", "_pytest/pastebin.py", 5),
    }
    downstream = ("ok", "a method of 'TerminalReporter', which was removed: the sites that name the class are the breaks")
    assert found[("_pytest.terminal.TerminalReporter.write_line", "_pytest/pastebin.py", 6)] == downstream
    assert found[("_pytest.terminal.TerminalReporter.pytest_deselected", "_pytest/main.py", 2)] == downstream


# --- the same answer after the commit, in CI ----------------------------------------------------------


@pytest.mark.parametrize("graph_at", ["old", "new", "cold"])
def test_blame_is_the_same_for_base_and_head(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                             check: Check, graph_at: str) -> None:
    """`check --base HEAD~1` after the commit: a graph at either commit, or none (a fresh CI clone)."""
    repo = make_repo({"utilities/__init__.py": "", "utilities/querysets.py": QUERYSETS, "ipam/__init__.py": "",
                      "ipam/views.py": VIEWS, "lib.py": "def f(a, b):\n    return a\n", "old.py": "from lib import f\n\nf(1)\n",
                      "new.py": "from lib import f\n"})
    repo.write({"utilities/querysets.py": QUERYSETS.replace("user, action='view'", "action='view', user=None"),
                "lib.py": "def f(a, b, c=None):\n    return a\n", "new.py": "from lib import f\n\nf(1)\n"})
    _, staged = check(repo)
    if graph_at == "old":
        graphguard(repo, "index")
    repo.commit("change")
    if graph_at == "new":
        graphguard(repo, "index")
    elif graph_at == "cold":
        for store in repo.root.joinpath(".git", "graphguard").glob("*.sqlite3"):
            store.unlink()
    r = graphguard(repo, "check", "--format", "json", "--base", "HEAD~1", "--head", "HEAD")
    assert r.code == 1, r.err
    assert callers(r.json) == callers(staged)


# --- toolz: a curried function (calls with fewer arguments return a partial) ------------------


def test_calls_of_a_curried_function_are_unknown_not_broken(make_repo: Callable[..., GitRepo], check: Check) -> None:
    repo = make_repo({
        "fn/__init__.py": "",
        "fn/core.py": "from toolz import curry\n\n\n@curry\ndef memoize(func, cache=None):\n    return func\n",
        "fn/use.py": "from fn.core import memoize\n\n\n@memoize(cache={})\ndef f(x):\n    return x\n",
    })
    repo.write({"fn/core.py": "from toolz import curry\n\n\n@curry\ndef memoize(func, cache):\n    return func\n"})
    code, data = check(repo)
    assert code == 0, data
    status, reason = callers(data)[("fn.core.memoize", "fn/use.py", 4)]
    assert status == "unknown" and "decorator" in reason


def test_a_composite_strategy_is_called_without_its_draw_parameter(make_repo: Callable[..., GitRepo], check: Check) -> None:
    # attrs' tests/strategies.py: `@st.composite def simple_classes(draw, slots=None)`, called `simple_classes()`.
    repo = make_repo({
        "strategies.py": "import hypothesis.strategies as st\n\n\n@st.composite\ndef classes(draw, slots=None):\n    return slots\n",
        "test_it.py": "from strategies import classes\n\n\ndef test_it():\n    classes()\n",
    })
    repo.write({"strategies.py": "import hypothesis.strategies as st\n\n\n@st.composite\ndef classes(draw, slots):\n    return slots\n"})
    code, data = check(repo)
    assert code == 1, data
    assert callers(data)[("strategies.classes", "test_it.py", 5)] == ("broken", "missing required argument 'slots'")


# --- Django's tuple_lookups: super(Named, self) starts after Named ----------------------------


def test_super_with_a_class_named_skips_that_class(make_repo: Callable[..., GitRepo], check: Check) -> None:
    lookups = ("class Base:\n    def process(self, a, b):\n        return a\n\n\n"
               "class Mixin:\n    def process(self, a, b):\n        return b\n\n\n"
               "class Lookup(Mixin, Base):\n    def process(self, a, b):\n        return super(Mixin, self).process(a, b)\n\n"
               "    def plain(self, a, b):\n        return super().process(a, b)\n")
    repo = make_repo({"lookups.py": lookups})
    repo.write({"lookups.py": lookups.replace("class Mixin:\n    def process(self, a, b):", "class Mixin:\n    def process(self, *, a, b):")})
    code, data = check(repo)
    found = callers(data)
    assert ("lookups.Mixin.process", "lookups.py", 13) not in found  # runs Base.process, which did not change
    assert found[("lookups.Mixin.process", "lookups.py", 16)][0] == "broken"  # super() in Lookup is Mixin's
    assert code == 1
