"""The caches a long-lived process keeps (graphguard.caches), owned by the open Repo."""

from __future__ import annotations

from collections.abc import Callable

from graphguard.answers import outline
from graphguard.caches import LRU
from graphguard.repo import ensure_current, open_repo
from tests.helpers import GitRepo


def test_an_lru_forgets_the_least_recently_used_beyond_its_bound() -> None:
    kept: LRU[str, int | None] = LRU(2)
    kept.put("a", 1)
    kept.put("b", None)  # None is a value: "b" is kept
    assert kept.get("a") == 1  # "a" is now the newest
    kept.put("c", 3)
    assert list(kept) == ["a", "c"] and "b" not in kept and kept.get("b", 7) == 7
    assert kept.pop("a") == 1 and kept.pop("a") is None and len(kept) == 1


def test_a_weighed_lru_keeps_its_total_under_the_bound() -> None:
    kept: LRU[str, bytes] = LRU(5, len)
    kept.put("a", b"12")
    kept.put("b", b"345")
    kept.put("c", b"6")
    assert list(kept) == ["b", "c"] and sum(map(len, kept.values())) == 4
    kept.put("d", b"too heavy")  # heavier than the bound alone: nothing of it kept, and all else gone
    assert len(kept) == 0
    kept.put("e", b"1")
    assert list(kept) == ["e"]


def test_each_open_repo_has_its_own_caches(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": '"""A module."""\ndef f():\n    """Does f."""\n'})
    one, other = open_repo(str(repo.root)), open_repo(str(repo.root))
    ensure_current(one, progress=False)
    doc = outline.outline_document(one, ["pkg/a.py"])
    assert doc["files"][0]["docstring"] == "A module."
    assert len(one.caches.extras) == 1 and len(other.caches.extras) == 0
    assert outline.outline_document(one, ["pkg/a.py"]) == doc  # answered again from what it kept
