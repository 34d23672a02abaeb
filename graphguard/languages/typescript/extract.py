"""The walk over one TypeScript/JavaScript file's query matches, in document order, scope by scope: definitions
(`definitions.Walk`), imports and exports (`modules.Modules`), and here the uses: calls, references (JSX, types,
decorators, values), the bindings that type receivers, and the regions that did not parse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphguard.languages.typescript import nodes as n
from graphguard.languages.typescript.definitions import Kind
from graphguard.languages.typescript.modules import Modules
from graphguard.model import Binding, BindKind, CallSite, Import, ImportForm, Reference, RefKind, Region

if TYPE_CHECKING:
    from tree_sitter import Node

#: What ends the node types of a statement (the unit whose error makes its uses unjudged).
_STATEMENTS = ("statement", "declaration", "declarator", "definition", "program")
_USES = frozenset({"call", "jsx", "value", "argument"})


class Extractor(Modules):
    def run(self) -> None:
        handlers = {"function": self.function, "class": self.klass, "member": self.member, "field": self.field,
                    "declarator": self.declarator, "interface": self.declared, "type": self.declared,
                    "enum": self.declared, "namespace": self.declared, "import": self.import_, "export": self.export,
                    "jsx": self.jsx, "decorator": self.decorator,
                    "param": self.param, "assign": self.assign, "typeref": self.typeref, "value": self.value,
                    "argument": self.argument, "error": self.error}
        stack, pending = self._stack, self._pending
        for key, node, caps in self.captures:
            at = node.start_byte
            if (pending and pending[0].start <= at) or stack[-1].end <= at:
                self._advance(at)
            if at < self._error_end and key in _USES:
                continue  # inside a region that did not parse: never judged
            try:
                if key == "call":
                    self.call(node, caps["callee"][0], caps["args"][0] if "args" in caps else None)
                else:
                    handlers[key](node)
            except RecursionError:  # nothing here recurses; should a helper one day, the other nodes are still read
                self.recursion = True
        self.finish()

    def param(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        typed = n.type_name(node.child_by_field_name("type"))
        if pattern is None or pattern.type != "identifier" or not typed:
            return
        at = n.span(node)
        self.bindings.append(Binding(self._code_scope(), n.text(pattern), BindKind.ANNOTATION, typed, *at))
        s = self.scope
        owner = s.qualname.rpartition(".")[0]
        property_ = n.has_child(node, "accessibility_modifier") or n.has_child(node, "readonly") or n.has_child(node, "override_modifier")
        if property_ and s.qualname.endswith(".constructor"):  # `constructor(private s: Session)`: a field too
            self.bindings.append(Binding(owner, "this." + n.text(pattern), BindKind.ANNOTATION, typed, *at))

    def assign(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        target, value = n.chain(left), n.unwrapped(right)
        s = self.scope
        if target.startswith("this.") and target.count(".") == 1:
            owner = next((x.qualname for x in reversed(self._stack) if x.kind is Kind.CLASS), None)
            if owner is not None:
                self._typed(owner, target, node, value)
            return
        if s.kind is not Kind.MODULE:
            if "." not in target:  # `x = new C()` in a function
                self._typed(self._code_scope(), target, node, value)
            return
        self._commonjs(node, target, value)

    def call(self, node: Node, callee: Node, args: Node | None) -> None:
        kind = callee.type
        if kind == "import" or (kind == "identifier" and callee.text == b"require" and node.type == "call_expression"):
            self._required(node, callee, args)
            return
        if node.has_error or (self.has_errors and self._in_error(node)):
            return  # a call whose arguments or statement did not parse is not judged
        count = 0
        if args is not None:  # (a tagged template has none)
            count = args.named_child_count  # comments and spreads are taken off as their own matches come (`argument`)
            if count:
                self._calls_at[args.start_byte] = len(self.calls)
        (line, col), (end_line, end_col) = node.start_point, node.end_point
        self.calls.append(CallSite(n.chain(callee), self._stack[-1].code, line + 1, col, end_line + 1, end_col, count))

    def _in_error(self, node: Node) -> bool:
        """Whether the statement around a use holds an error (`f(x) ]];`): recorded as a region that did not parse."""
        holder = node.parent
        while holder is not None and not holder.type.endswith(_STATEMENTS):
            holder = holder.parent
        if holder is None or not holder.has_error:
            return False
        region = Region(*n.span(holder))
        if region not in self.errors[-3:]:
            self.errors.append(region)
        return True

    def argument(self, node: Node) -> None:
        """A spread or a comment among a call's arguments: one positional argument fewer (a spread: of unknown count)."""
        args = node.parent
        at = self._calls_at.get(args.start_byte) if args is not None else None
        if at is not None:
            c = self.calls[at]
            self.calls[at] = c._replace(n_positional=c.n_positional - 1, has_star=c.has_star or node.type == "spread_element")

    def _required(self, node: Node, callee: Node, args: Node | None) -> None:
        """`require("x")` (with the names its declarator binds) and `import("x")` (a specifier that is no literal: "")."""
        first = args.named_children[0] if args is not None and args.named_child_count else None
        spec = n.string(first)
        dynamic = callee.type == "import"
        if spec is None and not dynamic:
            return
        line, col, end_line, _ = n.span(node)
        form = ImportForm.DYNAMIC if dynamic else ImportForm.REQUIRE
        scope = self._code_scope()
        holder = node.parent
        while holder is not None and holder.type in ("await_expression", "parenthesized_expression"):
            holder = holder.parent
        target = holder.child_by_field_name("name") if holder is not None and holder.type == "variable_declarator" else None
        for name, alias in _bound(target):
            self.imports.append(Import(spec or "", 0, name, alias, line, end_line, scope, False, col, form))

    def jsx(self, node: Node) -> None:
        if self.data[node.start_byte:node.start_byte + 1].islower() and node.type == "identifier":
            return  # `<div>`: an element of the platform, no component (`<ui.Card>` is one: its chain has a dot)
        name = n.chain(node) if node.type != "jsx_namespace_name" else "?"
        if name[:1].isupper() or "." in name:
            self.refs.append(Reference(name, RefKind.JSX, self._code_scope(), *n.span(node)))

    def decorator(self, node: Node) -> None:
        expr = node.named_children[0] if node.named_child_count else None
        if expr is not None and expr.type == "call_expression":
            expr = expr.child_by_field_name("function")
        if expr is not None:
            self.refs.append(Reference(n.chain(expr), RefKind.DECORATOR, self._code_scope(), *n.span(expr)))

    def typeref(self, node: Node) -> None:
        target = node.child_by_field_name("name") if node.type == "generic_type" else node
        if target is not None:
            self._maybe.append((n.chain(target), RefKind.ANNOTATION, self._stack[-1].code, target))

    def value(self, node: Node) -> None:
        self._maybe.append((n.chain(node), RefKind.VALUE, self._stack[-1].code, node))

    def finish(self) -> None:
        """Keep the type and value references whose name the module binds (an import, a definition): the others name
        a local, a parameter, a type parameter or a global, which no other file's change reaches."""
        bound = {d.qualname.partition(".")[0] for d in self.defs} | {i.bound_name for i in self.imports if i.name is not None}
        self.refs += [Reference(name, kind, scope, *n.span(node)) for name, kind, scope, node in self._maybe
                      if name.partition(".")[0] in bound]
        self.defs.sort(key=lambda d: (d.line, d.col))

    def error(self, node: Node) -> None:
        self.errors.append(Region(*n.span(node)))
        self._error_end = max(self._error_end, node.end_byte)


def _bound(target: Node | None) -> list[tuple[str | None, str | None]]:
    """(imported name, local alias) for what `const <target> = require(...)` binds; (None, None) for no binding."""
    if target is None:
        return [(None, None)]
    if target.type == "identifier":
        return [("*", n.text(target))]
    if target.type != "object_pattern":
        return [(None, None)]
    out: list[tuple[str | None, str | None]] = []
    for p in target.named_children:
        if p.type == "shorthand_property_identifier_pattern":
            out.append((n.text(p), None))
        elif p.type == "pair_pattern":
            key, value = p.child_by_field_name("key"), p.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier":
                out.append((n.text(key), n.text(value)))
    return out or [(None, None)]
