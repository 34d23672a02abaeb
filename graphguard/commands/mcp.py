"""`graphguard mcp`: the MCP server for agents, over stdio (graphguard.server)."""

from __future__ import annotations

from graphguard.errors import GraphguardError


def mcp(repo_path: str) -> int:
    try:
        import mcp  # noqa: F401 - the optional extra: a clear message instead of a traceback when it is missing
    except ImportError:
        raise GraphguardError("the MCP server needs the `mcp` package: pip install 'graphguard[mcp]'") from None
    from graphguard.server.session import Session
    from graphguard.server.stdio import serve

    # Opened and brought current before the first request, so that the first answer pays no index update.
    session = Session(repo_path)
    session.refresh(stale_ok=True)  # a refresher at work: the first answers may come from the graph it replaces
    return serve(session)
