"""Exceptions to exit codes: GraphguardError -> 2 with its message; ^C -> 130; a bug -> 2 and a log."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Iterator

from graphguard.errors import GraphguardError

CRASH_LOG = "crash.log"


class Exit(Exception):
    def __init__(self, code: int):
        self.code = code


@contextlib.contextmanager
def error_handler(debug: bool = False, repo: str | None = None) -> Iterator[None]:
    try:
        yield
    except GraphguardError as e:
        print(f"graphguard: error: {e}", file=sys.stderr)
        raise Exit(2) from None
    except KeyboardInterrupt:
        print("graphguard: interrupted", file=sys.stderr)
        raise Exit(130) from None
    except BrokenPipeError:
        raise Exit(0) from None
    except Exception as e:  # noqa: BLE001 - a bug: exit 2 with a log, never a bare traceback
        if debug:
            traceback.print_exc()
        else:
            log = write_crash_log(repo, traceback.format_exc())
            where = f"traceback in {log}; --debug shows it" if log else "--debug shows the traceback"
            print(f"graphguard: internal error: {type(e).__name__}: {e} ({where})", file=sys.stderr)
        raise Exit(2) from None


def write_crash_log(repo: str | None, text: str) -> str | None:
    """Write `text` to `<git-dir>/graphguard/crash.log`, else to a new private temp file; return where
    (None: nowhere). Never a fixed name in the temp directory, and never through a symbolic link:
    a link planted there would have us overwrite whatever it points to."""
    from graphguard.files import write_log

    git_dir = _git_dir(repo) if repo else None
    path = write_log(git_dir, CRASH_LOG, text, append=False, mode=0o600) if git_dir else None
    if path is not None:
        return path
    with contextlib.suppress(OSError):
        import tempfile  # only on this path: it imports random and shutil

        fd, path = tempfile.mkstemp(prefix="graphguard-crash-", suffix=".log")  # O_EXCL, mode 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    return None


def _git_dir(repo: str) -> str | None:
    from graphguard import git

    try:
        return git.repo_paths(os.path.abspath(repo)).git_dir
    except Exception:  # noqa: BLE001 - already reporting one failure; the temp file will do
        return None
