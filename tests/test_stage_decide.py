"""check.decide on an in-memory graph: each use bound to the new signature, broken, bound or unknown."""

from __future__ import annotations

from graphguard.result import Status, SymbolImpact
from tests.stages import change, decided

CLOCK = """
    def stamp(when, fmt="%Y"):
        return when
"""
REPO = {
    "clock.py": CLOCK,
    "one.py": "from clock import stamp\n\ndef a():\n    return stamp(1)\n",
    "two.py": "from clock import stamp\n\ndef b():\n    return stamp(1, '%m')\n",
    "kw.py": "from clock import stamp\n\ndef c():\n    return stamp(when=1, fmt='%d')\n",
    "star.py": "from clock import stamp\n\ndef d(args):\n    return stamp(*args)\n",
}


def entry(new_clock: str) -> SymbolImpact:
    [found] = decided(change(REPO, {"clock.py": new_clock}))
    return found


def statuses(found: SymbolImpact) -> dict[str, Status]:
    return {c.caller: c.status for c in found.callers if c.kind.value == "call"}


def test_a_new_required_parameter_breaks_the_calls_that_do_not_pass_it() -> None:
    found = entry(CLOCK.replace("def stamp(when, fmt", "def stamp(when, zone, fmt"))
    # two.b passes fmt by position: it would land in `zone` now, a break even though the call binds.
    assert statuses(found) == {"one.a": Status.BROKEN, "two.b": Status.BROKEN, "kw.c": Status.BROKEN, "star.d": Status.UNKNOWN}
    assert [c.path for c in found.callers][:3] == ["kw.py", "one.py", "two.py"]  # the broken ones first, by place


def test_a_removed_keyword_breaks_only_the_call_that_names_it() -> None:
    found = entry("def stamp(when):\n    return when\n")
    assert statuses(found) == {"one.a": Status.OK, "two.b": Status.BROKEN, "kw.c": Status.BROKEN, "star.d": Status.UNKNOWN}
    assert all("TypeError" == c.raises for c in found.broken)


def test_an_added_optional_parameter_leaves_every_call_bound() -> None:
    found = entry(CLOCK.replace('fmt="%Y"', 'fmt="%Y", *, tz=None'))
    assert found.broken == [] and statuses(found)["one.a"] is Status.OK
