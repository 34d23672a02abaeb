"""The only writer to stdout."""

from __future__ import annotations

import os
import sys


def write(text: str) -> None:
    try:
        sys.stdout.write(text)
        if text and not text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`graphguard check | head`): what is left of the report goes nowhere,
        # and the command still returns its own exit code (a block piped into head still blocks).
        _discard_stdout()


def _discard_stdout() -> None:
    """Point stdout at the null device, so neither later writes nor the flush at exit fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def warn(message: str) -> None:
    print(f"graphguard: warning: {message}", file=sys.stderr)
