"""The callable interface of one TypeScript or JavaScript file: its definitions read into signatures. Pure:
bytes in, records out (the records are sigrecords'; the parameters are read by sigparams, the exports by sigexports).

Qualnames: `f`, `Cart` (the class, called through `new`: its constructor's parameters), `Cart.constructor`,
`Cart.total`, `default` for an anonymous default export. The source is data: it is parsed, never run.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from graphguard.languages.python.signature import ParamKind
from graphguard.languages.typescript import sigparams as read
from graphguard.languages.typescript.grammar import Dialect, parser
from graphguard.languages.typescript.sigexports import Exports
from graphguard.languages.typescript.sigrecords import EXPORT_EQUALS, Accessor, TsModuleSignatures, TsParam, TsSignature, render
from graphguard.model import DefKind

if TYPE_CHECKING:
    from tree_sitter import Node


def signatures(data: bytes, dialect: Dialect, wanted: Collection[str] | None = None) -> TsModuleSignatures:
    """The signatures of a file's functions, classes and methods (of `wanted` qualnames only, if given).

    Every definition is read (a class's signature needs its constructor and its base's), then `wanted` filters.
    Nothing is guessed where the file does not parse: a definition inside an ERROR region is not read, and one
    whose parameter list holds an error is `opaque` (its calls are unknown, its changes not compared).
    """
    tree = parser(dialect).parse(data)
    reader = _Reader(dialect)
    reader.block(tree.root_node)
    exports = dict(reader.exports)
    defs = {q: _with_export(s, q, exports, reader.hidden) for q, s in reader.finish().items()
            if wanted is None or q in wanted}
    return TsModuleSignatures(defs=defs, all_names=None, exports=exports)


def _with_export(sig: TsSignature, qualname: str, exports: Mapping[str, str], hidden: Collection[str]) -> TsSignature:
    parts = qualname.split(".")
    exported = parts[0] in exports.values() and not any(".".join(parts[:i]) in hidden for i in range(2, len(parts) + 1))
    return sig if exported == sig.exported else replace(sig, exported=exported)


# -- reading the tree ---------------------------------------------------------------------------

_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_signature"})
_METHODS = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
_FIELDS = frozenset({"public_field_definition", "field_definition"})


@dataclass
class _Candidate:
    """One written signature of a name, before overloads are grouped: the last `_Candidate`s win."""

    sig: TsSignature
    has_body: bool


@dataclass
class _ClassInfo:
    qualname: str
    line: int
    base: str | None  # `extends X` when X is a plain name; "" for any other expression
    decorators: tuple[str, ...]


class _Reader(Exports):
    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.written: dict[str, list[_Candidate]] = {}
        self.classes: list[_ClassInfo] = []
        self.exports: dict[str, str] = {}
        self.prefix = ""  # "N." inside `namespace N { ... }`
        self.hidden: set[str] = set()  # the members of a namespace it does not export

    # -- statements --

    def block(self, node: Node) -> None:
        for child in node.named_children:
            self.statement(child)

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "export_statement":
            self.export(node)
        elif kind == "ambient_declaration":  # `declare function f(...)`, `declare class C`; not `declare module "m"`
            self.block(node)
        elif kind == "internal_module":
            self.namespace(node)
        elif kind in _FUNCTIONS:
            name = read.name(node)
            if name is not None:
                self.function(self.prefix + name, node)
        elif kind in read.CLASSES:
            name = read.name(node)
            if name is not None:
                self.klass(self.prefix + name, node)
        elif kind in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                if declarator.type == "variable_declarator":
                    self.declarator(declarator)
        elif kind == "expression_statement" and node.named_children:
            inner = node.named_children[0]
            if inner.type == "assignment_expression":
                self.commonjs(inner)
            elif inner.type == "internal_module":  # the grammar reads an unexported `namespace N {}` as an expression
                self.namespace(inner)

    def declarator(self, node: Node) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is None or name.type != "identifier" or value is None:
            return
        value = read.unwrapped(value)
        if value.type == "assignment_expression":  # `var app = exports = module.exports = {}`
            targets, value = read.assignment_chain(value)
            if not self.prefix and {"module.exports", "exports"} & set(targets):
                self.exports[EXPORT_EQUALS] = read.text(name)
        if value.type in read.FUNCTION_VALUES:  # `const f = (...) => ...`, `const f = function () {}`
            self.function(self.prefix + read.text(name), value, line_node=node)
        elif value.type == "class":
            self.klass(self.prefix + read.text(name), value)

    # -- definitions --

    def function(self, qualname: str, node: Node, *, line_node: Node | None = None,
                 kind: DefKind = DefKind.FUNCTION, is_static: bool = False, accessor: Accessor | None = None) -> None:
        params = read.params(node)
        is_async = any(c.type == "async" for c in node.children)
        returns = read.type_text(node.child_by_field_name("return_type"))
        decorators = read.decorators(node)
        lenient = False
        if self.dialect is Dialect.JAVASCRIPT:
            params, lenient = read.jsdoc(node if line_node is None else line_node, params)
            if read.uses_arguments(node.child_by_field_name("body")) and not any(p.kind is ParamKind.VAR_POSITIONAL for p in params):
                # TypeScript's rule for .js files: a body that reads `arguments` takes any number of them.
                params = (*params, TsParam("arguments", ParamKind.VAR_POSITIONAL, False))
        line = (line_node or node).start_point[0] + 1
        text = render(kind, qualname.rpartition(".")[2], (params,), returns, is_async,
                       prefix=" ".join(w for w in ("static" if is_static else "", accessor.value if accessor else "") if w))
        # A parameter list with a parse error would be read as wrong parameters: its calls cannot be judged.
        header = node.child_by_field_name("parameters")
        opaque = header is not None and header.has_error
        sig = TsSignature(qualname, kind, params, returns, is_async, decorators, line, text, opaque,
                          accessor=accessor, is_static=is_static, lenient=lenient)
        self.written.setdefault(qualname, []).append(_Candidate(sig, node.child_by_field_name("body") is not None))

    def klass(self, qualname: str, node: Node) -> None:
        body = node.child_by_field_name("body")
        self.classes.append(_ClassInfo(qualname, node.start_point[0] + 1, read.base(node), read.decorators(node)))
        if body is None:
            return
        for member in body.named_children:
            self.member(qualname, member)

    def member(self, owner: str, node: Node) -> None:
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        if name_node is None or name_node.type in ("private_property_identifier", "computed_property_name"):
            return  # `#m()` is not callable from outside; a computed name is not known
        name = read.text(name_node).strip("'\"")
        is_static = any(c.type == "static" for c in node.children)
        qualname = f"{owner}.{name}"
        if node.type in _METHODS:
            accessor = next((Accessor(c.type) for c in node.children if c.type in ("get", "set")), None)
            if accessor is Accessor.SET and qualname in self.written:
                return  # the getter of the same name already stands for the property
            self.function(qualname, node, kind=DefKind.METHOD, is_static=is_static, accessor=accessor)
        elif node.type in _FIELDS:
            value = node.child_by_field_name("value")
            if value is not None and read.unwrapped(value).type in read.FUNCTION_VALUES:  # `m = (x) => ...`
                self.function(qualname, read.unwrapped(value), line_node=node, kind=DefKind.METHOD,
                              is_static=is_static)

    # -- the model: written signatures -> callable ones --

    def finish(self) -> dict[str, TsSignature]:
        defs = {q: _grouped(q, candidates) for q, candidates in self.written.items()}
        for info in self.classes:
            defs[info.qualname] = self.class_signature(info, defs)
        # Classes are recorded after their members: source order, a class before its members on one line.
        return dict(sorted(defs.items(), key=lambda item: (item[1].line, item[0].count("."))))

    def class_signature(self, info: _ClassInfo, defs: Mapping[str, TsSignature]) -> TsSignature:
        """`new C(...)` binds to C's constructor, or to the first base's, or takes no argument at all."""
        constructor = self.constructor(info.qualname, defs, set())
        name = info.qualname.rpartition(".")[2]
        if constructor is None:
            return TsSignature(info.qualname, DefKind.CLASS, (), None, False, info.decorators, info.line, f"class {name}",
                               constructor_known=False)
        text = render(DefKind.CLASS, name, constructor.callable_sets, None, False)
        return TsSignature(info.qualname, DefKind.CLASS, constructor.params, None, False, info.decorators, info.line, text,
                           constructor.opaque, overloads=constructor.overloads, lenient=constructor.lenient)

    def constructor(self, qualname: str, defs: Mapping[str, TsSignature], seen: set[str]) -> TsSignature | None:
        own = defs.get(f"{qualname}.constructor")
        if own is not None:
            return own
        info = next((c for c in self.classes if c.qualname == qualname), None)
        if info is None or info.base is None:  # no `extends`: the default constructor takes nothing
            return _NO_ARGUMENTS if info is not None else None
        if info.base in seen or not any(c.qualname == info.base for c in self.classes):
            return None  # a base defined elsewhere (or a mixin call): the check resolves it, not this file
        seen.add(qualname)
        return self.constructor(info.base, defs, seen)


_NO_ARGUMENTS = TsSignature("constructor", DefKind.METHOD, (), None, False, (), 0, "constructor()")


def _grouped(qualname: str, candidates: list[_Candidate]) -> TsSignature:
    """Overloads: the signatures without a body are what callers see; the implementation is not callable then."""
    bare = [c.sig for c in candidates if not c.has_body]
    implementations = [c.sig for c in candidates if c.has_body]
    if not bare or (len(bare) == 1 and implementations and bare[0].line > implementations[-1].line):
        return implementations[-1] if implementations else bare[-1]
    if len(bare) == 1:
        return bare[0]
    first = bare[0]
    sets = tuple(s.params for s in bare)
    text = render(first.kind, qualname.rpartition(".")[2], sets, first.returns, first.is_async)
    return replace(first, overloads=sets, text=text, is_async=any(s.is_async for s in implementations) or first.is_async)


