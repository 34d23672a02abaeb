"""Interface digests of a file: which names an edit changes for the files that import it."""

from __future__ import annotations

import bisect

from graphguard.languages.python.scopes import Entry, ModuleInfo
from graphguard.model import Binding, DefKind, FileFacts, Import

#: An interface entry that stands for "every name": a star import or `__all__` changed.
EVERY_NAME = "*"


def interface_digests(facts: FileFacts) -> dict[str, str]:
    """Per top-level name, what other files' resolution can depend on.

    A function's kind; a class's bases, members and typed attributes; what an import or
    assignment binds; and, under `name()` (RETURNS), each function's return annotation on
    its own: it types what a call returns, which only a file using that result depends on.
    Comparing two versions name by name tells which names changed, so only the files that
    use those names are re-resolved (a body-only edit, a docstring, a decorator's argument,
    or an added function, changes none that anybody uses). Lines are in no digest: no other
    file's rows hold a line of this one.
    """
    import hashlib

    parts: dict[str, list[object]] = {}

    def add(name: str, item: object) -> None:
        parts.setdefault(name, []).append(item)

    for d in facts.definitions:
        if ".<locals>." in d.qualname:
            continue
        item: tuple[object, ...] = (d.qualname, d.kind.value, d.bases)
        if d.kind is DefKind.CLASS and d.decorators:  # `@dataclass` makes the constructor (only then: digests stay as they were)
            item += (tuple(x.split("(", 1)[0] for x in d.decorators),)  # that it has them, not their arguments
        add(d.qualname.split(".", 1)[0], item)
        if "." in d.qualname:  # a member on its own too: `x.close()` on an untyped receiver matches it by name
            add(d.qualname, item)
        if d.returns:  # apart: only a use of the call's result depends on it (see returns_of)
            add(d.qualname + RETURNS, (d.returns,))
    for i in facts.imports:
        if not i.scope:
            add(EVERY_NAME if i.name == "*" else i.bound_name, (i.module, i.level, i.name, i.alias))
    classes = {d.qualname for d in facts.definitions if d.kind is DefKind.CLASS}
    for b in facts.bindings:
        if not b.scope or b.scope in classes or b.target.startswith(("self.", "cls.")):
            add(b.target if not b.scope else b.scope.split(".", 1)[0], (b.scope, b.target, b.kind.value, b.value))
    # Which of a name's bindings reach the end of the module depends on their order and on the
    # if/try/loop arms around them; a function's `global name` rebinding can happen at any time.
    if _has_flow(facts):  # most files bind each module name once, outside any if/try/loop: nothing to add
        info = ModuleInfo("", "", facts)
        for name, entries in info.ns.items():
            if len(entries) > 1 or entries[0].rebind or info.arms().path(entries[0].start, 0):
                add(name, ("flow", _flow_shape(info, entries)))
    if facts.all_names is not None:
        add(EVERY_NAME, ("__all__", facts.all_names))
    return {name: hashlib.blake2b(repr(items).encode(), digest_size=8).hexdigest() for name, items in parts.items()}


def _has_flow(facts: FileFacts) -> bool:
    """Does the file bind a module-level name twice, from a function (`global`), or in an arm at module level?"""
    if facts.globals:
        return True
    names = [d.qualname for d in facts.definitions if "." not in d.qualname]
    names += [i.bound_name for i in facts.imports if not i.scope and i.name != "*"]
    names += [b.target for b in facts.bindings if not b.scope and "." not in b.target]
    if len(set(names)) < len(names):
        return True
    # An arm outside every top-level definition is at module level.
    tops = sorted((d.line, d.end_line) for d in facts.definitions if "." not in d.qualname)
    starts = [t[0] for t in tops]
    for a in facts.arms:
        if a.parent == -1:
            i = bisect.bisect_left(starts, a.line) - 1
            if i < 0 or tops[i][1] < a.line:
                return True
    return False


def _flow_shape(info: ModuleInfo, entries: list[Entry]) -> list[object]:
    """The entries of a module-level name in order, each with the arms around it, told apart by
    statement and arm rank rather than by line: moving code down a file changes nothing."""
    arms = info.arms()
    stmts: dict[int, int] = {}
    shape: list[object] = []
    for e in sorted(entries, key=lambda e: (e.rebind, e.start)):
        p = e.payload
        if isinstance(p, Import) and e.rebind:
            shape.append(("global", p.scope, p.module, p.level, p.name, p.alias))
            continue
        if isinstance(p, Binding) and e.rebind:
            shape.append(("global", p.scope, p.kind.value, p.value))
            continue
        path = arms.path(e.start, 0)
        shape.append((e.kind.value, tuple(
            (stmts.setdefault(arms.arms[a].stmt, len(stmts)), arms.by_stmt[arms.arms[a].stmt].index(a),
             arms.arms[a].kind.value, arms.arms[a].exhaustive) for a in path)))
    return shape


#: The digest key of what calling a name returns: `Display.warning()`.
RETURNS = "()"


def returns_of(names: set[str]) -> tuple[set[str], set[str]]:
    """`names` split into those whose binding changed and those whose return annotation alone did (the latter
    without the RETURNS mark): a file whose own calls to one of the latter discard the result resolves as before."""
    returns = {n.removesuffix(RETURNS) for n in names if n.endswith(RETURNS)}
    return {n for n in names if not n.endswith(RETURNS)}, returns


def changed_names(old: dict[str, str], new: dict[str, str]) -> set[str]:
    """Names whose interface differs (added, removed or changed); {EVERY_NAME} when any might."""
    names = {n for n in old.keys() | new.keys() if old.get(n) != new.get(n)}
    return {EVERY_NAME} if EVERY_NAME in names else names
