"""The callable interface of one Python module: the signature model. Pure: source in, records out.

The interface is what another module can call: module functions, classes (called
through their constructor), methods, and the methods of nested classes. Functions
nested in functions are not reachable from outside, so their bodies are never
entered. Expression texts (annotations, decorators, defaults) are kept in one
canonical spelling (`ast.unparse`), so reformatting a file is not an interface change.
The source is data: it is parsed, never imported or run.

A reader (graphguard.languages.python.sigread) turns source into neutral records; the rules here
(constructors, dataclass fields, overloads) turn them into signatures. CPython's `ast`
reads; LibCST only what `ast` cannot (syntax newer than the running interpreter), and is
imported only then. `extract` reads a whole module; `extract_spans` only the
definitions asked for (and what their signatures depend on in the file), from their
source spans, as tree-sitter's facts give them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from graphguard.languages.limits import MAX_BYTES, deeper_than
from graphguard.languages.python import encoding
from graphguard.languages.python.fields import _all_names, _fields, _kw_only_last, _merge, _style
from graphguard.languages.python.sigread import ast_reader
from graphguard.languages.python.sigread.records import (
    ATTRS,
    DATACLASS,
    Class,
    Definition,
    Function,
    Module,
    NotRead,
    Param,
    ParamKind,
    SignatureParseError,
    TooDeep,
)
from graphguard.model import DefKind

__all__ = ["CHANGES_CALLS", "SUPPLIES_FIRST", "ModuleSignatures", "Param", "ParamKind", "Signature", "SignatureParseError",
           "extract"]

#: CPython's tokenizer refuses more nested brackets than this (MAXLEVEL); LibCST's native
#: parser has no such limit and overflows its stack (a segfault, not an exception) at ~1,500.
MAX_NESTING = 200
#: Syntax trees deeper than this (tree-sitter's levels) end in a RecursionError in LibCST
#: (measured: ~400 levels, whatever the shape), after a time that grows with the cube of the depth.
MAX_TREE_DEPTH = 512
#: LibCST's parsing and visiting run on a thread with this stack (reserved, not committed), so that
#: long operator, `elif` and attribute chains raise instead of overflowing the C stack.
_PARSER_STACK = 256 * 1024 * 1024


@dataclass(frozen=True)
class Signature:
    qualname: str  # module-relative: "total", "Cart.checkout", "Outer.Inner.m"
    kind: DefKind
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", DefKind(self.kind))  # built with the wire string (a test): the enum all the same

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]

    @property
    def is_staticmethod(self) -> bool:
        return self.kind is DefKind.METHOD and "staticmethod" in self._decorator_names

    @property
    def is_classmethod(self) -> bool:
        return self.kind is DefKind.METHOD and "classmethod" in self._decorator_names

    @property
    def is_property(self) -> bool:
        return self.kind is DefKind.METHOD and not _PROPERTY.isdisjoint(self._decorator_names)

    @property
    def _decorator_names(self) -> set[str]:
        return {d.partition("(")[0].rpartition(".")[2] for d in self.decorators}


@dataclass(frozen=True)
class ModuleSignatures:
    defs: Mapping[str, Signature]  # qualname -> signature, in source order
    all_names: tuple[str, ...] | None  # a literal `__all__`, else None


_PROPERTY = frozenset({"property", "cached_property", "abstractproperty"})
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
    text = _text(source)
    builder = _Builder()
    module = read(text)
    builder.block(module.definitions)
    return ModuleSignatures(defs=builder.in_source_order(), all_names=_all_names(module.all_ops))


def read(text: str, *, reader: Callable[[str], Module] | None = None) -> Module:
    """The neutral records of a module's text: `ast` reads it, or LibCST when `ast` cannot
    (newer syntax than this Python's; LibCST also words the syntax error). Raises SignatureParseError.

    `reader` forces one reader (the differential tests compare them)."""
    try:
        if reader is not None:
            return reader(text)
        try:
            return ast_reader.read(text)
        except NotRead:
            return cst_read(text)
    except TooDeep:
        raise SignatureParseError("too deeply nested to parse") from None


def cst_read(text: str) -> Module:
    """LibCST's reading (imported here, on first use), after the limits that keep it from crashing or taking minutes."""
    if _bracket_depth(text) > MAX_NESTING or _deeper_than(text, MAX_TREE_DEPTH):
        raise TooDeep
    from graphguard.languages.python.sigread import cst_reader

    return _on_large_stack(cst_reader.read, text)


def _text(source: bytes | str) -> str:
    if len(source) > MAX_BYTES:  # LibCST takes minutes and gigabytes on a 5 MB file
        raise SignatureParseError(f"{len(source) // 1_000_000} MB file; over the {MAX_BYTES // 1_000_000} MB limit")
    if isinstance(source, bytes):
        # Decoded here, as the tree-sitter side does: a parser would look up whatever codec the
        # file declares (rot13, bz2, 'undefined') and raise from inside the codec machinery.
        source = encoding.to_text(source)[0]
    return source


def _deeper_than(source: str, depth: int) -> bool:
    """Is the syntax tree deeper than `depth`? tree-sitter answers in milliseconds.

    Nesting without brackets (`a.b().b()...`, `a + b + ...`) escapes `_bracket_depth`, and
    LibCST's time grows faster than the square of it: 500 links of a call chain take 2 s
    and 4,000 take six minutes, only to end in a RecursionError.
    """
    from graphguard.languages.python import parse as python

    return deeper_than(python.parse_tree(source.encode("utf-8", "replace")).root_node, depth)


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


def _on_large_stack(function: Callable[[str], _T], source: str) -> _T:
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


# -- the model: neutral records -> signatures ------------------------------------------------


@dataclass(frozen=True)
class _ClassInfo:
    params: tuple[Param, ...]
    known: bool
    fields: tuple[Param, ...] | None  # dataclass-like: the generated __init__'s fields, for subclasses
    no_constructor: bool  # defines none and inherits none: object's (or, for a subclass, the next base's)


class _Builder:
    """Signatures from a reader's records, as Python builds the module top to bottom."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # enclosing classes only: function bodies are never entered
        self.defs: dict[str, Signature] = {}
        self.classes: dict[str, _ClassInfo] = {}

    def in_source_order(self) -> dict[str, Signature]:
        # Classes are recorded when they close, after their methods: restore source order.
        return dict(sorted(self.defs.items(), key=lambda item: item[1].line))

    def block(self, definitions: Iterable[Definition]) -> None:
        for d in definitions:
            if isinstance(d, Function):
                self.function(d)
            else:
                self.klass(d)

    def function(self, f: Function) -> None:
        names = [d.partition("(")[0] for d in f.decorators]
        # Overload stubs are not callable; the implementation that follows is the interface.
        # A property's setter/deleter shares the getter's name and adds no call shape.
        if any(n.rpartition(".")[2] == "overload" or n.endswith((".setter", ".deleter")) for n in names):
            return
        qualname = ".".join((*self.stack, f.name))
        kind = DefKind.METHOD if self.stack else DefKind.FUNCTION
        params = f.params
        text = _render(kind, f.name, params, f.returns, f.is_async)
        last_names = {n.rpartition(".")[2] for n in names}
        opaque = bool(last_names & CHANGES_CALLS)
        if kind is DefKind.FUNCTION and last_names & SUPPLIES_FIRST:
            params = params[1:]
        self.defs[qualname] = Signature(qualname, kind, params, f.returns, f.is_async, f.decorators, f.line, text, opaque)

    def klass(self, c: Class) -> None:
        self.stack.append(c.name)
        qualname = ".".join(self.stack)
        prefix = qualname + "."
        for stale in [q for q in self.defs if q.startswith(prefix)]:  # a redefined class starts afresh
            del self.defs[stale]
        self.block(c.body)
        self.stack.pop()
        info = self.constructor(c, qualname)
        self.classes[qualname] = info
        text = _render(DefKind.CLASS, c.name, info.params, None, False, known=info.known)
        self.defs[qualname] = Signature(qualname, DefKind.CLASS, info.params, None, False, tuple(d.code for d in c.decorators),
                                        c.line, text, constructor_known=info.known)

    def constructor(self, c: Class, qualname: str) -> _ClassInfo:
        # In the order Python builds the class: an __init__ written in the body (dataclass and
        # attrs.define keep it), an __init__ generated from fields, __new__, then the bases.
        init = self.defs.get(f"{qualname}.__init__")
        if init is not None and not init.is_staticmethod:
            return _ClassInfo(_without_first(init.params), True, None, False)
        style = _style(c)
        if style is not None and style.init:
            inherited: list[Param] = []
            for base in reversed(c.bases):  # base classes' fields come first
                found = self.classes.get(self.scoped_class(base)) if base else None
                inherited = _merge(inherited, found.fields if found and found.fields else ())
            fields = _merge(inherited, _fields(c, style))
            return _ClassInfo(_kw_only_last(fields), True, tuple(fields), False)
        new = self.defs.get(f"{qualname}.__new__")
        if new is not None:
            return _ClassInfo(_without_first(new.params), True, None, False)
        # Nothing written here says what the constructor is. A metaclass, a class decorator we do
        # not know (it may generate __init__, as strawberry.type does) or `__init__ = f` may
        # supply one: unknown, rather than a wrong "takes no arguments".
        names = [d.name or "" for d in c.decorators]
        if (c.metaclass
                or any(n.rpartition(".")[2] not in _INERT_CLASS_DECORATORS and n not in DATACLASS | ATTRS for n in names)
                or c.assigns_constructor):
            return _ClassInfo((), False, None, False)
        for base in c.bases:  # the first base with a constructor supplies it
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


def _without_first(params: tuple[Param, ...]) -> tuple[Param, ...]:
    """Drop self/cls: Python supplies it. `def __init__(*args)` keeps its *args."""
    return params[1:] if params and params[0].kind.is_positional else params


# -- rendering -------------------------------------------------------------------------------


def _render(kind: DefKind, name: str, params: Sequence[Param], returns: str | None, is_async: bool,
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
    if kind is DefKind.CLASS:
        return f"class {name}({', '.join(parts)})" if known else f"class {name}"
    head = "async def" if is_async else "def"
    return f"{head} {name}({', '.join(parts)})" + (f" -> {returns}" if returns else "")
