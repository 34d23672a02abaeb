"""Facts of one Python file from tree-sitter: definitions, imports, calls, references.

Pure: `parse(source) -> FileFacts`. Every interesting node is found by one
tree-sitter query run in C, so Python only touches the nodes it keeps; a
recursive walk over all nodes would be several times slower and would hit the
recursion limit on deeply nested expressions.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
import warnings as warnings_module
from collections.abc import Iterable
from typing import Any, NamedTuple

from graphguard.languages import MAX_BYTES
from graphguard.languages.python import encoding, treesitter
from graphguard.model import (
    Arm,
    ArmKind,
    Binding,
    BindKind,
    CallSite,
    Definition,
    DefKind,
    FileFacts,
    Global,
    Import,
    Reference,
    RefKind,
)

#: Query matches start no deeper in the tree than this; deeper code gets a warning.
MAX_DEPTH = 1024
#: ... and, in a big file, no deeper than this budget of nodes x levels allows (a few seconds:
#: 2 MB of calls nested 120 deep took 41 s at 256 levels, 3.5 s at 64), but never under MIN_DEPTH
#: (ordinary code is under 40 levels deep).
_DEPTH_BUDGET = 200_000_000
MIN_DEPTH = 64
#: Longer name chains keep their last parts and a "?" root.
MAX_CHAIN = 32

_SIMPLE_CHAIN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_COMMENT_LINE = re.compile(rb"^[ \t\f]*#[^\r\n]*", re.MULTILINE)
#: Comment lines in a row that tree-sitter parses in about 0.1 s (20,000 take 15 s: the square).
_LONG_RUN = 1000
#: Rounds of giving back the blanked lines found in strings before the text is parsed as it is.
_MAX_ROUNDS = 8
#: Nodes in which a blanked comment line would have been text.
_STRING_NODES = frozenset({"string", "string_content", "string_start", "string_end", "interpolation", "format_specifier", "escape_sequence", "concatenated_string"})
_COMMENT_OR_QUOTE = re.compile(rb"""#[^\r\n]*|(\"\"\"|'''|"|')""")
#: The rest of a one-line string: up to its closing quote or an unescaped line end.
_SINGLE_QUOTED = {q: re.compile(rb"(?:[^%s\\\r\n]|\\(?:\r\n|[\s\S]))*%s?" % (q, q)) for q in (b'"', b"'")}
_BOM = b"\xef\xbb\xbf"
#: A backslash continuation into a comment line: an error Python sees and tree-sitter's grammar does not.
_CONTINUED_INTO_COMMENT = re.compile(rb"\\\r?\n[ \t\f]*#")
_PARTIAL = {"partial", "functools.partial"}
_TYPE_CHECKING = {b"TYPE_CHECKING", b"typing.TYPE_CHECKING", b"t.TYPE_CHECKING"}

#: (key, pattern): one pattern per kind of fact; matches are grouped by key.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("def", "(function_definition) @def"),
    ("def", "(class_definition) @def"),
    ("decorator", "(decorated_definition (decorator) @decorator definition: (_) @target)"),
    ("import", "(import_statement) @import"),
    ("import", "(import_from_statement) @import"),
    ("py2", "[(print_statement) (exec_statement)] @statement"),
    ("tc", "(if_statement condition: (_) @cond consequence: (block) @block)"),
    ("call", "(call function: (_) @callee arguments: (_) @args) @call"),
    ("ref.value", "(argument_list [(identifier) (attribute)] @ref)"),
    ("ref.value", "(keyword_argument value: [(identifier) (attribute)] @ref)"),
    ("ref.base", "(class_definition superclasses: (argument_list [(identifier) (attribute)] @ref))"),
    ("ref.decorator", "(decorator [(identifier) (attribute)] @ref)"),
    ("attr", "(attribute object: (identifier) @root) @ref"),
    ("ref.value", "(return_statement [(identifier) (attribute)] @ref)"),
    ("ref.value", "(raise_statement [(identifier) (attribute)] @ref)"),
    ("ref.value", "(except_clause [(identifier) (attribute)] @ref)"),
    ("ref.value", "(except_clause (tuple [(identifier) (attribute)] @ref))"),
    ("kw", "(argument_list (keyword_argument name: (identifier) @kw) @arg) @args"),
    ("splat", "(argument_list [(list_splat) (dictionary_splat)] @splat) @args"),
    ("comment", "(argument_list (comment) @comment) @args"),
    ("assign", "(assignment left: (_)) @assign"),
    ("augassign", "(augmented_assignment left: (identifier) @left right: (_) @right)"),
    ("with", "(with_item value: (as_pattern (call function: (_) @callee) alias: (as_pattern_target (identifier) @target)))"),
    ("param", "(function_definition parameters: (parameters [(typed_parameter (identifier) @name type: (type) @type) (typed_default_parameter name: (identifier) @name type: (type) @type)]) body: (block) @body)"),
    # The arms of compound statements: which assignments reach a line (resolve.py, reaching.py).
    ("arm.branch", "(if_statement consequence: (block) @arm) @stmt"),
    ("arm.branch", "(if_statement alternative: (elif_clause consequence: (block) @arm)) @stmt"),
    ("arm.else", "(if_statement alternative: (else_clause body: (block) @arm)) @stmt"),
    ("arm.branch", "(match_statement body: (block (case_clause consequence: (block) @arm))) @stmt"),
    ("arm.loop", "[(for_statement body: (block) @arm) (while_statement body: (block) @arm)] @stmt"),
    ("arm.loop_else", "[(for_statement alternative: (else_clause body: (block) @arm)) (while_statement alternative: (else_clause body: (block) @arm))] @stmt"),
    ("arm.try", "(try_statement body: (block) @arm) @stmt"),
    ("arm.handler", "[(try_statement (except_clause (block) @arm)) (try_statement (else_clause body: (block) @arm))] @stmt"),
    ("global", "(global_statement (identifier) @name) @global"),
)
#: Arm patterns by key; "else" is a branch that makes its `if` exhaustive.
_ARM_KINDS = {
    "arm.branch": ArmKind.BRANCH, "arm.else": ArmKind.BRANCH, "arm.loop": ArmKind.LOOP,
    "arm.loop_else": ArmKind.LOOP_ELSE, "arm.try": ArmKind.TRY, "arm.handler": ArmKind.HANDLER,
}
QUERY = "\n".join(p for _, p in PATTERNS)


def skipped(reason: str) -> FileFacts:
    return FileFacts(warnings=(reason,), parsed=False)


def parse(source: bytes) -> FileFacts:
    if b"\x00" in source[:8192]:
        return skipped("binary file; not parsed")
    if len(source) > MAX_BYTES:
        return skipped(f"{len(source) // 1_000_000} MB file; over the {MAX_BYTES // 1_000_000} MB limit, not parsed")
    text, warning = encoding.to_utf8(source)
    tree = parse_tree(text)
    grouped: dict[str, list[dict[str, Any]]] = {key: [] for key, _ in PATTERNS}
    # Query matching costs each node time in proportion to its depth (8,000 nested calls:
    # a minute): matches start no deeper than a limit that keeps nodes x depth in a budget.
    depth = max(MIN_DEPTH, min(MAX_DEPTH, _DEPTH_BUDGET // max(1, tree.root_node.descendant_count)))
    for index, caps in treesitter.matches(QUERY, tree.root_node, max_start_depth=depth):
        grouped[PATTERNS[index][0]].append({name: nodes[0] for name, nodes in caps.items()})
    facts = _Extractor(grouped).facts()
    warnings: list[str] = []
    if warning:
        warnings.append(warning)
    if treesitter.deeper_than(tree.root_node, depth):
        warnings.append(f"nested more than {depth} levels deep; facts are partial")
    doubt = bool(warning or grouped["py2"]) or _bom_and_other_declaration(source) or _CONTINUED_INTO_COMMENT.search(text) is not None
    syntax = _syntax_warning(source, tree.root_node, doubt=doubt)
    if syntax:
        warnings.append(syntax)
    return dataclasses.replace(facts, warnings=tuple(warnings))


def _syntax_warning(source: bytes, root: Any, *, doubt: bool) -> str | None:
    """The warning about the syntax of the file, if any, as Python's own parser sees it.

    tree-sitter's grammar is not Python's: it fails on some valid code (a dedent inside
    brackets) and reads some invalid code (Python 2's `print x`, a file Python cannot
    decode). Where it has an error, or the file gives another doubt, `ast.parse` of the
    bytes as they are decides (only then: it would add half again to every parse).
    """
    if not root.has_error and not doubt:
        return None
    python_line = _python_error_line(source)
    if root.has_error:
        line = _first_error_line(root)
        if python_line is None:
            return f"tree-sitter could not read line {line}, which Python parses; facts are partial"
        return f"syntax error at line {line}; facts are partial"
    if python_line:
        return f"syntax error at line {python_line}"
    return None


def _python_error_line(source: bytes) -> int | None:
    """The line of Python's syntax error; None when the file parses; 0 when Python cannot tell (too deep)."""
    try:
        with warnings_module.catch_warnings():
            warnings_module.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(source)
    except SyntaxError as e:  # an undecodable file or a bad coding declaration too
        return e.lineno or 1
    except ValueError:  # a NUL byte (Python < 3.12)
        return 1
    except (RecursionError, MemoryError):
        return 0
    return None


def _bom_and_other_declaration(source: bytes) -> bool:
    """A UTF-8 byte order mark with a coding declaration: Python accepts only `utf-8` itself."""
    return source.startswith(_BOM) and encoding.declared(source[len(_BOM):]) is not None


def parse_tree(source: bytes) -> Any:
    """The tree of `source`, parsed with its comment-only lines blanked (same offsets).

    tree-sitter-python's scanner is quadratic in a run of comment lines after a statement
    (20,000 lines: 15 s), while blank lines cost nothing; a comment line and a blank line
    mean the same to Python. A line that starts with `#` inside a string (`    #12207\"\"\"`
    in a docstring) is text, not a comment: `_comment_lines` skips strings, and the tree of
    the blanked text is checked too. Up to the first wrongly blanked line both texts read
    the same, so that line lands in a string (or the text no longer parses): then the text
    is parsed as it is, which is exact. Only when that would take long (a run of over
    _LONG_RUN comment lines) are the lines found in strings given back instead, until no
    blanked line is in a string (after _MAX_ROUNDS, the text is parsed as it is). A text
    that still has an error is judged by Python's own parser (`_syntax_warning`): a
    tree-sitter error alone is never reported as a syntax error.
    """
    comments = _comment_lines(source)
    if not comments:
        return treesitter.parse(source)
    for _ in range(_MAX_ROUNDS):
        tree = treesitter.parse(_blanked(source, comments))
        root = tree.root_node
        suspect = {(start, end) for start, end in comments if _in_string(root, start, end)}
        if not suspect and not root.has_error:
            return tree
        if _longest_run(comments) < _LONG_RUN:
            break
        if not suspect:
            return tree
        comments = [c for c in comments if c not in suspect]
    return treesitter.parse(source)


def _blanked(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


def _longest_run(spans: list[tuple[int, int]]) -> int:
    """The most comment lines in a row (spans in order; a line break or CRLF between two)."""
    longest = run = 0
    previous_end = -10
    for start, end in spans:
        run = run + 1 if start - previous_end <= 2 else 1
        longest = max(longest, run)
        previous_end = end
    return longest


def comment_lines(source: bytes) -> list[tuple[int, int]]:
    """Spans of the comments that start their line, strings skipped (parse_tree blanks them)."""
    return _comment_lines(source)


def _comment_lines(source: bytes) -> list[tuple[int, int]]:
    """Spans of the comments that start their line, strings skipped."""
    if _COMMENT_LINE.search(source) is None:
        return []
    out: list[tuple[int, int]] = []
    pos = 0
    while (m := _COMMENT_OR_QUOTE.search(source, pos)) is not None:
        quote = m.group(1)
        if quote is None:
            line_start = source.rfind(b"\n", 0, m.start()) + 1
            if not source[line_start:m.start()].strip(b" \t\f"):
                out.append((line_start, m.end()))
            pos = m.end()
        elif len(quote) == 3:
            pos = _triple_end(source, m.end(), quote)
        else:
            pos = _SINGLE_QUOTED[quote].match(source, m.end()).end()  # type: ignore[union-attr]
    return out


def _triple_end(source: bytes, pos: int, quote: bytes) -> int:
    """Where a triple-quoted string that opened before `pos` ends (a backslash escapes a quote)."""
    while (end := source.find(quote, pos)) >= 0:
        first = end
        while first > pos and source[first - 1] == 0x5C:  # a backslash
            first -= 1
        if (end - first) % 2 == 0:
            return end + 3
        pos = end + 1
    return len(source)


def _in_string(root: Any, start: int, end: int) -> bool:
    node = root.named_descendant_for_byte_range(start, end)
    return node is not None and node.type in _STRING_NODES


def _first_error_line(root: Any) -> int:
    # Iterative: an error deep in a 500-level expression must not recurse.
    cursor = root.walk()
    while True:
        node = cursor.node
        if node.type == "ERROR" or node.is_missing:
            return int(node.start_point[0]) + 1
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return int(root.start_point[0]) + 1


def _text(node: Any) -> str:
    """A node's source text, its names as Python reads them: NFKC-normalised (PEP 3131), so `import café`
    written with a combining accent names the module `café` (and its file café.py in NFC), as CPython's
    parser has it. String contents are read with _literal instead."""
    text: bytes = node.text
    decoded = text.decode("utf-8", "replace")
    if text.isascii():
        return decoded
    import unicodedata  # only for a text that is not ASCII

    return unicodedata.normalize("NFKC", decoded)


def _literal(node: Any) -> str:
    """A string's content as written (Python does not normalise strings)."""
    text: bytes = node.text
    return text.decode("utf-8", "replace")


def chain(node: Any) -> str:
    """Name chain of an expression: `a.b(x).c` -> "a.b().c"; unnameable parts -> "?"."""
    # Short texts only: in a generated `a.b().b()...` every call's callee is the whole
    # prefix, so copying texts or walking whole chains would be quadratic.
    if node.end_byte - node.start_byte <= 256:
        text: bytes = node.text
        if _SIMPLE_CHAIN.fullmatch(text):
            return text.decode()
    parts: list[str] = []
    called = False
    while True:
        if len(parts) >= MAX_CHAIN:  # the root of a longer chain is not nameable
            parts.append("?")
            break
        kind = node.type
        if kind == "identifier":
            parts.append(_text(node) + ("()" if called else ""))
            break
        if kind == "attribute":
            parts.append(_text(node.child_by_field_name("attribute")) + ("()" if called else ""))
            called = False
            node = node.child_by_field_name("object")
        elif kind == "call":
            if called:  # f()() : the inner result is not nameable
                parts.append("?")
                break
            function = node.child_by_field_name("function")
            first = _first_argument(node) if function.type == "identifier" and function.text == b"super" else None
            if first is not None:
                # `super(Named, self)`: the lookup starts after Named, which the chain must keep ("super(Named)()").
                parts.append(f"super({_text(first)})()" if first.type == "identifier" else "?")
                break
            called = True
            node = function
        elif kind == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        else:
            parts.append("?")
            break
    return ".".join(reversed(parts))


def _first_argument(call: Any) -> Any:
    """The first argument node of a call, or None."""
    args = call.child_by_field_name("arguments")
    return args.named_children[0] if args is not None and args.named_child_count else None


class _Scopes:
    """Innermost enclosing definition of a byte offset (definitions nest as intervals)."""

    def __init__(self, spans: list[tuple[int, int, str]]):
        self._spans = sorted(spans)
        self._starts = [s[0] for s in self._spans]

    def at(self, offset: int) -> str:
        i = bisect.bisect_right(self._starts, offset) - 1
        # Walk back over earlier siblings until a span that contains offset.
        while i >= 0:
            start, end, name = self._spans[i]
            if start <= offset < end:
                return name
            i -= 1
        return ""


class _Extractor:
    def __init__(self, matches: dict[str, list[dict[str, Any]]]):
        self.m = matches
        self.all_names: tuple[str, ...] | None = None
        self.warnings: tuple[str, ...] = ()

    def facts(self) -> FileFacts:
        defs, body_spans = self._definitions()
        scopes = _Scopes(body_spans)
        imports = tuple(self._imports(scopes))
        local_names = {d.qualname for d in defs if "." not in d.qualname}
        local_names.update(i.bound_name for i in imports)
        value_nodes: list[Any] = []
        bindings = tuple(self._bindings(scopes, local_names, value_nodes))
        callee_spans = {(m["callee"].start_byte, m["callee"].end_byte) for m in self.m["call"]}
        calls = tuple(self._calls(scopes))
        imported_names = {i.bound_name for i in imports}
        references = tuple(self._references(scopes, local_names, imported_names, callee_spans, value_nodes))
        globals_ = tuple(Global(scopes.at(m["global"].start_byte), _text(m["name"])) for m in self.m["global"])
        return FileFacts(tuple(defs), imports, calls, references, bindings, self.all_names, self.warnings,
                         arms=self._arms(), globals=globals_)

    # -- arms of compound statements -----------------------------------------------

    def _arms(self) -> tuple[Arm, ...]:
        found: list[tuple[Any, Any, ArmKind]] = []  # (block, statement, kind)
        exhaustive: set[int] = set()
        type_checking = {m["block"].start_byte for m in self.m["tc"] if m["cond"].text in _TYPE_CHECKING}
        for key, kind in _ARM_KINDS.items():
            for m in self.m[key]:
                tc = kind is ArmKind.BRANCH and m["arm"].start_byte in type_checking
                found.append((m["arm"], m["stmt"], ArmKind.TYPE_CHECKING if tc else kind))
                if key == "arm.else":
                    exhaustive.add(m["stmt"].start_byte)
        found.sort(key=lambda f: f[0].start_byte)
        stmts: dict[int, int] = {}
        arms: list[Arm] = []
        open_: list[tuple[int, int]] = []  # (end_byte, index) of the arms around the current one
        for block, stmt, kind in found:
            while open_ and open_[-1][0] <= block.start_byte:
                open_.pop()
            sp, ep = block.start_point, block.end_point
            at = stmt.start_byte
            arms.append(Arm(sp[0] + 1, sp[1], ep[0] + 1, ep[1], open_[-1][1] if open_ else -1,
                            stmts.setdefault(at, len(stmts)), kind, at in exhaustive))
            open_.append((block.end_byte, len(arms) - 1))
        return tuple(arms)

    # -- definitions ---------------------------------------------------------------

    def _definitions(self) -> tuple[list[Definition], list[tuple[int, int, str]]]:
        decorators: dict[int, list[str]] = {}
        for m in self.m["decorator"]:
            text = " ".join(_text(m["decorator"]).split())
            decorators.setdefault(m["target"].start_byte, []).append(text[1:].strip())
        nodes = sorted((m["def"] for m in self.m["def"]), key=lambda n: n.start_byte)
        stack: list[tuple[int, str, DefKind]] = []  # (end_byte, qualname, kind) of open definitions
        defs: list[Definition] = []
        # Body spans, not whole definitions: a decorator, base class or default value
        # is evaluated in the enclosing scope, as in Python.
        spans: list[tuple[int, int, str]] = []
        for node in nodes:
            while stack and stack[-1][0] <= node.start_byte:
                stack.pop()
            name_node = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name_node is None or body is None:
                continue
            name = _text(name_node)
            is_class = node.type == "class_definition"
            parent = stack[-1] if stack else None
            if parent is None:
                qualname = name
            elif parent[2] is DefKind.CLASS:
                qualname = f"{parent[1]}.{name}"
            else:
                qualname = f"{parent[1]}.<locals>.{name}"
            if is_class:
                kind = DefKind.CLASS
            elif parent is not None and parent[2] is DefKind.CLASS:
                kind = DefKind.METHOD
            else:
                kind = DefKind.FUNCTION
            # Up to the colon: comments between it and the body (`def f():  # why`) are not the signature.
            colon = next((c for c in reversed(node.children) if c.type == ":"), body)
            header = node.text[: colon.start_byte - node.start_byte].decode("utf-8", "replace")
            bases: tuple[str, ...] = ()
            returns = None
            if is_class:
                sup = node.child_by_field_name("superclasses")
                if sup is not None:
                    bases = tuple(chain(b) for b in sup.named_children if b.type in ("identifier", "attribute"))
            else:
                ret = node.child_by_field_name("return_type")
                if ret is not None:
                    returns = _text(ret)
            defs.append(
                Definition(
                    qualname=qualname,
                    kind=kind,
                    line=node.start_point[0] + 1,
                    end_line=node.end_point[0] + 1,
                    signature=" ".join(header.split()).rstrip(":").rstrip(),
                    decorators=tuple(decorators.get(node.start_byte, ())),
                    bases=bases,
                    returns=returns,
                    is_async=not is_class and node.children[0].type == "async",
                    col=node.start_point[1],
                )
            )
            stack.append((node.end_byte, qualname, kind))
            spans.append((body.start_byte, node.end_byte, qualname))
        return defs, spans

    # -- imports -------------------------------------------------------------------

    def _imports(self, scopes: _Scopes) -> Iterable[Import]:
        tc_ranges = [(m["block"].start_byte, m["block"].end_byte) for m in self.m["tc"] if m["cond"].text in _TYPE_CHECKING]
        for m in self.m["import"]:
            node = m["import"]
            line, end_line, col = node.start_point[0] + 1, node.end_point[0] + 1, node.start_point[1]
            scope = scopes.at(node.start_byte)
            tc = any(s <= node.start_byte < e for s, e in tc_ranges)
            if node.type == "import_statement":
                for item in node.children_by_field_name("name"):
                    module, alias = _dotted_and_alias(item)
                    yield Import(module, 0, None, alias, line, end_line, scope, tc, col)
                continue
            mod_node = node.child_by_field_name("module_name")
            if mod_node is None:
                continue
            level = 0
            module = ""
            if mod_node.type == "relative_import":
                for part in mod_node.named_children:
                    if part.type == "import_prefix":
                        level = part.text.count(b".")
                    else:
                        module = _text(part)
            else:
                module = _text(mod_node)
            module = "".join(module.split())
            if any(ch.type == "wildcard_import" for ch in node.named_children):
                yield Import(module, level, "*", None, line, end_line, scope, tc, col)
                continue
            for item in node.children_by_field_name("name"):
                name, alias = _dotted_and_alias(item)
                yield Import(module, level, name, alias, line, end_line, scope, tc, col)

    # -- calls ---------------------------------------------------------------------

    def _calls(self, scopes: _Scopes) -> Iterable[CallSite]:
        # Keyword names, splats and comments come from their own patterns, keyed by the
        # argument list's offset: cheaper than visiting every argument from Python.
        keywords_at: dict[int, list[str]] = {}
        for m in self.m["kw"]:
            keywords_at.setdefault(m["args"].start_byte, []).append(_text(m["kw"]))
        splats_at: dict[int, list[str]] = {}
        for m in self.m["splat"]:
            splats_at.setdefault(m["args"].start_byte, []).append(m["splat"].type)
        comments_at: dict[int, int] = {}
        for m in self.m["comment"]:
            comments_at[m["args"].start_byte] = comments_at.get(m["args"].start_byte, 0) + 1
        for m in self.m["call"]:
            node, args = m["call"], m["args"]
            if args.type == "argument_list":
                at = args.start_byte
                keywords = keywords_at.get(at, [])
                splats = splats_at.get(at, ())
                star = "list_splat" in splats
                starstar = "dictionary_splat" in splats
                n_pos = args.named_child_count - len(keywords) - len(splats) - comments_at.get(at, 0)
            else:  # f(x for x in y)
                n_pos, keywords, star, starstar = 1, [], False, False
            sp, ep = node.start_point, node.end_point
            yield CallSite(
                chain(m["callee"]), scopes.at(node.start_byte), sp[0] + 1, sp[1], ep[0] + 1, ep[1],
                n_pos, tuple(keywords), star, starstar,
            )

    # -- references ----------------------------------------------------------------

    def _references(
        self,
        scopes: _Scopes,
        local_names: set[str],
        imported_names: set[str],
        callee_spans: set[tuple[int, int]],
        value_nodes: list[Any],
    ) -> Iterable[Reference]:
        # Only uses rooted in a name this file imports or defines at module level:
        # local variables passed around are not edges of the graph.
        seen = set(callee_spans)

        def ref(node: Any, kind: RefKind) -> Reference | None:
            span = (node.start_byte, node.end_byte)
            if span in seen:
                return None
            seen.add(span)
            target = chain(node)
            if target.split(".", 1)[0] not in local_names:
                return None
            sp, ep = node.start_point, node.end_point
            return Reference(target, kind, scopes.at(node.start_byte), sp[0] + 1, sp[1], ep[0] + 1, ep[1])

        # Most specific kind first: a base class is also inside an argument list.
        for key, kind in (("ref.decorator", RefKind.DECORATOR), ("ref.base", RefKind.BASE), ("ref.value", RefKind.VALUE)):
            for m in self.m[key]:
                r = ref(m["ref"], RefKind.ANNOTATION if kind is RefKind.VALUE and _type_argument(m["ref"]) else kind)
                if r:
                    yield r
        for node in value_nodes:
            r = ref(node, RefKind.VALUE)
            if r:
                yield r
        # `mod.attr` read without a call, on a name this file imports.
        imported = {name.encode() for name in imported_names}
        for m in self.m["attr"]:
            root: bytes = m["root"].text
            if root in imported or (not root.isascii() and _text(m["root"]) in imported_names):
                r = ref(m["ref"], RefKind.ANNOTATION if _in_annotation(m["ref"]) else RefKind.ATTRIBUTE)
                if r:
                    yield r

    # -- bindings: what receivers can be typed from --------------------------------

    def _bindings(self, scopes: _Scopes, local_names: set[str], value_nodes: list[Any]) -> Iterable[Binding]:
        for m in self.m["assign"]:
            node = m["assign"]
            left = node.child_by_field_name("left")
            sp, ep = node.start_point, node.end_point
            where = (sp[0] + 1, sp[1], ep[0] + 1, ep[1])
            if left.type in ("pattern_list", "tuple_pattern", "list_pattern"):
                scope = scopes.at(node.start_byte)
                for item in left.named_children:
                    if item.type == "identifier":
                        yield Binding(scope, _text(item), BindKind.VALUE, "", *where)
                continue
            if left.type not in ("identifier", "attribute"):
                continue
            target = chain(left)
            if "?" in target or "()" in target:
                continue
            if left.type == "attribute" and not target.startswith(("self.", "cls.")):
                continue
            right = node.child_by_field_name("right")
            while right is not None and right.type == "assignment":  # x = y = Client(): x gets the value too
                right = right.child_by_field_name("right")
            ann = node.child_by_field_name("type")
            scope = scopes.at(node.start_byte)
            if target == "__all__" and scope == "" and right is not None:
                self.all_names = _string_list(right, None)
            if ann is not None:
                yield Binding(scope, target, BindKind.ANNOTATION, _text(ann), *where)
            if right is None:
                continue
            # `x = A if c else B`: each value is an alternative, bound at the same place.
            for value in _alternatives(right):
                b = self._value_binding(scope, target, value, local_names, value_nodes, where, annotated=ann is not None)
                if b is not None:
                    yield b
        for m in self.m["augassign"]:
            if m["left"].text == b"__all__" and scopes.at(m["left"].start_byte) == "":
                extra = _string_list(m["right"], None)
                # Extended by something computed: the list is no longer known (as for `= [...] + x`).
                self.all_names = (self.all_names or ()) + extra if extra is not None else None
        for m in self.m["with"]:
            target = m["target"]
            sp, ep = m["callee"].start_point, target.end_point
            yield Binding(scopes.at(target.start_byte), _text(target), BindKind.WITH, chain(m["callee"]), sp[0] + 1,
                          sp[1], ep[0] + 1, ep[1])
        for m in self.m["param"]:
            # A parameter belongs to its function's body scope, not the enclosing one.
            name = m["name"]
            sp, ep = name.start_point, name.end_point
            yield Binding(scopes.at(m["body"].start_byte), _text(name), BindKind.ANNOTATION, _text(m["type"]), sp[0] + 1,
                          sp[1], ep[0] + 1, ep[1])

    def _value_binding(
        self, scope: str, target: str, right: Any, local_names: set[str], value_nodes: list[Any],
        where: tuple[int, int, int, int], *, annotated: bool,
    ) -> Binding | None:
        """What `target = right` binds, when the value is one we can follow (a call, a name)."""
        if right.type == "call":
            callee = chain(right.child_by_field_name("function"))
            args = right.child_by_field_name("arguments")
            if callee in _PARTIAL and args is not None and args.named_child_count:
                first = args.named_children[0]
                if first.type in ("identifier", "attribute"):
                    return Binding(scope, target, BindKind.PARTIAL, chain(first), *where)
            return Binding(scope, target, BindKind.CALL, callee, *where)
        if right.type in ("identifier", "attribute"):
            value = chain(right)
            value_nodes.append(right)
            if value.split(".", 1)[0] in local_names:
                return Binding(scope, target, BindKind.ALIAS, value, *where)
            # An instance attribute keeps the chain it is set to (`self.get_attr = directive.get_attr`): a call
            # through it runs that value, not a method of the name (check/shadow follows it; resolution does not).
            return Binding(scope, target, BindKind.VALUE, value if target.startswith("self.") else "", *where)
        return None if annotated else Binding(scope, target, BindKind.VALUE, "", *where)


#: Where an annotation ends: past these, a name is an expression's, not a type's.
_NOT_TYPE = frozenset({"call", "lambda", "block", "module", "expression_statement", "argument_list", "default_parameter",
                       "typed_default_parameter", "assignment", "function_definition", "class_definition"})


def _in_annotation(node: Any) -> bool:
    """Is `node` part of a type annotation (a `type` node: `x: T`, `def f(x: T) -> T`, `list[T]` inside one)?"""
    parent = node.parent
    while parent is not None and parent.type not in _NOT_TYPE:
        if parent.type == "type":
            return True
        parent = parent.parent
    return False


#: Calls whose argument at this position is a type, checked or named, never called.
_TYPE_ARGUMENT = {b"isinstance": 1, b"issubclass": 1, b"cast": 0, b"typing.cast": 0}


def _type_argument(node: Any) -> bool:
    """Is `node` the type argument of `isinstance(x, T)`, `issubclass(c, T)` or `cast(T, x)`?"""
    args = node.parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    if call is None or call.type != "call":
        return False
    function = call.child_by_field_name("function")
    at = _TYPE_ARGUMENT.get(function.text if function is not None else b"")
    positional = [a for a in args.named_children if a.type not in ("comment", "keyword_argument")]
    return at is not None and at < len(positional) and positional[at].id == node.id


def _alternatives(node: Any) -> list[Any]:
    """The values an expression can have: both sides of `a if c else b` (nested ones too), else itself."""
    out: list[Any] = []
    stack = [node]
    while stack and len(out) < 16:
        n = stack.pop()
        while n.type == "parenthesized_expression" and n.named_child_count == 1:
            n = n.named_children[0]
        if n.type == "conditional_expression" and n.named_child_count == 3:
            stack += [n.named_children[2], n.named_children[0]]  # popped in source order
        else:
            out.append(n)
    return out


def _dotted_and_alias(item: Any) -> tuple[str, str | None]:
    if item.type == "aliased_import":
        return "".join(_text(item.child_by_field_name("name")).split()), _text(item.child_by_field_name("alias"))
    return "".join(_text(item).split()), None


def _string_list(node: Any, previous: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """`__all__ = [...]` of string literals; `previous` when it is computed."""
    if node.type not in ("list", "tuple"):
        return previous
    names: list[str] = []
    for item in node.named_children:
        if item.type != "string":
            return previous
        content = [c for c in item.named_children if c.type == "string_content"]
        if len(content) > 1:
            return previous
        names.append(_literal(content[0]) if content else "")
    return tuple(names)


# --- an edit of comment lines only ---------------------------------------------------------


class CommentEdit(NamedTuple):
    """Lines `first`..`last` of the old version (1-based; none when last < first: an insertion before
    `first`), each a comment or blank, were replaced by such lines, `delta` more of them; every other
    line is as it was."""

    first: int
    last: int
    delta: int


def comment_edit(old: bytes, new: bytes) -> CommentEdit | None:
    """How `new` differs from `old`, when only in whole lines that are comments or blank on both sides
    (strings skipped, as parse_tree blanks them): then both parse alike, line for line. None otherwise,
    or when the bytes around could make such lines mean more (a coding declaration, a backslash, a triple
    quote that would close a string the scanner missed)."""
    if old == new or len(new) > MAX_BYTES or encoding.declared(old) != encoding.declared(new):
        return None
    start, old_end, new_end = _changed_lines(old, new)
    was, now = old[start:old_end], new[start:new_end]
    if not _comment_or_blank(was) or not _comment_or_blank(now):
        return None
    if any(b"\\" in side or b'"""' in side or b"'''" in side for side in (was, now)) or old[:start].endswith((b"\\\n", b"\\\r\n")) or (not now.isascii() and not _utf8_as_declared(new, now)):
        return None
    if not (_really_comments(old, start, old_end) and _really_comments(new, start, new_end)):
        return None
    first = old.count(b"\n", 0, start) + 1
    return CommentEdit(first, first + was.count(b"\n") - 1, now.count(b"\n") - was.count(b"\n"))


def _changed_lines(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old end, new end): the smallest run of whole lines outside which both are alike."""
    short = min(len(old), len(new))
    same = _longest(lambda k: old[:k] == new[:k], short)
    start = old.rfind(b"\n", 0, same) + 1
    tail = _longest(lambda k: old[len(old) - k:] == new[len(new) - k:], short - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    if old_end > start and old[old_end - 1] != 0x0A or new_end > start and new[new_end - 1] != 0x0A:
        line_end = old.find(b"\n", old_end)  # the rest of the line, alike on both sides
        step = len(old) - old_end if line_end < 0 else line_end + 1 - old_end
        old_end, new_end = old_end + step, new_end + step
    return start, old_end, new_end


def _longest(alike: Any, most: int) -> int:
    """The largest k <= most with alike(k) (alike holds for 0 and is monotone): a bisection of C compares."""
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if alike(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _comment_or_blank(lines: bytes) -> bool:
    """Whole lines (each ends with a line break), each a comment or blank."""
    if lines and not lines.endswith(b"\n") or b"\0" in lines or lines.count(b"\r") != lines.count(b"\r\n"):
        return False
    return all(not (s := line.strip(b" \t\f\r")) or s.startswith(b"#") for line in lines.split(b"\n")[:-1])


def _really_comments(source: bytes, start: int, end: int) -> bool:
    """Every non-blank line of source[start:end] is a comment that parse_tree blanks (not text in a string)."""
    wanted = {start + i for i, line in _line_starts(source[start:end]) if line.strip(b" \t\f\r")}
    if not wanted:
        return True
    return wanted <= {s for s, _ in _comment_lines(source)}


def _line_starts(lines: bytes) -> Iterable[tuple[int, bytes]]:
    at = 0
    for line in lines.split(b"\n")[:-1]:
        yield at, line
        at += len(line) + 1


def _utf8_as_declared(source: bytes, part: bytes) -> bool:
    """Non-ASCII bytes of `part` read as the file reads them: UTF-8, declared so or by default."""
    name = encoding.declared(source)
    if name is not None and name.lower().replace("_", "-") not in ("utf-8", "utf8", "utf-8-sig"):
        return False
    try:
        part.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
