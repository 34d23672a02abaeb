"""The callable interface of one Python module, read with LibCST. Pure: source in, records out.

The interface is what another module can call: module functions, classes (called
through their constructor), methods, and the methods of nested classes. Functions
nested in functions are not reachable from outside, so their bodies are never
entered. Expression texts (annotations, decorators, defaults) are kept in one
canonical spelling (`ast.unparse`), so reformatting a file is not an interface change.
The source is data: it is parsed, never imported or run.
"""

from __future__ import annotations

import ast
import enum
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider

from graphguard.languages import MAX_BYTES, encoding

DefKind = Literal["function", "method", "class"]

#: CPython's tokenizer refuses more nested brackets than this (MAXLEVEL); LibCST's native
#: parser has no such limit and overflows its stack (a segfault, not an exception) at ~1,500.
MAX_NESTING = 200
#: Syntax trees deeper than this (tree-sitter's levels) end in a RecursionError in LibCST
#: (measured: ~400 levels, whatever the shape), after a time that grows with the cube of the depth.
MAX_TREE_DEPTH = 512
#: Parsing and visiting run on a thread with this stack (reserved, not committed), so that
#: long operator, `elif` and attribute chains raise instead of overflowing the C stack.
_PARSER_STACK = 256 * 1024 * 1024


class SignatureParseError(ValueError):
    """The source could not be read as Python; the message is one line."""


class ParamKind(enum.Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "var-positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "var-keyword"

    @property
    def is_positional(self) -> bool:
        return self in (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)

    @property
    def is_variadic(self) -> bool:
        return self in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD)


@dataclass(frozen=True)
class Param:
    name: str
    kind: ParamKind
    has_default: bool
    annotation: str | None = None
    #: The default's source text, for rendering only: a changed default value breaks no call.
    default: str | None = field(default=None, compare=False)

    @property
    def required(self) -> bool:
        return not self.has_default and not self.kind.is_variadic


@dataclass(frozen=True)
class Signature:
    qualname: str  # module-relative: "total", "Cart.checkout", "Outer.Inner.m"
    kind: str  # DefKind: "function" | "method" | "class"
    #: A class: its constructor's parameters without self. A method: as written, self/cls included.
    params: tuple[Param, ...]
    returns: str | None
    is_async: bool
    decorators: tuple[str, ...]
    line: int = field(compare=False)  # 1-based line of `def` / `class` (after the decorators)
    text: str = field(compare=False)  # "def total(items, *, tax_rate)" / "class Cart(items)"
    opaque: bool = False  # a decorator changes how it is called (CHANGES_CALLS): its calls cannot be judged
    # (a decorator that supplies the first parameter, SUPPLIES_FIRST, is left out of `params` instead)
    #: False for a class whose constructor comes from a base (or metaclass) not in this file.
    constructor_known: bool = True

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]

    @property
    def is_staticmethod(self) -> bool:
        return self.kind == "method" and "staticmethod" in self._decorator_names

    @property
    def is_classmethod(self) -> bool:
        return self.kind == "method" and "classmethod" in self._decorator_names

    @property
    def is_property(self) -> bool:
        return self.kind == "method" and not _PROPERTY.isdisjoint(self._decorator_names)

    @property
    def _decorator_names(self) -> set[str]:
        return {d.partition("(")[0].rpartition(".")[2] for d in self.decorators}


@dataclass(frozen=True)
class ModuleSignatures:
    defs: Mapping[str, Signature]  # qualname -> signature, in source order
    all_names: tuple[str, ...] | None  # a literal `__all__`, else None


_PROPERTY = frozenset({"property", "cached_property", "abstractproperty"})
_DATACLASS = frozenset({"dataclass", "dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_ATTRS = frozenset({"attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable",
                    "attrs.define", "attrs.frozen", "attrs.mutable", "define", "frozen", "mutable"})
_FIELD_CALLS = frozenset({"field", "dataclasses.field", "attr.ib", "attr.attrib", "attr.field",
                          "attrib", "attrs.field", "pydantic.Field", "Field"})
#: Function decorators known to change how callers call the function: a curried function called
#: with fewer arguments returns a partial (toolz, cytoolz, returns).
CHANGES_CALLS = frozenset({"curry"})
#: Function decorators known to supply the first parameter themselves: callers pass the rest
#: (hypothesis's `composite` passes `draw`, click's `pass_context`/`pass_obj` the context).
SUPPLIES_FIRST = frozenset({"composite", "pass_context", "pass_obj"})

#: Class decorators known to return the class with its constructor unchanged.
_INERT_CLASS_DECORATORS = frozenset({"total_ordering", "final", "unique", "runtime_checkable", "deconstructible",
                                     "dataclass_json", "register"})
#: Bases that add no constructor of their own: a class with only these takes object's.
_NO_CONSTRUCTOR = frozenset({"object", "Generic", "typing.Generic", "ABC", "abc.ABC"})


def extract(source: bytes | str) -> ModuleSignatures:
    """The interface of the module whose source is given; raises SignatureParseError."""
    if len(source) > MAX_BYTES:  # LibCST takes minutes and gigabytes on a 5 MB file
        raise SignatureParseError(f"{len(source) // 1_000_000} MB file; over the {MAX_BYTES // 1_000_000} MB limit")
    if isinstance(source, bytes):
        # Decoded here, as the tree-sitter side does: LibCST would look up whatever codec the
        # file declares (rot13, bz2, 'undefined') and raise from inside the codec machinery.
        source = encoding.to_text(source)[0]
    if _bracket_depth(source) > MAX_NESTING or _deeper_than(source, MAX_TREE_DEPTH):
        raise SignatureParseError("too deeply nested to parse")
    return _on_large_stack(_extract, source)


def _deeper_than(source: str, depth: int) -> bool:
    """Is the syntax tree deeper than `depth`? tree-sitter answers in milliseconds.

    Nesting without brackets (`a.b().b()...`, `a + b + ...`) escapes `_bracket_depth`, and
    LibCST's time grows faster than the square of it: 500 links of a call chain take 2 s
    and 4,000 take six minutes, only to end in a RecursionError.
    """
    from graphguard.languages import python, treesitter

    return treesitter.deeper_than(python.parse_tree(source.encode("utf-8", "replace")).root_node, depth)


def _extract(source: bytes | str) -> ModuleSignatures:
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)  # ours alone: no copy
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
        raise SignatureParseError("too deeply nested to parse") from None
    # Classes are recorded when they close, after their methods: restore source order.
    defs = dict(sorted(collector.defs.items(), key=lambda item: item[1].line))
    return ModuleSignatures(defs=defs, all_names=collector.all_names)


def _caused_by_recursion(error: BaseException | None) -> bool:
    """Is a RecursionError in the chain? It is as long as the nesting: one link per level."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, RecursionError):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _bracket_depth(source: bytes | str) -> int:
    """Deepest bracket nesting, strings and comments included (a cheap over-estimate)."""
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    depth = deepest = 0
    for byte in data.translate(None, _NOT_BRACKETS):
        depth = depth + 1 if byte in b"([{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}")
_STACK_LOCK = threading.Lock()
_T = TypeVar("_T")
_Code = Callable[[cst.CSTNode], str]


def _on_large_stack(function: Callable[[bytes | str], _T], source: bytes | str) -> _T:
    """Run `function(source)` on a thread of its own with a large stack; its exception is re-raised here.

    LibCST's native parser recurses on the C stack without a limit, and its Python
    visitors recurse through C calls: on the caller's thread (8 MiB, 512 KiB for
    a macOS worker thread) deep code would crash the process instead of raising.
    """
    outcome: list[_T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(function(source))
        except BaseException as e:  # noqa: BLE001 - handed to the calling thread
            failure.append(e)

    thread = threading.Thread(target=run, name="graphguard-signatures", daemon=True)
    try:
        with _STACK_LOCK:  # stack_size is process-wide: set it only around our own start()
            previous = threading.stack_size(_PARSER_STACK)
            try:
                thread.start()
            finally:
                threading.stack_size(previous)
        thread.join()
    except (RuntimeError, ValueError, MemoryError):  # no such thread allowed here: run in place
        run()
    if failure:
        raise failure[0]
    return outcome[0]


def _canon(text: str) -> str:
    """One spelling per expression: layout, comments and quote style are not interface."""
    try:
        return ast.unparse(ast.parse(f"(\n{text}\n)", mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # newer syntax than ours
        return " ".join(text.split())


@dataclass(frozen=True)
class _ClassInfo:
    params: tuple[Param, ...]
    known: bool
    fields: tuple[Param, ...] | None  # dataclass-like: the generated __init__'s fields, for subclasses
    no_constructor: bool  # defines none and inherits none: object's (or, for a subclass, the next base's)


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.stack: list[str] = []  # enclosing classes only: function bodies are never entered
        self.defs: dict[str, Signature] = {}
        self.classes: dict[str, _ClassInfo] = {}
        self.all_names: tuple[str, ...] | None = None

    def code(self, node: cst.CSTNode) -> str:
        return _canon(self.module.code_for_node(node))

    def line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    # -- module: __all__ ---------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> None:
        self.all_names = _module_all(node.body)

    # -- functions and methods ---------------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        decorators = tuple(self.code(d.decorator) for d in node.decorators)
        names = [d.partition("(")[0] for d in decorators]
        # Overload stubs are not callable; the implementation that follows is the interface.
        # A property's setter/deleter shares the getter's name and adds no call shape.
        if any(n.rpartition(".")[2] == "overload" or n.endswith((".setter", ".deleter")) for n in names):
            return False
        qualname = ".".join((*self.stack, node.name.value))
        kind: DefKind = "method" if self.stack else "function"
        params = _params(node.params, self.code)
        returns = self.code(node.returns.annotation) if node.returns else None
        is_async = node.asynchronous is not None
        text = _render(kind, node.name.value, params, returns, is_async)
        last_names = {n.rpartition(".")[2] for n in names}
        opaque = bool(last_names & CHANGES_CALLS)
        if kind == "function" and last_names & SUPPLIES_FIRST:
            params = params[1:]
        self.defs[qualname] = Signature(qualname, kind, params, returns, is_async, decorators, self.line(node), text, opaque)
        return False  # nested functions are not interface

    # -- classes and their constructors ------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)
        prefix = ".".join(self.stack) + "."
        for stale in [q for q in self.defs if q.startswith(prefix)]:  # a redefined class starts afresh
            del self.defs[stale]

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        node = original_node
        qualname = ".".join(self.stack)
        self.stack.pop()
        decorators = tuple(self.code(d.decorator) for d in node.decorators)
        info = self.constructor(node, qualname)
        self.classes[qualname] = info
        text = _render("class", node.name.value, info.params, None, False, known=info.known)
        self.defs[qualname] = Signature(qualname, "class", info.params, None, False, decorators,
                                        self.line(node), text, constructor_known=info.known)

    def constructor(self, node: cst.ClassDef, qualname: str) -> _ClassInfo:
        # In the order Python builds the class: an __init__ written in the body (dataclass and
        # attrs.define keep it), an __init__ generated from fields, __new__, then the bases.
        init = self.defs.get(f"{qualname}.__init__")
        if init is not None and not init.is_staticmethod:
            return _ClassInfo(_without_first(init.params), True, None, False)
        bases = [get_full_name_for_node(a.value) for a in node.bases if not a.star and not a.keyword]
        style = _style(node, bases)
        if style is not None and style.init:
            inherited: list[Param] = []
            for base in reversed(bases):  # base classes' fields come first
                found = self.classes.get(self.scoped_class(base)) if base else None
                inherited = _merge(inherited, found.fields if found and found.fields else ())
            fields = _merge(inherited, _fields(node, style, self.code))
            return _ClassInfo(_kw_only_last(fields), True, tuple(fields), False)
        new = self.defs.get(f"{qualname}.__new__")
        if new is not None:
            return _ClassInfo(_without_first(new.params), True, None, False)
        # Nothing written here says what the constructor is. A metaclass, a class decorator we do
        # not know (it may generate __init__, as strawberry.type does) or `__init__ = f` may
        # supply one: unknown, rather than a wrong "takes no arguments".
        names = [get_full_name_for_node(d.decorator) or "" for d in node.decorators]
        if (any(k.keyword is not None and k.keyword.value == "metaclass" for k in node.keywords)
                or any(n.rpartition(".")[2] not in _INERT_CLASS_DECORATORS and n not in _DATACLASS | _ATTRS
                       for n in names)
                or _assigns_constructor(node)):
            return _ClassInfo((), False, None, False)
        for base in bases:  # the first base with a constructor supplies it
            if base in _NO_CONSTRUCTOR:
                continue
            found = self.classes.get(self.scoped_class(base)) if base else None
            if found is None or not (found.known or found.no_constructor):
                return _ClassInfo((), False, None, False)  # defined elsewhere: impact resolves it
            if not found.no_constructor:
                return _ClassInfo(found.params, True, found.fields, False)
        return _ClassInfo((), True, None, True)  # object's: takes no arguments

    def scoped_class(self, name: str) -> str:
        """A base named in this class body: the enclosing class's namespace, then the module's."""
        scoped = ".".join((*self.stack, name))
        return scoped if scoped in self.classes else name


def _assigns_constructor(node: cst.ClassDef) -> bool:
    """`__init__ = ...` or `__new__ = ...` in the class body."""
    return any(_assigns(small, "__init__", "__new__")
               for stmt in node.body.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body)


def _params(params: cst.Parameters, code: _Code) -> tuple[Param, ...]:
    def one(p: cst.Param, kind: ParamKind) -> Param:
        annotation = code(p.annotation.annotation) if p.annotation else None
        default = code(p.default) if p.default is not None else None
        return Param(p.name.value, kind, p.default is not None, annotation, default)

    out = [one(p, ParamKind.POSITIONAL_ONLY) for p in params.posonly_params]
    out += [one(p, ParamKind.POSITIONAL_OR_KEYWORD) for p in params.params]
    if isinstance(params.star_arg, cst.Param):  # a bare `*` (ParamStar) only starts keyword-only
        out.append(one(params.star_arg, ParamKind.VAR_POSITIONAL))
    out += [one(p, ParamKind.KEYWORD_ONLY) for p in params.kwonly_params]
    if params.star_kwarg is not None:
        out.append(one(params.star_kwarg, ParamKind.VAR_KEYWORD))
    return tuple(out)


def _without_first(params: tuple[Param, ...]) -> tuple[Param, ...]:
    """Drop self/cls: Python supplies it. `def __init__(*args)` keeps its *args."""
    return params[1:] if params and params[0].kind.is_positional else params


# -- dataclass-like classes: the __init__ that the decorator or base generates ---------------

_Args = Mapping[str, cst.BaseExpression]


@dataclass(frozen=True)
class _Style:
    """How a class decorator or base generates __init__ from class-level fields."""

    kind: str  # "dataclass" | "attrs" | "attrs-ib" (classic `attr.s`: only `attr.ib()` fields) | "namedtuple"
    init: bool = True
    kw_only: bool = False


def _style(node: cst.ClassDef, bases: Sequence[str | None]) -> _Style | None:
    for d in node.decorators:
        call = d.decorator if isinstance(d.decorator, cst.Call) else None
        name = get_full_name_for_node(call.func if call else d.decorator)
        if name in _DATACLASS or name in _ATTRS:
            args = _keywords(call)
            kind = "dataclass" if name in _DATACLASS else "attrs"
            if name in ("attr.s", "attr.attrs") and not _flag(args, "auto_attribs", False):
                kind = "attrs-ib"
            return _Style(kind, _flag(args, "init", True), _flag(args, "kw_only", False))
    if any(b is not None and b.rpartition(".")[2] == "NamedTuple" for b in bases):
        return _Style("namedtuple")
    return None


def _keywords(call: cst.Call | None) -> _Args:
    return {a.keyword.value: a.value for a in call.args if a.keyword} if call else {}


def _flag(args: _Args, name: str, default: bool) -> bool:
    value = args.get(name)
    return default if value is None else _is_name(value, "True")


def _fields(node: cst.ClassDef, style: _Style, code: _Code) -> list[Param]:
    """Fields in class-body order; a `_: KW_ONLY` sentinel makes the following ones keyword-only."""
    kw_only = style.kw_only
    found: list[Param] = []
    for stmt in node.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                name, annotation, value = small.target.value, small.annotation.annotation, small.value
            elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                name, annotation, value = small.targets[0].target.value, None, small.value
            else:
                continue
            if _annotation_name(annotation) == "KW_ONLY":
                kw_only = True
            elif (param := _field(name, annotation, value, style, kw_only, code)) is not None:
                found.append(param)
    return found


def _field(name: str, annotation: cst.BaseExpression | None, value: cst.BaseExpression | None,
           style: _Style, kw_only: bool, code: _Code) -> Param | None:
    """One class-level assignment as an __init__ parameter; None when it is not a field."""
    call = value if isinstance(value, cst.Call) and get_full_name_for_node(value.func) in _FIELD_CALLS else None
    if _annotation_name(annotation) == "ClassVar" or (call is None and (annotation is None or style.kind == "attrs-ib")):
        return None  # a class attribute
    args = _keywords(call)
    if not _flag(args, "init", True):
        return None
    if call is None:
        has_default, default = value is not None, code(value) if value is not None else None
    else:  # field(default=...), field(default_factory=...), attr.ib(5), attr.ib(factory=list)
        positional = [a.value for a in call.args if not a.keyword]
        given = args["default"] if "default" in args else positional[0] if positional else None
        has_default = given is not None or not {"default_factory", "factory"}.isdisjoint(args)
        default = code(given) if given is not None else "<factory>" if has_default else None
    if style.kind.startswith("attrs"):  # attrs drops leading underscores, or takes alias=
        alias = args.get("alias")
        name = str(alias.evaluated_value) if isinstance(alias, cst.SimpleString) else name.lstrip("_")
    kind = ParamKind.KEYWORD_ONLY if kw_only or _flag(args, "kw_only", False) else ParamKind.POSITIONAL_OR_KEYWORD
    return Param(name, kind, has_default, code(annotation) if annotation is not None else None, default)


def _annotation_name(annotation: cst.BaseExpression | None) -> str | None:
    """`ClassVar[int]`, `typing.ClassVar`, `"ClassVar[int]"` -> "ClassVar"."""
    if annotation is None:
        return None
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value
        if not isinstance(text, str):  # a bytes literal (`x: b"int"`) names no type
            return None
        return text.partition("[")[0].rpartition(".")[2].strip() or None
    name = get_full_name_for_node(annotation)
    return name.rpartition(".")[2] if name else None


def _merge(base: Sequence[Param], own: Sequence[Param]) -> list[Param]:
    """A field redefined in a subclass keeps its place and takes the new definition."""
    out = list(base)
    for p in own:
        index = next((i for i, q in enumerate(out) if q.name == p.name), None)
        if index is None:
            out.append(p)
        else:
            out[index] = p
    return out


def _kw_only_last(fields: Sequence[Param]) -> tuple[Param, ...]:
    """The generated __init__ puts keyword-only fields after all the others."""
    return tuple(sorted(fields, key=lambda p: p.kind is ParamKind.KEYWORD_ONLY))


# -- __all__ ---------------------------------------------------------------------------------


def _module_all(body: Sequence[cst.BaseStatement]) -> tuple[str, ...] | None:
    """`__all__` when every module-level statement that builds it is a literal, else None."""
    names: list[str] | None = None  # None: not assigned yet, or not readable
    assigned = False
    for stmt in body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if (isinstance(small, cst.Assign) and len(small.targets) == 1 and _is_name(small.targets[0].target, "__all__")
                    or isinstance(small, cst.AnnAssign) and _is_name(small.target, "__all__")):  # __all__ = [...]
                names, assigned = _literal_strings(small.value), True
            elif isinstance(small, cst.AugAssign) and _is_name(small.target, "__all__") and isinstance(small.operator, cst.AddAssign):
                extra = _literal_strings(small.value)
                names = None if names is None or extra is None else names + extra
            elif _is_all_extend(small):  # __all__.extend([...]) / __all__.append("x")
                call = small.value  # type: ignore[attr-defined]
                arg = call.args[0].value if len(call.args) == 1 else None
                if call.func.attr.value == "append" and arg is not None:
                    arg = cst.List([cst.Element(arg)])
                extra = _literal_strings(arg)
                names = None if names is None or extra is None else names + extra
            elif _assigns(small, "__all__"):
                names, assigned = None, True  # a, __all__ = ...: not a literal
    return tuple(names) if assigned and names is not None else None


# Small node tests instead of libcst.matchers: importing the matchers costs about 250 ms,
# most of a hook's budget, for five patterns.


def _is_name(node: cst.CSTNode, *names: str) -> bool:
    return isinstance(node, cst.Name) and node.value in names


def _assigns(small: cst.BaseSmallStatement, *names: str) -> bool:
    """`x = ...` (also `a = x = ...`) where x is one of `names`."""
    return isinstance(small, cst.Assign) and any(_is_name(t.target, *names) for t in small.targets)


def _is_all_extend(small: cst.BaseSmallStatement) -> bool:
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return False
    func = small.value.func
    return isinstance(func, cst.Attribute) and _is_name(func.value, "__all__") and func.attr.value in ("extend", "append")


def _literal_strings(value: cst.BaseExpression | None) -> list[str] | None:
    if not isinstance(value, (cst.List, cst.Tuple)):
        return None
    out = []
    for element in value.elements:
        text = element.value.evaluated_value if isinstance(element, cst.Element) and isinstance(
            element.value, (cst.SimpleString, cst.ConcatenatedString)) else None
        if not isinstance(text, str):
            return None
        out.append(text)
    return out


# -- rendering -------------------------------------------------------------------------------


def _render(kind: str, name: str, params: Sequence[Param], returns: str | None, is_async: bool,
            *, known: bool = True) -> str:
    parts: list[str] = []
    for i, p in enumerate(params):
        if p.kind is ParamKind.KEYWORD_ONLY and (i == 0 or params[i - 1].kind not in (
                ParamKind.KEYWORD_ONLY, ParamKind.VAR_POSITIONAL)):
            parts.append("*")
        star = {ParamKind.VAR_POSITIONAL: "*", ParamKind.VAR_KEYWORD: "**"}.get(p.kind, "")
        text = f"{star}{p.name}: {p.annotation}" if p.annotation else f"{star}{p.name}"
        if p.has_default:
            text += f" = {p.default or '...'}" if p.annotation else f"={p.default or '...'}"
        parts.append(text)
        if p.kind is ParamKind.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.kind):
            parts.append("/")
    if kind == "class":
        return f"class {name}({', '.join(parts)})" if known else f"class {name}"
    head = "async def" if is_async else "def"
    return f"{head} {name}({', '.join(parts)})" + (f" -> {returns}" if returns else "")
