"""`graphguard mcp` fed raw bytes: every malformed line a request makes gets a JSON-RPC error (with the
request's id when it has a readable one), a notification or a response gets nothing, and the server goes
on serving. The real server process, its stdin and stdout as pipes; every read is bounded by a timeout."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from graphguard.server import wire
from tests.helpers import LIB, init_repo
from tests.test_mcp import server_env

#: Seconds any one answer may take before the test calls it lost (never reached when the server answers).
PATIENCE = 60.0


class RawServer:
    """The server process with raw bytes in and JSON lines out."""

    def __init__(self, repo: Path, home: Path):
        self.proc = subprocess.Popen([sys.executable, "-m", "graphguard", "mcp", "--repo", str(repo)], cwd=home,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=server_env(home))
        self._pending = b""

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, rid: int, method: str, params: dict[str, Any] | None = None) -> None:
        message = {"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params is not None else {})}
        self.send(json.dumps(message).encode() + b"\n")

    def answer(self, timeout: float = PATIENCE) -> dict[str, Any]:
        """The next line the server writes, parsed; fails (never hangs) when none comes within `timeout`."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                pytest.fail(f"no answer within {timeout} s (server {'alive' if self.proc.poll() is None else 'exited'})")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                pytest.fail(f"the server closed stdout; exit {self.proc.wait(timeout=10)}: {self.stderr()}")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return dict(json.loads(line))

    def still_serving(self, rid: int) -> None:
        """A ping is answered, and it is the next answer (nothing was written for what came before)."""
        self.request(rid, "ping")
        assert self.answer() == {"jsonrpc": "2.0", "id": rid, "result": {}}

    def stderr(self) -> str:
        return self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    with pytest.MonkeyPatch.context() as mp:  # module-scoped: the autouse isolation is per test; undone after
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        repo = init_repo(tmp_path_factory.mktemp("wire") / "repo", LIB)
    home = tmp_path_factory.mktemp("home")
    raw = RawServer(repo.root, home)
    raw.request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}})
    assert raw.answer()["id"] == 0
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    yield raw
    raw.close()
    assert raw.proc.returncode == 0


def call(rid: int | str, arguments: bytes, name: bytes = b"callers") -> bytes:
    """A tools/call request line with `arguments` as raw JSON text."""
    return b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"method":"tools/call","params":{"name":"' + name + \
        b'","arguments":' + arguments + b"}}\n"


DEEP = 100_000
MALFORMED = {
    # what a request line holds: (the line, the id answered, the error code)
    "a lone surrogate escape in an argument": (call(1, rb'{"symbol":"\ud800"}'), 1, wire.INVALID_PARAMS),
    "a lone surrogate escape in a path": (call(2, rb'{"files":{"pkg/\udc00.py":"x = 1\n"}}', b"check_edit"), 2, wire.INVALID_PARAMS),
    "params a list": (b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":["callers",{}]}\n', 3, wire.INVALID_PARAMS),
    "params a string": (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"callers"}\n', 4, wire.INVALID_REQUEST),
    "a NUL byte in a string": (call(5, b'{"symbol":"pkg.mod\x00f"}'), None, wire.PARSE_ERROR),
    "a NUL byte between tokens": (b'{"jsonrpc":"2.0",\x00"id":6,"method":"ping"}\n', None, wire.PARSE_ERROR),
    "100k-deep nesting": (call(7, b'{"symbol":' + b"[" * DEEP + b"]" * DEEP + b"}"), None, wire.PARSE_ERROR),
    "300-deep nesting (deeper than the SDK's parser goes)": (call(8, b'{"symbol":' + b"[" * 300 + b"]" * 300 + b"}"), 8, wire.INVALID_PARAMS),
    "two messages on one line": (b'{"jsonrpc":"2.0","id":9,"method":"ping"}{"jsonrpc":"2.0","id":10,"method":"ping"}\n', None, wire.PARSE_ERROR),
    "a line that is not JSON": (b"tools/call callers pkg.mod.f\n", None, wire.PARSE_ERROR),
    "bytes that are not UTF-8": (b"\xff\xfe\n", None, wire.PARSE_ERROR),
    "NaN": (b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}\n', None, wire.PARSE_ERROR),  # the SDK reads it as a notification
    "an array (a batch)": (b'[{"jsonrpc":"2.0","id":11,"method":"ping"}]\n', None, wire.INVALID_REQUEST),
    "a number": (b"12\n", None, wire.INVALID_REQUEST),
    "no method": (b'{"jsonrpc":"2.0","id":13}\n', 13, wire.INVALID_REQUEST),
    "jsonrpc 1.0": (b'{"jsonrpc":"1.0","id":14,"method":"ping"}\n', 14, wire.INVALID_REQUEST),
    "an id that is an object": (b'{"jsonrpc":"2.0","id":{"n":15},"method":"ping"}\n', None, wire.INVALID_REQUEST),
    "an id that is null": (b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n', None, wire.INVALID_REQUEST),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_request_gets_an_error_and_the_server_goes_on(server: RawServer, case: str) -> None:
    line, rid, code = MALFORMED[case]
    server.send(line)
    answer = server.answer()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == rid and answer["error"]["code"] == code, answer
    message = answer["error"]["message"]
    assert message and "\n" not in message and len(message) <= wire.MAX_MESSAGE
    server.still_serving(100)


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","method":"tools/call","params":["callers"]}\n',  # a notification, malformed
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\\ud800"}}\n',
    b'{"jsonrpc":"2.0","id":77,"error":{"code":"not a number","message":5}}\n',  # a response: never answered
    b"\n",
    b"   \r\n",
], ids=["bad notification", "notification with a lone surrogate", "bad response", "blank line", "blank CRLF line"])
def test_what_needs_no_answer_gets_none(server: RawServer, line: bytes) -> None:
    server.send(line)
    server.still_serving(101)  # the ping's answer is the next line: nothing was written for `line`


def test_a_good_request_still_answers_after_a_bad_one_on_the_same_write(server: RawServer) -> None:
    server.send(b"not json\n" + call(20, b'{"symbol":"pkg.mod.f"}'))
    assert server.answer()["error"]["code"] == wire.PARSE_ERROR
    answer = server.answer()
    assert answer["id"] == 20 and not answer["result"].get("isError")
    assert "pkg/use.py" in answer["result"]["content"][0]["text"]


def test_an_escaped_nul_reaches_the_tool(server: RawServer) -> None:
    """An escaped NUL is valid JSON: the tool itself answers (an error result naming the symbol)."""
    server.send(call(21, rb'{"symbol":"pkg.mod\u0000f"}'))
    answer = server.answer()
    assert answer["id"] == 21 and answer["result"]["isError"] is True


def test_a_line_over_the_bound_is_dropped_as_it_streams_and_answered(server: RawServer) -> None:
    """Three times the bound in one line: answered as a parse error without being held; the server's peak
    memory stays under twice the bound (the line is dropped as it streams in)."""
    chunk = b"a" * (1 << 20)
    size = 3 * wire.MAX_LINE
    server.send(call(22, b'{"symbol":"')[:-2])
    for _ in range(size // len(chunk)):
        server.send(chunk)
    server.send(b'"}}}\n')
    answer = server.answer()
    assert answer["id"] is None and answer["error"]["code"] == wire.PARSE_ERROR and "bound" in answer["error"]["message"]
    server.still_serving(102)
    with open(f"/proc/{server.proc.pid}/status", encoding="ascii") as status:
        peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    assert peak_kb * 1024 < 2 * wire.MAX_LINE


# --- the splitter, pure ---------------------------------------------------------------------------


def test_lines_split_across_chunks_and_drop_what_is_over_the_bound() -> None:
    lines = wire.Lines(limit=8)
    assert lines.feed(b"ab") == []
    assert lines.feed(b"c\nde\n12345") == [b"abc", b"de"]
    assert lines.feed(b"6789") == []  # 9 bytes: over the bound, dropped from here on
    assert lines.feed(b"XYZ\nok\n") == [wire.Overlong(12), b"ok"]
    assert lines.feed(b"12345678\n") == [b"12345678"]  # exactly the bound is a line
    assert lines.feed(b"tail") == [] and lines.end() == [b"tail"]
    assert wire.Lines().end() == []
