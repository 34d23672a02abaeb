"""`graphguard mcp`: the MCP server for agents, over stdio (graphguard.server)."""

from __future__ import annotations


def mcp(repo_path: str) -> int:
    # The protocol is spoken by graphguard.server itself: no SDK to import (it was most of the server's start).
    from graphguard.server.session import Session
    from graphguard.server.stdio import serve

    # Opened and brought current before the first request, so that the first answer pays no index update.
    session = Session(repo_path)
    session.refresh(stale_ok=True)  # a refresher at work: the first answers may come from the graph it replaces
    return serve(session)
