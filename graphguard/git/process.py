"""Running git: one subprocess per question, NUL-separated output, and the names it gives."""

from __future__ import annotations

import subprocess

from graphguard.errors import GraphguardError


def run(root: str, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(
            ("git", *args), cwd=root, input=input, capture_output=True, check=False,
        )
    except FileNotFoundError:
        raise GraphguardError("git is not installed or not on PATH") from None
    except NotADirectoryError:
        raise GraphguardError(f"not a directory: {root}") from None
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GraphguardError(f"git {' '.join(args[:2])} failed: {msg[-1] if msg else proc.returncode}")
    return proc.stdout


def run_both(root: str, first: tuple[str, ...], second: tuple[str, ...]) -> tuple[bytes, bytes]:
    """Two git commands at once (`run` each): the working tree's stat pass and its walk for untracked
    files take a core each, and a long-lived process (the MCP server) answers in the longer one's time."""
    try:
        proc = subprocess.Popen(("git", *first), cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except (FileNotFoundError, NotADirectoryError):
        return run(root, *first), run(root, *second)  # run says which, in one line
    try:
        out2 = run(root, *second)
    finally:
        out1, err1 = proc.communicate()
    if proc.returncode != 0:
        msg = err1.decode("utf-8", "replace").strip().splitlines()
        raise GraphguardError(f"git {' '.join(first[:2])} failed: {msg[-1] if msg else proc.returncode}")
    return out1, out2


def zsplit(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def is_utf8_name(path: str) -> bool:
    """Whether a file name git gave is valid UTF-8 (the others arrive with surrogate escapes, which
    SQLite and the reports cannot take)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
