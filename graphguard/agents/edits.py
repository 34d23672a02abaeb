"""A file-writing tool call -> the full content the file would hold after it (pure).

The editors send the tool's arguments, not the result: a Write carries the whole content, an Edit
the strings to replace in the file as it is on disk. `proposal` reads them into a `ToolWrite`;
`apply` lays it over the current text. Where the tool itself would fail (an old string absent, or
found more often than the tool allows), `apply` answers None: the hook lets the tool fail by itself
and says nothing, rather than judge a write that will not happen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graphguard.agents import Editor


@dataclass(frozen=True)
class Replacement:
    old: str
    new: str
    expected: int | None  # how many times `old` must occur (the tool fails otherwise); None: every occurrence, at least one


@dataclass(frozen=True)
class ToolWrite:
    """What one tool call does to one file."""

    file_path: str  # as the tool names it (absolute, or relative to the editor's cwd)
    content: str | None  # the whole new content (a Write), else None
    edits: tuple[Replacement, ...] = ()  # applied in order (an Edit is one; a MultiEdit several)


def proposal(editor: Editor, tool_name: str, tool_input: Mapping[str, object]) -> ToolWrite | None:
    """The write a tool call makes, or None when it is not a file write that graphguard reads."""
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    if editor is Editor.CLAUDE_CODE:
        return _claude(tool_name, path, tool_input)
    return _gemini(tool_name, path, tool_input)


def _claude(tool_name: str, path: str, args: Mapping[str, object]) -> ToolWrite | None:
    # Write {file_path, content}; Edit {file_path, old_string, new_string, replace_all};
    # MultiEdit {file_path, edits: [{old_string, new_string, replace_all}, ...]}.
    if tool_name == "Write":
        content = args.get("content")
        return ToolWrite(path, content) if isinstance(content, str) else None
    if tool_name == "Edit":
        one = _claude_edit(args)
        return ToolWrite(path, None, (one,)) if one is not None else None
    if tool_name == "MultiEdit":
        raw = args.get("edits")
        if not isinstance(raw, list) or not raw:
            return None
        edits = [_claude_edit(e) if isinstance(e, Mapping) else None for e in raw]
        return ToolWrite(path, None, tuple(e for e in edits if e is not None)) if None not in edits else None
    return None


def _claude_edit(args: Mapping[str, object]) -> Replacement | None:
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    return Replacement(old, new, None if args.get("replace_all") is True else 1)


def _gemini(tool_name: str, path: str, args: Mapping[str, object]) -> ToolWrite | None:
    # write_file {file_path, content}; replace {file_path, old_string, new_string, expected_replacements (default 1)}.
    if tool_name == "write_file":
        content = args.get("content")
        return ToolWrite(path, content) if isinstance(content, str) else None
    if tool_name == "replace":
        old, new, n = args.get("old_string"), args.get("new_string"), args.get("expected_replacements", 1)
        if not isinstance(old, str) or not isinstance(new, str) or not isinstance(n, int) or isinstance(n, bool) or n < 1:
            return None
        return ToolWrite(path, None, (Replacement(old, new, n),))
    return None


def apply(write: ToolWrite, current: str | None) -> str | None:
    """The file's content after the write (`current`: its text now, None when it does not exist), or None
    when the tool would fail on it."""
    if write.content is not None:
        return write.content
    text = current
    for edit in write.edits:
        text = _replace(text, edit)
        if text is None:
            return None
    return text


def _replace(text: str | None, edit: Replacement) -> str | None:
    if edit.old == "":
        # An empty old string creates the file (both editors); on an existing file the tool refuses.
        return edit.new if text is None else None
    if text is None or edit.old == edit.new:
        return None
    found = text.count(edit.old)
    if found == 0 or (edit.expected is not None and found != edit.expected):
        return None
    return text.replace(edit.old, edit.new)
