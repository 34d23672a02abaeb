"""The answers as documents: each question an agent or the CLI asks, answered as the dict its `--format json` prints.

Every function takes an open Repo whose graph the caller has already brought current (the CLI
calls `repo.ensure_current` first; the MCP server refreshes on its own schedule) and asks the
graph as it stands: nothing here refreshes, so one open Repo answers again and again in a
long-lived process. The commands print these documents; the server returns them.

One module per question: callers, context (and related), outline, impact, stats, check; records holds
what they share.
"""
