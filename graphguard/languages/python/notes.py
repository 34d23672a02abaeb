"""What a file says about its own call sites: ignore comments and blocks that expect a failure. Pure.

Read only for the files holding a site a check would blame (check/suppress), from the blob
being checked; the stored facts do not carry comments (millions of call sites, few comments).

    f(1)  # type: ignore[call-arg]            the author knows the call does not bind
    with pytest.raises(TypeError):            the test wants the call to fail
        f(1)
    self.assertRaises(TypeError, f, 1)        the same, with the callable passed
    @pytest.mark.xfail(raises=TypeError)      the same, for the whole test
    try:                                      the code tries the call and handles its failure
        f(1, new=2)                           (`except TypeError` by name, or `contextlib.suppress(TypeError)`:
    except TypeError:                         a broad `except Exception` around code is no such sign)
        f(1)
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from typing import Any, NamedTuple

from graphguard.languages.limits import MAX_BYTES
from graphguard.languages.python import encoding, nodes, treesitter
from graphguard.languages.python import parse as python

_QUERY = """
(comment) @comment
(with_statement) @with
(try_statement) @try
((decorator (call function: (_) @mark)) @xfail (#match? @mark "xfail$"))
((call function: (_) @fn) @call (#match? @fn "(raises|assertRaises[A-Za-z]*|failUnlessRaises)$"))
"""
_HOLES = "(function_definition) @hole (class_definition) @hole (lambda) @hole"

#: The calls that expect their block (or the callable they are passed) to raise.
_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "failUnlessRaises"})
#: ... and those that let it pass: only the exceptions named exactly count (`suppress(Exception)` hides any bug).
_TOLERATES = frozenset({"suppress"})

GRAPHGUARD_IGNORE = re.compile(r"#\s*graphguard:\s*ignore\b(?:\[([^\]]*)\])?")
_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore\b(?:\[([^\]]*)\])?")
_PYRIGHT_IGNORE = re.compile(r"#\s*pyright:\s*ignore\b(?:\[([^\]]*)\])?")
#: The type checkers' codes for a call whose arguments do not fit the signature.
_CALL_CODES = frozenset({"call-arg", "arg-type", "call-overload", "misc", "reportCallIssue", "reportArgumentType"})


class Ignore(NamedTuple):
    line: int
    text: str  # the comment part as written: "# type: ignore[call-arg]"
    codes: tuple[str, ...] | None  # graphguard's codes; None: every code


class Expecting(NamedTuple):
    """Lines where a failure is expected: a `with pytest.raises(...)` body, or the callable passed to `assertRaises`."""

    line: int
    end_line: int
    exceptions: tuple[str, ...]  # as written: ("TypeError",), ("ValueError", "TypeError")
    text: str  # the expecting call as written, shortened: "pytest.raises(TypeError)"
    holes: tuple[tuple[int, int], ...] = ()  # functions and classes defined inside: their bodies do not run there
    passed: bool = False  # the callable passed to `assertRaises(E, f, ...)`: a reference, not a call


class Notes(NamedTuple):
    graphguard: dict[int, list[Ignore]]  # line -> `# graphguard: ignore` on it
    checker: dict[int, list[Ignore]]  # line -> a type checker's ignore that covers a call that does not bind
    expecting: tuple[Expecting, ...]
    #: line -> a compiler directive that silences every error on it, of any site (TypeScript's `// @ts-expect-error`
    #: on the line before); Python has none.
    silenced: dict[int, list[Ignore]] = {}  # noqa: RUF012 - one shared default, never mutated

    def ignores(self, line: int, end_line: int, *, call: bool) -> list[Ignore]:
        """The ignores written on the site's lines (a type checker's only for a call)."""
        tables = (self.graphguard, self.checker, self.silenced) if call else (self.graphguard, self.silenced)
        return [i for table in tables for n in range(line, end_line + 1) for i in table.get(n, ())]

    def expected(self, line: int, end_line: int, raised: str, *, passed: bool = False) -> Expecting | None:
        """The innermost block around lines `line`..`end_line` that expects `raised` (an exception name)."""
        found = [e for e in self.expecting if e.passed is passed and e.line <= line and end_line <= e.end_line
                 and not any(a <= line <= b for a, b in e.holes) and _covers(e.exceptions, raised)]
        return max(found, key=lambda e: e.line) if found else None


EMPTY = Notes({}, {}, ())


def notes(source: bytes) -> Notes:
    """The notes of one file's source (a file too large to parse has none)."""
    if len(source) > MAX_BYTES:
        return EMPTY
    text = encoding.to_utf8(source)[0]
    # As the facts are parsed: comment-only lines blanked (tree-sitter is quadratic in a run of them),
    # so those are read from their spans; matches start no deeper than the facts' own limit.
    tree = python.parse_tree(text)
    graphguard: dict[int, list[Ignore]] = defaultdict(list)
    checker: dict[int, list[Ignore]] = defaultdict(list)
    seen: set[int] = set()
    breaks: list[int] | None = None
    for start, end in python.comment_lines(text):
        if b"ignore" not in text[start:end]:
            continue
        if breaks is None:
            breaks = [m.start() for m in re.finditer(b"\n", text)]
        line = bisect.bisect_left(breaks, start) + 1
        seen.add(line)
        _comment(line, text[start:end].decode("utf-8", "replace"), graphguard, checker)
    expecting = []
    for _, caps in treesitter.matches(_QUERY, tree.root_node, max_start_depth=nodes.MAX_DEPTH):
        for node in caps.get("comment", ()):
            if node.start_point[0] + 1 not in seen:  # parsed as it is: the comment-only lines are comment nodes too
                _comment(node.start_point[0] + 1, node.text.decode("utf-8", "replace"), graphguard, checker)
        for node in caps.get("with", ()):
            expecting += _with(node)
        for node in caps.get("try", ()):
            expecting += _try(node)
        for node in caps.get("xfail", ()):
            expecting += _xfail(node)
        for node in caps.get("call", ()):
            expecting += _passed(node)
    return Notes(dict(graphguard), dict(checker), tuple(expecting))


def _comment(line: int, comment: str, graphguard: dict[int, list[Ignore]], checker: dict[int, list[Ignore]]) -> None:
    for m in GRAPHGUARD_IGNORE.finditer(comment):
        graphguard[line].append(Ignore(line, m.group(0), split_codes(m.group(1))))
    for pattern in (_TYPE_IGNORE, _PYRIGHT_IGNORE):
        for m in pattern.finditer(comment):
            named = split_codes(m.group(1))
            if named is None or _CALL_CODES.intersection(named):
                checker[line].append(Ignore(line, m.group(0), None))


def split_codes(inside: str | None) -> tuple[str, ...] | None:
    """`call-arg, misc` -> ("call-arg", "misc"); None (a bare ignore) stays None."""
    if inside is None:
        return None
    return tuple(c.strip() for c in inside.split(",") if c.strip())


def _raises_call(node: Any) -> tuple[tuple[str, ...], list[Any], str] | None:
    """(exceptions, the arguments after them, the call's text) of `pytest.raises(E, ...)` / `self.assertRaises(E, ...)`."""
    if node.type != "call":
        return None
    function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if function is None or args is None or args.type != "argument_list":
        return None
    name = function.text.decode("utf-8", "replace").rsplit(".", 1)[-1]
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
    keyword = [a.child_by_field_name("value") for a in args.named_children if a.type == "keyword_argument"
               and (a.child_by_field_name("name") or a).text == b"expected_exception"]
    first = positional[0] if positional else keyword[0] if keyword else None
    if name not in _RAISES | _TOLERATES or first is None:
        return None
    names = _exception_names(first)
    if name in _TOLERATES:
        names = tuple(n for n in names if n == "TypeError")
    text = " ".join(node.text.decode("utf-8", "replace").split())
    return names, positional[1:], text if len(text) <= 60 else text[:57] + "..."


def _exception_names(node: Any) -> tuple[str, ...]:
    """`TypeError`, `(TypeError, ValueError)`, `TypeError | ValueError`: the names, last part only."""
    if node.type in ("tuple", "parenthesized_expression"):
        return tuple(n for child in node.named_children for n in _exception_names(child))
    if node.type == "binary_operator":
        return tuple(n for child in (node.child_by_field_name("left"), node.child_by_field_name("right"))
                     if child is not None for n in _exception_names(child))
    return (node.text.decode("utf-8", "replace").rsplit(".", 1)[-1],)


def _with(node: Any) -> list[Expecting]:
    body = node.child_by_field_name("body")
    if body is None:
        return []
    out = []
    for clause in (c for c in node.named_children if c.type == "with_clause"):
        for item in (i for i in clause.named_children if i.type == "with_item"):
            value = item.child_by_field_name("value")
            if value is not None and value.type == "as_pattern":  # `pytest.raises(E) as info`
                value = value.named_children[0]
            found = _raises_call(value)
            if found is not None and found[0]:
                out.append(Expecting(body.start_point[0] + 1, body.end_point[0] + 1, found[0], found[2], _holes(body)))
    return out


def _try(node: Any) -> list[Expecting]:
    """`try: ... except TypeError:` (by name, alone or in a tuple): the body's calls may fail, and that is handled."""
    body = node.child_by_field_name("body")
    if body is None:
        return []
    for clause in (c for c in node.named_children if c.type == "except_clause"):
        value = next((c for c in clause.named_children if c.type != "block"), None)
        if value is not None and value.type == "as_pattern":
            value = value.named_children[0]
        if value is not None and "TypeError" in _exception_names(value):
            return [Expecting(body.start_point[0] + 1, body.end_point[0] + 1, ("TypeError",), "try: ... except TypeError",
                              _holes(body))]
    return []


def _xfail(decorator: Any) -> list[Expecting]:
    """`@pytest.mark.xfail(raises=TypeError)` on a test: its body is expected to fail with that (a bare xfail names no failure)."""
    call = decorator.named_children[0]
    args = call.child_by_field_name("arguments")
    raises = [a.child_by_field_name("value") for a in (args.named_children if args is not None else ())
              if a.type == "keyword_argument" and (a.child_by_field_name("name") or a).text == b"raises"]
    definition = decorator.parent.child_by_field_name("definition") if decorator.parent is not None else None
    body = definition.child_by_field_name("body") if definition is not None and definition.type == "function_definition" else None
    if not raises or raises[0] is None or body is None:
        return []
    text = " ".join(call.text.decode("utf-8", "replace").split())
    return [Expecting(body.start_point[0] + 1, body.end_point[0] + 1, _exception_names(raises[0]),
                      "@" + (text if len(text) <= 60 else text[:57] + "..."), _holes(body))]


def _holes(body: Any) -> tuple[tuple[int, int], ...]:
    return tuple((h.start_point[0] + 1, h.end_point[0] + 1) for _, caps in treesitter.matches(_HOLES, body) for h in caps.get("hole", ()))


def _passed(node: Any) -> list[Expecting]:
    """`assertRaises(TypeError, f, 1)`: the callable `f` is called inside, where the failure is expected."""
    found = _raises_call(node)
    if found is None or not found[1]:
        return []
    callable_ = found[1][0]
    return [Expecting(callable_.start_point[0] + 1, callable_.end_point[0] + 1, found[0], found[2], passed=True)]


#: The exceptions a handler for TypeError also catches.
_CATCHES_TYPE_ERROR = frozenset({"TypeError", "Exception", "BaseException"})


def _covers(exceptions: tuple[str, ...], raised: str) -> bool:
    """Does expecting any of `exceptions` expect `raised`? (By name: a project's subclass of TypeError is not seen.)"""
    catching = _CATCHES_TYPE_ERROR if raised == "TypeError" else frozenset({raised, "Exception", "BaseException"})
    return any(e in catching for e in exceptions)
