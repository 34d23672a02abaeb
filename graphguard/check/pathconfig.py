"""A change of the config files of module resolution (tsconfig.json `paths`, package.json `exports`, ...): the imports
of the unchanged TS/JS files, resolved again against the new tree, against the stored graph's. Pure.

An import that reached a file of the repository before and reaches none now is broken (its names, and every call
through them, fail); one that reaches another file now is judged by its names: a name that file does not export is
broken, else the import is ok and says where it leads now. Imports that did not reach a file before are not this
change's to blame. The entry is one per check: `change: resolution`, its symbol and path the first changed config.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from graphguard.codes import Code, CodeName
from graphguard.model import Resolution, UseKind
from graphguard.resolved import FileResolution
from graphguard.result import CallerImpact, ChangeKind, Status, SymbolImpact

#: A stored import row as `CodeGraph.import_rows` gives it: (path, line, specifier, name, status, target, form, category).
Row = tuple[str, int, str, "str | None", str, "str | None", "str | None", "str | None"]


def assess(configs: Sequence[str], rows: Iterable[Row], fresh: Mapping[str, FileResolution]) -> list[SymbolImpact]:
    """The `resolution` entry of the changed `configs`, when an import of an unchanged file (`fresh`) now leads elsewhere."""
    callers = sorted((c for row in rows if row[0] in fresh and (c := _judge(row, fresh[row[0]])) is not None),
                     key=lambda c: (c.status is not Status.BROKEN, c.path, c.line))
    if not callers:
        return []
    first = configs[0]
    codes = tuple(Code(CodeName.RESOLUTION, c) for c in configs)
    return [SymbolImpact(first, first, 1, ChangeKind.RESOLUTION, codes, None, None, tuple(callers))]


def _judge(row: Row, now: FileResolution) -> CallerImpact | None:
    path, line, specifier, name, _status, before, _form, _category = row
    if before is None:
        return None  # it reached no file of the repository before: not this change's to blame
    same = [r for r in now.imports if r.line == line and r.module == specifier and r.name == name]
    after = same[0].target_path if same else None
    scope = same[0].scope if same else path

    def impact(status: Status, reason: str) -> CallerImpact:
        return CallerImpact(path, line, line, scope, status, reason, UseKind.IMPORT, Resolution.EXACT if after else Resolution.UNRESOLVED)

    if after == before:
        return None
    if after is None:
        return impact(Status.BROKEN, f"'{specifier}' resolved to {before} before this change, and to no file of the repository now")
    reached = name in (None, "*") or any(s.kind is UseKind.IMPORT and s.line == line and s.text == name and s.target is not None
                                         for s in now.sites)
    if not reached:
        return impact(Status.BROKEN, f"'{specifier}' resolves to {after} now (was {before}), which exports no '{name}'")
    return impact(Status.OK, f"'{specifier}' resolves to {after} now (was {before})")
