"""Exceptions to exit codes: GraphguardError -> 2 with its message; ^C -> 130; a bug -> 2 and a log."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import traceback
from collections.abc import Iterator

from graphguard.errors import GraphguardError


class Exit(Exception):
    def __init__(self, code: int):
        self.code = code


@contextlib.contextmanager
def error_handler(debug: bool = False) -> Iterator[None]:
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
    except Exception as e:
        if debug:
            traceback.print_exc()
        else:
            log = os.path.join(tempfile.gettempdir(), "graphguard-crash.log")
            with contextlib.suppress(OSError), open(log, "w") as f:
                traceback.print_exc(file=f)
            print(f"graphguard: internal error: {type(e).__name__}: {e} (traceback in {log}; --debug shows it)", file=sys.stderr)
        raise Exit(2) from None
