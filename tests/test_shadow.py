"""A method call answered by an instance attribute is decided against the attribute's value (issue 19 §1.3).

sphinx replaced the method `Documenter.get_attr` by `self.get_attr = directive.get_attr` in `__init__`;
scrapy's tests set `self.download_request = handler.download_request` in `setup_method`. Both were real
merged commits, and graphguard blocked both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import GitRepo, Result

Run = Callable[..., Result]

DOC = """\
class Directive:
    def get_attr(self, obj, name, *defargs):
        return getattr(obj, name, *defargs)


class Documenter:
    def __init__(self, directive):
        self.directive = directive

    def get_attr(self, obj, name, *defargs):
        return getattr(obj, name, *defargs)

    def run(self, subject):
        return self.get_attr(subject, '__module__', None)


def outside(doc: Documenter):
    return doc.get_attr(1, 'x')
"""

HANDLER = "class Handler:\n    def download_request(self, request, spider):\n        return request\n"

TEST = """\
from pkg.handler import Handler


class Base:
    def download_request(self, request, spider):
        return request


class TestHandler(Base):
    def setup_method(self):
        handler = Handler()
        self.download_request = handler.download_request

    def test_one(self):
        assert self.download_request(1, 2)
"""


def verdicts(graphguard: Run, repo: GitRepo) -> tuple[int, list[tuple[str, int, str, str]]]:
    r = graphguard(repo, "check", "--format", "json")
    assert r.code in (0, 1), r.err
    data: dict[str, Any] = r.json
    return r.code, sorted((k["path"], k["line"], k["status"], k["reason"]) for ch in data["changes"] for k in ch["callers"]
                          if k["kind"] == "call")


def staged(repo: GitRepo, files: dict[str, str]) -> None:
    repo.write(files)
    repo.git("add", "-A")


def test_a_method_replaced_by_an_instance_attribute_of_unknown_value_is_unknown(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/doc.py": DOC})
    new = DOC.replace("        self.directive = directive\n\n    def get_attr(self, obj, name, *defargs):\n"
                      "        return getattr(obj, name, *defargs)\n",
                      "        self.directive = directive\n        self.get_attr = directive.get_attr\n")
    staged(repo, {"pkg/doc.py": new})
    code, calls = verdicts(graphguard, repo)
    assert code == 0
    said = "'self.get_attr' is set in Documenter.__init__ (line 9) to `directive.get_attr`: the call runs that value, whose signature is not known"
    assert calls == [("pkg/doc.py", 12, "unknown", said), ("pkg/doc.py", 16, "unknown", said)]


def test_a_method_replaced_by_a_known_instance_attribute_is_bound_to_its_value(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/doc.py": DOC})
    new = DOC.replace("        self.directive = directive\n\n    def get_attr(self, obj, name, *defargs):\n"
                      "        return getattr(obj, name, *defargs)\n",
                      "        self.directive = Directive()\n        self.get_attr = self.directive.get_attr\n")
    staged(repo, {"pkg/doc.py": new.replace("return doc.get_attr(1, 'x')", "return doc.get_attr(1)")})
    code, calls = verdicts(graphguard, repo)
    assert code == 1
    said = "'self.get_attr' is set in Documenter.__init__ (line 9) to `self.directive.get_attr`, pkg.doc.Directive.get_attr"
    assert calls == [("pkg/doc.py", 12, "ok", f"{said}: binds"),
                     ("pkg/doc.py", 16, "broken", f"{said}: missing required argument 'name'")]


def test_a_test_attribute_set_in_setup_method_answers_the_call(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # scrapy: the base class's helper method goes; the test calls what setup_method set.
    repo = make_repo({"pkg/__init__.py": "", "pkg/handler.py": HANDLER, "tests/__init__.py": "", "tests/test_h.py": TEST})
    staged(repo, {"tests/test_h.py": TEST.replace("class Base:\n    def download_request(self, request, spider):\n"
                                                  "        return request\n", "class Base:\n    pass\n")})
    code, calls = verdicts(graphguard, repo)
    assert code == 0
    assert calls == [("tests/test_h.py", 14, "ok", "'self.download_request' is set in TestHandler.setup_method (line 11) to"
                      " `handler.download_request`, pkg.handler.Handler.download_request: binds")]


def test_a_changed_method_held_by_the_attribute_still_breaks_its_calls(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # The test's call is tied to the handler's method by its name only; what setup_method set is that method.
    test = TEST.replace("class Base:\n    def download_request(self, request, spider):\n        return request\n", "class Base:\n    pass\n")
    repo = make_repo({"pkg/__init__.py": "", "pkg/handler.py": HANDLER, "tests/__init__.py": "", "tests/test_h.py": test})
    staged(repo, {"pkg/handler.py": HANDLER.replace(", spider", "")})
    code, calls = verdicts(graphguard, repo)
    assert code == 1
    assert calls == [("tests/test_h.py", 14, "broken", "'self.download_request' is set in TestHandler.setup_method (line 11) to"
                      " `handler.download_request`, pkg.handler.Handler.download_request: takes 2 positional arguments but 3 were given")]
