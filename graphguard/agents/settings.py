"""graphguard's hook entries in an editor's settings (a parsed JSON object), added and taken out (pure).

Both editors keep `hooks: {EventName: [group, ...]}`, a group being `{matcher?, hooks: [{type,
command, timeout}]}`. Install appends one group of graphguard's per event and leaves every other
key, event, group and hook as it was; uninstall takes out the hooks whose command is graphguard's
(agents.COMMAND_MARK), then the groups, events and `hooks` object that only they filled.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from graphguard.agents import COMMAND_MARK, EditorSpec, Event
from graphguard.errors import GraphguardError

Settings = dict[str, Any]


def parse(text: str, where: str) -> Settings:
    """An existing settings file's object; a GraphguardError when it is not one (never overwritten then)."""
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as e:
        raise GraphguardError(f"{where} is not valid JSON ({e.msg} at line {e.lineno}): fix it, then install again") from None
    if not isinstance(data, dict):
        raise GraphguardError(f"{where} holds a JSON {type(data).__name__}, not an object: fix it, then install again")
    hooks = data.get("hooks", {})
    # A value that is not a list of groups (a switch such as `"enabled": true`) is left alone.
    if not isinstance(hooks, dict):
        raise GraphguardError(f"{where}: 'hooks' is not an object, as the editor reads it: fix it, then install again")
    return data


def dump(settings: Settings) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def is_ours(hook: object) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and COMMAND_MARK in hook["command"]


def with_hooks(settings: Settings, spec: EditorSpec, commands: dict[Event, str]) -> Settings:
    """`settings` with graphguard's hooks (any earlier ones of graphguard's replaced)."""
    out = without_hooks(settings)
    hooks = out.setdefault("hooks", {})
    for event, command in commands.items():
        group: dict[str, Any] = {}
        if event is Event.PRE_WRITE:
            group["matcher"] = "|".join(spec.write_tools)
        entry: dict[str, Any] = {"type": "command", "command": command, "timeout": spec.timeout}
        group["hooks"] = [entry]
        groups = hooks.setdefault(spec.events[event], [])
        if not isinstance(groups, list):
            raise GraphguardError(f"{spec.settings}: hooks.{spec.events[event]} is not a list of hook groups:"
                                  " fix it, then install again")
        groups.append(group)
    return out


def without_hooks(settings: Settings) -> Settings:
    """`settings` without graphguard's hooks, and without what only they held."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for name in list(hooks):
        groups = hooks[name]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_ours(h) for h in inner):
                kept.append(group)
                continue
            rest = [h for h in inner if not is_ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        if kept:
            hooks[name] = kept
        elif groups:  # emptied by graphguard's going; an empty list the user wrote stays
            del hooks[name]
    if not hooks and "hooks" in settings and settings["hooks"] != {}:
        del out["hooks"]
    return out


def has_hooks(settings: Settings) -> bool:
    hooks = settings.get("hooks")
    return isinstance(hooks, dict) and any(
        isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(h) for h in g["hooks"])
        for groups in hooks.values() if isinstance(groups, list) for g in groups)
