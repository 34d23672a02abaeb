"""The callable interface of one TypeScript or JavaScript file: the signature model. Pure: bytes in, records out.

The records are the Python package's (`Signature`, `Param`, `ModuleSignatures`), extended where TypeScript
needs more, so the check reads one model: `TsSignature` adds the overload set, accessors, `static`, whether
the definition is exported and JavaScript's lenient arity; `TsParam` adds the properties of a destructured
object parameter typed by an inline type literal. TypeScript has no keyword arguments, so every parameter
is positional-only (its name is no interface), `?` and a default are both `has_default`, `...rest` is
var-positional, and a `this:` parameter is no parameter at all.

Qualnames: `f`, `Cart` (the class, called through `new`: its constructor's parameters), `Cart.constructor`,
`Cart.total`, `default` for an anonymous default export. The source is data: it is parsed, never run.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from graphguard.languages.python.signature import ModuleSignatures, Param, ParamKind, Signature
from graphguard.languages.typescript.grammar import Dialect, parser
from graphguard.model import DefKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["EXPORT_EQUALS", "Accessor", "Shape", "TsModuleSignatures", "TsParam", "TsSignature", "signatures"]


#: The exported name of what `module.exports = X` (TypeScript's `export = X`) makes the module itself.
EXPORT_EQUALS = "export="


class Accessor(enum.Enum):
    GET = "get"
    SET = "set"


@dataclass(frozen=True)
class Shape:
    """The inline type literal of a destructured object parameter (`{a, b}: {a: string; b?: number}`):
    the properties an object literal passed there must have, and those it may have."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    open: bool = False  # an index signature (`[k: string]: T`): any other property is accepted too

    @property
    def known(self) -> frozenset[str]:
        return frozenset(self.required) | frozenset(self.optional)


@dataclass(frozen=True)
class TsParam(Param):
    #: A destructured object parameter with an inline type literal; None for any other parameter.
    shape: Shape | None = None


@dataclass(frozen=True)
class TsSignature(Signature):
    """A TS/JS callable. `params` is the first callable overload's; `overloads` every callable overload's
    parameters when there are two or more (the implementation signature is not callable from outside then)."""

    overloads: tuple[tuple[Param, ...], ...] = ()
    accessor: Accessor | None = None  # a getter or setter: read or assigned, never called
    is_static: bool = False
    exported: bool = False  # exported from the file under some name (TsModuleSignatures.exports says which)
    #: A JavaScript definition without JSDoc `@param`s: TypeScript lets a caller leave out any parameter
    #: (too many arguments still fail), as the runtime does.
    lenient: bool = False

    @property
    def callable_sets(self) -> tuple[tuple[Param, ...], ...]:
        """Each parameter list a call may bind to: the overloads, or the one signature."""
        return self.overloads or (self.params,)

    @property
    def is_property(self) -> bool:
        return self.accessor is not None

    @property
    def is_staticmethod(self) -> bool:
        return self.kind is DefKind.METHOD and self.is_static

    @property
    def is_classmethod(self) -> bool:
        return False


@dataclass(frozen=True)
class TsModuleSignatures(ModuleSignatures):
    #: Exported name -> the file's own top-level qualname it names (`export {f as g}`: "g" -> "f";
    #: `export default function () {}`: "default" -> "default"). Re-exports from other files are not here.
    exports: Mapping[str, str] = field(default_factory=dict)


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
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_METHODS = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
_FIELDS = frozenset({"public_field_definition", "field_definition"})
#: Nodes whose own `arguments` hides the enclosing function's.
_OWN_ARGUMENTS = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                            "function", "generator_function", "method_definition", "class_body"})
_SPACE = re.compile(r"\s+")


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


class _Reader:
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
            name = _name(node)
            if name is not None:
                self.function(self.prefix + name, node)
        elif kind in _CLASSES:
            name = _name(node)
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

    def export(self, node: Node) -> None:
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(c.type == "default" for c in node.children)
        if node.child_by_field_name("source") is not None:
            return  # `export ... from "x"`: another file's definitions
        if any(c.type == "=" for c in node.children):  # `export = f`
            target = next((c for c in node.named_children if c.type == "identifier"), None)
            if target is not None and not self.prefix:
                self.exports[EXPORT_EQUALS] = _text(target)
            return
        if declaration is not None:
            self.statement(declaration)
            if self.prefix:
                return  # a namespace's member: exported with the namespace
            for name in _declared_names(declaration):
                self.exports["default" if is_default else name] = name
            if declaration.type == "lexical_declaration":
                self.object_namespaces(declaration)
        elif value is not None and is_default:
            self.default_export(value)
        for clause in (c for c in node.named_children if c.type == "export_clause"):
            for spec in (s for s in clause.named_children if s.type == "export_specifier"):
                local, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                if local is not None:
                    self.exports[_text(alias or local)] = _text(local)

    def default_export(self, value: Node) -> None:
        if value.type == "identifier":  # `export default f`
            self.exports["default"] = _text(value)
            return
        name = _name(value) if value.type in _FUNCTION_VALUES | _CLASSES else None
        qualname = name or "default"
        if value.type in _CLASSES:
            self.klass(qualname, value)
        elif value.type in _FUNCTION_VALUES:
            self.function(qualname, value)
        else:
            return
        self.exports["default"] = qualname

    def namespace(self, node: Node) -> None:
        """`namespace N { export function f() {} }`: `N.f` (a dotted `namespace A.B` is `A.B.f`)."""
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None or name.type == "string":
            return
        outer, self.prefix = self.prefix, f"{self.prefix}{_text(name)}."
        try:
            for child in body.named_children:
                self.statement(child)
                if child.type != "export_statement":  # visible inside the namespace only
                    self.hidden.update(self.prefix + n for n in _declared_names(child))
        finally:
            self.prefix = outer

    def object_namespaces(self, declaration: Node) -> None:
        """`export const api = { get(url) {}, post: (url, body) => ... }`: `api.get`, `api.post`, called on the object."""
        for declarator in (d for d in declaration.named_children if d.type == "variable_declarator"):
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is None or name.type != "identifier" or value is None or _unwrapped(value).type != "object":
                continue
            for member in _unwrapped(value).named_children:
                key = member.child_by_field_name("name") or member.child_by_field_name("key")
                if key is None or key.type not in ("property_identifier", "string"):
                    continue
                qualname = f"{_text(name)}.{_text(key).strip(chr(39) + chr(34))}"
                if member.type == "method_definition":
                    accessor = next((Accessor(c.type) for c in member.children if c.type in ("get", "set")), None)
                    self.function(qualname, member, kind=DefKind.METHOD, is_static=True, accessor=accessor)
                elif member.type == "pair" and (v := member.child_by_field_name("value")) and _unwrapped(v).type in _FUNCTION_VALUES:
                    self.function(qualname, _unwrapped(v), line_node=member, kind=DefKind.METHOD, is_static=True)

    def commonjs(self, node: Node) -> None:
        """`exports.f = function (...) {}`, `module.exports = {f, g: h}`, `module.exports = f` (the `export=` name),
        `exports = module.exports = f`; `X.m = function` and `X.prototype.m = function` for a name X of the file."""
        targets, value = _assignment_chain(node)
        for target in targets:
            self.assign(target, value, node)

    def assign(self, target: str, value: Node, line_node: Node) -> None:
        if target in ("module.exports", "exports"):
            self.module_exports(value, line_node)
            return
        head, dot, name = target.rpartition(".")
        if not (dot and name.isidentifier()):
            return
        if head in ("exports", "module.exports"):
            if value.type in _FUNCTION_VALUES:
                self.function(name, value, line_node=line_node)
                self.exports[name] = name
            elif value.type == "identifier":
                self.exports[name] = _text(value)
        elif value.type in _FUNCTION_VALUES and not self.prefix:
            owner, prototype = head.removesuffix(".prototype"), head.endswith(".prototype")
            if owner.isidentifier() and owner not in ("module", "exports", "this", "window", "globalThis"):
                self.function(f"{owner}.{name}", value, line_node=line_node, kind=DefKind.METHOD, is_static=not prototype)

    def module_exports(self, value: Node, line_node: Node) -> None:
        """`module.exports = ...`: what `require()` returns. An object literal exports its keys; anything else is
        the module itself, under the name TypeScript gives it (`export =`)."""
        if value.type == "object":
            for pair in value.named_children:
                key = pair.child_by_field_name("key") or pair.child_by_field_name("name")
                v = pair.child_by_field_name("value")
                if pair.type == "shorthand_property_identifier":
                    self.exports[_text(pair)] = _text(pair)
                elif key is None or key.type != "property_identifier":
                    continue
                elif pair.type == "method_definition":  # `module.exports = { parse(a) {} }`
                    self.function(_text(key), pair)
                    self.exports[_text(key)] = _text(key)
                elif pair.type == "pair" and v is not None and _unwrapped(v).type == "identifier":
                    self.exports[_text(key)] = _text(v)
                elif pair.type == "pair" and v is not None and _unwrapped(v).type in _FUNCTION_VALUES:
                    self.function(_text(key), _unwrapped(v), line_node=pair)
                    self.exports[_text(key)] = _text(key)
        elif value.type == "identifier":
            self.exports[EXPORT_EQUALS] = _text(value)
        elif value.type in _FUNCTION_VALUES | _CLASSES:
            qualname = _name(value) or "default"
            if value.type in _CLASSES:
                self.klass(qualname, value)
            else:
                self.function(qualname, value, line_node=line_node)
            self.exports[EXPORT_EQUALS] = qualname

    def declarator(self, node: Node) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is None or name.type != "identifier" or value is None:
            return
        value = _unwrapped(value)
        if value.type == "assignment_expression":  # `var app = exports = module.exports = {}`
            targets, value = _assignment_chain(value)
            if not self.prefix and {"module.exports", "exports"} & set(targets):
                self.exports[EXPORT_EQUALS] = _text(name)
        if value.type in _FUNCTION_VALUES:  # `const f = (...) => ...`, `const f = function () {}`
            self.function(self.prefix + _text(name), value, line_node=node)
        elif value.type == "class":
            self.klass(self.prefix + _text(name), value)

    # -- definitions --

    def function(self, qualname: str, node: Node, *, line_node: Node | None = None,
                 kind: DefKind = DefKind.FUNCTION, is_static: bool = False, accessor: Accessor | None = None) -> None:
        params = self.params(node)
        is_async = any(c.type == "async" for c in node.children)
        returns = _type_text(node.child_by_field_name("return_type"))
        decorators = _decorators(node)
        lenient = False
        if self.dialect is Dialect.JAVASCRIPT:
            params, lenient = _jsdoc(node if line_node is None else line_node, params)
            if _uses_arguments(node.child_by_field_name("body")) and not any(p.kind is ParamKind.VAR_POSITIONAL for p in params):
                # TypeScript's rule for .js files: a body that reads `arguments` takes any number of them.
                params = (*params, TsParam("arguments", ParamKind.VAR_POSITIONAL, False))
        line = (line_node or node).start_point[0] + 1
        text = _render(kind, qualname.rpartition(".")[2], (params,), returns, is_async,
                       prefix=" ".join(w for w in ("static" if is_static else "", accessor.value if accessor else "") if w))
        # A parameter list with a parse error would be read as wrong parameters: its calls cannot be judged.
        header = node.child_by_field_name("parameters")
        opaque = header is not None and header.has_error
        sig = TsSignature(qualname, kind, params, returns, is_async, decorators, line, text, opaque,
                          accessor=accessor, is_static=is_static, lenient=lenient)
        self.written.setdefault(qualname, []).append(_Candidate(sig, node.child_by_field_name("body") is not None))

    def klass(self, qualname: str, node: Node) -> None:
        body = node.child_by_field_name("body")
        self.classes.append(_ClassInfo(qualname, node.start_point[0] + 1, _base(node), _decorators(node)))
        if body is None:
            return
        for member in body.named_children:
            self.member(qualname, member)

    def member(self, owner: str, node: Node) -> None:
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        if name_node is None or name_node.type in ("private_property_identifier", "computed_property_name"):
            return  # `#m()` is not callable from outside; a computed name is not known
        name = _text(name_node).strip("'\"")
        is_static = any(c.type == "static" for c in node.children)
        qualname = f"{owner}.{name}"
        if node.type in _METHODS:
            accessor = next((Accessor(c.type) for c in node.children if c.type in ("get", "set")), None)
            if accessor is Accessor.SET and qualname in self.written:
                return  # the getter of the same name already stands for the property
            self.function(qualname, node, kind=DefKind.METHOD, is_static=is_static, accessor=accessor)
        elif node.type in _FIELDS:
            value = node.child_by_field_name("value")
            if value is not None and _unwrapped(value).type in _FUNCTION_VALUES:  # `m = (x) => ...`
                self.function(qualname, _unwrapped(value), line_node=node, kind=DefKind.METHOD,
                              is_static=is_static)

    # -- parameters --

    def params(self, node: Node) -> tuple[Param, ...]:
        single = node.child_by_field_name("parameter")  # `x => x`
        if single is not None:
            return (TsParam(_text(single), ParamKind.POSITIONAL_ONLY, False),)
        formal = node.child_by_field_name("parameters")
        if formal is None:
            return ()
        out: list[Param] = []
        for p in formal.named_children:
            param = _param(p)
            if param is not None:
                out.append(param)
        return tuple(out)

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
        text = _render(DefKind.CLASS, name, constructor.callable_sets, None, False)
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
    text = _render(first.kind, qualname.rpartition(".")[2], sets, first.returns, first.is_async)
    return replace(first, overloads=sets, text=text, is_async=any(s.is_async for s in implementations) or first.is_async)


def _param(node: Node) -> Param | None:
    """One formal parameter; None for `this: T` (it types `this`, callers pass nothing for it)."""
    kind = node.type
    if kind in ("comment", "decorator", "accessibility_modifier", "override_modifier", "ERROR"):
        return None
    if kind in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        if pattern is None or pattern.type == "this":
            return None
        value = node.child_by_field_name("value")
        annotation = _type_text(node.child_by_field_name("type"))
        has_default = kind == "optional_parameter" or value is not None or annotation == "void"
        return _pattern_param(pattern, has_default, annotation, value, node.child_by_field_name("type"))
    if kind == "assignment_pattern":  # JavaScript: `b = 2`
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return _pattern_param(left, True, None, right, None) if left is not None else None
    return _pattern_param(node, False, None, None, None)


def _pattern_param(pattern: Node, has_default: bool, annotation: str | None, value: Node | None,
                   type_node: Node | None) -> Param:
    default = _text(value) if value is not None else None
    if pattern.type == "rest_pattern":
        inner = next(iter(pattern.named_children), None)
        return TsParam(_text(inner) if inner is not None else "rest", ParamKind.VAR_POSITIONAL, False, annotation)
    shape = _shape(type_node) if pattern.type == "object_pattern" else None
    return TsParam(_text(pattern), ParamKind.POSITIONAL_ONLY, has_default, annotation, default, shape)


def _shape(type_node: Node | None) -> Shape | None:
    """The properties of an inline type literal (`{a: string; b?: number}`); None for a named type."""
    literal = next(iter(type_node.named_children), None) if type_node is not None else None
    if literal is None or literal.type != "object_type":
        return None
    required: list[str] = []
    optional: list[str] = []
    is_open = False
    for member in literal.named_children:
        if member.type == "index_signature":
            is_open = True
        elif member.type in ("property_signature", "method_signature"):
            name = member.child_by_field_name("name")
            if name is not None:
                optional_mark = any(c.type == "?" for c in member.children)
                (optional if optional_mark else required).append(_text(name).strip("'\""))
    return Shape(tuple(required), tuple(optional), is_open)


# -- JavaScript's arity rules --------------------------------------------------------------------

_JSDOC_PARAM = re.compile(r"@(?:param|arg|argument)\s+(?:\{([^}]*)\}\s*)?(\[?)\s*([\w$.]+)")


def _jsdoc(node: Node, params: tuple[Param, ...]) -> tuple[tuple[Param, ...], bool]:
    """TypeScript's rule for .js files: every parameter may be left out, unless JSDoc `@param`s say which may
    (`[name]`, `{T=}`); `{...T}` is a rest. Returns the parameters and whether the lenient rule applies."""
    doc = _leading_jsdoc(node)
    tags = _JSDOC_PARAM.findall(doc) if doc else []
    if not tags:
        return params, True
    optional = {name for type_, bracket, name in tags if bracket or type_.rstrip().endswith("=")}
    rest = {name for type_, _, name in tags if type_.lstrip().startswith("...")}
    out: list[Param] = []
    for p in params:
        if p.name in rest and p.kind is ParamKind.POSITIONAL_ONLY:
            p = TsParam(p.name, ParamKind.VAR_POSITIONAL, False, p.annotation)
        elif p.name in optional and not p.has_default:
            p = TsParam(p.name, p.kind, True, p.annotation, p.default, getattr(p, "shape", None))
        out.append(p)
    return tuple(out), False


def _leading_jsdoc(node: Node) -> str | None:
    """The `/** ... */` comment just before a definition (or before the statement that holds it)."""
    here: Node | None = node
    while here is not None:
        before = here.prev_sibling
        if before is not None and before.type == "comment":
            text = _text(before)
            return text if text.startswith("/**") else None
        parent = here.parent
        if parent is None or parent.type not in ("export_statement", "lexical_declaration", "variable_declaration",
                                                 "variable_declarator"):
            return None
        here = parent
    return None


def _uses_arguments(body: Node | None) -> bool:
    if body is None:
        return False
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text == b"arguments":
            return True
        if node.type not in _OWN_ARGUMENTS:
            stack.extend(node.named_children)
    return False


# -- readers of one node -------------------------------------------------------------------------


def _text(node: Node) -> str:
    return _SPACE.sub(" ", (node.text or b"").decode("utf-8", "replace")).strip()


def _name(node: Node) -> str | None:
    name = node.child_by_field_name("name")
    return _text(name) if name is not None else None


def _type_text(annotation: Node | None) -> str | None:
    """`: string` -> "string"."""
    if annotation is None:
        return None
    inner = annotation.named_children
    return _text(inner[0]) if len(inner) == 1 else _text(annotation).lstrip(":").strip()


def _assignment_chain(node: Node) -> tuple[list[str], Node]:
    """`a = b = value`: (["a", "b"], value)."""
    targets: list[str] = []
    while node.type == "assignment_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            break
        targets.append(_text(left))
        node = _unwrapped(right)
    return targets, node


def _unwrapped(node: Node) -> Node:
    """`(x => x)`, `f as T`, `f satisfies T`: the value inside."""
    while node.type in ("parenthesized_expression", "as_expression", "satisfies_expression") and node.named_children:
        node = node.named_children[0]
    return node


def _decorators(node: Node) -> tuple[str, ...]:
    return tuple(_text(c) for c in node.children if c.type == "decorator")


def _base(node: Node) -> str | None:
    heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
    if heritage is None:
        return None
    clause = next((c for c in heritage.named_children if c.type == "extends_clause"), None)
    if clause is None:  # JavaScript: `class_heritage` holds the expression itself
        clause = heritage if heritage.named_children and heritage.named_children[0].type != "implements_clause" else None
    if clause is None:
        return None
    value = clause.child_by_field_name("value") or next(iter(clause.named_children), None)
    return _text(value) if value is not None and value.type == "identifier" else ""


def _declared_names(node: Node) -> Iterator[str]:
    """The top-level names an `export <declaration>` binds."""
    if node.type == "ambient_declaration":
        for child in node.named_children:
            yield from _declared_names(child)
    elif node.type in ("lexical_declaration", "variable_declaration"):
        for d in node.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is not None and name.type == "identifier":
                yield _text(name)
    else:
        name = node.child_by_field_name("name")
        if name is not None:
            yield _text(name)


# -- rendering -----------------------------------------------------------------------------------


def _render(kind: DefKind, name: str, sets: tuple[tuple[Param, ...], ...], returns: str | None, is_async: bool,
            prefix: str = "") -> str:
    """`function f(a: string, b?: number): void`, `static async m(x)`; overloads joined by "; "."""
    head = {DefKind.CLASS: "class", DefKind.METHOD: prefix}.get(kind, "function")
    head = f"async {head}".strip() if is_async else head
    name = "" if name == "default" and kind is DefKind.FUNCTION else name
    tail = f": {returns}" if returns else ""
    return "; ".join(f"{head} {name}({', '.join(_param_text(p) for p in params)}){tail}".strip() for params in sets)


def _param_text(p: Param) -> str:
    text = f"...{p.name}" if p.kind is ParamKind.VAR_POSITIONAL else p.name
    if p.has_default and p.default is None:
        text += "?"
    if p.annotation:
        text += f": {p.annotation}"
    if p.default is not None:
        text += f" = {p.default}"
    return text
