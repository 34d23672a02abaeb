"""The wire under the protocol: one JSON-RPC message a line, each line bounded, and an answer for every
line the protocol cannot take (a line dropped unanswered would leave the client waiting for its answer forever).

Pure: bytes in, lines and JSON-RPC error objects out; stdio.py reads and writes. What is answered:

- a line that is not JSON (a NUL or other control character in a string, two messages on one line,
  nesting deeper than Python's parser goes, a line over MAX_LINE): -32700 parse error, id null;
- JSON that is not a request (not an object, no `jsonrpc: "2.0"`, no string `method`, an `id` that is
  neither a string nor an integer, `params` that is not structured): -32600 invalid request;
- a request whose params the protocol cannot read (a list where MCP names them, a lone surrogate escape
  such as "\\ud800", nesting deeper than the SDK's parser goes): -32602 invalid params, with its id;
- a notification or a response: nothing (JSON-RPC answers neither); a blank line: nothing. A request
  whose `id` the SDK cannot take (null, NaN, an object) it reads as a notification: refused all the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: The longest line read (a check_edit's proposals are bounded below this by graphguard.check.proposed);
#: a longer one is dropped as it streams in, so what is held stays under this whatever the client sends.
MAX_LINE = 128 * 1024 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

#: An error message is one short line, whatever the input it quotes.
MAX_MESSAGE = 300


@dataclass(frozen=True)
class Overlong:
    """A line over the bound, dropped unread; `size` bytes of it were seen."""

    size: int


class Lines:
    """Splits the bytes of a stream into lines (without their newline), each at most `limit` bytes."""

    def __init__(self, limit: int = MAX_LINE):
        self.limit = limit
        self._buf = bytearray()
        self._dropped: int | None = None  # bytes of an over-long line dropped so far, while dropping one

    def feed(self, chunk: bytes) -> list[bytes | Overlong]:
        out: list[bytes | Overlong] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            out.append(self._line(chunk[start:end]))
            start = end + 1
        self._hold(chunk[start:])
        return out

    def end(self) -> list[bytes | Overlong]:
        """What is left at the end of the stream: a last line without its newline."""
        if self._dropped is None and not self._buf:
            return []
        return [self._line(b"")]

    def _line(self, tail: bytes) -> bytes | Overlong:
        self._hold(tail)
        dropped, self._dropped = self._dropped, None
        line, self._buf = bytes(self._buf), bytearray()
        return Overlong(dropped) if dropped is not None else line

    def _hold(self, part: bytes) -> None:
        if self._dropped is not None:
            self._dropped += len(part)
        elif len(self._buf) + len(part) > self.limit:
            self._dropped = len(self._buf) + len(part)
            self._buf = bytearray()
        else:
            self._buf += part


def overlong(line: Overlong, limit: int = MAX_LINE) -> dict[str, Any]:
    return error(None, PARSE_ERROR, f"Parse error: a line of {line.size} bytes, over the bound of {limit} bytes; not read")


def refusal(line: str, why: str) -> dict[str, Any] | None:
    """The answer to a line the protocol refused (`why`: its parser's reason); None when none is due."""
    if not line.strip():
        return None
    try:
        message = json.loads(line, parse_constant=no_constant)
    except RecursionError:
        return error(None, PARSE_ERROR, "Parse error: nested too deeply")
    except ValueError as e:  # JSONDecodeError says where: "Extra data: line 1 column 41 (char 40)"
        return error(None, PARSE_ERROR, f"Parse error: {e}")
    if not isinstance(message, dict):
        return error(None, INVALID_REQUEST, f"Invalid Request: a message is a JSON object, not {_kind(message)}")
    if "id" not in message:
        return None if "method" in message else error(None, INVALID_REQUEST, "Invalid Request: no method and no id")
    if "method" not in message and ("result" in message or "error" in message):
        return None  # a response to the server, malformed: JSON-RPC never answers a response
    return _request_refusal(message, why)


def _request_refusal(message: dict[str, Any], why: str) -> dict[str, Any]:
    rid = message["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        return error(None, INVALID_REQUEST, f"Invalid Request: the id must be a string or an integer, not {_kind(rid)}")
    if message.get("jsonrpc") != "2.0":
        return error(rid, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if not isinstance(message.get("method"), str):
        return error(rid, INVALID_REQUEST, 'Invalid Request: "method" must be a string')
    params = message.get("params", {})
    if isinstance(params, list):
        return error(rid, INVALID_PARAMS, "Invalid params: MCP names its params: an object, not an array")
    if not isinstance(params, dict):
        return error(rid, INVALID_REQUEST, f'Invalid Request: "params" must be an object, not {_kind(params)}')
    if (lone := lone_surrogate(params)) is not None:
        return error(rid, INVALID_PARAMS, f"Invalid params: a string holds the lone surrogate \\u{ord(lone):04x}, which is not Unicode text")
    return error(rid, INVALID_PARAMS, f"Invalid params: {why}")


def error(rid: str | int | None, code: int, message: str) -> dict[str, Any]:
    line = " ".join(message.split())
    if len(line) > MAX_MESSAGE:
        line = line[:MAX_MESSAGE - 3] + "..."
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": line}}


def no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def lone_surrogate(value: object) -> str | None:
    """The first lone surrogate in any string of `value` (keys too), walked without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as e:
                return item[e.start]
    return None
