"""The agent hook's server: a process per work tree that keeps graphguard imported and the repository open,
so that a hook run before every file write costs a connection, not an interpreter's worth of imports.

The hook (commands/agent_hook.py) asks the server over a Unix socket in the store folder (SOCKET); when none
answers it checks in its own process, as before, and starts one for the next write (detached, its own
session, no terminal). The server answers one request at a time with the same code the hook runs, and
leaves when nobody asked for IDLE_SECONDS, when its socket is gone (`graphguard clean`), or when a hook of
another graphguard asks (the fingerprint: version, interpreter and the package's files): that hook checks
in its own process and starts a server of its own. `GRAPHGUARD_AGENT_SERVER=0` turns the server off.

Protocol: one JSON line each way. Request `{"fingerprint", "editor", "event", "input"}`; answer
`{"answer": DOCUMENT | null}`, `{"error": "one line"}` (the hook warns and lets the editor go on) or
`{"restart": true}`; `{"stop": true}` makes the server leave (install --agent --uninstall asks it).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from typing import Any

SOCKET = "agent-hook.sock"
IDLE_SECONDS = 900
CONNECT_TIMEOUT = 0.5
#: Below the editors' hook timeout (30 s): a server that takes longer is abandoned for an answer in process.
ANSWER_TIMEOUT = 25.0
MAX_LINE = 64 * 1024 * 1024
SWITCH = "GRAPHGUARD_AGENT_SERVER"


def enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


#: A Unix socket's path holds at most about 107 bytes (sun_path): a longer one is put in a private temp folder.
MAX_SOCKET_PATH = 100


def socket_path(store_dir: str) -> str | None:
    """The server's socket: in the store folder, or where that path is too long, in a folder of this user's
    under the temp dir, named by the store's digest. None when no such folder can be trusted."""
    path = os.path.join(store_dir, SOCKET)
    if len(os.fsencode(path)) < MAX_SOCKET_PATH:
        return path
    import hashlib
    import tempfile

    folder = os.path.join(tempfile.gettempdir(), f"graphguard-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or not os.path.isdir(folder) or os.path.islink(folder):
        return None  # another user's, or open to others: not a place to listen
    digest = hashlib.sha256(os.fsencode(os.path.abspath(store_dir))).hexdigest()[:24]
    path = os.path.join(folder, f"{digest}.sock")
    return path if len(os.fsencode(path)) < MAX_SOCKET_PATH else None


def fingerprint() -> str:
    """What a server must share with the hook that asks it: a graphguard changed on disk answers from its new code."""
    import graphguard

    home = os.path.dirname(os.path.abspath(graphguard.__file__))
    newest = 0
    for folder, _, names in os.walk(home):
        for name in names:
            if name.endswith(".py"):
                try:
                    newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
                except OSError:
                    continue
    return f"{graphguard.__version__} {sys.executable} {newest}"


def ask(path: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The server's answer, or None when no server answered (then the hook checks in its own process)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(CONNECT_TIMEOUT)
        try:
            s.connect(path)
        except OSError:
            return None
        try:
            s.settimeout(ANSWER_TIMEOUT)
            s.sendall(json.dumps(request).encode("utf-8", "surrogatepass") + b"\n")
            reply = _read_line(s)
        except OSError:
            return None
    try:
        answer = json.loads(reply) if reply else None
    except ValueError:
        return None
    return answer if isinstance(answer, dict) and not answer.get("restart") else None


def start(root: str) -> None:
    """A detached server for the work tree at `root`; it exits at once if another one holds the socket."""
    subprocess.Popen([sys.executable, "-I", "-m", "graphguard", "agent-hook", "--serve", "--repo", root],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, cwd=root)


def stop(path: str) -> bool:
    """Ask the server at `path` to leave; whether one was there."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(CONNECT_TIMEOUT)
        try:
            s.connect(path)
            s.sendall(b'{"stop": true}\n')
            _read_line(s)
        except OSError:
            return False
    return True


def serve(path: str, answer: Callable[[str, str, str], dict[str, Any] | None]) -> int:
    """Answer requests on `path` until idle; `answer(editor, event, input)` is the hook's own."""
    listener = _bind(path)
    if listener is None:
        return 0  # another server holds it
    mine = os.stat(path).st_ino
    own = fingerprint()
    with listener:
        listener.settimeout(IDLE_SECONDS)
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                break
            with conn:
                if not _answer_one(conn, own, answer):
                    break
            if _stat_ino(path) != mine:
                return 0  # the socket was removed or replaced (graphguard clean): leave, without touching it
    if _stat_ino(path) == mine:
        os.unlink(path)
    return 0


def _answer_one(conn: socket.socket, own: str, answer: Callable[[str, str, str], dict[str, Any] | None]) -> bool:
    """One request answered; False when the server is to leave."""
    conn.settimeout(ANSWER_TIMEOUT)
    try:
        request = json.loads(_read_line(conn) or b"{}")
    except (OSError, ValueError):
        return True
    if not isinstance(request, dict) or request.get("stop"):
        _reply(conn, {"stopped": True})
        return False
    if request.get("fingerprint") != own:
        _reply(conn, {"restart": True})
        return False
    try:
        reply: dict[str, Any] = {"answer": answer(str(request.get("editor")), str(request.get("event")),
                                                  str(request.get("input", "")))}
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - the hook warns and lets the editor go on
        reply = {"error": str(e).splitlines()[0] if str(e) else type(e).__name__}
    _reply(conn, reply)
    return True


def _reply(conn: socket.socket, reply: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
    except OSError:
        pass  # the hook gave up waiting


def _bind(path: str) -> socket.socket | None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)  # the socket answers only its owner
    try:
        try:
            listener.bind(path)
        except OSError:
            try:
                if not (os.path.exists(path) and _is_stale(path)):
                    raise
                os.unlink(path)
                listener.bind(path)
            except OSError:  # a live server holds it, or another one just took it
                listener.close()
                return None
    finally:
        os.umask(old)
    listener.listen(8)
    return listener


def _is_stale(path: str) -> bool:
    """Whether the socket at `path` is left by a server that is gone (nobody accepts on it)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(CONNECT_TIMEOUT)
        try:
            s.connect(path)
        except OSError:
            return True
    return False


def _stat_ino(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _read_line(s: socket.socket) -> bytes:
    chunks, size = [], 0
    while size <= MAX_LINE:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)
