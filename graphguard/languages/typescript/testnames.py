"""The names of the tests (`it("adds", ...)`, `test("adds", ...)`) around lines of a TypeScript/JavaScript test file. Pure.

vitest and jest run tests by name (`-t PATTERN`), so the report can name the tests a change reaches rather than
their files. A test is a call of `it`, `test` (or `it.only`, `test.skip`, ...) whose first argument is a string
literal; the innermost one around a line is the test that runs it. A line in no such call (a helper, a hook,
module level) has no name: the caller runs the whole file then.
"""

from __future__ import annotations

from collections.abc import Collection

from graphguard.languages.limits import MAX_BYTES
from graphguard.languages.typescript.grammar import Dialect, parser

#: The callees that declare one test (the frameworks' aliases and modifiers of `it` and `test`).
TEST_CALLS = frozenset({"it", "test", "it.only", "test.only", "it.skip", "test.skip", "it.concurrent", "test.concurrent"})


def test_names(data: bytes, dialect: Dialect, lines: Collection[int]) -> list[str | None]:
    """Per line (1-based, in the order given), the innermost test around it; None where none is."""
    if len(data) > MAX_BYTES:
        return [None for _ in lines]
    tests = _tests(data, dialect)
    out: list[str | None] = []
    for line in lines:
        around = [(end - start, name) for start, end, name in tests if start <= line <= end]
        out.append(min(around)[1] if around else None)
    return out


def _tests(data: bytes, dialect: Dialect) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of every test call of the file."""
    out = []
    stack = [parser(dialect).parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if callee is not None and (callee.text or b"").decode("utf-8", "replace") in TEST_CALLS and first is not None \
                    and first.type == "string":
                name = (first.text or b"").decode("utf-8", "replace")[1:-1]
                out.append((node.start_point[0] + 1, node.end_point[0] + 1, name))
        stack.extend(node.children)
    return out
