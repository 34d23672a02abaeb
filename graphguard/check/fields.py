"""Stage 5b: a dataclass's lost fields, where they are read.

A removed or renamed field breaks more than the constructor's keyword calls (decide finds
those): `mode.line_length` raises AttributeError, `dataclasses.replace(mode, line_length=1)`
raises TypeError. Both are looked for in the files that use the class (its uses, gathered)
and the changed files, on receivers whose class the new repository knows exactly
(`mode: Mode`, `Mode(...)`, `self.mode` typed so), and only when nothing else answers the
name: no method, property or class attribute, no `self.NAME = ...`, no `__getattr__`, no base
outside the repository, no write of the name on such a receiver. Unknown receivers are left out.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from graphguard.check.interface import InterfaceChange
from graphguard.check.overlay import Overlay
from graphguard.languages.python.sigread.records import DATACLASS
from graphguard.model import DefKind, UseKind
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact

if TYPE_CHECKING:
    from graphguard.impact import Found
    from graphguard.languages.python.resolver import Resolver
    from graphguard.languages.python.scopes import ModuleInfo
    from graphguard.languages.python.targets import Sym

#: Files read per changed class, and the size of one: the search is an extra, never a stall.
MAX_FILES = 200
MAX_BYTES = 1_000_000
_REPLACE = frozenset({"dataclasses.replace"})
#: Bases that give an instance no attribute: a class with only these (or repository classes) is closed.
_PLAIN_BASES = frozenset({"object", "typing.Generic", "typing_extensions.Generic", "abc.ABC"})


class _Read(NamedTuple):
    path: str
    line: int
    end_line: int
    scope: str  # full qualname of the enclosing definition, or the module
    field: str
    replace: bool  # `dataclasses.replace(x, FIELD=...)`, else a read `x.FIELD`


def attach(overlay: Overlay, changes: list[SymbolImpact], found: Iterable[tuple[InterfaceChange, list[Found]]]) -> list[SymbolImpact]:
    """The report entries with each lost field's reads added to its class's entry, as broken callers."""
    by_symbol = {c.symbol: i for i, c in enumerate(changes)}
    out = list(changes)
    for ic, uses in found:
        i = by_symbol.get(ic.qualname)
        lost = _lost_fields(overlay, ic) if i is not None else ()
        if i is None or not lost:
            continue
        reads = list(_reads(overlay, ic, lost, {u.path for u in uses}))
        if not reads:
            continue
        entry = out[i]
        known = {(c.path, c.line) for c in entry.callers if c.status is Status.BROKEN}  # `Mode(line_length=1).line_length`: once
        name = ic.qualname.rsplit(".", 1)[-1]
        extra = [_caller(r, name) for r in dict.fromkeys(reads) if (r.path, r.line) not in known]  # two reads on a line: once
        callers = sorted((*entry.callers, *extra), key=lambda c: (c.status is not Status.BROKEN, c.path, c.line))
        out[i] = dataclasses.replace(entry, callers=tuple(callers))
    return out


def _caller(r: _Read, cls: str) -> CallerImpact:
    if r.replace:
        reason, kind, raises = f"dataclasses.replace() sets field '{r.field}', which {cls} no longer has", UseKind.CALL, "TypeError"
    else:
        reason, kind, raises = f"reads field '{r.field}', which {cls} no longer has", UseKind.REFERENCE, "AttributeError"
    return CallerImpact(r.path, r.line, r.end_line, r.scope, Status.BROKEN, reason, kind, raises=raises)


def _lost_fields(overlay: Overlay, ic: InterfaceChange) -> tuple[str, ...]:
    """The fields of a dataclass that its new version lacks, and that nothing else of the class answers now."""
    before, after = ic.change.before, ic.change.after
    if ic.kind is not ChangeKind.SIGNATURE or before is None or after is None or before.kind is not DefKind.CLASS or ic.new_qualname is None:
        return ()
    if not any(d.partition("(")[0] in DATACLASS for d in before.decorators):
        return ()
    old = overlay.old_facts(ic.path)
    own = {b.target for b in old.bindings if b.scope == before.qualname} if old is not None else set()
    gone = [p.name for p in before.params if p.name in own and p.name not in {q.name for q in after.params}]
    cls = _class(overlay.new_resolver, ic.where, ic.new_qualname)
    if not gone or cls is None or not _closed(overlay.new_resolver, cls):
        return ()
    resolver = overlay.new_resolver
    if any(_binds(resolver, cls, n) for n in ("__getattr__", "__getattribute__")):
        return ()
    answered = _bound_in_subclasses(overlay, cls.qualname, gone)  # `mode: Mode` may hold a subclass instance
    return tuple(n for n in gone if not _binds(resolver, cls, n) and n not in answered)


def _bound_in_subclasses(overlay: Overlay, qualname: str, names: list[str]) -> set[str]:
    """The `names` that a repository subclass of `qualname` binds (a property, an attribute), at any depth."""
    resolver, out = overlay.new_resolver, set()
    seen, todo = {qualname}, [qualname]
    while todo and len(seen) < MAX_FILES:
        cls = todo.pop()
        rows = [(p, s) for p, s in overlay.graph.subclasses_of(cls) if p not in overlay.changed]
        rows += [(p, s.scope) for p, fr in overlay.fresh_new.items() for s in fr.sites if s.kind is UseKind.INHERIT and s.target == cls]
        for path, sub in rows:
            info = resolver.info(path) if path in resolver.modmap.primary else None
            if sub in seen or info is None or not sub.startswith(info.module + "."):
                continue
            seen.add(sub)
            todo.append(sub)
            local = sub[len(info.module) + 1:]
            out |= {n for n in names if f"{local}.{n}" in info.defs or info.class_attrs.get(local, {}).get(n)}
    return out


def _binds(resolver: Resolver, cls: Sym, name: str, depth: int = 0) -> bool:
    """Whether the class or a base binds `name`: a def (a property), a class attribute, `self.name = ...`."""
    from graphguard.languages.python.targets import Sym

    info = resolver.info(cls.path)
    if info is None or depth > 16:
        return True
    if f"{cls.local}.{name}" in info.defs or info.class_attrs.get(cls.local, {}).get(name):
        return True
    return any(isinstance(b, Sym) and _binds(resolver, b, name, depth + 1) for b in resolver.bases(cls))


def _class(resolver: Resolver, path: str, qualname: str) -> Sym | None:
    """The class `qualname` as the new repository defines it in `path`."""
    from graphguard.languages.python.targets import Sym

    info = resolver.info(path) if path in resolver.modmap.primary else None
    if info is None or not qualname.startswith(info.module + "."):
        return None
    t = resolver.chain(info, "", qualname[len(info.module) + 1:])
    return t if isinstance(t, Sym) and t.kind is DefKind.CLASS and t.qualname == qualname else None


def _closed(resolver: Resolver, cls: Sym, depth: int = 0) -> bool:
    """Every base is a repository class (closed in turn) or one that adds no attribute."""
    from graphguard.languages.python.targets import Ext, Sym

    if depth > 16:
        return False
    for b in resolver.bases(cls):
        if isinstance(b, Ext) and b.name in _PLAIN_BASES:
            continue
        if not (isinstance(b, Sym) and b.kind is DefKind.CLASS and _closed(resolver, b, depth + 1)):
            return False
    return True


def _reads(overlay: Overlay, ic: InterfaceChange, lost: tuple[str, ...], using: set[str]) -> Iterator[_Read]:
    """The reads of `lost` fields on receivers of the class, in the changed files and the files using it."""
    from graphguard.languages.python.targets import Ext, Inst

    assert ic.new_qualname is not None
    resolver, cls_name, wanted = overlay.new_resolver, ic.new_qualname, set(lost)
    paths = sorted(p for p in (using | overlay.changed) if p in overlay.new_map.primary)[:MAX_FILES]
    found: list[_Read] = []
    written: set[str] = set()
    for path, tree, lines in _trees(overlay, paths, wanted):
        info = resolver.info(path)
        if info is None:
            continue

        def exact(scope: str, node: ast.expr, info: ModuleInfo = info) -> bool:
            text = _chain(node)
            t = resolver.chain(info, scope, text, at=(node.lineno, node.col_offset)) if text else None
            if t is None and text.count(".") == 1 and text.startswith("self."):
                return _self_attribute(resolver, info, scope, text[5:], cls_name)
            return isinstance(t, Inst) and t.cls.qualname == cls_name

        for scope, node in _walk(tree, lines):
            full = f"{info.module}.{scope}" if scope else info.module
            if isinstance(node, ast.Attribute) and node.attr in wanted and exact(scope, node.value):
                if isinstance(node.ctx, ast.Load):
                    found.append(_Read(path, node.lineno, node.end_lineno or node.lineno, full, node.attr, False))
                else:  # the name is set on such an instance somewhere: a read may well find it
                    written.add(node.attr)
            elif isinstance(node, ast.Call) and node.args and (kws := [k.arg for k in node.keywords if k.arg in wanted]):
                text = _chain(node.func)
                t = resolver.chain(info, scope, text, at=(node.lineno, node.col_offset)) if text else None
                if isinstance(t, Ext) and t.name in _REPLACE and exact(scope, node.args[0]):
                    found += [_Read(path, node.lineno, node.end_lineno or node.lineno, full, k, True) for k in kws if k]
    yield from (r for r in found if r.field not in written)


def _self_attribute(resolver: Resolver, info: ModuleInfo, scope: str, attr: str, cls_name: str) -> bool:
    """`self.mode`, where every `self.mode = ...` of the class holds an instance of `cls_name` (`self.mode = mode`,
    `mode: Mode` a parameter) and no base sets it."""
    from graphguard.languages.python.targets import Inst, Sym
    from graphguard.model import BindKind

    local = info.class_of(scope)
    if local is None:
        return False
    cls = Sym(info.path, f"{info.module}.{local}", local, DefKind.CLASS)
    own = info.class_attrs.get(local, {}).get(attr, ())
    if not own or any(not b.target.startswith("self.") or b.kind is not BindKind.VALUE for b in own):
        return False
    if any(isinstance(b, Sym) and resolver.instance_attribute(b, attr) is not None for b in resolver.bases(cls)):
        return False
    return all(isinstance(t := resolver.held(info, b), Inst) and t.cls.qualname == cls_name for b in own)


def _trees(overlay: Overlay, paths: list[str], fields: Iterable[str]) -> Iterator[tuple[str, ast.Module, list[int]]]:
    """The new version of each file that mentions one of `fields`, parsed, with the lines that do; a file
    that is too large or does not parse is skipped."""
    mention = re.compile(rb"\b(?:" + b"|".join(re.escape(f.encode()) for f in fields) + rb")\b")
    new = overlay.sides.new.data
    unchanged: dict[str, list[str]] = {}
    for p in paths:
        if p not in new and p in overlay.new_entries:
            unchanged.setdefault(overlay.new_entries[p], []).append(p)
    texts = {p: new[p] for p in paths if p in new}
    texts |= {p: data for sha, data in overlay.read_blobs(list(unchanged)) for p in unchanged[sha]}
    for path in paths:
        data = texts.get(path)
        if data is None or len(data) > MAX_BYTES or not mention.search(data):  # most files never write the name
            continue
        lines = [i for i, line in enumerate(data.splitlines(), 1) if mention.search(line)]
        try:
            yield path, ast.parse(data), lines
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue


def _walk(tree: ast.Module, lines: list[int]) -> Iterator[tuple[str, ast.AST]]:
    """The nodes that span one of `lines` (sorted), with the local qualname of their scope, as the facts
    name scopes (`f.<locals>.g`, `C.m`): the rest of the file is not walked."""
    todo: list[tuple[ast.AST, str, bool]] = [(n, "", False) for n in tree.body]  # (node, its scope, the scope is a function)
    while todo:
        node, scope, in_function = todo.pop()
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if first is not None and last is not None and not _spans(lines, first, last):
            continue
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield scope, node
            todo += [(child, scope, in_function) for child in ast.iter_child_nodes(node)]
            continue
        name = f"{scope}.<locals>.{node.name}" if in_function else f"{scope}.{node.name}" if scope else node.name
        outer: list[ast.AST] = list(node.decorator_list)  # evaluated where the definition stands
        outer += [*node.bases, *node.keywords] if isinstance(node, ast.ClassDef) else [node.args, *([node.returns] if node.returns else [])]
        todo += [(n, scope, in_function) for n in outer]
        todo += [(stmt, name, not isinstance(node, ast.ClassDef)) for stmt in node.body]


def _spans(lines: list[int], first: int, last: int) -> bool:
    i = bisect.bisect_left(lines, first)
    return i < len(lines) and lines[i] <= last


def _chain(node: ast.expr) -> str:
    """`a.b`, `a.b()` as the resolver reads chains; '' for anything else (a subscript, a call with a computed callee)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _chain(node.value)
        return f"{head}.{node.attr}" if head else ""
    if isinstance(node, ast.Call):
        head = _chain(node.func)
        return f"{head}()" if head and not head.endswith("()") else ""
    return ""
