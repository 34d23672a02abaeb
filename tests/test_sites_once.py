"""A call site is reported once, whatever number of changed definitions of a class hierarchy it reaches."""

from __future__ import annotations

from collections.abc import Callable

from tests.helpers import GitRepo, Result

FILES = {
    "pkg/__init__.py": "",
    "pkg/fields.py": "class Mixin:\n    def __init__(self, a):\n        self.a = a\n\n\nclass One(Mixin):\n    pass\n\n\nclass Two(Mixin):\n    pass\n",
    "app/__init__.py": "",
    "app/use.py": "from pkg.fields import One, Two\n\n\ndef make():\n    return One(), Two()\n",
}


def test_a_site_reaching_a_class_and_its_base_init_is_reported_once(make_repo: Callable[..., GitRepo],
                                                                     graphguard: Callable[..., Result]) -> None:
    repo = make_repo(FILES)
    repo.write({"pkg/fields.py": FILES["pkg/fields.py"].replace("(self, a)", "(self, a, extra_hint=None)")})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 1
    sites = [(c["path"], c["line"], ch["symbol"]) for ch in r.json["changes"] for c in ch["callers"] if c["kind"] == "call"]
    # One() and Two() reach their class (its constructor changed with the mixin's) and Mixin.__init__:
    # each is listed under its own class only, not under Mixin.__init__ as well.
    assert sorted(sites) == [("app/use.py", 5, "pkg.fields.One"), ("app/use.py", 5, "pkg.fields.Two")]
    assert {c["status"] for ch in r.json["changes"] for c in ch["callers"] if c["kind"] == "call"} == {"broken"}
    r = graphguard(repo, "check")
    assert "2 broken callers" in r.out


def test_names_of_one_import_statement_are_each_reported(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo(FILES)
    repo.write({"pkg/fields.py": FILES["pkg/fields.py"].replace("class One(Mixin)", "class Uno(Mixin)").replace("class Two(Mixin)", "class Dos(Mixin)")})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--format", "json")
    imports = sorted((ch["symbol"], c["line"]) for ch in r.json["changes"] for c in ch["callers"] if c["kind"] == "import")
    assert imports == [("pkg.fields.One", 1), ("pkg.fields.Two", 1)]  # `from pkg.fields import One, Two`: two uses, one place
