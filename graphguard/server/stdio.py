"""The Model Context Protocol over stdin/stdout (the `mcp` SDK's low-level server): the only module that imports it.

One request is answered at a time: the answers run in the event loop itself, so two calls never share the
SQLite connection or the graph at once, and a refresh is never interleaved with an answer. A client that
leaves (stdin closed, stdout broken) ends the server with exit code 0; an answer it abandoned mid-way has
only read the graph (the write lock is taken and released inside a refresh), so nothing is left held.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from graphguard import __version__
from graphguard.errors import GraphguardError
from graphguard.server import tools
from graphguard.server.session import Session

INSTRUCTIONS = (
    "graphguard knows this Python repository's call graph. Before writing an edit, call check_edit with the "
    "proposed contents: it says whether any caller would break. Before changing a signature, call callers. "
    "At the start of a task, call context (a task in words) or related (files or symbols); outline lists a "
    "file's definitions without bodies. Every answer names the commit it describes (head; in check answers, base)."
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

        from graphguard.store import write_log

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


def serve(session: Session) -> int:
    """Answer over stdio until the client leaves; 0 then."""
    server = build(session)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

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
    import os

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
