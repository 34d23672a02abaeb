"""The server's protocol without the SDK (graphguard.server.protocol): the handshake, the methods it answers and
those it does not, tool results; and the real server process, which starts without importing the SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphguard.server import wire
from graphguard.server.protocol import METHOD_NOT_FOUND, VERSIONS, Server
from tests.helpers import LIB, GitRepo
from tests.test_mcp import server_env


def _server() -> Server:
    def call(name: str, arguments: dict[str, Any] | None) -> tuple[Any, bool]:
        return ({"schema": "x/1", "name": name, "arguments": arguments}, False) if name == "echo" else (f"no tool {name!r}", True)

    return Server("graphguard", "9.9", "read me", [{"name": "echo", "description": "d", "inputSchema": {}}], call)


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _reply(message: dict[str, Any]) -> dict[str, Any] | None:
    return _server().reply(json.dumps({"jsonrpc": "2.0", **message}).encode())


@pytest.mark.parametrize(("asked", "answered"), [("2025-06-18", "2025-06-18"), ("2024-11-05", "2024-11-05"),
                                                 ("1999-01-01", VERSIONS[-1]), ("2026-07-28", VERSIONS[-1])])
def test_initialize_takes_a_known_version_and_offers_the_latest_otherwise(asked: str, answered: str) -> None:
    reply = _reply({"id": 1, "method": "initialize", "params": {"protocolVersion": asked, "capabilities": {}}})
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": answered, "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "graphguard", "version": "9.9"}, "instructions": "read me"}}


def test_tools_are_listed_and_called() -> None:
    assert _reply({"id": "a", "method": "tools/list"}) == {"jsonrpc": "2.0", "id": "a", "result": {"tools": [
        {"name": "echo", "description": "d", "inputSchema": {}}]}}
    result = _reply({"id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"k": "é"}}})
    assert result is not None
    doc = {"schema": "x/1", "name": "echo", "arguments": {"k": "é"}}
    assert result["result"] == {"content": [{"type": "text", "text": json.dumps(doc, ensure_ascii=False, separators=(",", ":"))}],
                                "structuredContent": doc}
    failed = _reply({"id": 3, "method": "tools/call", "params": {"name": "gone"}})
    assert failed is not None and failed["result"] == {"content": [{"type": "text", "text": "no tool 'gone'"}], "isError": True}


@pytest.mark.parametrize(("message", "code"), [
    ({"id": 4, "method": "resources/list"}, METHOD_NOT_FOUND),
    ({"id": 5, "method": "tools/call", "params": {"arguments": {}}}, wire.INVALID_PARAMS),
    ({"id": 6, "method": "tools/call", "params": {"name": "echo", "arguments": [1]}}, wire.INVALID_PARAMS),
    ({"id": 7, "method": "initialize", "params": {}}, wire.INVALID_PARAMS),
    ({"id": 8, "method": "tools/call", "params": {"name": "echo", "arguments": {"a": _nested(250)}}}, wire.INVALID_PARAMS),
    ({"id": 9, "method": "tools/call", "params": {"name": "echo", "arguments": {"a": _nested(20)}}}, None),
])
def test_what_it_cannot_answer_is_an_error_with_the_id(message: dict[str, Any], code: int | None) -> None:
    reply = _reply(message)
    assert reply is not None and reply["id"] == message["id"]
    assert (reply.get("error") or {}).get("code") == code


def test_notifications_and_responses_are_not_answered() -> None:
    assert _reply({"method": "notifications/initialized"}) is None
    assert _reply({"method": "notifications/cancelled", "params": {"requestId": 1}}) is None
    assert _reply({"id": 9, "result": {}}) is None


def test_the_server_starts_without_the_sdk(make_repo: Any, tmp_path: Path) -> None:
    repo: GitRepo = make_repo(LIB)
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "callers", "arguments": {"symbol": "pkg.mod.f"}}}]
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "graphguard", "mcp", "--repo", str(repo.root)],
                          input=b"".join(json.dumps(m).encode() + b"\n" for m in lines), capture_output=True,
                          cwd=tmp_path, env=server_env(tmp_path), timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[1]["result"]["structuredContent"]["freshness"]["head"] == repo.head
    modules = {line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    assert "graphguard.server.protocol" in modules
    assert not {m for m in modules if m in ("mcp", "pydantic", "anyio") or m.startswith(("mcp.", "mcp_types", "pydantic."))}
