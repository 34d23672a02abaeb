"""Proposed contents (`check --proposed`, the MCP tool `check_edit`): what an agent would write, validated.

Pure: the paths are judged by their text alone, the contents by their bytes. What needs the disk
(a symlink on the way) is sides.refuse_links; the check reads the proposals in sides.read_sides.

Decisions (docs/contract.md, "Shadow check of proposed contents"):
- a path is relative to the repository root and '/'-separated; `.` and empty parts are dropped
  (`./pkg//a.py` is `pkg/a.py`); an absolute path, a `..` part, a backslash, a NUL or a part
  named `.git` (any case) is an error: nothing is checked;
- a file over MAX_FILE_BYTES, or proposals over MAX_TOTAL_BYTES in all, is an error: a source file
  that large is generated, and parsing it would hold the answer for seconds;
- binary (a NUL byte) or non-UTF-8 content is a warning and that file is not checked (its
  working-tree version neither: the answer would describe a file the agent is not writing);
- a path that is not a Python file, or that the configuration excludes, is ignored with a note
  (what check --worktree would do with it after the write: it checks Python files only);
- the same path proposed and deleted, or proposed twice (`a.py` and `./a.py`), is an error.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from graphguard.config import Config
from graphguard.errors import GraphguardError
from graphguard.index.plan import is_config
from graphguard.languages import for_path
from graphguard.result import FileWarning

MAX_FILE_BYTES = 10 * 1024 * 1024  # Django's largest source file is 0.1 MB; generated tables reach a few MB
MAX_TOTAL_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Proposal:
    """One proposed file: its new bytes, or None for a deletion."""

    path: str
    data: bytes | None

    @property
    def deleted(self) -> bool:
        return self.data is None


@dataclass(frozen=True)
class Proposals:
    """What a shadow check lays over the working tree."""

    checked: tuple[Proposal, ...]  # Python files to check, sorted by path
    skipped: frozenset[str]  # Python files left out of the check (content not text): their working-tree version too
    named: tuple[str, ...]  # every valid path named (checked, skipped or ignored), for the checks that need the disk
    warnings: tuple[FileWarning, ...]
    notes: tuple[str, ...]

    @property
    def by_path(self) -> dict[str, bytes | None]:
        return {p.path: p.data for p in self.checked}


def validate(files: Mapping[str, bytes], deleted: Collection[str], config: Config) -> Proposals:
    """The proposals as records; a GraphguardError (one line, naming the path) for input that cannot be checked."""
    if isinstance(deleted, (str, bytes)):  # a single path where a list was meant: its letters are not paths
        raise GraphguardError("deleted: expected a list of paths")
    contents = _normalised(files)
    gone: dict[str, bytes | None] = {}
    for raw in deleted:
        path = normalise(raw)
        if path in contents:
            raise GraphguardError(f"{path}: both proposed and deleted")
        gone[path] = None
    total = sum(len(d) for d in contents.values())
    if total > MAX_TOTAL_BYTES:
        raise GraphguardError(f"the proposed files hold {_mb(total)} in all, over the bound of {_mb(MAX_TOTAL_BYTES)}:"
                              " propose fewer files at once")
    checked, skipped, warnings, ignored, excluded = [], set(), [], [], []
    for path, data in sorted({**contents, **gone}.items()):
        if for_path(path) is None and not is_config(path):  # a tsconfig.json decides TS/JS imports: it is checked
            ignored.append(path)
        elif config.is_excluded(path):
            excluded.append(path)
        elif data is not None and (why := unreadable(data)) is not None:
            skipped.add(path)
            warnings.append(FileWarning(path, f"proposed content is {why}; not checked"))
        else:
            checked.append(Proposal(path, data))
    notes = []
    if ignored:
        notes.append("not Python files, not checked: " + _listed(ignored))
    if excluded:
        notes.append("excluded by the configuration, not checked: " + _listed(excluded))
    return Proposals(tuple(checked), frozenset(skipped), tuple(sorted({**contents, **gone})), tuple(warnings), tuple(notes))


def _normalised(files: Mapping[str, bytes]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for raw, data in files.items():
        path = normalise(raw)
        if path in out:
            raise GraphguardError(f"{path}: proposed twice")
        if not isinstance(data, bytes):
            raise GraphguardError(f"{path}: the proposed content must be bytes, not {type(data).__name__}")
        if len(data) > MAX_FILE_BYTES:
            raise GraphguardError(f"{path}: the proposed content is {_mb(len(data))}, over the bound of {_mb(MAX_FILE_BYTES)} a file")
        out[path] = data
    return out


def normalise(raw: object) -> str:
    """A proposed path as the repository names it ('/'-separated, relative), or a GraphguardError saying why not."""
    if not isinstance(raw, str):
        raise GraphguardError(f"a path must be a string, not {type(raw).__name__}")
    shown = raw if len(raw) <= 200 else raw[:200] + "..."
    shown = shown.encode("unicode_escape").decode("ascii") if not shown.isprintable() else shown
    if "\0" in raw:
        raise GraphguardError(f"{shown}: a path cannot hold a NUL character")
    if "\\" in raw:
        raise GraphguardError(f"{shown}: separate folders with '/', not '\\'")
    if raw.startswith("/") or (len(raw) >= 2 and raw[0].isalpha() and raw[1] == ":" and raw[2:3] in ("", "/")):
        raise GraphguardError(f"{shown}: an absolute path; give it relative to the repository root")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise GraphguardError(f"{shown}: '..' is not allowed in a path; give it relative to the repository root")
    if not parts:
        raise GraphguardError(f"{shown or repr(raw)}: not a file path")
    if any(p.casefold() == ".git" for p in parts):
        raise GraphguardError(f"{shown}: inside .git; graphguard checks the working tree's files only")
    return "/".join(parts)


def unreadable(data: bytes) -> str | None:
    """Why proposed bytes are not Python source to check; None when they are."""
    if b"\0" in data:
        return "binary (a NUL byte)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 (byte {e.start})"
    return None


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _listed(paths: list[str]) -> str:
    return ", ".join(paths[:10]) + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")
