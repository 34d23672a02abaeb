"""report.indented.dumps writes what json.dumps(indent=2, ensure_ascii=False) writes, byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphguard.report.indented import dumps

_leaves = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
_values = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                       max_leaves=30)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_values)
def test_same_bytes_as_the_standard_library(value: Any) -> None:
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_it_leaves_to_the_standard_library() -> None:
    for value in ({1: "a"}, {"x": float("nan")}, [float("-inf")], (1, [2, {"k": (3,)}]), {"e": [], "f": {}}):
        assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)
