"""Globs of tsconfig `include`/`exclude` and of workspace package lists: pure.

tsconfig: `*` matches within one path segment, `?` one character, `**/` any run of folders (not those whose name
starts with a dot, nor node_modules); a wildcard does not match a leading dot; a pattern whose last segment has
no wildcard and no extension names a folder (everything below it). Workspaces (`packages/*`,
`apps/**`, `!excluded`) name folders the same way.
"""

from __future__ import annotations

import functools
import posixpath
import re


def _regex(glob: str, *, folder_suffix: bool) -> re.Pattern[str]:
    out = []
    parts = glob.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":  # as tsc: no folder whose name starts with a dot, no node_modules and its kin
            out.append(r"(?:(?!(?:node_modules|bower_components|jspm_packages)/)[^/.][^/]*/)*" if not last else ".*")
            continue
        piece = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
        lead = r"(?!\.)" if part[:1] in ("*", "?") else ""  # a wildcard does not match a leading dot
        out.append(lead + piece + ("" if last else "/"))
    body = "".join(out)
    if folder_suffix:
        body += "(?:/.*)?"
    return re.compile(body + r"\Z")


@functools.lru_cache(maxsize=4096)
def _compiled(glob: str, folder_suffix: bool) -> re.Pattern[str]:
    return _regex(glob, folder_suffix=folder_suffix)


def normal(base: str, pattern: str) -> str:
    """A pattern made relative to the repository root (`base` is a folder of it, "" the root)."""
    joined = posixpath.normpath(posixpath.join(base, pattern)) if pattern not in ("", ".") else (base or ".")
    return "" if joined == "." else joined


def names_folder(pattern: str) -> bool:
    """tsconfig: a last segment without a wildcard or an extension names a folder (`src` is `src/**/*`)."""
    last = pattern.rsplit("/", 1)[-1]
    return "*" not in last and "?" not in last and "." not in last


def matches(pattern: str, path: str) -> bool:
    """Whether a repository path matches a tsconfig `include`/`exclude` pattern already made relative to the root."""
    if pattern == "":
        return True
    return _compiled(pattern, names_folder(pattern)).match(path) is not None


def matches_folder(pattern: str, folder: str) -> bool:
    """Whether a folder matches a workspace pattern (`packages/*`, `apps/**`) already relative to the root."""
    pattern = pattern.rstrip("/")
    if pattern.endswith("/**"):
        head = pattern[: -len("/**")]
        return folder == head or _compiled(head + "/**", False).match(folder) is not None
    return _compiled(pattern, False).match(folder) is not None
