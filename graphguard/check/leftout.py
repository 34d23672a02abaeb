"""What the configuration left out of a check, said as warnings in the report.

`exclude` or `generated` patterns that cover every changed file, or every use of a changed
definition, would otherwise read as a clean pass ("all callers bind") when nothing was checked.
Pure: paths and patterns in, warnings out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from graphguard.config import Config, Globs
from graphguard.result import FileWarning

#: Definitions named in one warning; the rest are counted.
_NAMED = 3


def excluded_changes(config: Config, excluded: Sequence[str], checked: Sequence[str]) -> list[FileWarning]:
    """Every changed Python file is excluded: the check looked at nothing."""
    if not excluded or checked:
        return []
    return [_warning(config, "exclude", excluded, f"covers every changed Python file ({len(excluded)}): none was checked")]


def generated_changes(config: Config, checked: Sequence[str]) -> list[FileWarning]:
    """Every changed Python file is generated: calls written in them are not checked."""
    if not config.generated or not checked or not all(config.is_generated(p) for p in checked):
        return []
    return [_warning(config, "generated", checked, f"covers every changed Python file ({len(checked)}):"
                                                   " calls written in them are not checked")]


def generated_uses(config: Config, left_out: Mapping[str, Sequence[str]]) -> list[FileWarning]:
    """Changed definitions (qualname -> the files of their uses) whose every use is in a generated file."""
    if not left_out:
        return []
    files = sorted({p for paths in left_out.values() for p in paths})
    names = sorted(left_out)
    named = ", ".join(names[:_NAMED]) + (f" (+{len(names) - _NAMED} more)" if len(names) > _NAMED else "")
    return [_warning(config, "generated", files, f"covers every use of {named} ({len(files)} file{'s' * (len(files) != 1)}):"
                                                 " no caller was checked")]


def _warning(config: Config, key: str, paths: Sequence[str], what: str) -> FileWarning:
    patterns = _matching(config.exclude if key == "exclude" else config.generated, paths)
    return FileWarning(config.source.partition(" ")[0] or "configuration", f"{key} = {json.dumps(patterns)} {what}")


def _matching(patterns: Iterable[str], paths: Sequence[str]) -> list[str]:
    """The patterns that match one of `paths` by themselves; all of them when none does (negations at work)."""
    patterns = list(patterns)
    own = [p for p in patterns if not p.startswith("!") and any(map(Globs((p,)), paths))]
    return own or patterns
