"""The only writer to stdout."""

from __future__ import annotations

import codecs
import io
import os
import sys

#: The error handler of both streams: a character the stream's encoding lacks (`PYTHONIOENCODING=ascii`,
#: the POSIX locale without UTF-8 mode) or a lone surrogate (a file name that is not UTF-8) is written
#: as a JSON-style escape, `\u00e9`: readable in a text report, and a JSON report stays valid JSON.
ESCAPE = "graphguard-escape"


def _escape(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for char in error.object[error.start:error.end]:
        n = ord(char)
        if n > 0xFFFF:  # a surrogate pair, as JSON spells it
            n -= 0x10000
            out.append(f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}")
        else:
            out.append(f"\\u{n:04x}")
    return "".join(out), error.end


codecs.register_error(ESCAPE, _escape)


def escape_what_cannot_be_encoded() -> None:
    """Never fail on a name the streams cannot encode: write it escaped (called once, as a command starts)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors != ESCAPE:
            try:
                stream.reconfigure(errors=ESCAPE)
            except (ValueError, OSError):  # closed, or a stream that cannot change now: left as it is
                pass


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
