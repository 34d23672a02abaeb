"""The only writer to stdout."""

from __future__ import annotations

import sys


def write(text: str) -> None:
    sys.stdout.write(text)
    if text and not text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()


def warn(message: str) -> None:
    print(f"graphguard: warning: {message}", file=sys.stderr)
