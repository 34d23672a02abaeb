"""The Model Context Protocol's messages, answered without the SDK: a line in, the JSON-RPC reply out (None when
none is due). Pure of I/O; the tools' answers come from the `call` the caller passes (stdio.py: tools.call over a
Session, every failure an error result).

What graphguard's server speaks is small: `initialize` (the handshake: the client's protocol version when this
server knows it, else the latest it knows), `ping`, `tools/list` and `tools/call`; every other request is
-32601 method not found, every notification and response is read and left. The SDK's models took 1.9 s of CPU
to import, most of the server's start (issue 22: the first answer within 1 s); a line they would refuse is
refused here by the same rules (wire.refusal), including params nested deeper than MAX_NESTING.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from graphguard.server import wire

#: The protocol revisions reachable by the initialize handshake, oldest first (the last one is offered otherwise).
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: Deepest nesting of a request's params read (the SDK's parser stopped near 250 levels as well).
MAX_NESTING = 200
METHOD_NOT_FOUND = -32601

#: tool name, arguments -> (the document or the one-line error message, whether it is an error)
Call = Callable[[str, dict[str, Any] | None], tuple[Any, bool]]


class Server:
    """The answers of one server: its name, version and instructions, its tools' listing, and how a tool is called."""

    def __init__(self, name: str, version: str, instructions: str, tools: Sequence[dict[str, Any]], call: Call):
        self.info = {"name": name, "version": version}
        self.instructions = instructions
        self.tools = {"tools": list(tools)}
        self.call = call

    def reply(self, line: bytes) -> dict[str, Any] | None:
        """The reply to one line of the client's (without its newline)."""
        text = line.decode("utf-8", "replace")
        message, why = _read(text)
        if message is None:
            return wire.refusal(text, why)
        if "id" not in message:
            return None  # a notification (initialized, cancelled, ...): nothing to answer, nothing to do
        rid = message["id"]
        params = message.get("params") or {}
        handler = self._methods().get(message["method"])
        if handler is None:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": METHOD_NOT_FOUND, "message": "Method not found",
                                                           "data": message["method"]}}
        result = handler(params)
        if result is None:
            return wire.error(rid, wire.INVALID_PARAMS, "Invalid request parameters")
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def _methods(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]]:
        return {"initialize": self._initialize, "ping": lambda _: {}, "tools/list": lambda _: self.tools,
                "tools/call": self._call}

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any] | None:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            return None
        return {"protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {"listChanged": False}}, "serverInfo": self.info,
                "instructions": self.instructions}

    def _call(self, params: dict[str, Any]) -> dict[str, Any] | None:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
            return None
        answer, failed = self.call(name, arguments)
        if failed:
            return {"content": [{"type": "text", "text": str(answer)}], "isError": True}
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        return {"content": [{"type": "text", "text": text}], "structuredContent": answer}


def _read(text: str) -> tuple[dict[str, Any] | None, str]:
    """The message on a line when it is a request or notification the protocol takes; else None and why not."""
    try:
        message = json.loads(text, parse_constant=wire.no_constant)
    except (ValueError, RecursionError):
        return None, ""  # wire.refusal says what is wrong with it
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return None, "not a request"
    rid = message.get("id", 0)
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        return None, "an id the protocol cannot read"
    params = message.get("params", {})
    if params is not None and not isinstance(params, dict):
        return None, "params must be an object"
    if _deeper_than(params, MAX_NESTING):
        return None, f"params nested deeper than {MAX_NESTING} levels"
    if wire.lone_surrogate(params) is not None:
        return None, "a lone surrogate, which is not Unicode text"
    return message, ""


def _deeper_than(value: object, limit: int) -> bool:
    """Whether lists and objects nest in `value` deeper than `limit`, walked without recursion."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False
