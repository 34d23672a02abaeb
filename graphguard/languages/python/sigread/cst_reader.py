"""The reader for syntax newer than the running interpreter: LibCST. Pure: module text in, records.Module out.

Imported only when `ast` cannot read a text (libcst costs about 150 ms to import, and
much more than `ast` to run). Raises SignatureParseError with a one-line message.
graphguard.languages.python.signature runs it on a thread with a large stack, after its nesting limits.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider

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
    Param,
    ParamKind,
    SignatureParseError,
    TooDeep,
    Value,
)

_STYLE_DECORATORS = DATACLASS | ATTRS


def read(text: str) -> Module:
    try:
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)  # ours alone: no copy
        collector = _Collector(wrapper.module)
        wrapper.visit(collector)
    except cst.ParserSyntaxError as e:
        raise SignatureParseError(f"syntax error at line {e.raw_line}") from None
    except (SyntaxError, UnicodeError) as e:  # an undecodable file or a bad coding cookie
        raise SignatureParseError(f"cannot decode source: {str(e).splitlines()[0]}") from None
    except Exception as e:
        # LibCST recurses once per nesting level (an `elif` chain, `a + b + ...`). Past the
        # recursion limit a RecursionError surfaces, sometimes wrapped by LibCST's own
        # context managers in another exception (a KeyError from PositionProvider).
        if not _caused_by_recursion(e):
            raise
        raise TooDeep from None
    return Module(tuple(collector.stack[0]), tuple(_all_ops(wrapper.module.body)))


def _caused_by_recursion(error: BaseException | None) -> bool:
    """Is a RecursionError in the chain? It is as long as the nesting: one link per level."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, RecursionError):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _canon(text: str) -> str:
    """One spelling per expression: layout, comments and quote style are not interface."""
    try:
        return ast.unparse(ast.parse(f"(\n{text}\n)", mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # newer syntax than ours
        return " ".join(text.split())


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.stack: list[list[Definition]] = [[]]  # the definitions found in each open block: the module's, then classes'

    def code(self, node: cst.CSTNode) -> str:
        return _canon(self.module.code_for_node(node))

    def line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def value(self, node: cst.BaseExpression) -> Value:
        return Value(self.code(node), get_full_name_for_node(node), _string(node), _is_name(node, "True"))

    def call(self, node: cst.Call) -> Call:
        return Call(get_full_name_for_node(node.func), tuple(self.value(a.value) for a in node.args if not a.keyword),
                    {a.keyword.value: self.value(a.value) for a in node.args if a.keyword})

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        returns = self.code(node.returns.annotation) if node.returns else None
        decorators = tuple(self.code(d.decorator) for d in node.decorators)
        self.stack[-1].append(Function(node.name.value, self.line(node), self.params(node.params), returns,
                                       node.asynchronous is not None, decorators))
        return False  # nested functions are not interface

    def params(self, params: cst.Parameters) -> tuple[Param, ...]:
        def one(p: cst.Param, kind: ParamKind) -> Param:
            annotation = self.code(p.annotation.annotation) if p.annotation else None
            default = self.code(p.default) if p.default is not None else None
            return Param(p.name.value, kind, p.default is not None, annotation, default)

        out = [one(p, ParamKind.POSITIONAL_ONLY) for p in params.posonly_params]
        out += [one(p, ParamKind.POSITIONAL_OR_KEYWORD) for p in params.params]
        if isinstance(params.star_arg, cst.Param):  # a bare `*` (ParamStar) only starts keyword-only
            out.append(one(params.star_arg, ParamKind.VAR_POSITIONAL))
        out += [one(p, ParamKind.KEYWORD_ONLY) for p in params.kwonly_params]
        if params.star_kwarg is not None:
            out.append(one(params.star_kwarg, ParamKind.VAR_KEYWORD))
        return tuple(out)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append([])

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        node = original_node
        body = self.stack.pop()
        decorators = tuple(self.decorator(d.decorator) for d in node.decorators)
        bases = tuple(get_full_name_for_node(a.value) for a in node.bases if not a.star and not a.keyword)
        metaclass = any(k.keyword is not None and k.keyword.value == "metaclass" for k in node.keywords)
        smalls = list(_small_statements(node.body))
        fields = tuple(f for s in smalls if (f := self.field(s)) is not None)
        assigns = any(_assigns(s, "__init__", "__new__") for s in smalls)
        self.stack[-1].append(Class(node.name.value, self.line(node), decorators, bases, metaclass, fields, assigns, tuple(body)))

    def decorator(self, node: cst.BaseExpression) -> Decorator:
        name = get_full_name_for_node(node)
        call = self.call(node) if isinstance(node, cst.Call) and name in _STYLE_DECORATORS else None
        return Decorator(self.code(node), name, call)

    def field(self, small: cst.BaseSmallStatement) -> Field | None:
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            name, annotation, value = small.target.value, small.annotation.annotation, small.value
        elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name, annotation, value = small.targets[0].target.value, None, small.value
        else:
            return None
        call = self.call(value) if isinstance(value, cst.Call) and get_full_name_for_node(value.func) in FIELD_CALLS else None
        return Field(name, self.value(annotation) if annotation is not None else None,
                     self.value(value) if value is not None else None, call)


def _small_statements(body: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement]:
    """The simple statements of a block: its lines' (`class C:` + block) or its suite's (`class C: x = 1`)."""
    if isinstance(body, cst.SimpleStatementSuite):
        yield from body.body
        return
    for stmt in body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body


def _string(node: cst.BaseExpression) -> str | bytes | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, (str, bytes)) else None
    return None


# Small node tests instead of libcst.matchers: importing the matchers costs about 250 ms.


def _is_name(node: cst.CSTNode, *names: str) -> bool:
    return isinstance(node, cst.Name) and node.value in names


def _assigns(small: cst.BaseSmallStatement, *names: str) -> bool:
    """`x = ...` (also `a = x = ...`) where x is one of `names`."""
    return isinstance(small, cst.Assign) and any(_is_name(t.target, *names) for t in small.targets)


# -- __all__ ---------------------------------------------------------------------------------


def _all_ops(body: Sequence[cst.BaseStatement]) -> Iterator[AllOp]:
    for stmt in body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if (isinstance(small, cst.Assign) and len(small.targets) == 1 and _is_name(small.targets[0].target, "__all__")
                    or isinstance(small, cst.AnnAssign) and _is_name(small.target, "__all__")):  # __all__ = [...]
                yield AllOp(True, _literal_strings(small.value))
            elif isinstance(small, cst.AugAssign) and _is_name(small.target, "__all__") and isinstance(small.operator, cst.AddAssign):
                yield AllOp(False, _literal_strings(small.value))
            elif _is_all_extend(small):  # __all__.extend([...]) / __all__.append("x")
                call = small.value  # type: ignore[attr-defined]
                arg = call.args[0].value if len(call.args) == 1 else None
                if call.func.attr.value == "append" and arg is not None:
                    arg = cst.List([cst.Element(arg)])
                yield AllOp(False, _literal_strings(arg))
            elif _assigns(small, "__all__"):
                yield AllOp(True, None)  # a = __all__ = ...: not a literal


def _is_all_extend(small: cst.BaseSmallStatement) -> bool:
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return False
    func = small.value.func
    return isinstance(func, cst.Attribute) and _is_name(func.value, "__all__") and func.attr.value in ("extend", "append")


def _literal_strings(value: cst.BaseExpression | None) -> tuple[str, ...] | None:
    if not isinstance(value, (cst.List, cst.Tuple)):
        return None
    out = []
    for element in value.elements:
        text = _string(element.value) if isinstance(element, cst.Element) else None
        if not isinstance(text, str):
            return None
        out.append(text)
    return tuple(out)
