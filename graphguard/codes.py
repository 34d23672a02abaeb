"""The codes a user can name: in `block_on`, in `# graphguard: ignore[CODE,...]`, in docs/contract.md.

One table, read by everything that names a code: result (the change kinds, which codes never
break a caller), config (`block_on` validation), check/suppress (the inline ignore) and the
contract document (a test keeps it in step). A code in a report is "name" or "name:detail"
(`param-removed:at`); only the name is looked up here.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class CodeKind(enum.Enum):
    CHANGE = "change"  # what happened to a definition: a report entry's `change`
    SIGNATURE = "signature"  # one difference between its old and new signature: an entry of `breaking`


class Code(NamedTuple):
    name: str
    kind: CodeKind
    explanation: str  # one line, for the contract document (and `check --explain` one day)
    informational: bool = False  # never breaks a caller on its own


TABLE: tuple[Code, ...] = (
    Code("removed", CodeKind.CHANGE, "the definition is gone: its imports, calls and references fail"),
    Code("renamed", CodeKind.CHANGE, "the definition has a new name in the same module: uses of the old name fail"),
    Code("moved", CodeKind.CHANGE, "the definition went to another module: imports from the old one fail"),
    Code("signature", CodeKind.CHANGE, "the signature changed: each call is bound to the new one"),
    Code("syntax-error", CodeKind.CHANGE, "the file's new version does not parse: importing it fails"),
    Code("new-calls", CodeKind.CHANGE, "the definition did not change, but calls written in this change do not bind to it"),
    Code("optional-param-added", CodeKind.SIGNATURE, "a parameter with a default was added", informational=True),
    Code("default-added", CodeKind.SIGNATURE, "a parameter gained a default", informational=True),
    Code("param-annotation-changed", CodeKind.SIGNATURE, "a parameter's annotation changed", informational=True),
    Code("return-annotation-changed", CodeKind.SIGNATURE, "the return annotation changed", informational=True),
    Code("kind-changed", CodeKind.SIGNATURE, "a function became a class or the other way round (`kind-changed:function->class`)"),
    Code("constructor-inherited", CodeKind.SIGNATURE, "a class's own `__init__` was dropped: the constructor is inherited now"),
    Code("constructor-defined", CodeKind.SIGNATURE, "a class that inherited its constructor defines its own `__init__` now"),
    Code("became-async", CodeKind.SIGNATURE, "the function is `async` now: its calls must be awaited"),
    Code("became-sync", CodeKind.SIGNATURE, "the function is no longer `async`: awaiting its result fails"),
    Code("decorator-changed", CodeKind.SIGNATURE, "a decorator that can change the signature callers meet was added or removed"),
    Code("param-renamed", CodeKind.SIGNATURE, "a parameter has a new name: calls passing the old keyword fail"),
    Code("param-removed", CodeKind.SIGNATURE, "a parameter was removed: calls passing it fail"),
    Code("required-param-added", CodeKind.SIGNATURE, "a parameter without a default was added: calls that do not pass it fail"),
    Code("param-kind-changed", CodeKind.SIGNATURE, "a parameter became positional-only or keyword-only (or the reverse)"),
    Code("default-removed", CodeKind.SIGNATURE, "a parameter lost its default: calls that left it out fail"),
    Code("params-reordered", CodeKind.SIGNATURE, "positional parameters changed order: positional arguments land elsewhere"),
    Code("param-position-changed", CodeKind.SIGNATURE, "a parameter moved among the positional ones"),
    Code("old-version-unparsable", CodeKind.SIGNATURE, "the file's old version did not parse: the old signature is unknown"),
)

BY_NAME: dict[str, Code] = {c.name: c for c in TABLE}


def name_of(code: str) -> str:
    """`param-removed:at` -> `param-removed`."""
    return code.partition(":")[0]


def known(code: str) -> bool:
    return name_of(code) in BY_NAME


def explain(code: str, *, default_block_on: tuple[str, ...]) -> str | None:
    """What `graphguard check --explain CODE` prints: the code's meaning, when it blocks, how to silence it."""
    found = BY_NAME.get(name_of(code))
    if found is None:
        return None
    name = found.name
    shown = f"`{name}:NAME` (or `{name}`) in a change's `breaking`" if found.kind is CodeKind.SIGNATURE else f"a change's `change`: `{name}`"
    if found.informational:
        blocks = "never on its own: every call that bound still binds"
    else:
        blocks = "when a caller no longer binds (a `broken` caller)"
    blocks += "; on its own, " + ("by default (`block_on`)" if name in default_block_on else "only when `block_on` names it")
    return "\n".join([
        f"{name} ({found.kind.value} code): {found.explanation}",
        f"  reported as: {shown}",
        f"  blocks: {blocks}",
        f"  accept the change: `# graphguard: ignore[{name}]` on the definition's line" if name != "syntax-error" else
        "  accept the change: a `block_on` without `syntax-error` lets the file through with a warning",
        f"  silence one site: `# graphguard: ignore[{name}]` on a line of the call or import (docs/contract.md)",
    ])
