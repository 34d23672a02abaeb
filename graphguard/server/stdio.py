"""The Model Context Protocol over stdin/stdout: lines read from the pipe, each answered in turn (protocol.py), the
replies written whole. No SDK and no event loop: one request is answered at a time, so two calls never share the
SQLite connection or the graph at once, and a refresh is never interleaved with an answer. A client that leaves
(stdin closed, stdout broken) ends the server with exit code 0; an answer it abandoned mid-way has only read the
graph (the write lock is taken and released inside a refresh), so nothing is left held.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from typing import Any

from graphguard import __version__
from graphguard.errors import GraphguardError
from graphguard.server import tools, wire
from graphguard.server.protocol import Server
from graphguard.server.session import Session

INSTRUCTIONS = (
    "graphguard knows this Python repository's call graph. Before writing an edit, call check_edit with the "
    "proposed contents: it says whether any caller would break. Before changing a signature, call callers. "
    "At the start of a task, call context (a task in words) or related (files or symbols); outline lists a "
    "file's definitions without bodies. Every answer names the commit it describes (head; in check answers, base) "
    "and how fresh that is (freshness)."
)

#: Bytes read from the pipe at a time.
READ_CHUNK = 1024 * 1024


def answer(session: Session, name: str, arguments: dict[str, Any] | None) -> tuple[Any, bool]:
    """One tool call: (the document, False), or (a one-line message, True) for every failure: the server outlives
    any argument."""
    try:
        return tools.call(session, name, arguments), False
    except GraphguardError as e:
        return _line(str(e)), True
    except sqlite3.Error as e:
        return f"the graph database failed: {e}", True
    except RecursionError:
        return "the input is nested too deeply to analyse", True
    except MemoryError:
        return "out of memory answering this call", True
    except Exception as e:  # noqa: BLE001 - a bug: logged, answered as an error, the server goes on
        import traceback

        from graphguard.files import write_log

        log = write_log(session.repo.paths.git_dir, "crash.log", traceback.format_exc(), append=False, mode=0o600)
        return _line(f"internal error: {type(e).__name__}: {e}" + (f" (traceback in {log})" if log else "")), True


def _line(message: str) -> str:
    return " ".join(message.split())  # one line, whatever the cause wrote


def build(session: Session) -> Server:
    listed = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools.TOOLS]
    return Server("graphguard", __version__, INSTRUCTIONS, listed, lambda name, args: answer(session, name, args))


def _put(fd: int, doc: dict[str, Any]) -> None:
    """One message, whole: two messages never interleave on the pipe."""
    data = memoryview((json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    while data:
        data = data[os.write(fd, data):]


@contextlib.contextmanager
def _wire() -> Iterator[tuple[int, int]]:
    """Private copies of stdin and stdout for the protocol; fd 0 then reads the null device and fd 1 writes
    to stderr, so nothing else in the process (a child's stray output) can tear a message on the wire."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
        os.dup2(2, 1)
    finally:
        os.close(devnull)
    try:
        yield wire_in, wire_out
    finally:
        os.close(wire_in)
        os.close(wire_out)


def _loop(server: Server, wire_in: int, wire_out: int) -> None:
    lines = wire.Lines()
    while chunk := os.read(wire_in, READ_CHUNK):
        for line in lines.feed(chunk):
            _respond(server, line, wire_out)
    for line in lines.end():
        _respond(server, line, wire_out)


def _respond(server: Server, line: bytes | wire.Overlong, wire_out: int) -> None:
    reply = wire.overlong(line) if isinstance(line, wire.Overlong) else server.reply(line)
    if reply is not None:
        _put(wire_out, reply)


def serve(session: Session) -> int:
    """Answer over stdio until the client leaves; 0 then."""
    server = build(session)
    try:
        with _wire() as (wire_in, wire_out):
            _loop(server, wire_in, wire_out)
    except OSError:
        pass  # the client went away (a broken pipe, a closed descriptor): the end of the session
    finally:
        session.close()
        _quiet_stdout()
    return 0


def _quiet_stdout() -> None:
    """A client gone leaves stdout a broken pipe: the interpreter's flush at exit must not fail on it."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)
