"""False blocks found by replaying real merged history (bench/replay_history.py, issue 19 "Done when").

Each test is the smallest before/after that shows one pattern graphguard blocked in a correct,
merged commit of a real project, checked as CI checks it (`check --base C~1 --head C`). A pattern
found and not yet fixed is written here as xfail(strict=True), naming the mechanism at fault; once
fixed it passes, strict xfail turns that into a failure, and the marker goes. Every pattern the
replay of 329 commits found (main at e12a6fe) is fixed now: they stay as regressions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo, Result

Run = Callable[..., Result]


def check_commit(graphguard: Run, repo: GitRepo, files: dict[str, str | None]) -> dict[str, Any]:
    """Commit `files` on top of HEAD and check that commit as CI does."""
    head = repo.commit("change", files)
    r = graphguard(repo, "check", "--base", f"{head}~1", "--head", head, "--format", "json")
    assert r.code in (0, 1), r.err
    data: dict[str, Any] = r.json
    return data


def broken(data: dict[str, Any]) -> list[str]:
    return sorted(f"{k['path']}:{k['line']} {k['reason']}" for ch in data["changes"] for k in ch["callers"]
                  if k["status"] == "broken")


CONFTEST = "class Err:\n    def __init__(self, message, errors=None):\n        self.message = message\n"


def test_a_name_two_files_define_is_not_moved_when_one_of_them_moves(make_repo: Callable[..., GitRepo],
                                                                      graphguard: Run) -> None:
    # pydantic de3175c15 "Migrate pydantic-core tests to main tests directory": pydantic-core/tests/conftest.py
    # (module `tests.conftest`, like tests/conftest.py) moved to tests/pydantic_core/conftest.py
    repo = make_repo({
        "tests/__init__.py": "",
        "tests/conftest.py": CONFTEST,
        "tests/test_a.py": "from .conftest import Err\n\n\ndef test_a():\n    assert Err('x').message\n",
        "core/tests/__init__.py": "",
        "core/tests/conftest.py": CONFTEST,
        "core/tests/test_b.py": "from .conftest import Err\n\n\ndef test_b():\n    assert Err('y').message\n",
    })
    data = check_commit(graphguard, repo, {
        "core/tests/__init__.py": None, "core/tests/conftest.py": None, "core/tests/test_b.py": None,
        "tests/core/__init__.py": "", "tests/core/conftest.py": CONFTEST,
        "tests/core/test_b.py": "from .conftest import Err\n\n\ndef test_b():\n    assert Err('y').message\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_a_definition_replaced_by_an_import_of_the_same_name_is_not_removed(make_repo: Callable[..., GitRepo],
                                                                          graphguard: Run) -> None:
    # ansible b3c4154e86 "Use sentinel everywhere": `class NoTokenSentinel` in galaxy/token.py became
    # `from ansible.module_utils.common.sentinel import Sentinel as NoTokenSentinel`, and modules/file.py's own
    # `class Sentinel` became `from ansible.module_utils.common.sentinel import Sentinel`
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/common.py": "class Sentinel:\n    def __new__(cls, *args, **kwargs):\n        return cls\n",
        "pkg/token.py": "class NoTokenSentinel:\n    def __new__(cls, *args, **kwargs):\n        return cls\n",
        "pkg/cli.py": "from pkg.token import NoTokenSentinel\n\n\ndef token(t=NoTokenSentinel):\n    return t is NoTokenSentinel\n",
        "pkg/file.py": "class Sentinel:\n    def __new__(cls, *args, **kwargs):\n        return cls\n\n\n"
                       "def stamp(t):\n    return Sentinel if t is None else t\n",
    })
    data = check_commit(graphguard, repo, {
        "pkg/token.py": "from pkg.common import Sentinel as NoTokenSentinel\n",
        "pkg/file.py": "from pkg.common import Sentinel\n\n\ndef stamp(t):\n    return Sentinel if t is None else t\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_a_class_moved_and_imported_back_is_not_renamed_to_a_new_subclass(make_repo: Callable[..., GitRepo],
                                                                          graphguard: Run) -> None:
    # poetry 93baede18d "legacy repository: prefer JSON API to HTML API": SimpleRepositoryRootPage moved from
    # link_sources/html.py to link_sources/base.py, html.py imports it back and subclasses it
    root_page = ("class SimpleRepositoryRootPage:\n    def __init__(self, url, content=None):\n        self.url = url\n\n"
                 "    def search(self, query):\n        return [query]\n")
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/base.py": "class LinkSource:\n    def __init__(self, url):\n        self.url = url\n",
        "pkg/html.py": "from pkg.base import LinkSource\n\n\nclass HTMLPage(LinkSource):\n    pass\n\n\n" + root_page,
        "pkg/legacy.py": "from pkg.html import SimpleRepositoryRootPage\n\n\n"
                         "def root(url):\n    return SimpleRepositoryRootPage(url)\n",
    })
    data = check_commit(graphguard, repo, {
        "pkg/base.py": "class LinkSource:\n    def __init__(self, url):\n        self.url = url\n\n\n" + root_page,
        "pkg/html.py": "from pkg.base import LinkSource\nfrom pkg.base import SimpleRepositoryRootPage\n\n\n"
                       "class HTMLPage(LinkSource):\n    pass\n\n\n"
                       "class SimpleRepositoryHTMLRootPage(SimpleRepositoryRootPage):\n"
                       "    def __init__(self, url, content=None):\n        super().__init__(url, content)\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_cls_in_a_class_nested_in_a_method_is_the_nested_class(make_repo: Callable[..., GitRepo],
                                                               graphguard: Run) -> None:
    # scrapy d3e15a10cf "Add ItemPipelineManager.process_item_async()" (new calls) and 6b2997af90 "Migrate to
    # pytest-twisted" (TestCrawler's constructor became known): `return cls(crawler)` in a `from_crawler`
    # classmethod of a class defined inside a test method
    repo = make_repo({
        "tests/__init__.py": "",
        "tests/test_pipelines.py": "class TestCustomPipelineManager:\n    def test_plain(self):\n        assert True\n",
    })
    data = check_commit(graphguard, repo, {
        "tests/test_pipelines.py": "class TestCustomPipelineManager:\n    def test_plain(self):\n        assert True\n\n"
                                   "    def test_not_subclass(self):\n"
                                   "        class CustomPipelineManager:\n"
                                   "            def __init__(self, crawler):\n                self.crawler = crawler\n\n"
                                   "            @classmethod\n            def from_crawler(cls, crawler):\n"
                                   "                return cls(crawler)\n\n"
                                   "        assert CustomPipelineManager.from_crawler(1).crawler == 1\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_spelling_out_the_parameters_of_a_forwarder_keeps_its_positional_calls(make_repo: Callable[..., GitRepo],
                                                                             graphguard: Run) -> None:
    # scrapy b4d11b8b25 "Further reduce deps on unittest": `def _check_GET_x10(self, *args, **kwargs)` (forwarding to
    # `self._check_GET(*args, **kwargs)`) became `async def _check_GET_x10(self, request, expected_body,
    # expected_status)`; its callers pass those three positionally
    before = ("class TestProtocol:\n    def _check_get(self, request, expected_body, expected_status):\n"
              "        return request, expected_body, expected_status\n\n"
              "    def _check_get_x10(self, *args, **kwargs):\n        return [self._check_get(*args, **kwargs)] * 10\n\n"
              "    def test_small(self):\n        assert self._check_get_x10('r', b'body', 200)\n")
    repo = make_repo({"tests/__init__.py": "", "tests/test_protocol.py": before})
    data = check_commit(graphguard, repo, {
        "tests/test_protocol.py": before.replace(
            "def _check_get_x10(self, *args, **kwargs):\n        return [self._check_get(*args, **kwargs)] * 10",
            "def _check_get_x10(self, request, expected_body, expected_status):\n"
            "        return [self._check_get(request, expected_body, expected_status)] * 10"),
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_spelling_out_the_keywords_of_a_forwarder_keeps_its_keyword_calls(make_repo: Callable[..., GitRepo],
                                                                         graphguard: Run) -> None:
    # the keyword twin of scrapy b4d11b8b25: `**kwargs` became keyword-only parameters of the names callers pass
    before = ("class TestProtocol:\n    def _check_get(self, request, expected_body, expected_status):\n"
              "        return request, expected_body, expected_status\n\n"
              "    def _check_get_x10(self, **kwargs):\n        return [self._check_get(**kwargs)] * 10\n\n"
              "    def test_small(self):\n"
              "        assert self._check_get_x10(request='r', expected_body=b'body', expected_status=200)\n")
    repo = make_repo({"tests/__init__.py": "", "tests/test_protocol.py": before})
    data = check_commit(graphguard, repo, {
        "tests/test_protocol.py": before.replace(
            "def _check_get_x10(self, **kwargs):\n        return [self._check_get(**kwargs)] * 10",
            "def _check_get_x10(self, *, request, expected_body, expected_status):\n"
            "        return [self._check_get(request, expected_body, expected_status)] * 10"),
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_a_return_annotated_with_a_base_class_does_not_hide_the_subclass_override(make_repo: Callable[..., GitRepo],
                                                                                 graphguard: Run) -> None:
    # scrapy 3a36955261 "Assorted test fixes": `def _links_response(self) -> Response` (annotation added) returns
    # `self.response_class(...)`; TestTextResponse (response_class = TextResponse) calls
    # `self._links_response().follow_all(css=...)`, which TextResponse.follow_all accepts; that file changed too,
    # so its calls are checked as new calls
    base = ("from pkg.response import Response\n\n\nclass TestResponse:\n    response_class = Response\n\n"
            "    def _links(self):\n        return self.response_class()\n")
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/response.py": "class Response:\n    def follow_all(self, urls=None):\n        return [urls]\n\n\n"
                           "class TextResponse(Response):\n    def follow_all(self, urls=None, css=None):\n"
                           "        return [urls, css]\n",
        "tests/__init__.py": "",
        "tests/test_response.py": base,
        "tests/test_text.py": "from pkg.response import TextResponse\nfrom tests.test_response import TestResponse\n\n\n"
                              "class TestTextResponse(TestResponse):\n    response_class = TextResponse\n\n"
                              "    def test_css(self):\n        assert self._links().follow_all(css='a')\n",
    })
    data = check_commit(graphguard, repo, {
        "tests/test_response.py": base.replace("def _links(self):", "def _links(self) -> Response:"),
        "tests/test_text.py": "from pkg.response import TextResponse\nfrom tests.test_response import TestResponse\n\n\n"
                              "class TestTextResponse(TestResponse):\n    response_class = TextResponse\n\n"
                              "    def test_css(self):\n        assert self._links().follow_all(css='a')\n\n"
                              "    def test_urls(self):\n        assert self._links().follow_all(['u'])\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


RESPONSES = ("class Response:\n    def follow_all(self, urls=None):\n        return [urls]\n\n\n"
             "class TextResponse(Response):\n    def follow_all(self, urls=None, css=None):\n        return [urls, css]\n")


def _new_call(make_repo: Callable[..., GitRepo], graphguard: Run, responses: str, body: str) -> dict[str, Any]:
    """A new call in pkg/use.py, checked against pkg/response.py's classes."""
    repo = make_repo({"pkg/__init__.py": "", "pkg/response.py": responses,
                      "pkg/use.py": "from pkg.response import Response\n\n\ndef use(r):\n    return r\n"})
    return check_commit(graphguard, repo, {"pkg/use.py": "from pkg.response import Response\n\n\n" + body})


def test_a_parameter_annotated_with_a_base_class_is_unknown_when_an_override_accepts_the_call(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    data = _new_call(make_repo, graphguard, RESPONSES, "def use(r: Response):\n    return r.follow_all(css='a')\n")
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_an_annotated_receiver_still_breaks_when_no_override_accepts_the_call(make_repo: Callable[..., GitRepo],
                                                                              graphguard: Run) -> None:
    # no subclass overrides follow_all: an annotation does not excuse a call that binds to nothing
    data = _new_call(make_repo, graphguard, RESPONSES.split("\n\n\nclass TextResponse")[0] + "\n",
                     "def use(r: Response):\n    return r.follow_all(css='a')\n")
    assert broken(data) == ["pkg/use.py:5 unexpected keyword argument 'css'"]
    # nor when the override rejects it too
    data = _new_call(make_repo, graphguard, RESPONSES, "def use(r: Response):\n    return r.follow_all(xpath='a')\n")
    assert broken(data) == ["pkg/use.py:5 unexpected keyword argument 'xpath'"]


def test_a_constructed_receiver_is_its_exact_class_whatever_the_overrides(make_repo: Callable[..., GitRepo],
                                                                         graphguard: Run) -> None:
    data = _new_call(make_repo, graphguard, RESPONSES, "def use():\n    r = Response()\n    return r.follow_all(css='a')\n")
    assert broken(data) == ["pkg/use.py:6 unexpected keyword argument 'css'"]


def test_a_files_own_class_wins_over_a_same_named_module_elsewhere(make_repo: Callable[..., GitRepo],
                                                                   graphguard: Run) -> None:
    # sphinx c384ab96c3 "Use Docutils translators directly in the writing phase": tests/roots/test-build-html-
    # translator/conf.py (module `conf`) was deleted and its ConfHTMLTranslator moved into test_build_html.py;
    # tests/roots/test-api-set-translator/conf.py defines its own ConfHTMLTranslator and uses it in setup()
    conf = "class ConfHTMLTranslator:\n    pass\n\n\ndef setup(app):\n    app.set_translator('html', ConfHTMLTranslator)\n"
    repo = make_repo({
        "roots/test-api/conf.py": conf,
        "roots/test-build/conf.py": conf,
        "tests/__init__.py": "",
        "tests/test_build.py": "def test_build():\n    assert True\n",
    })
    data = check_commit(graphguard, repo, {
        "roots/test-build/conf.py": None,
        "tests/test_build.py": "class ConfHTMLTranslator:\n    pass\n\n\ndef test_build():\n    assert ConfHTMLTranslator\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_a_type_checking_class_that_becomes_an_assignment_is_not_removed(make_repo: Callable[..., GitRepo],
                                                                         graphguard: Run) -> None:
    # sphinx ead64dfda8 "Introduce a new type for documenter options": in autodoc/_sentinels.py, `if TYPE_CHECKING:
    # class ALL: ...` became `ALL: Final[ALL_T] = _AllTC.ALL`; the `else:` branch keeps `ALL = _All('ALL')`
    runtime = "else:\n    ALL = _All('ALL')\n"
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/sentinels.py": "TYPE_CHECKING = False\n\n\nclass _All:\n    def __init__(self, name):\n        self.name = name\n\n\n"
                            "if TYPE_CHECKING:\n    class ALL: ...\n" + runtime,
        "pkg/options.py": "from pkg.sentinels import ALL\n\n\ndef members_option(arg):\n    return ALL if arg is None else arg\n",
    })
    data = check_commit(graphguard, repo, {
        "pkg/sentinels.py": "TYPE_CHECKING = False\n\n\nclass _All:\n    def __init__(self, name):\n        self.name = name\n\n\n"
                            "if TYPE_CHECKING:\n    import enum\n    from typing import Final\n\n"
                            "    class _AllTC(enum.Enum):\n        ALL = enum.auto()\n\n"
                            "    ALL: Final = _AllTC.ALL\n" + runtime,
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_a_function_moved_out_and_imported_back_still_binds_in_its_old_file(make_repo: Callable[..., GitRepo],
                                                                            graphguard: Run) -> None:
    # sphinx a4a8accbd5 "Extract _gather_members()" (_document_members moved from autodoc/_documenters.py to
    # _member_finder.py, imported back, called with its new keywords) and 9eb3d7940f "Add a shared utilities
    # module for autodoc" (_get_render_mode moved from _generate.py to _shared.py, imported back)
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/documenters.py": "def _document_members(*, members):\n    return list(members)\n\n\n"
                              "def generate(members):\n    return _document_members(members=members)\n",
    })
    data = check_commit(graphguard, repo, {
        "pkg/finder.py": "def _document_members(*, members, indent):\n    return [indent + m for m in members]\n",
        "pkg/documenters.py": "from pkg.finder import _document_members\n\n\n"
                              "def generate(members):\n    return _document_members(members=members, indent='  ')\n",
    })
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_self_in_a_class_nested_in_a_function_is_not_the_module_function_of_its_name(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # a relative of the scrapy pattern above: `self.helper(1)` in a method of a class defined in a module-level
    # function calls that class's helper, not the module's `helper`, whose signature changes
    after = ("def helper(a, b):\n    return a + b\n\n\n"
             "def make():\n    class Local:\n        def helper(self, x):\n            return x\n\n"
             "        def run(self):\n            return self.helper(1)\n\n"
             "    return Local().run()\n")
    repo = make_repo({"pkg/__init__.py": "", "pkg/jobs.py": after.replace("def helper(a, b):\n    return a + b",
                                                                         "def helper(a):\n    return a")})
    data = check_commit(graphguard, repo, {"pkg/jobs.py": after})
    assert broken(data) == []
    assert data["verdict"] == "pass"
    r = graphguard(repo, "callers", "pkg.jobs.make.<locals>.Local.helper", "--format", "json")
    assert [(c["line"], c["caller"], c["resolution"]) for c in r.json["callers"]] == [
        (11, "pkg.jobs.make.<locals>.Local.run", "exact")]  # by its class, not only by its name


def test_self_and_super_in_a_class_nested_in_a_method_are_the_nested_class(make_repo: Callable[..., GitRepo],
                                                                           graphguard: Run) -> None:
    # `self.helper(1)` and `super().__init__(1)` in a class defined inside a test method reach that class's own
    # helper and base, not the test class's, whose signatures change
    outer = ("class OuterBase:\n    def __init__(self, a):\n        self.a = a\n\n\n"
             "class TestThing(OuterBase):\n    def helper(self, a):\n        return a\n\n"
             "    def test_nested(self):\n"
             "        class InnerBase:\n            def __init__(self, x):\n                self.x = x\n\n"
             "        class Inner(InnerBase):\n"
             "            def __init__(self):\n                super().__init__(1)\n\n"
             "            def helper(self, x):\n                return x\n\n"
             "            def run(self):\n                return self.helper(1)\n\n"
             "        assert Inner().run() == 1\n")
    repo = make_repo({"tests/__init__.py": "", "tests/test_thing.py": outer})
    data = check_commit(graphguard, repo, {"tests/test_thing.py": outer.replace(
        "def __init__(self, a):\n        self.a = a", "def __init__(self, a, b):\n        self.a = a + b").replace(
        "def helper(self, a):\n        return a", "def helper(self, a, b):\n        return a + b")})
    assert broken(data) == []
    assert data["verdict"] == "pass"


PYLINT = ("class PylintTest:\n"
          "    def test(self, args, context, paths, plugin_dir, db):\n"
          "        return self.pylint(args, context, paths, plugin_dir, db)\n\n"
          "    @staticmethod\n"
          "    def pylint(args, context, paths, plugin_dir, db_path):\n"
          "        return args, context, paths, plugin_dir, db_path\n")


def test_a_parameter_inserted_with_its_call_rewritten_to_match_is_a_call_written_anew(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # ansible 7693c892fa "Use Python version in pylint contexts": `is_target` inserted third, a parameter
    # dropped at the end, and the one call rewritten to match; its argument count stayed 5 (8 upstream)
    repo = make_repo({"lib/__init__.py": "", "lib/pylint.py": PYLINT})
    data = check_commit(graphguard, repo, {"lib/pylint.py": PYLINT.replace(
        "return self.pylint(args, context, paths, plugin_dir, db)",
        "return self.pylint(args, context, context == 'target', paths, plugin_dir)").replace(
        "def pylint(args, context, paths, plugin_dir, db_path):\n        return args, context, paths, plugin_dir, db_path",
        "def pylint(args, context, is_target, paths, plugin_dir):\n        return args, context, is_target, paths, plugin_dir")})
    assert broken(data) == []
    assert data["verdict"] == "pass"


def test_a_parameter_inserted_with_the_call_left_as_it_was_still_moves_its_arguments(
        make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # the guard: the same insertion, the call untouched: its third argument now lands in `is_target`
    repo = make_repo({"lib/__init__.py": "", "lib/pylint.py": PYLINT})
    data = check_commit(graphguard, repo, {"lib/pylint.py": PYLINT.replace(
        "def pylint(args, context, paths, plugin_dir, db_path):\n        return args, context, paths, plugin_dir, db_path",
        "def pylint(args, context, is_target, paths, plugin_dir):\n        return args, context, is_target, paths, plugin_dir")})
    assert data["verdict"] == "block"
    assert any("now binds to 'is_target' (was 'paths')" in b for b in broken(data)), broken(data)
