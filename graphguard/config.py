"""`[tool.graphguard]` in pyproject.toml, or `.graphguard.toml` -> a frozen Config.

Every field error is reported at once, in one line naming the keys.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

from graphguard.errors import GraphguardError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_TESTS = ("**/test_*.py", "**/*_test.py", "**/conftest.py", "**/tests/**", "**/test/**")


def glob_regex(pattern: str) -> str:
    """A path glob as a regex: `**` spans folders, `*` and `?` stay inside one."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        i += 1
    return "".join(out)


class Globs:
    def __init__(self, patterns: tuple[str, ...]):
        self.patterns = patterns
        self._re = re.compile("|".join(f"(?:{glob_regex(p)})" for p in patterns)) if patterns else None

    def __call__(self, path: str) -> bool:
        return bool(self._re and self._re.fullmatch(path))


@dataclass(frozen=True)
class Config:
    # Change kinds or codes that block on their own ("removed", "param-removed"); a list set replaces this one.
    block_on: tuple[str, ...] = ("syntax-error",)
    exclude: tuple[str, ...] = ()  # never indexed
    generated: tuple[str, ...] = ()  # indexed and traversed, never reported as callers to fix
    tests: tuple[str, ...] = DEFAULT_TESTS
    public_api: tuple[str, ...] = ()  # packages whose names have callers outside the repository
    fail_on_unknown: bool = False
    source: str = ""  # where it was read from

    @cached_property
    def is_excluded(self) -> Globs:
        return Globs(self.exclude)

    @cached_property
    def is_generated(self) -> Globs:
        return Globs(self.generated)

    @cached_property
    def is_test(self) -> Globs:
        return Globs(self.tests)

    def is_public(self, qualname: str) -> bool:
        return any(qualname == p or qualname.startswith(p + ".") for p in self.public_api)

    def digest(self) -> str:
        """What changes the stored graph (the others only change reports)."""
        return repr((self.exclude, self.tests))


_LISTS = {"block_on", "exclude", "generated", "tests", "public_api"}
_KEYS = {f.name.replace("_", "-") for f in fields(Config) if f.name != "source"} | {f.name for f in fields(Config) if f.name != "source"}


def parse(table: dict[str, Any], source: str) -> Config:
    errors: list[str] = []
    values: dict[str, Any] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if key not in _KEYS:
            errors.append(f"unknown key '{key}'")
        elif name in _LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                errors.append(f"'{key}' must be a list of strings")
            else:
                values[name] = tuple(value)
        elif name == "fail_on_unknown" and not isinstance(value, bool):
            errors.append(f"'{key}' must be true or false")
        else:
            values[name] = value
    if errors:
        raise GraphguardError(f"{source}: " + "; ".join(errors))
    return Config(**values, source=source)


def load(root: str) -> Config:
    """The repository's configuration: `.graphguard.toml`, else `[tool.graphguard]` in pyproject.toml."""
    for name, table_of in ((".graphguard.toml", lambda d: d), ("pyproject.toml", lambda d: d.get("tool", {}).get("graphguard"))):
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            if name == "pyproject.toml":
                # Someone else's broken file must not stop a commit; ours must be right.
                continue
            raise GraphguardError(f"{name}: not valid TOML: {e}") from None
        table = table_of(data)
        if table is None:
            continue
        if not isinstance(table, dict):
            raise GraphguardError(f"{name}: [tool.graphguard] must be a table")
        return parse(table, f"{name} [tool.graphguard]" if name == "pyproject.toml" else name)
    return Config()
