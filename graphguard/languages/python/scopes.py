"""Per-module tables built from facts: the entries of each name in each scope, and which reach a use."""

from __future__ import annotations

import enum
import re
from collections import defaultdict
from typing import NamedTuple

from graphguard.languages.python import reaching
from graphguard.languages.python.targets import MAX_FLOW
from graphguard.model import Binding, Definition, DefKind, FileFacts, Import

# --- per-module tables built from facts ----------------------------------------------

_OPTIONAL = re.compile(r"^(?:typing\.|t\.)?Optional\[(.+)\]$")
_UNION = re.compile(r"^(?:typing\.|t\.)?Union\[(.+)\]$")
_CHAIN = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*$")
_GENERIC = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\[.*\]$", re.DOTALL)


def annotation_chain(text: str) -> str | None:
    """The class an annotation names for a receiver: `Optional["Client"]` -> "Client"."""
    text = text.strip()
    for _ in range(4):
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].strip()
        m = _OPTIONAL.match(text)
        if m:
            text = m.group(1).strip()
            continue
        m = _UNION.match(text)
        if m:
            text = m.group(1)
        if "|" in text or "," in text:
            parts = [p.strip() for p in re.split(r"[|,]", text) if p.strip() not in ("None", "")]
            if len(parts) != 1:
                return None
            text = parts[0]
            continue
        break
    return text if _CHAIN.match(text) else None


class EntryKind(enum.Enum):
    DEF = "def"
    IMPORT = "import"
    BINDING = "binding"


class Entry(NamedTuple):
    """One way a scope binds a name: a definition, an import or an assignment."""

    line: int
    kind: EntryKind
    payload: Definition | Import | Binding
    rebind: bool = False  # a function's `global name` then binding: it can happen at any time

    @property
    def start(self) -> reaching.Pos:
        return (self.payload.line, self.payload.col)

    def point(self, arms: reaching.Arms, floor: int) -> reaching.Point:
        p = self.payload
        # Definitions and imports carry no end column: they hold the name from the next line on.
        end = (p.end_line, p.end_col) if isinstance(p, Binding) else (p.end_line, reaching.LINE_END)
        return reaching.Point(self.start, end, arms.path(self.start, floor))


#: Which entries of a name reach a use: indices into its entry list, or None for all of them.
Selection = tuple[int, ...] | None


class ModuleInfo:
    """Namespaces of one file: module level, each function scope, each class."""

    def __init__(self, path: str, module: str, facts: FileFacts):
        self.path = path
        self.module = module
        self.facts = facts
        self.defs: dict[str, Definition] = {d.qualname: d for d in facts.definitions}
        # name -> entries in source order
        self.ns: dict[str, list[Entry]] = defaultdict(list)
        self.scope_ns: dict[str, dict[str, list[Entry]]] = defaultdict(lambda: defaultdict(list))
        self.stars: list[Import] = []
        self.class_attrs: dict[str, dict[str, list[Binding]]] = defaultdict(lambda: defaultdict(list))
        self._arms: reaching.Arms | None = None
        self._points: dict[tuple[str, str], list[reaching.Point | None]] = {}
        self._at_end: dict[tuple[str, str], Selection] = {}
        # `global name` in a function: its imports and assignments of `name` rebind the module's.
        rebinds = {(g.scope, g.name) for g in facts.globals}
        for d in facts.definitions:
            if "." not in d.qualname:
                self.ns[d.qualname].append(Entry(d.line, EntryKind.DEF, d))
            elif ".<locals>." in d.qualname:
                parent, name = d.qualname.rsplit(".<locals>.", 1)
                if "." not in name:
                    self.scope_ns[parent][name].append(Entry(d.line, EntryKind.DEF, d))
        for imp in facts.imports:
            if imp.name == "*":
                if not imp.scope:
                    self.stars.append(imp)
                continue
            rebind = (imp.scope, imp.bound_name) in rebinds
            table = self.ns if not imp.scope or rebind else self.scope_ns[imp.scope]
            table[imp.bound_name].append(Entry(imp.line, EntryKind.IMPORT, imp, rebind))
        for b in facts.bindings:
            if b.target.startswith(("self.", "cls.")):
                cls = self.class_of(b.scope)
                if cls and b.target.count(".") == 1:
                    self.class_attrs[cls][b.target.split(".", 1)[1]].append(b)
                continue
            if "." in b.target:
                continue
            if b.scope and b.scope in self.defs and self.defs[b.scope].kind is DefKind.CLASS:
                self.class_attrs[b.scope][b.target].append(b)
                continue
            rebind = (b.scope, b.target) in rebinds
            table = self.ns if not b.scope or rebind else self.scope_ns[b.scope]
            table[b.target].append(Entry(b.line, EntryKind.BINDING, b, rebind))
        for entries in self.ns.values():
            entries.sort(key=lambda e: e.line)
        # The names a scope binds more than once (or rebinds from a function): only these have a choice.
        self.choices = {("", n) for n, es in self.ns.items() if len(es) > 1 or es[0].rebind}
        self.choices.update((s, n) for s, names in self.scope_ns.items() for n, es in names.items() if len(es) > 1)

    def entries(self, scope: str, name: str) -> list[Entry] | None:
        return self.ns.get(name) if not scope else self.scope_ns.get(scope, {}).get(name)

    def floor(self, scope: str) -> int:
        """The line of the scope's header: arms on or before it lie outside the scope."""
        d = self.defs.get(scope) if scope else None
        return d.line if d is not None else 0

    def arms(self) -> reaching.Arms:
        if self._arms is None:
            self._arms = reaching.Arms(self.facts.arms)
        return self._arms

    def selection(self, scope: str, name: str, at: reaching.Pos | None) -> Selection:
        """The entries of `name` bound in `scope` that reach `at` (None: the end of the scope).

        None when there is nothing to choose (one entry, none in this scope, too many), or when
        no entry reaches (a use before any binding: every entry is taken, as without flow).
        """
        if (scope, name) not in self.choices:
            return None
        entries = self.entries(scope, name)
        if not entries or len(entries) > MAX_FLOW:
            return None
        if at is None and (scope, name) in self._at_end:
            return self._at_end[(scope, name)]
        key = (scope, name)
        points = self._points.get(key)
        floor = self.floor(scope)
        if points is None:
            points = self._points[key] = [None if e.rebind else e.point(self.arms(), floor) for e in entries]
        index = [i for i, p in enumerate(points) if p is not None]  # a rebinding has no place in the module's flow
        use = None if at is None else reaching.Point(at, at, self.arms().path(at, floor))
        chosen = [index[i] if i >= 0 else -1 - index[-1 - i]
                  for i in reaching.reaching(self.arms(), [p for p in points if p is not None], use, floor)]
        # A rebinding in a function may have run before any use (and after the module's own bindings).
        found = tuple(sorted(chosen + [i for i, p in enumerate(points) if p is None])) if chosen or len(index) < len(points) else None
        if at is None:
            self._at_end[key] = found
        return found

    def class_of(self, scope: str) -> str | None:
        """The class whose method holds `scope` (closures inside methods included).

        The innermost one: in a method of a class defined in a function or method, `self` is
        that class (`T.test.<locals>.C.m` -> `T.test.<locals>.C`), not the outer one.
        """
        while scope:
            d = self.defs.get(scope)
            if d is None:
                return None
            if d.kind is DefKind.CLASS:
                return scope
            if d.kind is DefKind.METHOD:
                return scope.rsplit(".", 1)[0]
            if ".<locals>." not in scope:  # a module-level function
                return None
            scope = scope.rsplit(".<locals>.", 1)[0]  # a closure: `self` is its enclosing function's
        return None
