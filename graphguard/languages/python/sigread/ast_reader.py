"""The fast reader: CPython's own parser (`ast`). Pure: module text in, records.Module out.

It raises records.NotRead when `ast` cannot read the text (a syntax error, or syntax newer
than the running interpreter: cst_reader then decides which), and records.TooDeep when
the code is nested beyond what CPython's parser or this reader's recursion takes.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator, Sequence
from typing import cast

from graphguard.languages.python.sigread.records import (
    ATTRS,
    DATACLASS,
    FIELD_CALLS,
    AllOp,
    Call,
    Class,
    Decorator,
    Definition,
    Field,
    Function,
    Module,
    NotRead,
    Param,
    ParamKind,
    TooDeep,
    Value,
)

_STYLE_DECORATORS = DATACLASS | ATTRS
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DEFINED = re.compile(r"(?:async\s+)?(?:def|class)\s+")  # what precedes a defined name
_TRIES: tuple[type, ...] = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)


def read(text: str) -> Module:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(text)
        return _Reader(text).module(tree)
    except (RecursionError, MemoryError):
        raise TooDeep from None
    except SyntaxError as e:
        if e.msg.startswith("too many nested parentheses"):
            raise TooDeep from None
        raise NotRead(e.msg) from None
    except ValueError as e:  # a NUL byte (Python < 3.12)
        raise NotRead(str(e)) from None


def _continues(char: str) -> bool:
    """Whether a character can stand inside an identifier: `\\w` leaves out some that can (`·`, combining marks)."""
    return ("a" + char).isidentifier()


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._lines: list[bytes] | None = None

    # Python folds identifiers to NFKC (`AĲ` is `AIJ`); the model keeps them as written, as
    # tree-sitter's facts and LibCST do. Only a text with non-ASCII characters needs looking at.

    def raw(self, name: str, line: int, col: int, end_col: int | None = None, *, after: re.Pattern[str] | None = None,
            last: bool = False) -> str:
        """The identifier `name` as written at (line, byte col) of the text: the first one there (after what `after`
        matches), or the `last` one before end_col."""
        if self.ascii:
            return name
        if self._lines is None:
            self._lines = [t.encode("utf-8", "surrogatepass") for t in _LINE_BREAK.split(self.text)]  # as Python counts lines
        segment = self._lines[line - 1][col:end_col].decode("utf-8", "replace") if line <= len(self._lines) else ""
        if last:
            segment = segment.rstrip()
            start = len(segment)
            while start and _continues(segment[start - 1]):
                start -= 1
            return segment[start:] or name
        start = 0
        if after is not None:
            m = after.match(segment)
            if m is None:
                return name
            start = m.end()
        end = start
        while end < len(segment) and _continues(segment[end]):
            end += 1
        return segment[start:end] or name

    def raw_name(self, node: ast.Name) -> str:
        return self.raw(node.id, node.lineno, node.col_offset, node.end_col_offset)

    def name(self, node: ast.expr) -> str | None:
        """A dotted name, as libcst's get_full_name_for_node gives it: `a.b`, `a.b(...)` and `a.b[...]` -> "a.b"."""
        if isinstance(node, ast.Name):
            return self.raw_name(node)
        if isinstance(node, ast.Attribute):
            attr = node.attr if self.ascii else self.raw(node.attr, node.end_lineno or node.lineno, 0, node.end_col_offset,
                                                         last=True)
            return f"{self.name(node.value)}.{attr}"
        if isinstance(node, ast.Call):
            return self.name(node.func)
        if isinstance(node, ast.Subscript):
            return self.name(node.value)
        return None

    def module(self, tree: ast.Module) -> Module:
        return Module(tuple(self.definitions(tree.body)), tuple(_all_ops(tree.body)))

    def definitions(self, body: Sequence[ast.stmt]) -> Iterator[Definition]:
        """Functions and classes of a block, in compound statements too; function bodies are not entered."""
        for stmt in body:
            if isinstance(stmt, _FUNCTIONS):
                yield self.function(stmt)
            elif isinstance(stmt, ast.ClassDef):
                yield self.klass(stmt)
            elif isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While)):
                yield from self.definitions(stmt.body)
                yield from self.definitions(stmt.orelse)
            elif isinstance(stmt, _TRIES):
                tried = cast("ast.Try", stmt)  # a TryStar (Python 3.11) has the same fields
                yield from self.definitions(tried.body)
                for handler in tried.handlers:
                    yield from self.definitions(handler.body)
                yield from self.definitions(tried.orelse)
                yield from self.definitions(tried.finalbody)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                yield from self.definitions(stmt.body)
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    yield from self.definitions(case.body)

    def code(self, node: ast.expr) -> str:
        try:
            return ast.unparse(node)
        except (RecursionError, ValueError, MemoryError):  # as signature._canon does with such a text
            return " ".join((ast.get_source_segment(self.text, node) or "").split())

    def value(self, node: ast.expr) -> Value:
        return Value(self.code(node), self.name(node), _string(node), isinstance(node, ast.Constant) and node.value is True)

    def call(self, node: ast.Call) -> Call:
        positional = tuple(self.value(a.value if isinstance(a, ast.Starred) else a) for a in node.args)
        return Call(self.name(node.func), positional, {k.arg: self.value(k.value) for k in node.keywords if k.arg})

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Function:
        returns = self.code(node.returns) if node.returns is not None else None
        name = self.raw(node.name, node.lineno, node.col_offset, after=_DEFINED)
        return Function(name, node.lineno, self.params(node.args), returns, isinstance(node, ast.AsyncFunctionDef),
                        tuple(self.code(d) for d in node.decorator_list))

    def params(self, args: ast.arguments) -> tuple[Param, ...]:
        def one(a: ast.arg, kind: ParamKind, default: ast.expr | None) -> Param:
            annotation = self.code(a.annotation) if a.annotation is not None else None
            return Param(self.raw(a.arg, a.lineno, a.col_offset, a.end_col_offset), kind, default is not None, annotation, self.code(default) if default is not None else None)

        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += args.defaults
        n_only = len(args.posonlyargs)
        out = [one(a, ParamKind.POSITIONAL_ONLY if i < n_only else ParamKind.POSITIONAL_OR_KEYWORD, d)
               for i, (a, d) in enumerate(zip(positional, defaults, strict=True))]
        if args.vararg is not None:
            out.append(one(args.vararg, ParamKind.VAR_POSITIONAL, None))
        out += [one(a, ParamKind.KEYWORD_ONLY, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
        if args.kwarg is not None:
            out.append(one(args.kwarg, ParamKind.VAR_KEYWORD, None))
        return tuple(out)

    def klass(self, node: ast.ClassDef) -> Class:
        decorators = tuple(self.decorator(d) for d in node.decorator_list)
        bases = tuple(self.name(b) for b in node.bases if not isinstance(b, ast.Starred))
        metaclass = any(k.arg == "metaclass" for k in node.keywords)
        fields = tuple(f for s in node.body if (f := self.field(s)) is not None)
        assigns = any(isinstance(s, ast.Assign) and any(_is_name(t, "__init__", "__new__") for t in s.targets) for s in node.body)
        return Class(self.raw(node.name, node.lineno, node.col_offset, after=_DEFINED), node.lineno, decorators, bases, metaclass, fields, assigns, tuple(self.definitions(node.body)))

    def decorator(self, node: ast.expr) -> Decorator:
        name = self.name(node)
        call = self.call(node) if isinstance(node, ast.Call) and name in _STYLE_DECORATORS else None
        return Decorator(self.code(node), name, call)

    def field(self, stmt: ast.stmt) -> Field | None:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name, annotation, value = self.raw_name(stmt.target), stmt.annotation, stmt.value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, annotation, value = self.raw_name(stmt.targets[0]), None, stmt.value
        else:
            return None
        call = self.call(value) if isinstance(value, ast.Call) and self.name(value.func) in FIELD_CALLS else None
        return Field(name, self.value(annotation) if annotation is not None else None,
                     self.value(value) if value is not None else None, call)


def _string(node: ast.expr) -> str | bytes | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) else None


def _is_name(node: ast.expr, *names: str) -> bool:
    return isinstance(node, ast.Name) and node.id in names


# -- __all__ ---------------------------------------------------------------------------------


def _all_ops(body: Sequence[ast.stmt]) -> Iterator[AllOp]:
    for stmt in body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_name(stmt.targets[0], "__all__")
                or isinstance(stmt, ast.AnnAssign) and _is_name(stmt.target, "__all__")):  # __all__ = [...]
            yield AllOp(True, _literal_strings(stmt.value))
        elif isinstance(stmt, ast.AugAssign) and _is_name(stmt.target, "__all__") and isinstance(stmt.op, ast.Add):
            yield AllOp(False, _literal_strings(stmt.value))
        elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
              and _is_name(stmt.value.func.value, "__all__") and stmt.value.func.attr in ("extend", "append")):
            call = stmt.value
            given = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
            arg = given[0] if len(given) == 1 else None
            if call.func.attr == "append" and arg is not None:  # type: ignore[attr-defined]
                arg = ast.List([arg])
            yield AllOp(False, _literal_strings(arg))
        elif isinstance(stmt, ast.Assign) and any(_is_name(t, "__all__") for t in stmt.targets):
            yield AllOp(True, None)  # a = __all__ = ...: not a literal


def _literal_strings(value: ast.expr | None) -> tuple[str, ...] | None:
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    out = []
    for element in value.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            return None
        out.append(element.value)
    return tuple(out)
