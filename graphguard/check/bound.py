"""Stage 3, after sigdiff: a definition replaced by an import or an assignment keeps its name.

`class NoTokenSentinel` became `from .common import Sentinel as NoTokenSentinel`, `def is_ident`
became `is_ident = str.isidentifier`, a class moved to `base.py` is imported back by its old
module: the module still binds the name, so `from pkg.token import is_ident` still runs.
Such a definition is MOVED to what its name holds now (the new version's resolver says what):

    a repository definition  its uses are decided against that definition's signature (in the
                             same file, `stamp = make_stamp`: RENAMED, as sigdiff names renames)
    anything else            (a builtin, an installed package, a value not followed) no
                             signature to compare: its uses are `unknown`, and say what it holds

A name bound only under `if TYPE_CHECKING:` is not bound when the code runs: the definition
is removed as before.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, NamedTuple

from graphguard.codes import Code, CodeName
from graphguard.model import FileFacts
from graphguard.result import ChangeKind

if TYPE_CHECKING:
    from graphguard.check.overlay import Overlay
    from graphguard.languages.python import sigdiff
    from graphguard.languages.python.targets import Target


class Held(NamedTuple):
    """What a name holds now that is not a repository definition."""

    what: str  # as the report says it: "str.isidentifier (line 3)"
    literal: bool = False  # a literal (`None`, `0`, `()`): calling it fails


class Bound(NamedTuple):
    change: sigdiff.SymbolChange
    held: Held | None = None  # what the name holds now, when it is not a repository definition; else None
    #: The name leads to another definition now (not this one moved): that definition's own uses are not this change's.
    alias: bool = False


def kept_names(facts: FileFacts | None) -> frozenset[str]:
    """Top-level names a module binds when it runs, other than by `def` and `class`: imports
    (those under `if TYPE_CHECKING:` run nowhere) and assignments."""
    if facts is None:
        return frozenset()
    names = {i.bound_name for i in facts.imports if not i.scope and i.name != "*" and not i.type_checking}
    names.update(b.target for b in facts.bindings if not b.scope and "." not in b.target)
    return frozenset(names - {d.qualname for d in facts.definitions})


def is_kept(ch: sigdiff.SymbolChange, kept: frozenset[str]) -> bool:
    """A definition that left the module while its top-level name stays bound (a class's members with it)."""
    return ch.change in (ChangeKind.REMOVED, ChangeKind.MOVED) and ch.qualname.split(".", 1)[0] in kept


def rebind(overlay: Overlay, path: str, ch: sigdiff.SymbolChange) -> Bound:
    """`ch` (is_kept) as a move to what its name holds in the new version of `path`."""
    from graphguard.languages.python import sigdiff
    from graphguard.languages.python.targets import Data, Sym

    resolver = overlay.new_resolver
    top, *members = ch.qualname.split(".")
    holder: Target = resolver.module_attr(path, top)
    target = holder
    for name in members:
        target = resolver.attribute(target, name)
    if members and isinstance(holder, Sym) and not isinstance(target, Sym):
        return Bound(ch, None)  # the class the name holds now lacks this member (`__init__` inherited): as sigdiff saw it
    if isinstance(target, Sym):
        after = overlay.new_signature(target.path, target.qualname)
        codes = tuple(sigdiff.signature_changes(ch.before, after)) if ch.before is not None and after is not None else ()
        # The definition find_moves paired it with (moved, and imported back) is this one: its uses are its own.
        alias = not (ch.change is ChangeKind.MOVED and (ch.new_module, ch.new_qualname) == (target.path, target.local))
        if target.path == path:  # `stamp = make_stamp`: a rename that keeps an alias, as sigdiff names renames
            return Bound(dataclasses.replace(ch, change=ChangeKind.RENAMED, breaking=(Code(CodeName.RENAMED, target.local), *codes),
                                             after=after, new_qualname=target.local, new_module=None), None, alias)
        # find_moves keys the module by path; interface._named names it.
        return Bound(dataclasses.replace(ch, change=ChangeKind.MOVED, breaking=(Code(CodeName.MOVED, target.qualname), *codes), after=after,
                                         new_qualname=target.local, new_module=target.path), None, alias)
    value, held = _assigned(overlay, path, top) if isinstance(target, Data) and not members else (describe(target), None)
    return Bound(dataclasses.replace(ch, change=ChangeKind.MOVED, breaking=(Code(CodeName.MOVED, value),), after=None,
                                     new_qualname=None, new_module=None), held or Held(value))


def _assigned(overlay: Overlay, path: str, name: str) -> tuple[str, Held]:
    """The value of the module's last top-level assignment to `name`, as written (`str.isidentifier`), and
    that with its line; a general phrase when it cannot be read."""
    import ast

    facts = overlay.new_facts.get(path)
    found = [b for b in facts.bindings if not b.scope and b.target == name] if facts is not None else []
    lines = overlay.sides.new.data.get(path, b"").splitlines()
    if not found or found[-1].end_line > len(lines):
        return "a value", Held("a value graphguard does not follow")
    b = found[-1]
    # The statement's own span (tree-sitter's byte columns): a comment after it is no part of the value.
    span = lines[b.line - 1:b.end_line]
    span[-1] = span[-1][:b.end_col] if b.end_col else span[-1]
    span[0] = span[0][b.col:]
    text = " ".join(line.decode("utf-8", "replace").strip() for line in span)
    value = text.partition("=")[2].strip() or text
    try:
        ast.literal_eval(value)
        literal = True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        literal = False
    value = value[:57] + "..." if len(value) > 60 else value
    return value, Held(f"{value} (line {b.line})", literal)


def describe(target: Target) -> str:
    """What a name holds that is not a repository definition, in a few words."""
    from graphguard.languages.python.targets import LIMIT_REASONS, Data, Ext, Inst, Limit, Mod, OneOf, Partial, Sym

    if isinstance(target, Ext):
        return target.name.removeprefix("builtins.")
    if isinstance(target, Data):
        return target.qualname
    if isinstance(target, Inst):
        return f"an instance of {target.cls.qualname}"
    if isinstance(target, Mod):
        return f"the module {target.name}"
    if isinstance(target, Partial):
        return f"a functools.partial of {target.func.qualname}"
    if isinstance(target, OneOf):
        return "one of " + ", ".join(o.qualname if isinstance(o, Sym) else describe(o) for o in target.options)
    if isinstance(target, Limit):
        return f"a value not followed ({LIMIT_REASONS[target.resolution.value]})"
    return "a value graphguard does not follow"
