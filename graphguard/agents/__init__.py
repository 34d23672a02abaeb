"""The agent editors whose hooks graphguard installs (`install --agent`), and what it asks of each.

Pure records: which settings file holds the editor's project hooks, the names of its events and its
file-writing tools, and how a hook's answer is spelt. The commands (commands/agent_hook.py,
commands/install_agent.py) do the I/O. Only editors whose hook input and decision output are
documented are here (docs/agents.md says which were left out and why).
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class Editor(enum.Enum):
    """An agent editor, by the name `install --agent` and `agent-hook` take."""

    CLAUDE_CODE = "claude-code"
    GEMINI_CLI = "gemini-cli"


class Event(enum.Enum):
    """What graphguard hooks, by the name its hook command carries (editor-neutral)."""

    PRE_WRITE = "pre-write"  # before a file-writing tool runs: the shadow check may deny it
    STOP = "stop"  # before the agent finishes: check --worktree may send it back to work


class EditorSpec(NamedTuple):  # not a dataclass: the hook's client imports this package, not `dataclasses`
    editor: Editor
    settings: str  # the project settings file, relative to the repository root
    events: dict[Event, str]  # graphguard's event -> the editor's event name
    write_tools: tuple[str, ...]  # the editor's tools that write a file (the pre-write hook's matcher)
    timeout: int  # the hook's timeout, in the editor's unit (Claude Code: seconds; Gemini CLI: milliseconds)


EDITORS: dict[Editor, EditorSpec] = {
    # https://code.claude.com/docs/en/hooks: .claude/settings.json, PreToolUse (matcher: tool names) and Stop.
    Editor.CLAUDE_CODE: EditorSpec(Editor.CLAUDE_CODE, ".claude/settings.json",
                                   {Event.PRE_WRITE: "PreToolUse", Event.STOP: "Stop"}, ("Write", "Edit", "MultiEdit"), 30),
    # https://geminicli.com/docs/hooks/reference: .gemini/settings.json, BeforeTool (matcher: a regex) and AfterAgent.
    Editor.GEMINI_CLI: EditorSpec(Editor.GEMINI_CLI, ".gemini/settings.json",
                                  {Event.PRE_WRITE: "BeforeTool", Event.STOP: "AfterAgent"}, ("write_file", "replace"), 30000),
}

#: What marks a hook entry as graphguard's in an editor's settings (the command's words).
COMMAND_MARK = "-m graphguard agent-hook"
