"""The changed file's own callers are callers like any other (issue 19 §5).

pydantic's `Decorator.bind_to_cls` gained a required keyword-only parameter; its seven callers
sat in the same file, most on receivers of unknown type (`v.bind_to_cls(...)` over a dict's
values), and `check` said "no callers in the repository". The stored graph finds such by-name
uses in unchanged files; the changed file's new version must be searched the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import GitRepo, Result

DECO = """
    from dataclasses import dataclass
    from typing import Any


    @dataclass
    class Decorator:
        cls_ref: str

        def bind_to_cls(self, cls: Any, cls_ref: str) -> "Decorator":
            return self

        def rebind(self, cls: Any) -> "Decorator":
            return self.bind_to_cls(cls, "self")

        @classmethod
        def fresh(cls, other: Any) -> "Decorator":
            return cls("x").bind_to_cls(other, "cls")


    def typed(d: Decorator) -> Decorator:
        return d.bind_to_cls(1, "typed")


    def built() -> Decorator:
        d = Decorator("x")
        return d.bind_to_cls(2, "built")


    @dataclass
    class DecoratorInfos:
        validators: dict[str, Decorator]

        @staticmethod
        def build(model_dc: type[Any], existing: "DecoratorInfos") -> "DecoratorInfos":
            res = DecoratorInfos({})
            res.validators.update({k: v.bind_to_cls(model_dc, "comp") for k, v in existing.validators.items()})
            for k, v in existing.validators.items():
                res.validators[k] = v.bind_to_cls(model_dc, "loop")
            return res

        def again(self, v: Any) -> Decorator:
            return v.bind_to_cls(3, "any")
    """

SEVEN = ('"self"', '"cls"', '"typed"', '"built"', '"comp"', '"loop"', '"any"')
FIXED = ('"self"', '"comp"', '"typed"')


def _half_done(text: str) -> str:
    """`strict` added to the method, and passed by three of its seven callers only."""
    text = text.replace("cls_ref: str) ->", "cls_ref: str, *, strict: bool) ->")
    for arg in FIXED:
        text = text.replace(arg + ")", arg + ", strict=True)")
    return text


def _broken(data: dict[str, Any]) -> set[int]:
    return {c["line"] for ch in data["changes"] for c in ch["callers"] if c["status"] == "broken"}


def _lines(repo: GitRepo, args: tuple[str, ...]) -> set[int]:
    lines = repo.path("pkg/deco.py").read_text(encoding="utf-8").splitlines()
    return {i for i, line in enumerate(lines, 1) if any(a + ")" in line for a in args)}


@pytest.mark.parametrize("mode", ["staged", "base"])
def test_callers_in_the_changed_file_are_checked(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result],
                                                 mode: str) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/deco.py": DECO})
    assert graphguard(repo, "index").code == 0
    repo.write({"pkg/deco.py": _half_done(DECO)})
    repo.git("add", "-A")
    if mode == "base":
        repo.commit("strict")
        r = graphguard(repo, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    else:
        r = graphguard(repo, "check", "--format", "json")
    assert r.code == 1, r.out
    unfixed = _lines(repo, tuple(a for a in SEVEN if a not in FIXED))
    assert len(unfixed) == 4
    assert _broken(r.json) == unfixed
    ok = {c["line"] for ch in r.json["changes"] for c in ch["callers"] if c["status"] == "ok"}
    assert _lines(repo, FIXED) <= ok


def test_callers_in_the_changed_file_all_fixed_pass(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/deco.py": DECO})
    assert graphguard(repo, "index").code == 0
    text = DECO.replace("cls_ref: str) ->", "cls_ref: str, *, strict: bool) ->")
    for arg in SEVEN:
        text = text.replace(arg + ")", arg + ", strict=True)")
    repo.write({"pkg/deco.py": text})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--format", "json")
    assert r.code == 0, r.out
    assert _broken(r.json) == set()
