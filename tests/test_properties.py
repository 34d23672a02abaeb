"""No internal error on any source: generated Python programs through the parser, the signature model and sigdiff.

hypothesmith writes programs from Python's grammar (odd but legal code: nested lambdas, walrus in
comprehensions, decorators on anything, every parameter kind). Each stage must return a value for
every one of them: facts, signatures, a list of changes. A few dozen examples per property keep CI
fast; a failing example is printed and kept in the example database for the next run.
"""

from __future__ import annotations

import ast
import os

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphguard.languages.python import parse as python
from graphguard.languages.python.sigdiff import compare
from graphguard.languages.python.signature import SignatureParseError, extract
from graphguard.model import FileFacts

#: Examples per property: a few dozen in CI; set GRAPHGUARD_PROPERTY_EXAMPLES=2000 to hunt.
EXAMPLES = int(os.environ.get("GRAPHGUARD_PROPERTY_EXAMPLES", "40"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])

programs = hypothesmith.from_grammar()
#: Programs made of statements a module's interface has (definitions, classes, decorators).
modules = hypothesmith.from_node()


def _extract(source: str) -> object:
    try:
        return extract(source)
    except SignatureParseError:  # the documented outcome for what LibCST cannot read: a value, not a crash
        return None


@pytest.mark.slow
@FAST
@given(programs)
def test_facts_never_raise_and_survive_the_cache(source: str) -> None:
    facts = python.parse(source.encode("utf-8", "surrogatepass"))
    assert FileFacts.from_json(facts.to_json()) == facts


@FAST
@given(programs)
def test_a_program_python_parses_is_never_a_syntax_error(source: str) -> None:
    data = source.encode("utf-8", "surrogatepass")
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    assert not any(w.startswith("syntax error") for w in python.parse(data).warnings)


@pytest.mark.slow
@FAST
@given(modules)
def test_signatures_never_raise_and_a_program_compared_with_itself_has_no_changes(source: str) -> None:
    sigs = _extract(source)
    if sigs is not None:
        assert compare(sigs, sigs) == []  # type: ignore[arg-type]


@pytest.mark.slow
@FAST
@given(modules, programs)
def test_any_two_programs_compare(before: str, after: str) -> None:
    old, new = _extract(before), _extract(after)
    if old is not None and new is not None:
        for change in compare(old, new):  # type: ignore[arg-type]
            assert change.qualname


@pytest.mark.slow
@FAST
@given(st.lists(st.sampled_from(["def f(a, b=1, *c, d, **e): ...", "class C:\n    x: b'int'\n    def m(self, /, y): ...", "@dataclass\nclass D:\n    a: int = 0\n", "f = lambda x: x\n"]), min_size=1, max_size=4), modules)
def test_real_shapes_against_generated_ones(parts: list[str], other: str) -> None:
    source = "\n".join(parts)
    mine, theirs = _extract(source), _extract(other)
    if mine is not None and theirs is not None:
        compare(mine, theirs)  # type: ignore[arg-type]
        compare(theirs, mine)  # type: ignore[arg-type]


@pytest.mark.parametrize("source", ["x: b'int'\n", "class C:\n    x: b'int' = 1\n", "@dataclass\nclass C:\n    x: b'int'\n    y: rb'str' = 2\n"])
def test_bytes_annotations_are_read(source: str) -> None:
    assert _extract(source) is not None
    assert python.parse(source.encode()).parsed
