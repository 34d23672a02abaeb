"""`graphguard install --agent` and `graphguard agent-hook`: the agent editors' hooks.

The hooks are fed the editors' documented JSON input (Claude Code: PreToolUse on Write, Edit and
MultiEdit, Stop; Gemini CLI: BeforeTool on write_file and replace, AfterAgent) in real git
repositories, and their decision output is asserted; one test runs the command `install --agent`
wrote into the settings, as the editor would (a shell, that stdin). Install and uninstall keep
foreign settings and hooks byte for byte.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphguard.agents import Editor, edits
from graphguard.agents.settings import without_hooks
from graphguard.commands import agent_server
from tests.helpers import GIT_LEAKS, GitRepo, Result, source

Graphguard = Callable[..., Result]

FILES = {
    "pkg/__init__.py": "",
    "pkg/billing.py": """
        def prorate(sub, at):
            return sub * at
        """,
    "pkg/api.py": """
        from pkg.billing import prorate


        def create(sub):
            return prorate(sub, 3)
        """,
    "README.md": "# demo\n",
}
BREAKING_OLD, BREAKING_NEW = "def prorate(sub, at):", "def prorate(sub, at, tz):"


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks check in their own process here (the server has tests of its own, which stop it)."""
    monkeypatch.setenv(agent_server.SWITCH, "0")


@pytest.fixture
def repo(make_repo: Callable[..., GitRepo], graphguard: Graphguard) -> GitRepo:
    made = make_repo(FILES)
    assert graphguard(made, "index").code == 0
    return made


def claude_pre(repo: GitRepo, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """PreToolUse's input as Claude Code documents it (https://code.claude.com/docs/en/hooks)."""
    return {"session_id": "abc123", "transcript_path": "/tmp/transcript.jsonl", "cwd": str(repo.root),
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "toolu_01"}


def gemini_before(repo: GitRepo, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """BeforeTool's input as Gemini CLI documents it (https://geminicli.com/docs/hooks/reference)."""
    return {"session_id": "s1", "transcript_path": "/tmp/t.json", "cwd": str(repo.root), "hook_event_name": "BeforeTool",
            "timestamp": "2026-12-04T01:00:00Z", "tool_name": tool, "tool_input": tool_input}


def hook(graphguard: Graphguard, monkeypatch: pytest.MonkeyPatch, repo: GitRepo | Path, editor: str, event: str,
         payload: object) -> Result:
    monkeypatch.setattr("sys.stdin", io.StringIO(payload if isinstance(payload, str) else json.dumps(payload)))
    return graphguard(repo, "agent-hook", editor, event)


def edit(repo: GitRepo, old: str = BREAKING_OLD, new: str = BREAKING_NEW, **more: Any) -> dict[str, Any]:
    return {"file_path": str(repo.path("pkg/billing.py")), "old_string": old, "new_string": new, **more}


# Claude Code: PreToolUse


def test_an_edit_that_breaks_a_caller_is_denied_with_the_sites(repo: GitRepo, graphguard: Graphguard,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    before = repo.path("pkg/billing.py").read_bytes()
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", claude_pre(repo, "Edit", edit(repo, replace_all=False)))
    assert r.code == 0, r.err
    out = r.json["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith("graphguard: writing pkg/billing.py 1 caller would break:"
                                                      " pkg/api.py:5 missing required argument 'tz'")
    assert "pkg.billing.prorate (signature: def prorate(sub, at) -> def prorate(sub, at, tz))" in out["permissionDecisionReason"]
    assert repo.path("pkg/billing.py").read_bytes() == before  # nothing written
    assert repo.git("status", "--porcelain") == ""


def test_a_denied_write_sent_again_goes_through_once(repo: GitRepo, graphguard: Graphguard,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    payload = claude_pre(repo, "Edit", edit(repo))
    decisions = [hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", payload).out for _ in range(3)]
    assert [bool(d.strip()) for d in decisions] == [True, False, True]  # denied, let through, denied again


def test_an_edit_that_breaks_nothing_costs_nothing(repo: GitRepo, graphguard: Graphguard,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write",
             claude_pre(repo, "Edit", edit(repo, "return sub * at", "return at * sub")))
    assert (r.code, r.out, r.err) == (0, "", "")


def test_write_and_multiedit_are_checked_as_the_tool_leaves_the_file(repo: GitRepo, graphguard: Graphguard,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    write = {"file_path": str(repo.path("pkg/billing.py")), "content": "def prorate(sub):\n    return sub\n"}
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", claude_pre(repo, "Write", write))
    assert "pkg/api.py:5 takes 1 positional argument but 2 were given" in r.json["hookSpecificOutput"]["permissionDecisionReason"]
    # The second edit applies to the first's result: the name it renames exists only after the first.
    multi = {"file_path": str(repo.path("pkg/billing.py")), "edits": [
        {"old_string": "def prorate(sub, at):", "new_string": "def prorate2(sub, at):"},
        {"old_string": "prorate2", "new_string": "prorate3", "replace_all": True}]}
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", claude_pre(repo, "MultiEdit", multi))
    assert "pkg.billing.prorate" in r.json["hookSpecificOutput"]["permissionDecisionReason"]
    fixed = {"file_path": str(repo.path("pkg/billing.py")), "edits": [
        {"old_string": "def prorate(sub, at):", "new_string": "def prorate(sub, at, tz=None):"}]}
    assert hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", claude_pre(repo, "MultiEdit", fixed)).out == ""


def test_a_new_file_written_by_an_edit_with_no_old_string(repo: GitRepo, graphguard: Graphguard,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    new = {"file_path": str(repo.path("pkg/more.py")), "old_string": "",
           "new_string": "from pkg.billing import prorate\n\nprorate(1)\n"}
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", claude_pre(repo, "Edit", new))
    assert "pkg/more.py:3 missing required argument 'at'" in r.json["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("tool_input", [
    pytest.param({"old_string": "def absent():", "new_string": "def absent(x):"}, id="old-string-absent"),
    pytest.param({"old_string": "sub", "new_string": "s"}, id="old-string-not-unique"),
    pytest.param({"file_path": "/elsewhere/pkg/billing.py", "old_string": BREAKING_OLD, "new_string": BREAKING_NEW},
                 id="outside-the-repository"),
    pytest.param({"file_path": "README.md", "old_string": "# demo", "new_string": "def prorate(x): pass"}, id="not-code"),
    pytest.param({"file_path": "pkg/billing.py"}, id="no-strings"),
])
def test_writes_graphguard_does_not_judge_are_allowed_silently(repo: GitRepo, graphguard: Graphguard,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               tool_input: dict[str, Any]) -> None:
    payload = claude_pre(repo, "Edit", {"file_path": str(repo.path("pkg/billing.py")), **tool_input})
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", payload)
    assert (r.code, r.out, r.err) == (0, "", "")


def test_a_file_graphguard_would_not_read_is_allowed(repo: GitRepo, graphguard: Graphguard,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write({"pkg/latin.py": "x = 'caf\xe9'\n".encode("latin-1")})
    os.symlink("billing.py", repo.path("pkg/link.py"))
    for rel in ("pkg/latin.py", "pkg/link.py"):
        payload = claude_pre(repo, "Edit", {"file_path": str(repo.path(rel)), "old_string": "x", "new_string": "y"})
        assert hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", payload).out == ""


@pytest.mark.parametrize("payload", ["{not json", "[1, 2]", json.dumps({"tool_name": "Edit", "cwd": "/"})])
def test_its_own_errors_never_block(tmp_path: Path, graphguard: Graphguard, monkeypatch: pytest.MonkeyPatch,
                                    payload: str) -> None:
    """Not JSON, not an object, not a repository: one line on stderr, exit 0, no decision."""
    if "tool_name" in payload:
        payload = json.dumps(claude_pre(GitRepo(tmp_path), "Edit", {"file_path": str(tmp_path / "a.py"), "old_string": "",
                                                                     "new_string": "x = 1\n"}))
    r = hook(graphguard, monkeypatch, tmp_path, "claude-code", "pre-write", payload)
    assert r.code == 0 and r.out == ""
    assert r.err.startswith("graphguard: agent hook skipped (") and r.err.count("\n") == 1


def test_an_unknown_editor_or_event_never_blocks(repo: GitRepo, graphguard: Graphguard,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for editor, event in (("vim", "pre-write"), ("claude-code", "post-write")):
        r = hook(graphguard, monkeypatch, repo, editor, event, claude_pre(repo, "Edit", edit(repo)))
        assert (r.code, r.out) == (0, "") and "unknown editor or event" in r.err


def test_a_damaged_graph_lets_the_write_through(repo: GitRepo, graphguard: Graphguard,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    repo.graph_path.write_bytes(b"not a database" * 100)
    r = hook(graphguard, monkeypatch, repo, "claude-code", "pre-write", claude_pre(repo, "Edit", edit(repo)))
    assert r.code == 0  # rebuilt and checked, or skipped with a warning: never exit 2
    assert r.out == "" or r.json["hookSpecificOutput"]["permissionDecision"] == "deny"


# Claude Code: Stop


def test_stop_is_blocked_while_a_break_stands_and_once_only(repo: GitRepo, graphguard: Graphguard,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    stop = {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo.root), "permission_mode": "default",
            "hook_event_name": "Stop", "stop_hook_active": False}
    assert hook(graphguard, monkeypatch, repo, "claude-code", "stop", stop).out == ""
    repo.write({"pkg/billing.py": "def prorate(sub, at, tz):\n    return sub * at\n"})
    r = hook(graphguard, monkeypatch, repo, "claude-code", "stop", stop)
    assert r.json["decision"] == "block"
    assert "1 caller is broken: pkg/api.py:5 missing required argument 'tz'" in r.json["reason"]
    again = hook(graphguard, monkeypatch, repo, "claude-code", "stop", {**stop, "stop_hook_active": True})
    assert "decision" not in again.json and "pkg/api.py:5" in again.json["systemMessage"]
    repo.write({"pkg/api.py": "from pkg.billing import prorate\n\n\ndef create(sub):\n    return prorate(sub, 3, tz=1)\n"})
    assert hook(graphguard, monkeypatch, repo, "claude-code", "stop", stop).out == ""


# Gemini CLI


def test_gemini_before_tool_denies_replace_and_write_file(repo: GitRepo, graphguard: Graphguard,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    r = hook(graphguard, monkeypatch, repo, "gemini-cli", "pre-write", gemini_before(repo, "replace", edit(repo)))
    assert r.json["decision"] == "deny" and "pkg/api.py:5 missing required argument 'tz'" in r.json["reason"]
    # expected_replacements must match the occurrences, or the tool fails by itself: allowed.
    r = hook(graphguard, monkeypatch, repo, "gemini-cli", "pre-write",
             gemini_before(repo, "replace", edit(repo, expected_replacements=2)))
    assert r.out == ""
    write = {"file_path": str(repo.path("pkg/billing.py")), "content": "def prorate(sub):\n    return sub\n"}
    r = hook(graphguard, monkeypatch, repo, "gemini-cli", "pre-write", gemini_before(repo, "write_file", write))
    assert r.json["decision"] == "deny"


def test_gemini_after_agent_asks_for_a_retry(repo: GitRepo, graphguard: Graphguard, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write({"pkg/billing.py": "def prorate(sub, at, tz):\n    return sub * at\n"})
    after = {"session_id": "s1", "transcript_path": "/tmp/t.json", "cwd": str(repo.root), "hook_event_name": "AfterAgent",
             "timestamp": "2026-12-04T01:00:00Z", "prompt": "add tz", "prompt_response": "Done.", "stop_hook_active": False}
    r = hook(graphguard, monkeypatch, repo, "gemini-cli", "stop", after)
    assert r.json["decision"] == "deny" and "pkg/api.py:5" in r.json["reason"]


# install --agent


FOREIGN = ('{\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "hooks": {\n        "PreToolUse": [\n'
           '            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}\n        ],\n'
           '        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n    }\n}\n')


def settings(repo: GitRepo, rel: str = ".claude/settings.json") -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(repo.path(rel).read_text())
    return loaded


def test_install_merges_and_uninstall_restores_byte_for_byte(repo: GitRepo, graphguard: Graphguard) -> None:
    repo.write({".claude/settings.json": FOREIGN.encode()})
    assert graphguard(repo, "install", "--agent", "claude-code").code == 0
    assert graphguard(repo, "install", "--agent", "claude-code").code == 0  # twice: still one entry of ours
    hooks = settings(repo)["hooks"]
    assert settings(repo)["permissions"] == {"allow": ["Bash(npm test)"]}
    assert [g["matcher"] for g in hooks["PreToolUse"]] == ["Bash", "Write|Edit|MultiEdit"]
    assert hooks["PreToolUse"][1]["hooks"][0]["command"].endswith(" -I -m graphguard agent-hook claude-code pre-write")
    assert [g["hooks"][0]["command"].split()[-1] for g in hooks["Stop"]] == ["done", "stop"]
    r = graphguard(repo, "install", "--agent", "claude-code", "--uninstall")
    assert r.code == 0 and "restored" in r.out
    assert repo.path(".claude/settings.json").read_bytes() == FOREIGN.encode()


def test_uninstall_after_an_edit_keeps_the_edit_and_the_foreign_hooks(repo: GitRepo, graphguard: Graphguard) -> None:
    repo.write({".claude/settings.json": FOREIGN.encode()})
    assert graphguard(repo, "install", "--agent", "claude-code").code == 0
    edited = settings(repo) | {"model": "opus"}
    repo.path(".claude/settings.json").write_text(json.dumps(edited))
    assert graphguard(repo, "install", "--agent", "claude-code", "--uninstall").code == 0
    assert settings(repo) == json.loads(FOREIGN) | {"model": "opus"}


def test_a_settings_file_graphguard_created_is_removed(repo: GitRepo, graphguard: Graphguard) -> None:
    assert graphguard(repo, "install", "--agent", "gemini-cli").code == 0
    hooks = settings(repo, ".gemini/settings.json")["hooks"]
    assert hooks["BeforeTool"][0]["matcher"] == "write_file|replace" and hooks["BeforeTool"][0]["hooks"][0]["timeout"] == 30000
    assert set(hooks) == {"BeforeTool", "AfterAgent"}
    assert graphguard(repo, "install", "--agent", "gemini-cli", "--uninstall").code == 0
    assert not repo.path(".gemini").exists()


def test_a_switch_among_the_hooks_is_kept(repo: GitRepo, graphguard: Graphguard) -> None:
    original = b'{"hooks": {"enabled": true}, "theme": "dark"}'
    repo.write({".gemini/settings.json": original})
    assert graphguard(repo, "install", "--agent", "gemini-cli").code == 0
    assert settings(repo, ".gemini/settings.json")["hooks"]["enabled"] is True
    assert graphguard(repo, "install", "--agent", "gemini-cli", "--uninstall").code == 0
    assert repo.path(".gemini/settings.json").read_bytes() == original


def test_install_refuses_settings_it_cannot_read(repo: GitRepo, graphguard: Graphguard) -> None:
    for bad, said in ((b"{\"hooks\": [1,\n", "not valid JSON"), (b"[]", "not an object"), (b'{"hooks": []}', "'hooks'"),
                       (b'{"hooks": {"Stop": true}}', "hooks.Stop")):
        repo.write({".claude/settings.json": bad})
        r = graphguard(repo, "install", "--agent", "claude-code")
        assert r.code == 2 and said in r.err
        assert repo.path(".claude/settings.json").read_bytes() == bad


# End to end: the command install wrote, run as the editor runs it


def run_installed(repo: GitRepo, payload: dict[str, Any], **env: str) -> subprocess.CompletedProcess[str]:
    """The PreToolUse command install wrote, run as Claude Code runs it: a shell in the project, the JSON on stdin."""
    group = settings(repo)["hooks"]["PreToolUse"][0]
    assert group["matcher"] == "Write|Edit|MultiEdit"
    environ = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS} | {"CLAUDE_PROJECT_DIR": str(repo.root)} | env
    proc = subprocess.run(group["hooks"][0]["command"], shell=True, cwd=repo.root, env=environ, capture_output=True,
                          text=True, input=json.dumps(payload), timeout=120, check=False)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc


def test_the_installed_command_denies_as_claude_code_runs_it(repo: GitRepo, graphguard: Graphguard) -> None:
    assert graphguard(repo, "install", "--agent", "claude-code").code == 0
    # The repository's own `graphguard` package is never what runs (-I: the cwd is not on sys.path).
    repo.write({"graphguard/__init__.py": "raise SystemExit(3)\n", "graphguard/__main__.py": "raise SystemExit(3)\n"})
    decision = json.loads(run_installed(repo, claude_pre(repo, "Edit", edit(repo))).stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny" and "pkg/api.py:5" in decision["permissionDecisionReason"]


@pytest.mark.slow
def test_the_server_answers_the_next_hook(repo: GitRepo, graphguard: Graphguard) -> None:
    """As in an editor: the first hook checks in its own process and starts the server, which answers the next."""
    assert graphguard(repo, "install", "--agent", "claude-code").code == 0
    sock = agent_server.socket_path(str(repo.root / ".git" / "graphguard"))
    assert sock is not None
    try:
        for n in range(2):
            payload = claude_pre(repo, "Edit", edit(repo, new=f"{BREAKING_NEW}  # {n}"))
            decision = json.loads(run_installed(repo, payload, **{agent_server.SWITCH: "1"}).stdout)["hookSpecificOutput"]
            assert decision["permissionDecision"] == "deny" and "pkg/api.py:5" in decision["permissionDecisionReason"]
            assert wait_for(lambda: os.path.exists(sock))
        # The server answers as the hook does, and leaves when a hook of another graphguard asks.
        request = {"fingerprint": agent_server.fingerprint(), "editor": "claude-code", "event": "pre-write",
                   "input": json.dumps(claude_pre(repo, "Edit", edit(repo, new=f"{BREAKING_NEW}  # 3")))}
        reply = agent_server.ask(sock, request)
        assert reply is not None and reply["answer"]["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert agent_server.ask(sock, {**request, "fingerprint": "another graphguard"}) is None
        assert wait_for(lambda: not os.path.exists(sock))
    finally:
        if os.path.exists(sock):
            agent_server.stop(sock)


#: What a hook answered by the server never imports: the parser, the store, the languages, the graph's records.
NOT_IN_THE_CLIENT = ("argparse", "sqlite3", "dataclasses", "graphguard.model", "graphguard.languages", "graphguard.repo")
CLIENT = """import io, json, sys
from graphguard.commands import agent_server
asked = []
agent_server.ask = lambda path, request: asked.append(request["event"]) or {"answer": None}
sys.stdin = io.StringIO(sys.argv[1])
from graphguard.main import main
code = main(["agent-hook", "claude-code", "pre-write"])
print(json.dumps({"code": code, "asked": asked, "loaded": sorted(m for m in sys.modules if m.startswith(tuple(sys.argv[2:])))}))
"""


@pytest.mark.parametrize("path", ["pkg/billing.py", "README.md"])
def test_a_served_hook_imports_only_what_asking_takes(repo: GitRepo, path: str) -> None:
    """The client of a served hook costs an interpreter, json, a socket and one git process (about a third of
    what the languages and the graph's records would add): which writes graphguard reads is the server's question."""
    payload = claude_pre(repo, "Edit", {"file_path": str(repo.path(path)), "old_string": "x", "new_string": "y"})
    environ = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS} | {agent_server.SWITCH: "1"}
    proc = subprocess.run([sys.executable, "-I", "-c", CLIENT, json.dumps(payload), *NOT_IN_THE_CLIENT], cwd=repo.root,
                          env=environ, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout) == {"code": 0, "asked": ["pre-write"], "loaded": []}


@pytest.mark.parametrize("name", ["r", "r" * 120])  # a store path too long for a socket: one in the temp dir
def test_uninstall_stops_the_server(make_repo: Callable[..., GitRepo], graphguard: Graphguard,
                                    monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    repo = make_repo(FILES, name=name)
    assert graphguard(repo, "install", "--agent", "claude-code").code == 0
    monkeypatch.setenv(agent_server.SWITCH, "1")
    store = str(repo.root / ".git" / "graphguard")
    sock = agent_server.socket_path(store)
    fits = len(os.fsencode(os.path.join(store, agent_server.SOCKET))) < agent_server.MAX_SOCKET_PATH
    assert sock is not None and sock.startswith(str(repo.root)) == fits and (fits or name != "r" or len(store) > 60)
    try:
        assert hook(graphguard, monkeypatch, repo, "claude-code", "stop", {"cwd": str(repo.root)}).out == ""
        assert wait_for(lambda: os.path.exists(sock))
        r = graphguard(repo, "install", "--agent", "claude-code", "--uninstall")
        assert "stopped the agent hooks' server" in r.out
        assert wait_for(lambda: not os.path.exists(sock))
    finally:
        if os.path.exists(sock):
            agent_server.stop(sock)


def wait_for(condition: Callable[[], bool], timeout: float = 30) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# Pure parts


@pytest.mark.parametrize(("tool_input", "current", "expected"), [
    ({"old_string": "a", "new_string": "b"}, "a x", "b x"),
    ({"old_string": "a", "new_string": "b"}, "a a", None),  # not unique: Edit fails
    ({"old_string": "a", "new_string": "b", "replace_all": True}, "a a", "b b"),
    ({"old_string": "a", "new_string": "a"}, "a", None),  # no change: Edit fails
    ({"old_string": "", "new_string": "new"}, None, "new"),
    ({"old_string": "", "new_string": "new"}, "old", None),
    ({"old_string": "a", "new_string": "b"}, None, None),
])
def test_an_edit_applied(tool_input: dict[str, Any], current: str | None, expected: str | None) -> None:
    write = edits.proposal(Editor.CLAUDE_CODE, "Edit", {"file_path": "/r/a.py", **tool_input})
    assert write is not None and edits.apply(write, current) == expected


def test_without_hooks_leaves_what_others_wrote() -> None:
    ours = {"type": "command", "command": "/v/bin/python -I -m graphguard agent-hook claude-code stop"}
    theirs = {"type": "command", "command": "say done"}
    mixed = {"hooks": {"Stop": [{"hooks": [theirs, ours]}], "PreToolUse": [{"matcher": "Edit", "hooks": [ours]}],
                       "Notification": []}, "x": 1}
    assert without_hooks(mixed) == {"hooks": {"Stop": [{"hooks": [theirs]}], "Notification": []}, "x": 1}
    assert without_hooks({"hooks": {"Stop": [{"hooks": [ours]}]}}) == {}
    assert source("x\n") == "x\n"
