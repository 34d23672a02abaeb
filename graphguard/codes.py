"""The codes a user can name: in `block_on`, in `# graphguard: ignore[CODE,...]`, in docs/contract.md.

One table, read by everything that names a code: result (the change kinds, which codes never
break a caller), config (`block_on` validation), check/suppress (the inline ignore), `check
--explain` and the contract document (a test keeps it in step). A code in a report is a `Code`:
a name and, for most, a detail (`param-removed:at`); only the name is looked up here.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Self

from graphguard.model import WireEnum


class CodeKind(enum.Enum):
    CHANGE = "change"  # what happened to a definition: a report entry's `change`
    SIGNATURE = "signature"  # one difference between its old and new signature: an entry of `breaking`


class CodeName(WireEnum):
    REMOVED = "removed"
    RENAMED = "renamed"
    MOVED = "moved"
    SIGNATURE = "signature"
    SYNTAX_ERROR = "syntax-error"
    NEW_CALLS = "new-calls"
    RESOLUTION = "resolution"
    OPTIONAL_PARAM_ADDED = "optional-param-added"
    DEFAULT_ADDED = "default-added"
    PARAM_ANNOTATION_CHANGED = "param-annotation-changed"
    RETURN_ANNOTATION_CHANGED = "return-annotation-changed"
    KIND_CHANGED = "kind-changed"
    CONSTRUCTOR_INHERITED = "constructor-inherited"
    CONSTRUCTOR_DEFINED = "constructor-defined"
    BECAME_ASYNC = "became-async"
    BECAME_SYNC = "became-sync"
    DECORATOR_CHANGED = "decorator-changed"
    PARAM_RENAMED = "param-renamed"
    PARAM_REMOVED = "param-removed"
    REQUIRED_PARAM_ADDED = "required-param-added"
    PARAM_KIND_CHANGED = "param-kind-changed"
    DEFAULT_REMOVED = "default-removed"
    PARAMS_REORDERED = "params-reordered"
    PARAM_POSITION_CHANGED = "param-position-changed"
    OLD_VERSION_UNPARSABLE = "old-version-unparsable"
    # TypeScript/JavaScript (languages/typescript/sigdiff)
    EXPORT_REMOVED = "export-removed"
    EXPORT_RENAMED = "export-renamed"
    DEFAULT_EXPORT_CHANGED = "default-export-changed"
    ACCESSOR_CHANGED = "accessor-changed"
    STATIC_CHANGED = "static-changed"
    OVERLOADS_CHANGED = "overloads-changed"
    REQUIRED_PROPERTY_ADDED = "required-property-added"
    PROPERTY_MADE_REQUIRED = "property-made-required"
    PROPERTY_REMOVED = "property-removed"


class Code(str):
    """One code of a change: its name and, for most, what it is about (`param-removed:at`: the parameter `at`).

    The text `name:param` (or `name`) is what the reports and JSON print, so a code is that
    string too, as a `WireEnum` member is its value: a record built from the wire strings (a
    stored answer, a test) compares the same. The parts are read from `name` and `param`.
    """

    name: CodeName
    param: str | None

    def __new__(cls, name: CodeName, param: str | None = None) -> Self:
        self = super().__new__(cls, name.value if param is None else f"{name.value}:{param}")
        self.name, self.param = name, param
        return self

    def __getnewargs__(self) -> tuple[CodeName, str | None]:  # type: ignore[override]
        return self.name, self.param

    @classmethod
    def of(cls, text: str) -> Code:
        """`param-removed:at` -> Code(PARAM_REMOVED, "at"); a Code as it is. ValueError for a name not in the table."""
        if isinstance(text, Code):
            return text
        name, colon, param = text.partition(":")
        return cls(CodeName(name), param if colon else None)

    @property
    def info(self) -> CodeInfo:
        return BY_NAME[self.name]


class CodeInfo(NamedTuple):
    name: CodeName
    kind: CodeKind
    explanation: str  # one line, for the contract document and `check --explain`
    informational: bool = False  # never breaks a caller on its own


TABLE: tuple[CodeInfo, ...] = (
    CodeInfo(CodeName.REMOVED, CodeKind.CHANGE, "the definition is gone: its imports, calls and references fail"),
    CodeInfo(CodeName.RENAMED, CodeKind.CHANGE, "the definition has a new name in the same module: uses of the old name fail"),
    CodeInfo(CodeName.MOVED, CodeKind.CHANGE, "the definition went to another module: imports from the old one fail"),
    CodeInfo(CodeName.SIGNATURE, CodeKind.CHANGE, "the signature changed: each call is bound to the new one"),
    CodeInfo(CodeName.SYNTAX_ERROR, CodeKind.CHANGE, "the file's new version does not parse: importing it fails"),
    CodeInfo(CodeName.NEW_CALLS, CodeKind.CHANGE, "the definition did not change, but calls written in this change do not bind to it"),
    CodeInfo(CodeName.RESOLUTION, CodeKind.CHANGE,
             "a config of module resolution changed (`resolution:tsconfig.json`): TS/JS imports that reached a file lead elsewhere now"),
    CodeInfo(CodeName.OPTIONAL_PARAM_ADDED, CodeKind.SIGNATURE, "a parameter with a default was added", informational=True),
    CodeInfo(CodeName.DEFAULT_ADDED, CodeKind.SIGNATURE, "a parameter gained a default", informational=True),
    CodeInfo(CodeName.PARAM_ANNOTATION_CHANGED, CodeKind.SIGNATURE, "a parameter's annotation changed", informational=True),
    CodeInfo(CodeName.RETURN_ANNOTATION_CHANGED, CodeKind.SIGNATURE, "the return annotation changed", informational=True),
    CodeInfo(CodeName.KIND_CHANGED, CodeKind.SIGNATURE, "a function became a class or the other way round (`kind-changed:function->class`)"),
    CodeInfo(CodeName.CONSTRUCTOR_INHERITED, CodeKind.SIGNATURE, "a class's own `__init__` was dropped: the constructor is inherited now"),
    CodeInfo(CodeName.CONSTRUCTOR_DEFINED, CodeKind.SIGNATURE, "a class that inherited its constructor defines its own `__init__` now"),
    CodeInfo(CodeName.BECAME_ASYNC, CodeKind.SIGNATURE, "the function is `async` now: its calls must be awaited"),
    CodeInfo(CodeName.BECAME_SYNC, CodeKind.SIGNATURE, "the function is no longer `async`: awaiting its result fails"),
    CodeInfo(CodeName.DECORATOR_CHANGED, CodeKind.SIGNATURE, "a decorator that can change the signature callers meet was added or removed"),
    CodeInfo(CodeName.PARAM_RENAMED, CodeKind.SIGNATURE, "a parameter has a new name: calls passing the old keyword fail"),
    CodeInfo(CodeName.PARAM_REMOVED, CodeKind.SIGNATURE, "a parameter was removed: calls passing it fail"),
    CodeInfo(CodeName.REQUIRED_PARAM_ADDED, CodeKind.SIGNATURE, "a parameter without a default was added: calls that do not pass it fail"),
    CodeInfo(CodeName.PARAM_KIND_CHANGED, CodeKind.SIGNATURE, "a parameter became positional-only or keyword-only (or the reverse)"),
    CodeInfo(CodeName.DEFAULT_REMOVED, CodeKind.SIGNATURE, "a parameter lost its default: calls that left it out fail"),
    CodeInfo(CodeName.PARAMS_REORDERED, CodeKind.SIGNATURE, "positional parameters changed order: positional arguments land elsewhere"),
    CodeInfo(CodeName.PARAM_POSITION_CHANGED, CodeKind.SIGNATURE, "a parameter moved among the positional ones"),
    CodeInfo(CodeName.OLD_VERSION_UNPARSABLE, CodeKind.SIGNATURE, "the file's old version did not parse: the old signature is unknown"),
    CodeInfo(CodeName.EXPORT_REMOVED, CodeKind.SIGNATURE, "TS/JS: the definition is no longer exported: imports from other files fail, its own file's calls still bind"),
    CodeInfo(CodeName.EXPORT_RENAMED, CodeKind.SIGNATURE, "TS/JS: the definition is exported under another name (`export-renamed:old->new`): imports of the old name fail"),
    CodeInfo(CodeName.DEFAULT_EXPORT_CHANGED, CodeKind.SIGNATURE, "TS/JS: the default export names another definition: default imports get that one, and their calls are bound to it"),
    CodeInfo(CodeName.ACCESSOR_CHANGED, CodeKind.SIGNATURE, "TS/JS: a method became a getter or setter, or the reverse (`accessor-changed:method->getter`): calls of it, or reads, fail"),
    CodeInfo(CodeName.STATIC_CHANGED, CodeKind.SIGNATURE, "TS/JS: a method became static, or an instance method: calls through an instance (or the class) fail"),
    CodeInfo(CodeName.OVERLOADS_CHANGED, CodeKind.SIGNATURE, "TS/JS: the overload signatures changed (`overloads-changed:2->3`): a call breaks when no overload accepts it"),
    CodeInfo(CodeName.REQUIRED_PROPERTY_ADDED, CodeKind.SIGNATURE, "TS/JS: a destructured object parameter's type gained a required property (`required-property-added:0.tz`): object literals without it fail"),
    CodeInfo(CodeName.PROPERTY_MADE_REQUIRED, CodeKind.SIGNATURE, "TS/JS: an optional property of a destructured object parameter is required now: object literals without it fail"),
    CodeInfo(CodeName.PROPERTY_REMOVED, CodeKind.SIGNATURE, "TS/JS: a destructured object parameter's type lost a property: object literals passing it fail the excess property check"),
)

BY_NAME: dict[CodeName, CodeInfo] = {c.name: c for c in TABLE}


def name_of(text: str) -> CodeName | None:
    """The name of a code, or of one written by a user (`block_on`, an inline ignore, `--explain`): `param-removed:at` -> PARAM_REMOVED."""
    if isinstance(text, Code):
        return text.name
    try:
        return CodeName(text.partition(":")[0])
    except ValueError:
        return None


def known(text: str) -> bool:
    return name_of(text) is not None


def explain(code: str, *, default_block_on: tuple[str, ...]) -> str | None:
    """What `graphguard check --explain CODE` prints: the code's meaning, when it blocks, how to silence it."""
    named = name_of(code)
    if named is None:
        return None
    found = BY_NAME[named]
    name = found.name.value
    shown = f"`{name}:NAME` (or `{name}`) in a change's `breaking`" if found.kind is CodeKind.SIGNATURE else f"a change's `change`: `{name}`"
    if found.informational:
        blocks = "never on its own: every call that bound still binds"
    else:
        blocks = "when a caller no longer binds (a `broken` caller)"
    blocks += "; on its own, " + ("by default (`block_on`)" if name in default_block_on else "only when `block_on` names it")
    if found.name is CodeName.RESOLUTION:  # a config file holds no definition line to accept it on
        return "\n".join([f"{name} ({found.kind.value} code): {found.explanation}", f"  reported as: {shown}", f"  blocks: {blocks}",
                          "  accept the change: point the imports listed as `broken` at where their files are now"])
    return "\n".join([
        f"{name} ({found.kind.value} code): {found.explanation}",
        f"  reported as: {shown}",
        f"  blocks: {blocks}",
        f"  accept the change: `# graphguard: ignore[{name}]` on the definition's line" if found.name is not CodeName.SYNTAX_ERROR else
        "  accept the change: a `block_on` without `syntax-error` lets the file through with a warning",
        f"  silence one site: `# graphguard: ignore[{name}]` on a line of the call or import (docs/contract.md)",
    ])
