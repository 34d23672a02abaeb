"""`[tool.graphguard]` in pyproject.toml, or `.graphguard.toml` -> a frozen Config.

Every field error is reported at once, in one line naming the keys.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

from graphguard import codes, output
from graphguard.errors import GraphguardError
from graphguard.languages.python.modules import DEFAULT_TEST_DATA, is_test_data
from graphguard.result import FileWarning, block_on_values

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_TESTS = ("**/test_*.py", "**/*_test.py", "**/conftest.py", "**/tests/**", "**/test/**",
                 # TypeScript/JavaScript: what vitest, jest and mocha collect by default.
                 "**/*.test.*", "**/*.spec.*", "**/__tests__/**")


class Globs:
    """Path globs with git's wildmatch rules: `**` spans folders, `*` and `?` stay inside one.

    Each pattern is anchored at the repository root (`*.py` is a top-level file), as a
    leading `/` does in .gitignore. pathspec matches in linear time; a hand-made regex
    with one `.*` per `**` backtracked exponentially on deep paths.
    """

    def __init__(self, patterns: tuple[str, ...]):
        self.patterns = patterns
        self._spec = None
        # The default test globs are matched by hand: the check of a signature change asks them,
        # and pathspec costs 13 ms of import (tests/test_config.py holds the two to the same answers).
        self._default_tests = patterns == DEFAULT_TESTS
        if patterns and not self._default_tests:
            import pathspec

            self._spec = pathspec.GitIgnoreSpec.from_lines([_anchored(p) for p in patterns])

    def __call__(self, path: str) -> bool:
        if self._default_tests:
            return is_default_test(path)
        return self._spec is not None and self._spec.match_file(path)


def is_default_test(path: str) -> bool:
    """DEFAULT_TESTS: `**/test_*.py`, `**/*_test.py`, `**/conftest.py`, `**/tests/**`, `**/test/**`, `**/*.test.*`,
    `**/*.spec.*`, `**/__tests__/**`."""
    # As in .gitignore, a pattern that names a folder takes everything under it: every part counts.
    *folders, name = path.split("/")
    return "tests" in folders or "test" in folders or "__tests__" in folders or any(
        part.endswith(".py") and (part.startswith("test_") or part.endswith("_test.py") or part == "conftest.py")
        or ".test." in part or ".spec." in part for part in (*folders, name))


def _anchored(pattern: str) -> str:
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    return ("!" if negated else "") + "/" + body.lstrip("/")


@dataclass(frozen=True)
class Config:
    # Change kinds or codes that block on their own ("removed", "param-removed"); a list set replaces this one.
    block_on: tuple[str, ...] = ("syntax-error",)
    exclude: tuple[str, ...] = ()  # never indexed
    generated: tuple[str, ...] = ()  # indexed and traversed, never reported as callers to fix
    tests: tuple[str, ...] = DEFAULT_TESTS
    public_api: tuple[str, ...] = ()  # packages whose names have callers outside the repository
    # Folders of test data (matched at any depth; `**` spans folders): never import roots, so a case named like a
    # stdlib module does not shadow it. A list set replaces the default; [] has none.
    test_data: tuple[str, ...] = DEFAULT_TEST_DATA
    fail_on_unknown: bool = False
    # Fit the retrieval profile to the repository's history after a cold index and every REFIT_AFTER commits
    # (up to fitting.SECONDS of CPU in the detached refresher); false keeps the default profile.
    retrieval_fit: bool = True
    source: str = ""  # where it was read from
    warnings: tuple[FileWarning, ...] = ()  # what was not read and why (a broken pyproject.toml): for the reports

    @cached_property
    def is_excluded(self) -> Globs:
        return Globs(self.exclude)

    @cached_property
    def is_generated(self) -> Globs:
        return Globs(self.generated)

    @cached_property
    def is_test(self) -> Globs:
        return Globs(self.tests)

    def is_test_data(self, path: str) -> bool:
        """Under a folder of test data (`test_data`): fixtures, cases, samples."""
        return is_test_data(path, self.test_data)

    def is_public(self, qualname: str) -> bool:
        return any(qualname == p or qualname.startswith(p + ".") for p in self.public_api)

    def digest(self) -> str:
        """What changes the stored graph (the others only change reports)."""
        # test_data only when set: a graph built before the key existed, with the default, stays current.
        data = () if self.test_data == DEFAULT_TEST_DATA else (self.test_data,)
        return repr((self.exclude, self.tests, *data))


_LISTS = {"block_on", "exclude", "generated", "tests", "public_api", "test_data"}
_BOOLS = {"fail_on_unknown", "retrieval_fit"}
_NAMES = sorted(f.name for f in fields(Config) if f.name not in ("source", "warnings"))
_KEYS = {n.replace("_", "-") for n in _NAMES} | set(_NAMES)


def parse(table: dict[str, Any], source: str) -> Config:
    errors: list[str] = []
    values: dict[str, Any] = {}
    spelt: dict[str, str] = {}  # normalised name -> the key that set it
    for key, value in table.items():
        name = key.replace("-", "_")
        if name in spelt:
            # TOML sees two keys; either winning silently would drop what the other says.
            errors.append(f"'{spelt[name]}' and '{key}' are the same key: keep one")
            continue
        spelt[name] = key
        if key not in _KEYS:
            errors.append(f"unknown key '{key}'" + _did_you_mean(key))
        elif name in _LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                errors.append(f"'{key}' must be a list of strings")
            else:
                values[name] = tuple(value)
                if name == "block_on":
                    errors += _unknown_block_on(key, value)
                elif name == "test_data":
                    errors += _bad_folders(key, value)
        elif name in _BOOLS and not isinstance(value, bool):
            errors.append(f"'{key}' must be true or false")
        else:
            values[name] = value
    if errors:
        raise GraphguardError(f"{source}: " + "; ".join(errors))
    return Config(**values, source=source)


def _did_you_mean(key: str) -> str:
    import difflib  # only on this error path

    close = difflib.get_close_matches(key.replace("-", "_"), _NAMES, n=1)
    return f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(_NAMES)})"


def _own_table(data: dict[str, Any], name: str) -> tuple[dict[str, Any], str]:
    """The keys of `.graphguard.toml`: at its top level, or under `[tool.graphguard]` as in pyproject.toml.

    A block copied from pyproject.toml (the README shows one) is taken as it is. Anything
    else under `tool` is an error that says what to write, never silently the defaults.
    """
    tool = data.get("tool")
    if tool is None:
        if isinstance(data.get("graphguard"), dict):
            raise GraphguardError(f"{name}: write the keys at the top level or under [tool.graphguard], not under [graphguard]")
        return data, name
    table = tool.get("graphguard") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise GraphguardError(f"{name}: write the keys at the top level (block_on = [...]) or under [tool.graphguard]")
    where = f"{name} [tool.graphguard]"
    others = [f"[tool.{k}]" for k in tool if k != "graphguard"] + [f"'{k}'" for k in data if k != "tool"]
    if others:
        raise GraphguardError(f"{where}: {', '.join(others)} outside [tool.graphguard]: write every key in one place,"
                              " at the top level or under [tool.graphguard]")
    return table, where


def _unknown_block_on(key: str, values: list[str]) -> list[str]:
    known = block_on_values()
    unknown = [v for v in values if not codes.known(v)]
    if not unknown:
        return []
    return [f"'{key}' has unknown {', '.join(repr(v) for v in unknown)} (known: {', '.join(sorted(known))})"]


def _bad_folders(key: str, values: list[str]) -> list[str]:
    """Folder patterns are relative and name a folder: not empty, no leading slash, no `..`."""
    bad = [v for v in values if not v.strip("/") or v.startswith("/") or ".." in v.split("/")]
    return [f"'{key}' has {', '.join(repr(v) for v in bad)}: write folder names or paths such as \"fixtures\" or \"tests/data\""] if bad else []


def load(root: str) -> Config:
    """The repository's configuration: `.graphguard.toml` (its top level or its `[tool.graphguard]`),
    else `[tool.graphguard]` in pyproject.toml.

    A `.graphguard.toml` that is not valid TOML is an error; a pyproject.toml that is not is a
    warning carried by the Config (the defaults apply): it is everyone's file, and a broken one
    must not stop a commit, nor drop our table without a word."""
    for name in (".graphguard.toml", "pyproject.toml"):
        raw = _read_config_file(root, name)
        if raw is None:
            continue
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            where = _decode_error(raw, e)
            if name == "pyproject.toml":
                return Config(warnings=(FileWarning(name, f"not valid TOML ({where}): [tool.graphguard] not read;"
                                                          " the defaults apply"),))
            raise GraphguardError(f"{name}: not valid TOML ({where})") from None
        if name == ".graphguard.toml":
            return parse(*_own_table(data, name))
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise GraphguardError(f"{name}: 'tool' must be a table")
        table = tool.get("graphguard")
        if table is None:
            continue
        if not isinstance(table, dict):
            raise GraphguardError(f"{name}: [tool.graphguard] must be a table")
        return parse(table, f"{name} [tool.graphguard]")
    return Config()


_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$|\s*\(at end of document\)$")


NEWLINE = b"\n"


def _decode_error(raw: bytes, e: tomllib.TOMLDecodeError | UnicodeDecodeError) -> str:
    """Where and what: "line 3, column 7: Expected ']' at the end of an array declaration"."""
    if isinstance(e, UnicodeDecodeError):
        line = raw[:e.start].count(NEWLINE) + 1
        return f"line {line}: not UTF-8"
    # Python 3.14 gives the position as attributes; before, only inside the message.
    first = str(e).splitlines()[0] if str(e) else "invalid"
    lineno, colno = getattr(e, "lineno", None), getattr(e, "colno", None)
    at = _AT.search(first)
    message = getattr(e, "msg", None) or (first[:at.start()] if at else first)
    if lineno is None and at is not None and at.group(1):
        lineno, colno = int(at.group(1)), int(at.group(2))
    if lineno is None:
        return f"line {raw.count(NEWLINE) + 1}, the end of the file: {message}"
    return f"line {lineno}" + (f", column {colno}" if colno else "") + f": {message}"


def _read_config_file(root: str, name: str) -> bytes | None:
    """The bytes of a configuration file at the root; None when absent or not a regular file.

    A symlink is not followed (it may point outside the repository, whose content is
    then not the repository's to configure), nor is a FIFO opened (it would block).
    """
    path = os.path.join(root, name)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if not stat.S_ISREG(mode):
        output.warn(f"{name} is {'a symlink' if stat.S_ISLNK(mode) else 'not a regular file'}; ignored")
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise GraphguardError(f"{name}: cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # replaced since the lstat
            return None
        return f.read()
