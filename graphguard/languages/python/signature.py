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
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from graphguard.languages import MAX_BYTES
from graphguard.languages.python import encoding
from graphguard.languages.python.sigread import ast_reader
from graphguard.languages.python.sigread.records import (
    ATTRS,
    DATACLASS,
    FIELD_CALLS,
    AllOp,
    Call,
    Class,
    Definition,
    Function,
    Module,
    NotRead,
    Param,
    ParamKind,
    SignatureParseError,
    TooDeep,
    Value,
)
from graphguard.model import DefKind as ModelDefKind

if TYPE_CHECKING:
    from graphguard.model import Definition as FactsDefinition
    from graphguard.model import FileFacts

__all__ = ["CHANGES_CALLS", "SUPPLIES_FIRST", "ModuleSignatures", "Param", "ParamKind", "Signature", "SignatureParseError",
           "dependents", "extract", "extract_spans"]

DefKind = Literal["function", "method", "class"]

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
    from graphguard.languages.python import treesitter

    return treesitter.deeper_than(python.parse_tree(source.encode("utf-8", "replace")).root_node, depth)


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
        kind: DefKind = "method" if self.stack else "function"
        params = f.params
        text = _render(kind, f.name, params, f.returns, f.is_async)
        last_names = {n.rpartition(".")[2] for n in names}
        opaque = bool(last_names & CHANGES_CALLS)
        if kind == "function" and last_names & SUPPLIES_FIRST:
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
        text = _render("class", c.name, info.params, None, False, known=info.known)
        self.defs[qualname] = Signature(qualname, "class", info.params, None, False, tuple(d.code for d in c.decorators),
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


# -- dataclass-like classes: the __init__ that the decorator or base generates ---------------

_Args = Mapping[str, Value]


@dataclass(frozen=True)
class _Style:
    """How a class decorator or base generates __init__ from class-level fields."""

    kind: str  # "dataclass" | "attrs" | "attrs-ib" (classic `attr.s`: only `attr.ib()` fields) | "namedtuple"
    init: bool = True
    kw_only: bool = False


def _style(c: Class) -> _Style | None:
    for d in c.decorators:
        if d.name in DATACLASS or d.name in ATTRS:
            args = _keywords(d.call)
            kind = "dataclass" if d.name in DATACLASS else "attrs"
            if d.name in ("attr.s", "attr.attrs") and not _flag(args, "auto_attribs", False):
                kind = "attrs-ib"
            return _Style(kind, _flag(args, "init", True), _flag(args, "kw_only", False))
    if any(b is not None and b.rpartition(".")[2] == "NamedTuple" for b in c.bases):
        return _Style("namedtuple")
    return None


def _keywords(call: Call | None) -> _Args:
    return call.keywords if call is not None else {}


def _flag(args: _Args, name: str, default: bool) -> bool:
    value = args.get(name)
    return default if value is None else value.is_true


def _fields(c: Class, style: _Style) -> list[Param]:
    """Fields in class-body order; a `_: KW_ONLY` sentinel makes the following ones keyword-only."""
    kw_only = style.kw_only
    found: list[Param] = []
    for stmt in c.fields:
        if _annotation_name(stmt.annotation) == "KW_ONLY":
            kw_only = True
        elif (param := _field(stmt.name, stmt.annotation, stmt.value, stmt.call, style, kw_only)) is not None:
            found.append(param)
    return found


def _field(name: str, annotation: Value | None, value: Value | None, call: Call | None, style: _Style, kw_only: bool) -> Param | None:
    """One class-level assignment as an __init__ parameter; None when it is not a field."""
    if call is not None and call.func not in FIELD_CALLS:
        call = None
    if _annotation_name(annotation) == "ClassVar" or (call is None and (annotation is None or style.kind == "attrs-ib")):
        return None  # a class attribute
    args = _keywords(call)
    if not _flag(args, "init", True):
        return None
    if call is None:
        has_default, default = value is not None, value.code if value is not None else None
    else:  # field(default=...), field(default_factory=...), attr.ib(5), attr.ib(factory=list)
        given = args["default"] if "default" in args else call.positional[0] if call.positional else None
        has_default = given is not None or not {"default_factory", "factory"}.isdisjoint(args)
        default = given.code if given is not None else "<factory>" if has_default else None
    if style.kind.startswith("attrs"):  # attrs drops leading underscores, or takes alias=
        alias = args.get("alias")
        name = str(alias.string) if alias is not None and alias.string is not None else name.lstrip("_")
    kind = ParamKind.KEYWORD_ONLY if kw_only or _flag(args, "kw_only", False) else ParamKind.POSITIONAL_OR_KEYWORD
    return Param(name, kind, has_default, annotation.code if annotation is not None else None, default)


def _annotation_name(annotation: Value | None) -> str | None:
    """`ClassVar[int]`, `typing.ClassVar`, `"ClassVar[int]"` -> "ClassVar"."""
    if annotation is None:
        return None
    if annotation.string is not None:
        text = annotation.string
        if not isinstance(text, str):  # a bytes literal (`x: b"int"`) names no type
            return None
        return text.partition("[")[0].rpartition(".")[2].strip() or None
    name = annotation.name
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


def _all_names(ops: Sequence[AllOp]) -> tuple[str, ...] | None:
    """`__all__` when every module-level statement that builds it is a literal, else None."""
    names: list[str] | None = None  # None: not assigned yet, or not readable
    assigned = False
    for op in ops:
        if op.replace:
            names, assigned = (list(op.names) if op.names is not None else None), True
        else:
            names = None if names is None or op.names is None else names + list(op.names)
    return tuple(names) if assigned and names is not None else None


# -- spans: the definitions asked for, read alone -------------------------------------------


_CONSTRUCTORS = frozenset({"__init__", "__new__"})


class _Whole(Exception):
    """A span cannot be read alone: the whole module is read instead."""


def extract_spans(source: bytes | str, facts: FileFacts, wanted: Collection[str], *,
                  reader: Callable[[str], Module] | None = None) -> ModuleSignatures:
    """The signatures of the definitions named in `wanted` (module-relative qualnames) that the module has.

    Only their source spans are parsed (tree-sitter's `facts` of the same source give them),
    with the same-file bases a class's constructor may come from; the result holds the
    wanted definitions only, and `all_names` from the facts. When a span cannot be read
    alone (facts that are partial, a class defined twice around a method, a span that
    does not parse by itself), the whole module is read. Raises SignatureParseError.
    """
    text = _text(source)
    try:
        defs = _read_spans(text, facts, wanted, reader)
    except _Whole:
        builder = _Builder()
        builder.block(read(text, reader=reader).definitions)
        defs = builder.in_source_order()
    return ModuleSignatures({q: sig for q, sig in defs.items() if q in wanted}, facts.all_names)


def _read_spans(text: str, facts: FileFacts, wanted: Collection[str], reader: Callable[[str], Module] | None) -> dict[str, Signature]:
    if not facts.parsed or facts.warnings:
        raise _Whole  # tree-sitter's facts may be partial: their spans are not to be trusted
    by_name: dict[str, list[FactsDefinition]] = {}
    for d in facts.definitions:
        if "<locals>" not in d.qualname:
            by_name.setdefault(d.qualname, []).append(d)
    methods: dict[str, list[FactsDefinition]] = {}
    for d in facts.definitions:
        if d.kind is ModelDefKind.METHOD:
            methods.setdefault(d.qualname.rpartition(".")[0], []).append(d)
    needed = _with_bases({q for q in wanted if q in by_name}, by_name)
    spans = sorted((d for q in needed for d in by_name[q]), key=lambda d: (d.line, -d.end_line))
    lines = text.split("\n")
    builder = _Builder()
    covered = 0  # last line of the span read last: a span inside it (a method of a class read whole) was read with it
    for d in spans:
        if d.end_line <= covered:
            continue
        parent = d.qualname.rpartition(".")[0]
        if parent and any(len(by_name.get(p, ())) > 1 for p in _ancestors(parent)):
            raise _Whole  # a class defined twice: which one holds the method is decided by the whole module
        # A class is read for its constructor: its other methods (unless wanted) are left out.
        skipped = [m for m in methods.get(d.qualname, ()) if d.line < m.line <= d.end_line
                   and m.qualname not in wanted and m.qualname.rpartition(".")[2] not in _CONSTRUCTORS]
        module = _read_span(lines, d, reader, skipped)
        builder.stack = parent.split(".") if parent else []
        builder.block(module.definitions)
        covered = d.end_line
    return builder.in_source_order()


def _read_span(lines: list[str], d: FactsDefinition, reader: Callable[[str], Module] | None,
               skipped: Sequence[FactsDefinition] = ()) -> Module:
    """One definition, decorators included, parsed alone; its records carry the file's line numbers."""
    cut = _span_text(lines, d, skipped)
    if cut is None:
        raise _Whole
    span, offset = cut
    try:
        module = read(span, reader=reader)
    except SignatureParseError:
        raise _Whole from None
    found = tuple(_shifted(f, offset) for f in module.definitions)
    if (len(found) != 1 or found[0].name != d.qualname.rpartition(".")[2] or found[0].line != d.line
            or len(found[0].decorators) != len(d.decorators)):
        raise _Whole
    return module._replace(definitions=found)


def _span_text(lines: Sequence[str], d: FactsDefinition, skipped: Sequence[FactsDefinition] = ()) -> tuple[str, int] | None:
    """The source of one definition (tree-sitter's), decorators included, as a module of its own, and
    how many lines of the file precede that module's first; None when its lines cannot be told.
    `lines`: the file's, split at "\n". `skipped`: methods of a class `d` left out (each becomes `pass`)."""
    first = _span_start(lines, d)
    if first is None:
        return None
    indent = lines[d.line - 1][:d.col]
    body = list(lines[first:d.end_line])
    for m in skipped:
        start = _span_start(lines, m)
        if start is None or not first < start <= m.end_line <= d.end_line:
            continue
        body[start - first:m.end_line - first] = [lines[m.line - 1][:m.col] + "pass"] + [""] * (m.end_line - start - 1)
    text = "\n".join(body)
    # A method's lines are indented: an `if 1:` block takes them as they are (strings and
    # continuation lines keep their text).
    return (text, first) if not indent else ("if 1:\n" + text, first - 1)


def _span_start(lines: Sequence[str], d: FactsDefinition) -> int | None:
    """The 0-based index of a definition's first line, its decorators'; None when it cannot be told."""
    first = d.line - 1  # the `def` / `class` line
    indent = lines[first][:d.col] if first < len(lines) else "x"
    if indent.strip():
        return None
    need = len(d.decorators)
    while need and first > 0:  # the decorator lines above, at the same indentation
        first -= 1
        if lines[first].startswith(indent) and lines[first][len(indent):].startswith("@"):
            need -= 1
    return None if need else first


def _shifted(d: Definition, offset: int) -> Definition:
    """A definition read from a span, at the file's line numbers."""
    if not offset:
        return d
    if isinstance(d, Function):
        return d._replace(line=d.line + offset)
    return d._replace(line=d.line + offset, body=tuple(_shifted(m, offset) for m in d.body))


def _ancestors(qualname: str) -> Iterable[str]:
    parts = qualname.split(".")
    return (".".join(parts[:i]) for i in range(1, len(parts) + 1))


def _with_bases(qualnames: set[str], by_name: Mapping[str, Sequence[FactsDefinition]]) -> set[str]:
    """The classes named, with the same-file classes their constructors may come from (bases, transitively)."""
    out = set(qualnames)
    todo = list(qualnames)
    while todo:
        q = todo.pop()
        parent = q.rpartition(".")[0]
        for d in by_name.get(q, ()):
            for base in d.bases:
                for candidate in (f"{parent}.{base}" if parent else base, base):
                    if candidate in by_name and candidate not in out:
                        out.add(candidate)
                        todo.append(candidate)
    return out


def dependents(facts: FileFacts, qualnames: Collection[str]) -> set[str]:
    """`qualnames`, with the definitions of the same file whose signature follows from theirs.

    A class's signature is its constructor's: it follows from its `__init__` and `__new__`,
    and a same-file subclass inherits it (and a dataclass's fields), transitively.
    """
    classes = {d.qualname: d for d in facts.definitions if d.kind is ModelDefKind.CLASS}
    out = set(qualnames)
    for q in qualnames:
        parent, _, name = q.rpartition(".")
        if name in ("__init__", "__new__") and parent in classes:
            out.add(parent)
    subclasses: dict[str, set[str]] = {}
    for q, d in classes.items():
        for base in d.bases:  # by last name: a few too many is harmless, one too few is not
            subclasses.setdefault(base.rpartition(".")[2], set()).add(q)
    todo = [q for q in out if q in classes]
    while todo:
        for sub in subclasses.get(todo.pop().rpartition(".")[2], ()):
            if sub not in out:
                out.add(sub)
                todo.append(sub)
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
