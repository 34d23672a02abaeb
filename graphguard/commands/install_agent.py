"""`graphguard install --agent EDITOR [--uninstall]`: an agent editor's project hooks (graphguard.agents).

Install merges graphguard's hooks into the editor's project settings (other keys and hooks kept) and
notes, in the store, the file as it was and as it was written. Uninstall puts the file back byte for
byte when nobody touched it since (a file graphguard created is removed, and its folder when graphguard
made it and it is empty); when it was edited since, it takes out graphguard's hooks only.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

from graphguard import git, output
from graphguard.agents import EDITORS, Editor, EditorSpec, Event
from graphguard.agents import settings as agent_settings
from graphguard.errors import GraphguardError

NAMES = {Editor.CLAUDE_CODE: "Claude Code", Editor.GEMINI_CLI: "Gemini CLI"}


def hook_command(editor: Editor, event: Event) -> str:
    """What the editor runs: this interpreter, isolated (-I: no PYTHONPATH, no user site, not the cwd on sys.path,
    so that the repository's own files cannot stand in for graphguard's)."""
    return f"{shlex.quote(sys.executable)} -I -m graphguard agent-hook {editor.value} {event.value}"


def install_agent(repo_path: str, editor_name: str, *, uninstall: bool = False) -> int:
    spec = EDITORS[Editor(editor_name)]
    paths = git.repo_paths(repo_path)
    target = os.path.join(paths.root, spec.settings)
    # Per work tree (its own settings file): the git dir, not the common one.
    record_path = os.path.join(paths.git_dir, "graphguard", f"agent-{spec.editor.value}.json")
    if os.path.islink(target):
        raise GraphguardError(f"{target} is a symbolic link: graphguard does not write through it; add the hooks by hand"
                              " (docs/agents.md shows them)")
    try:
        if uninstall:
            _uninstall(spec, target, record_path)
            _stop_server(paths.git_dir)
        else:
            _check_interpreter()
            _install(spec, target, record_path)
    except OSError as e:
        raise GraphguardError(f"cannot write {e.filename or target}: {e.strerror}") from None
    return 0


def _install(spec: EditorSpec, target: str, record_path: str) -> None:
    text = _read(target)
    current = agent_settings.parse(text or "", spec.settings)
    record = _load_record(record_path)
    if not agent_settings.has_hooks(current):
        original, exact = text, True
    elif record is not None and record.get("written") == text:
        original, exact = record.get("original"), bool(record.get("exact"))  # installed again over our own file
    else:
        original, exact = None, False  # ours are there from an install not noted: uninstall takes them out only
    made_dir = not os.path.isdir(os.path.dirname(target)) or bool(record and record.get("made_dir") and exact)
    written = agent_settings.dump(agent_settings.with_hooks(current, spec, {e: hook_command(spec.editor, e) for e in Event}))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    _write(target, written)
    _save_record(record_path, {"settings": spec.settings, "original": original, "exact": exact, "made_dir": made_dir,
                               "written": written})
    events = ", ".join(f"{spec.events[Event.PRE_WRITE]} on {'|'.join(spec.write_tools)}" if e is Event.PRE_WRITE
                       else spec.events[e] for e in Event)
    output.write(f"installed graphguard's {NAMES[spec.editor]} hooks in {target} ({events})")


def _uninstall(spec: EditorSpec, target: str, record_path: str) -> None:
    text = _read(target)
    record = _load_record(record_path)
    if record is not None and record.get("exact") and text == record.get("written"):
        original = record.get("original")
        if isinstance(original, str):
            _write(target, original)
            output.write(f"restored {target} as it was before graphguard install --agent {spec.editor.value}")
        else:
            os.remove(target)
            output.write(f"removed {target} (graphguard created it)")
            if record.get("made_dir"):
                _remove_if_empty(os.path.dirname(target))
    elif text is not None and agent_settings.has_hooks(current := agent_settings.parse(text, spec.settings)):
        left = agent_settings.without_hooks(current)
        if not left and record is not None and record.get("exact") and record.get("original") is None:
            os.remove(target)
            output.write(f"removed {target} (graphguard created it; nothing else was added to it)")
        else:
            _write(target, agent_settings.dump(left))
            output.write(f"removed graphguard's hooks from {target} (edited since the install: the rest is kept)")
    else:
        output.write(f"no graphguard hooks in {target}: nothing to remove")
    if os.path.lexists(record_path):
        os.remove(record_path)


def _stop_server(git_dir: str) -> None:
    """The work tree's agent server (commands/agent_server.py) leaves with the hooks that asked it."""
    from graphguard.commands import agent_server

    sock = agent_server.socket_path(os.path.join(git_dir, "graphguard"))
    if sock is not None and os.path.exists(sock) and agent_server.stop(sock):
        output.write("stopped the agent hooks' server")


def _check_interpreter() -> None:
    """The hooks would be skipped on every write if their `python -I` could not import graphguard: say so now."""
    import subprocess

    proc = subprocess.run([sys.executable, "-I", "-c", "import graphguard.main"], capture_output=True, check=False,
                          timeout=120, cwd=os.path.dirname(sys.executable) or None)
    if proc.returncode != 0:
        raise GraphguardError(f"the hooks start {sys.executable} with -I (PYTHONPATH and the user site ignored), and it"
                              " cannot import graphguard then: install graphguard into that interpreter's environment"
                              " (a venv, pipx) and run graphguard install --agent from it")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise GraphguardError(f"{path} is not UTF-8 text: fix it, then install again") from None


def _write(path: str, text: str) -> None:
    with open(path + ".graphguard-tmp", "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(path + ".graphguard-tmp", path)


def _remove_if_empty(folder: str) -> None:
    try:
        os.rmdir(folder)
    except OSError:
        pass  # something else is in it: it stays


def _load_record(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _save_record(path: str, record: dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _write(path, json.dumps(record, ensure_ascii=False))
