"""The Model Context Protocol over stdin/stdout (the `mcp` SDK's low-level server, on a transport of our own:
every line is answered, see wire.py): the only module that imports the SDK.

One request is answered at a time: the answers run in the event loop itself, so two calls never share the
SQLite connection or the graph at once, and a refresh is never interleaved with an answer. A client that
leaves (stdin closed, stdout broken) ends the server with exit code 0; an answer it abandoned mid-way has
only read the graph (the write lock is taken and released inside a refresh), so nothing is left held.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import mcp_types as types
import pydantic
from mcp.server import Server, ServerRequestContext
from mcp.shared.message import SessionMessage

from graphguard import __version__
from graphguard.errors import GraphguardError
from graphguard.server import tools, wire
from graphguard.server.session import Session

INSTRUCTIONS = (
    "graphguard knows this Python repository's call graph. Before writing an edit, call check_edit with the "
    "proposed contents: it says whether any caller would break. Before changing a signature, call callers. "
    "At the start of a task, call context (a task in words) or related (files or symbols); outline lists a "
    "file's definitions without bodies. Every answer names the commit it describes (head; in check answers, base) "
    "and how fresh that is (freshness)."
)


def _result(doc: dict[str, Any]) -> types.CallToolResult:
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=doc)


def _error(message: str) -> types.CallToolResult:
    line = " ".join(message.split())  # one line, whatever the cause wrote
    return types.CallToolResult(content=[types.TextContent(type="text", text=line)], is_error=True)


def answer(session: Session, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call, every failure an error result: the server outlives any argument."""
    try:
        return _result(tools.call(session, name, arguments))
    except GraphguardError as e:
        return _error(str(e))
    except sqlite3.Error as e:
        return _error(f"the graph database failed: {e}")
    except RecursionError:
        return _error("the input is nested too deeply to analyse")
    except MemoryError:
        return _error("out of memory answering this call")
    except Exception as e:  # noqa: BLE001 - a bug: logged, answered as an error, the server goes on
        import traceback

        from graphguard.files import write_log

        log = write_log(session.repo.paths.git_dir, "crash.log", traceback.format_exc(), append=False, mode=0o600)
        return _error(f"internal error: {type(e).__name__}: {e}" + (f" (traceback in {log})" if log else ""))


def build(session: Session) -> Server[Any]:
    listed = types.ListToolsResult(tools=[
        types.Tool(name=t.name, description=t.description, input_schema=t.input_schema) for t in tools.TOOLS
    ])

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listed

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        return answer(session, params.name, params.arguments)

    return Server("graphguard", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


async def _lines(fd: int) -> AsyncIterator[bytes | wire.Overlong]:
    """The client's lines, read by the event loop itself. (The SDK's transport reads each line in a worker
    thread, and writes and flushes each answer in another: three thread hops an answer, a few milliseconds
    each on a loaded machine, when an answer itself takes well under one.)"""
    import asyncio

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK)  # the pipe is paused beyond twice this, unread
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", closefd=False))
    lines = wire.Lines()
    while chunk := await reader.read(READ_CHUNK):
        for line in lines.feed(chunk):
            yield line
    for line in lines.end():
        yield line


#: Bytes read from the pipe at a time.
READ_CHUNK = 1024 * 1024


class _Writer:
    """Answers written straight to the pipe: one answer at a time, so a blocking write holds nothing else up."""

    def __init__(self, fd: int):
        self.fd = fd

    async def write(self, text: str) -> None:
        self._put(text)

    def send(self, doc: dict[str, Any]) -> None:
        """A message of our own (an error for a line the SDK could not take)."""
        self._put(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")

    def _put(self, text: str) -> None:
        """Whole, with no await inside: two messages never interleave on the pipe."""
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(self.fd, data):]


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


def _message(line: bytes, writer: _Writer) -> SessionMessage | None:
    """The message on a line, for the SDK; a line it cannot take is answered here (wire.refusal), never dropped."""
    text = line.decode("utf-8", "replace")
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except pydantic.ValidationError as e:
        reply = wire.refusal(text, _why(e))
    else:
        # A request whose `id` the SDK cannot take (null, an object) it reads as a notification: the client would wait.
        misread = isinstance(message, types.JSONRPCNotification) and '"id"' in text
        reply = wire.refusal(text, "an id the protocol cannot read") if misread else None
        if reply is None:
            return SessionMessage(message)
    if reply is not None:
        writer.send(reply)
    return None


def _why(e: pydantic.ValidationError) -> str:
    """The parser's reason, from the request's side of the union it tried (the other sides say the same or less)."""
    errors = e.errors(include_url=False, include_input=False)
    first = next((x for x in errors if x["loc"][:1] == ("JSONRPCRequest",)), errors[0])
    where = ".".join(str(p) for p in first["loc"][1:])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


async def _transport(wire_in: int, wire_out: int, server: Server[Any]) -> None:
    """The SDK's server between the client's lines and the answers (the SDK's stdio transport, with every line answered)."""
    writer = _Writer(wire_out)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        async with to_server:
            async for line in _lines(wire_in):
                if isinstance(line, wire.Overlong):
                    writer.send(wire.overlong(line))
                elif (message := _message(line, writer)) is not None:
                    await to_server.send(message)

    async def write() -> None:
        async with from_server:
            async for message in from_server:
                await writer.write(message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n")

    async with anyio.create_task_group() as tg:
        tg.start_soon(read)
        tg.start_soon(write)
        async with to_client, from_client:
            await server.run(from_client, to_client, server.create_initialization_options())


def serve(session: Session) -> int:
    """Answer over stdio until the client leaves; 0 then."""
    server = build(session)

    async def run() -> None:
        with _wire() as (wire_in, wire_out):
            await _transport(wire_in, wire_out, server)

    try:
        anyio.run(run)
    except Exception as e:
        if not _client_left(e):
            raise
    finally:
        session.close()
        _quiet_stdout()
    return 0


def _client_left(e: BaseException) -> bool:
    """Whether `e` says only that the client went away (the SDK's task groups wrap it in exception groups)."""
    inner = getattr(e, "exceptions", None)
    if inner is not None:
        return all(_client_left(x) for x in inner)
    return isinstance(e, (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream))


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
