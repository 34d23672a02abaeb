"""The walk over the query matches of one file: definitions, imports, calls, references and bindings, scope by scope."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any

from graphguard.languages.python.nodes import (
    _ARM_KINDS,
    _PARTIAL,
    _TYPE_CHECKING,
    _alternatives,
    _dotted_and_alias,
    _in_annotation,
    _string_list,
    _text,
    _type_argument,
    chain,
)
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
