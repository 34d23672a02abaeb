"""`graphguard agent-hook EDITOR EVENT`: what an agent editor's hook runs (installed by `install --agent`).

It reads the editor's JSON on standard input and answers on standard output in the editor's words:
before a file write, the shadow check of the file as the tool would leave it (graphguard.check.run_proposed,
nothing written), denying a write that leaves a caller broken; before the agent finishes, check --worktree,
sending it back while a break stands. A write that breaks nothing gets no output at all.

It never fails closed on its own error: whatever goes wrong (no repository, a damaged graph, input it does
not know), one line on stderr and exit 0, so the editor goes on as if no hook were there. Exit 2 would
block the tool (both editors read it so), and argparse's own exit 2 is why EDITOR and EVENT are free words.

A denied write sent again unchanged goes through (the agent chose to go ahead and fix the callers next):
a cross-file signature change has to break its callers for one write, and the stop hook still holds the
agent until they bind. The denied writes are remembered by digest in the store (DENIED_FILE).

The check itself runs in the work tree's agent server when one answers (commands/agent_server.py: graphguard
imported once, the repository kept open), else here, starting one for the next write.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from graphguard import output
from graphguard.agents import Editor, Event

if TYPE_CHECKING:
    from graphguard.agents.edits import ToolWrite
    from graphguard.repo import Repo

Opener = Callable[[str], "Repo"]

#: The digests of the writes last denied, under the store folder: a write sent again is let through once.
DENIED_FILE = "agent-denied.json"
DENIED_KEPT = 32


def from_words(words: list[str]) -> int:
    """`agent-hook EDITOR EVENT [--repo PATH] [--debug]` (or `agent-hook --serve --repo PATH`: the server)
    read without argparse (main's fast path)."""
    repo, rest = ".", []
    for i, word in enumerate(words):
        if word.startswith("--repo="):
            repo = word[len("--repo="):]
        elif i > 0 and words[i - 1] == "--repo":
            repo = word
        elif word not in ("--repo", "--debug"):
            rest.append(word)
    if rest[:1] == ["--serve"]:
        try:
            return _serve(os.path.abspath(repo))
        except (Exception, KeyboardInterrupt):  # noqa: BLE001 - detached, no terminal: the hooks check in process
            return 0
    editor, event = (rest + ["", ""])[:2]
    return agent_hook(os.path.abspath(repo), editor, event)


def agent_hook(repo_path: str, editor_name: str, event_name: str, stdin: str | None = None) -> int:
    try:
        answer = _answered(repo_path, editor_name, event_name, sys.stdin.read() if stdin is None else stdin)
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - never fail closed: the editor goes on
        message = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"graphguard: agent hook skipped ({message}); the editor goes on unchecked", file=sys.stderr)
        return 0
    if answer is not None:
        output.write(json.dumps(answer, ensure_ascii=False))
    return 0


def _answered(repo_path: str, editor_name: str, event_name: str, text: str) -> dict[str, Any] | None:
    """The answer: from the work tree's server when one answers, else from this process (then a server is started)."""
    editor, event, data = _request(editor_name, event_name, text)
    from graphguard.commands import agent_server

    sock = _socket(repo_path, data) if agent_server.enabled() else None
    served = _served(sock, editor, event, text) if sock is not None else None
    if served is not None:
        return served.answer
    # No server answered: this process checks. Which writes graphguard reads is asked here, not before the
    # server (the server asks it too): the question imports the languages, a fifth of a served hook's time.
    if event is Event.PRE_WRITE and _write_of(editor, data) is None:
        return None  # not a write graphguard reads: no server started for it
    answer = _answer(repo_path, editor, event, data, _open)
    if sock is not None and os.path.isdir(os.path.dirname(sock.path)):
        agent_server.start(sock.root)  # for the next write; it leaves when idle
    return answer


class Served(NamedTuple):
    answer: dict[str, Any] | None


class Socket(NamedTuple):
    root: str  # the work tree
    path: str  # its server's socket


def _socket(repo_path: str, data: Mapping[str, object]) -> Socket | None:
    """The work tree's server socket; None outside a git work tree (this process then says why, or lets the tool be)."""
    from graphguard import git
    from graphguard.commands import agent_server
    from graphguard.errors import GraphguardError

    try:
        paths = git.repo_paths(_where(repo_path, data))
    except GraphguardError:
        return None
    path = agent_server.socket_path(os.path.join(paths.git_dir, "graphguard"))
    return Socket(paths.root, path) if path is not None else None


def _served(sock: Socket, editor: Editor, event: Event, text: str) -> Served | None:
    """The server's answer, or None when no server answered."""
    from graphguard.commands import agent_server
    from graphguard.errors import GraphguardError

    reply = agent_server.ask(sock.path, {"fingerprint": agent_server.fingerprint(), "editor": editor.value,
                                         "event": event.value, "input": text})
    if reply is None:
        return None
    if "error" in reply:
        raise GraphguardError(str(reply["error"]))
    return Served(reply.get("answer"))


def _serve(root: str) -> int:
    """The server's loop (commands/agent_server.py), answering with this module's code over repositories kept open."""
    from graphguard import git
    from graphguard.commands import agent_server
    from graphguard.repo import open_repo

    paths = git.repo_paths(root)
    sock = agent_server.socket_path(os.path.join(paths.git_dir, "graphguard"))
    if sock is None:
        return 0
    kept: dict[str, Repo] = {}

    def opener(where: str) -> Repo:
        if where not in kept:
            kept[where] = open_repo(where)
        return kept[where]

    def answer(editor_name: str, event_name: str, text: str) -> dict[str, Any] | None:
        editor, event, data = _request(editor_name, event_name, text)
        return _answer(paths.root, editor, event, data, opener)

    return agent_server.serve(sock, answer)


def _open(root: str) -> Repo:
    from graphguard.repo import open_repo

    return open_repo(root)


def _request(editor_name: str, event_name: str, text: str) -> tuple[Editor, Event, dict[str, Any]]:
    from graphguard.errors import GraphguardError

    try:
        editor, event = Editor(editor_name), Event(event_name)
    except ValueError:
        raise GraphguardError(f"unknown editor or event '{editor_name} {event_name}' (an older graphguard?)") from None
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise GraphguardError("the editor's input is not a JSON object")
    return editor, event, data


def _where(repo_path: str, data: Mapping[str, object]) -> str:
    """The editor's working directory (its input says), else the hook's."""
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isdir(cwd) else repo_path


def _write_of(editor: Editor, data: Mapping[str, object]) -> ToolWrite | None:
    """The tool call's write when it is one of a file a language of graphguard reads, else None."""
    from graphguard.agents import edits
    from graphguard.languages import for_path

    tool_input, tool_name = data.get("tool_input"), data.get("tool_name")
    if not isinstance(tool_input, dict) or not isinstance(tool_name, str):
        return None
    write = edits.proposal(editor, tool_name, tool_input)
    return write if write is not None and for_path(write.file_path) is not None else None


def _answer(repo_path: str, editor: Editor, event: Event, data: dict[str, Any], opener: Opener) -> dict[str, Any] | None:
    where = _where(repo_path, data)
    if event is Event.PRE_WRITE:
        return _pre_write(editor, where, data, opener)
    return _stop(editor, where, data, opener)


def _pre_write(editor: Editor, cwd: str, data: Mapping[str, object], opener: Opener) -> dict[str, Any] | None:
    from graphguard import git
    from graphguard.agents import edits

    write = _write_of(editor, data)
    if write is None:
        return None  # not a file write, or of a file no language of graphguard reads
    root = git.repo_paths(cwd).root
    rel = _in_repo(root, os.path.join(cwd, write.file_path))
    if rel is None:
        return None  # outside the repository (or inside .git)
    current = _on_disk(os.path.join(root, rel))
    if not current.readable:
        return None  # not a regular UTF-8 file: not one graphguard would check
    new = edits.apply(write, current.text)
    if new is None or new == current.text:
        return None  # the tool fails by itself, or writes nothing new
    from graphguard.check import run_proposed
    from graphguard.result import Verdict

    repo = opener(root)
    data_new = new.encode("utf-8", "surrogatepass")
    result = run_proposed(repo, {rel: data_new})
    if result.verdict is not Verdict.BLOCK or _sent_again(repo.store.dir, rel, data_new):
        return None
    from graphguard.agents import verdict

    return verdict.deny(editor, verdict.deny_reason(result, rel))


def _stop(editor: Editor, cwd: str, data: Mapping[str, object], opener: Opener) -> dict[str, Any] | None:
    from graphguard import git
    from graphguard.agents import verdict
    from graphguard.check import run
    from graphguard.result import Verdict

    result = run(opener(git.repo_paths(cwd).root), worktree=True)
    if result.verdict is not Verdict.BLOCK:
        return None
    reason = verdict.stop_reason(result)
    if data.get("stop_hook_active") is True:
        return verdict.tell_user(reason)  # sent back once already: the user hears of it, the agent is not held again
    return verdict.block_stop(editor, reason)


def _in_repo(root: str, path: str) -> str | None:
    """`path` relative to the repository root ('/'-separated), or None when it lies outside (or in .git)."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    parts = rel.split(os.sep)
    if rel == "." or parts[0] == ".." or os.path.isabs(rel) or ".git" in parts:
        return None
    return "/".join(parts)


class OnDisk(NamedTuple):
    """The file a tool is about to write, as it is now."""

    readable: bool  # False: a symlink, a folder, not UTF-8 (graphguard does not check it)
    text: str | None  # None: no such file yet


def _on_disk(path: str) -> OnDisk:
    if not os.path.lexists(path):
        return OnDisk(True, None)
    if os.path.islink(path) or not os.path.isfile(path):
        return OnDisk(False, None)
    try:
        with open(path, "rb") as f:
            return OnDisk(True, f.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return OnDisk(False, None)


def _sent_again(store_dir: str, rel: str, data: bytes) -> bool:
    """Whether this very write was denied last time it was sent (then it goes through, once); else it is noted."""
    import hashlib

    digest = hashlib.sha256(rel.encode("utf-8", "surrogatepass") + b"\0" + data).hexdigest()
    path = os.path.join(store_dir, DENIED_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            denied = [d for d in json.load(f) if isinstance(d, str)]
    except (OSError, ValueError, TypeError):
        denied = []
    again = digest in denied
    denied = [d for d in denied if d != digest] + ([] if again else [digest])
    os.makedirs(store_dir, exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(denied[-DENIED_KEPT:], f)
    os.replace(path + ".tmp", path)
    return again
