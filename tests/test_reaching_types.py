"""Types that reach the call: a local's class comes from the assignments that reach the call site.

End to end on real git repositories (netbox's `field_class` in if/else branches, sqlalchemy's
module name rebound by a function's `global` import), then the reaching rule itself, one
row of source per case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from graphguard.languages.python.modules import ModuleMap
from graphguard.languages.python.parse import parse
from graphguard.languages.python.resolver import Resolver
from tests.helpers import GitRepo, Result, source

# netbox `extras/models/customfields.py` in miniature: two classes in the branches of one
# if/else, three in an if/elif/else later in the function; two of those share a mixin's __init__.
FIELDS = {
    "pkg/__init__.py": "",
    "pkg/fields.py": """
        class Mixin:
            def __init__(self, queryset, **kwargs):
                self.queryset = queryset


        class CSVChoiceField:
            def __init__(self, choices=(), required=False, initial=None):
                pass


        class DynamicChoiceField:
            def __init__(self, choices=(), required=False, initial=None):
                pass


        class DynamicModelChoiceField(Mixin):
            pass


        class DynamicModelMultipleChoiceField(Mixin):
            pass
        """,
    "pkg/custom.py": """
        from pkg.fields import CSVChoiceField, DynamicChoiceField, DynamicModelChoiceField, DynamicModelMultipleChoiceField


        def to_form_field(kind, for_csv_import, multi):
            if kind == "select":
                if for_csv_import:
                    field_class = CSVChoiceField
                else:
                    field_class = DynamicChoiceField
                field = field_class(choices=(), required=True)
            elif kind == "object":
                if multi:
                    field_class = DynamicModelMultipleChoiceField
                else:
                    field_class = DynamicModelChoiceField
                field = field_class(queryset=None, required=True)
            return field
        """,
}
SELECT_CALL, OBJECT_CALL = 10, 16  # the two `field = field_class(...)` lines of pkg/custom.py


@pytest.fixture
def check(graphguard: Callable[..., Result]) -> Callable[..., tuple[int, dict[str, Any]]]:
    def run(repo: GitRepo) -> tuple[int, dict[str, Any]]:
        r = graphguard(repo, "check", "--staged", "--format", "json")
        assert r.code in (0, 1), r.err
        return r.code, r.json

    return run


def stage(repo: GitRepo, path: str, old: str, new: str) -> None:
    text = repo.path(path).read_text()
    assert old in text
    repo.write({path: text.replace(old, new)})
    repo.git("add", "-A")


def callers_at(data: dict[str, Any], line: int, path: str = "pkg/custom.py") -> dict[str, tuple[str, str]]:
    """symbol -> (status, resolution) of every caller reported at `path:line`."""
    return {c["symbol"]: (caller["status"], caller["resolution"])
            for c in data["changes"] for caller in c["callers"]
            if caller["path"] == path and caller["line"] == line and caller["kind"] == "call"}


def test_a_later_branch_class_is_not_taken_for_an_earlier_call(make_repo: Callable[..., GitRepo],
                                                               graphguard: Callable[..., Result]) -> None:
    repo = make_repo(FIELDS)
    r = graphguard(repo, "callers", "pkg.fields.CSVChoiceField", "--format", "json")
    assert r.code == 0, r.err
    calls = {(c["line"], c["resolution"]) for c in r.json["callers"] if c["kind"] == "call"}
    assert calls == {(SELECT_CALL, "one-of")}
    r = graphguard(repo, "callers", "pkg.fields.DynamicModelChoiceField", "--format", "json")
    calls = {(c["line"], c["resolution"]) for c in r.json["callers"] if c["kind"] == "call"}
    assert calls == {(OBJECT_CALL, "one-of")}  # not the earlier call, which never holds it
    # Both classes at the later call run the mixin's __init__: that edge is exact.
    r = graphguard(repo, "callers", "pkg.fields.Mixin.__init__", "--format", "json")
    assert {(c["line"], c["resolution"]) for c in r.json["callers"]} == {(OBJECT_CALL, "exact")}


def test_an_optional_parameter_on_the_shared_mixin_is_not_blocked(make_repo: Callable[..., GitRepo], check: Any) -> None:
    repo = make_repo(FIELDS)
    stage(repo, "pkg/fields.py", "def __init__(self, queryset, **kwargs):", "def __init__(self, queryset, extra_hint=None, **kwargs):")
    code, data = check(repo)
    assert code == 0, data
    assert callers_at(data, SELECT_CALL) == {}
    assert {status for status, _ in callers_at(data, OBJECT_CALL).values()} == {"ok"}


def test_a_call_broken_for_one_branch_class_only_is_unknown(make_repo: Callable[..., GitRepo], check: Any) -> None:
    repo = make_repo(FIELDS)
    stage(repo, "pkg/fields.py", "class CSVChoiceField:\n    def __init__(self, choices=(), required=False, initial=None):",
          "class CSVChoiceField:\n    def __init__(self, choices=(), *, needed, required=False, initial=None):")
    code, data = check(repo)
    assert code == 0, data
    found = callers_at(data, SELECT_CALL)
    assert found and set(found.values()) == {("unknown", "one-of")}
    reasons = {caller["reason"] for c in data["changes"] for caller in c["callers"] if caller["line"] == SELECT_CALL}
    assert all("missing required keyword-only argument 'needed'" in r and "other paths" in r for r in reasons), reasons


def test_a_call_broken_for_every_branch_class_is_broken(make_repo: Callable[..., GitRepo], check: Any) -> None:
    repo = make_repo(FIELDS)
    stage(repo, "pkg/fields.py", "def __init__(self, queryset, **kwargs):", "def __init__(self, queryset, needed, **kwargs):")
    code, data = check(repo)
    assert code == 1, data
    assert callers_at(data, OBJECT_CALL)["pkg.fields.Mixin.__init__"] == ("broken", "exact")
    assert callers_at(data, SELECT_CALL) == {}


def test_a_module_name_rebound_by_a_global_import_is_followed(make_repo: Callable[..., GitRepo], check: Any,
                                                              graphguard: Callable[..., Result]) -> None:
    # sqlalchemy `testing/plugin/plugin_base.py`: `util = None` at module level, bound for real by
    # `global util; from sqlalchemy import util` in a setup function, used in other functions.
    repo = make_repo({
        "lib/__init__.py": "",
        "lib/util.py": "def to_list(x, default=None):\n    return [x]\n",
        "lib/plugin_base.py": """
            util = None


            def post_begin():
                global util
                from lib import util


            def _do_skips(cls):
                return util.to_list(cls.__only_on__)
            """,
    })
    r = graphguard(repo, "callers", "lib.util.to_list", "--format", "json")
    assert r.code == 0, r.err
    assert [(c["path"], c["line"], c["resolution"]) for c in r.json["callers"]] == [("lib/plugin_base.py", 10, "exact")]
    stage(repo, "lib/util.py", "def to_list(x, default=None):", "def to_list(x, *, default=None, strict):")
    code, data = check(repo)
    assert code == 1
    assert callers_at(data, 10, "lib/plugin_base.py") == {"lib.util.to_list": ("broken", "exact")}


# --- the reaching rule: what `x` holds at the line marked `# here` --------------------------------

LIB = """
class A:
    def run(self): pass
class B:
    def run(self): pass
class C:
    def run(self): pass
"""


@pytest.mark.parametrize(("body", "expected"), [
    # The nearest assignment before the use wins over earlier ones.
    ("x = A()\nx = B()\nx.run()  # here", {"B.run"}),
    # ... and later ones never reach it.
    ("x = A()\nx.run()  # here\nx = B()", {"A.run"}),
    # Both branches of an if/else reach the use after it; the earlier one is overwritten on both paths.
    ("x = C()\nif c:\n    x = A()\nelse:\n    x = B()\nx.run()  # here", {"A.run", "B.run"}),
    # An if without an else may leave the earlier value.
    ("x = C()\nif c:\n    x = A()\nx.run()  # here", {"A.run", "C.run"}),
    # A use inside a branch sees that branch only.
    ("if c:\n    x = A()\n    x.run()  # here\nelse:\n    x = B()", {"A.run"}),
    # Sibling arms of one if never run together (no loop around them).
    ("if c:\n    x = A()\nelif d:\n    x = B()\nelse:\n    x = C()\n    x.run()  # here", {"C.run"}),
    # A loop runs an arm again: the other arm's value comes round.
    ("x = C()\nfor i in y:\n    if c:\n        x.run()  # here\n    else:\n        x = A()", {"A.run", "C.run"}),
    # try body, then its handler: either may have bound it.
    ("try:\n    x = A()\nexcept E:\n    x = B()\nx.run()  # here", {"A.run", "B.run"}),
    # `a if c else b` binds one of both.
    ("x = A() if c else B()\nx.run()  # here", {"A.run", "B.run"}),
    # A value that cannot be followed is no alternative (calling a method on None fails anyway).
    ("x = None\nif c:\n    x = A()\nx.run()  # here", {"A.run"}),
    # `x = x.method()` reads the x bound before it.
    ("x = A()\nx = x.run()\nx.run()  # here", set()),
    # The cases of a match are arms of one statement.
    ("match c:\n    case 1:\n        x = A()\n    case _:\n        x = B()\nx.run()  # here", {"A.run", "B.run"}),
    # An external fallback import in `except ImportError:` does not hide the repository's.
    ("try:\n    from lib import A as x\nexcept ImportError:\n    import json as x\nx.run(None)  # here", {"A.run"}),
    # A function-level import binds the name from there on.
    ("x = C\nfrom lib import B as x\nx.run(None)  # here", {"B.run"}),
])
def test_what_reaches_a_use(body: str, expected: set[str]) -> None:
    code = "from lib import A, B, C\n\n\ndef f(c, d, y):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert targets_at(code) == expected


def targets_at(code: str, files: Mapping[str, str] | None = None) -> set[str]:
    texts = {"lib.py": LIB.encode(), "use.py": code.encode(), **{p: source(t).encode() for p, t in (files or {}).items()}}
    resolver = Resolver(ModuleMap.build(texts), lambda p: parse(texts[p]) if p in texts else None)
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "# here" in text)
    return {s.target.removeprefix("lib.") for s in resolver.resolve_file("use.py").sites
            if s.kind == "call" and s.line == line and s.target}


def test_type_checking_declaration_wins_over_its_runtime_else() -> None:
    # sqlalchemy `orm/base.py`: a typed stub under TYPE_CHECKING, an attrgetter at runtime.
    code = source("""
        import operator
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            def instance_state(instance): ...
        else:
            instance_state = operator.attrgetter("_sa_instance_state")

        instance_state(1)  # here
        """)
    assert targets_at(code) == {"use.instance_state"}


# --- incremental == fresh when only the flow of a module's names changes ---------------------------


@pytest.mark.parametrize("new_compat", [
    # The same two assignments, now in the arms of an if/else: the name holds either.
    "from lib import A, B\nif c:\n    Impl = A\nelse:\n    Impl = B\n",
    # Their order swapped: the other one is last.
    "from lib import A, B\nImpl = B\nImpl = A\n",
    # A function's `global` rebinding.
    "from lib import A, B\nImpl = A\n\n\ndef setup():\n    global Impl\n    from lib import B as Impl\n",
])
def test_flow_changes_in_a_module_re_resolve_its_importers(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                           new_compat: str) -> None:
    from tests.differential import fresh_dump
    from tests.graphdump import differences, dump

    repo = make_repo({
        "lib/__init__.py": "class A:\n    def run(self):\n        pass\n\n\nclass B:\n    def run(self):\n        pass\n",
        "compat.py": "from lib import A, B\nImpl = A\nImpl = B\n",
        "use.py": "from compat import Impl\n\n\ndef f():\n    return Impl().run()\n",
    })
    assert graphguard(repo, "index").code == 0
    repo.commit("flow", {"compat.py": new_compat})
    assert graphguard(repo, "index").code == 0
    mine, fresh = dump(repo.graph_path), fresh_dump(repo.root)
    assert mine == fresh, "\n".join(differences(mine, fresh))
