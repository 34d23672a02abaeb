"""What resolution found in one file, as the graph stores and answers it: the sites (one use of a name at a place
and what it reaches), the import rows and where each leads, a file's resolution, and the `Use` the graph's reads give.

Apart from `model` (the facts of a blob, which hold no path) because these rows do: they name files and full
qualnames of one commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.model import NO_CALL, CallShape, Resolution, UseKind, WireEnum


@dataclass(frozen=True)
class Use:
    """One use of a symbol at a place in a file: what the graph's reads return, and what impact's
    `Found` holds (it adds how the use reaches a changed definition)."""

    path: str
    line: int
    end_line: int
    col: int
    caller: str  # enclosing definition (or module)
    kind: UseKind
    text: str  # as written
    resolution: Resolution  # exact | partial | by-name | by-name-weak | candidate | too-deep | too-long ...
    shape: CallShape = NO_CALL
    via_init: bool = False  # an instantiation that runs this __init__ (the stored graph's init edge)


class Site(NamedTuple):
    """A row of the graph: one use of a name at a place, and what it reaches."""

    kind: UseKind
    scope: str  # full qualname of the enclosing definition, or the module name
    text: str  # the callee chain / referenced name as written
    name: str  # its last name: what a by-name query matches
    resolution: Resolution
    target: str | None  # full qualname
    target_path: str | None
    init_target: str | None  # for instantiation: the __init__ that runs
    line: int
    end_line: int
    col: int = 0
    end_col: int = 0
    shape: CallShape = NO_CALL


class ImportStatus(WireEnum):
    """Where an import leads (the `imports.status` column)."""

    INTERNAL = "internal"  # a module of this repository
    EXTERNAL = "external"  # stdlib, third-party or builtins
    UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class ImportRow:
    line: int
    module: str  # absolute module name as imported (relative ones made absolute)
    name: str | None
    status: ImportStatus
    target_path: str | None
    scope: str
    type_checking: bool
    # TypeScript/JavaScript: how the statement imports (static, type-only, require, ...) and where its specifier led
    # (relative, paths, workspace, package, builtin, missing, ...); None for Python's rows.
    form: str | None = None
    category: str | None = None


@dataclass
class FileResolution:
    path: str
    module: str
    sites: list[Site] = field(default_factory=list)
    imports: list[ImportRow] = field(default_factory=list)
    # imported file -> distinct symbols of it this file uses
    uses: dict[str, set[str]] = field(default_factory=dict)
