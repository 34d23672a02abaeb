"""`graphguard mcp`: a real MCP client session (the SDK's ClientSession over stdio_client) with the server as a
subprocess, against a real git repository whose HEAD moves under the running server."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.helpers import GIT_LEAKS, LIB, GitRepo, init_repo, run_cli, source

TOOLS = ["check_edit", "check", "callers", "impact", "context", "related", "outline"]

FILES = {
    "pkg/__init__.py": "",
    "pkg/billing.py": '''
        """Billing."""


        def prorate(sub, at):
            """Prorate a subscription at a moment."""
            return sub * at


        class Invoice:
            def total(self, n):
                return prorate(n, 1)
        ''',
    "pkg/api.py": '''
        from pkg.billing import prorate


        def create(sub):
            return prorate(sub, 2)
        ''',
    "tests/test_billing.py": '''
        from pkg.billing import prorate


        def test_prorate():
            assert prorate(2, 3) == 6
        ''',
}


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1")
    return env


class Client:
    """A synchronous face on the SDK's async ClientSession, for tests that call one tool after another."""

    def __init__(self, portal: BlockingPortal, session: ClientSession):
        self.portal = portal
        self.session = session

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return self.portal.call(self.session.call_tool, name, arguments or {})

    def doc(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """A successful answer's document; its text and its structured content must be the same object."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        assert len(result.content) == 1
        assert json.loads(result.content[0].text) == result.structured_content
        return dict(result.structured_content)

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = self.call(name, arguments)
        assert result.is_error, result.structured_content
        text = str(result.content[0].text)
        assert "\n" not in text and text
        return text


def connect(repo: GitRepo, home: Path) -> Iterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "graphguard", "mcp", "--repo", str(repo.root)],
                                   env=server_env(home), cwd=str(home))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(stdio_client(params)) as (read, write), \
            portal.wrap_async_context_manager(ClientSession(read, write)) as session:
        portal.call(session.initialize)
        yield Client(portal, session)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, home: Path) -> GitRepo:
    with pytest.MonkeyPatch.context() as mp:  # module-scoped: the autouse isolation is per test; undone after
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        return init_repo(tmp_path_factory.mktemp("mcp") / "repo", FILES)


@pytest.fixture(scope="module")
def client(repo: GitRepo, home: Path) -> Iterator[Client]:
    yield from connect(repo, home)


def test_lists_the_tools_with_schemas(client: Client) -> None:
    listed = client.portal.call(client.session.list_tools).tools
    assert [t.name for t in listed] == TOOLS
    for tool in listed:
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert schema["properties"]["compact"]["type"] == "boolean"
        assert set(schema["required"]) <= set(schema["properties"])
        assert len(tool.description or "") > 60
    by_name = {t.name: t.input_schema for t in listed}
    assert by_name["callers"]["required"] == ["symbol"]
    assert by_name["check"]["properties"]["mode"]["enum"] == ["worktree", "staged"]


def test_callers_and_head(client: Client, repo: GitRepo) -> None:
    doc = client.doc("callers", {"symbol": "pkg.billing.prorate"})
    assert doc["schema"] == "graphguard.callers/1" and doc["head"] == repo.head
    sites = {(c["path"], c["line"], c["kind"]) for c in doc["callers"]}
    assert ("pkg/api.py", 5, "call") in sites and ("pkg/billing.py", 11, "call") in sites


def test_each_tool_answers(client: Client, repo: GitRepo) -> None:
    head = repo.head
    check = client.doc("check", {})
    assert check["schema"] == "graphguard.check/1" and check["base"] == head and check["verdict"] == "pass"
    assert client.doc("check", {"mode": "staged"})["compared"] in ("staged", "nothing")
    ctx = client.doc("context", {"task": "prorate a subscription", "limit": 5})
    assert ctx["head"] == head and "pkg/billing.py" in {r["path"] for r in ctx["results"]}
    rel = client.doc("related", {"targets": ["pkg/api.py"], "budget": 500})
    assert rel["head"] == head and rel["results"]
    # The CLI's sizes: one result per file, `limit` files, the budget alone lists what it holds.
    assert len({r["path"] for r in rel["results"]}) == len(rel["results"]) and rel["stats"]["tokens"] <= 500
    one = client.doc("related", {"targets": ["pkg/api.py"], "limit": 1, "budget": 500})
    assert len(one["results"]) == 1 and one["results"][0]["path"] == rel["results"][0]["path"]


def test_impact_and_outline(client: Client, repo: GitRepo) -> None:
    head = repo.head
    impact = client.doc("impact", {"symbol": "pkg.billing.prorate", "depth": 2})
    assert impact["head"] == head
    outline = client.doc("outline", {"paths": ["pkg"]})
    assert outline["head"] == head
    assert "prorate" in json.dumps(outline) and "return sub * at" not in json.dumps(outline)


def test_check_edit_reports_a_break_and_writes_nothing(client: Client, repo: GitRepo) -> None:
    before = repo.path("pkg/billing.py").read_bytes()
    status = repo.git("status", "--porcelain")
    graph_stat = os.stat(repo.graph_path)
    proposal = before.decode().replace("def prorate(sub, at):", "def prorate(sub, at, tz):")
    doc = client.doc("check_edit", {"files": {"pkg/billing.py": proposal}})
    assert doc["compared"] == "proposed" and doc["verdict"] == "block" and doc["base"] == repo.head
    [change] = [c for c in doc["changes"] if c["symbol"] == "pkg.billing.prorate"]
    broken = {(k["path"], k["line"]) for k in change["callers"] if k["status"] == "broken"}
    assert broken == {("pkg/api.py", 5), ("pkg/billing.py", 11), ("tests/test_billing.py", 5)}
    assert "tz" in change["callers"][0]["reason"]
    assert any(t["path"] == "tests/test_billing.py" for t in change["tests"])
    assert repo.path("pkg/billing.py").read_bytes() == before
    assert repo.git("status", "--porcelain") == status
    after = os.stat(repo.graph_path)
    assert (after.st_size, after.st_mtime_ns) == (graph_stat.st_size, graph_stat.st_mtime_ns)
    # A proposal that keeps every caller binding passes; a deletion of the module blocks.
    ok = before.decode().replace("def prorate(sub, at):", "def prorate(sub, at, tz=None):")
    assert client.doc("check_edit", {"files": {"pkg/billing.py": ok}})["verdict"] == "pass"
    assert client.doc("check_edit", {"deleted": ["pkg/billing.py"]})["verdict"] == "block"


@pytest.mark.parametrize(("name", "arguments", "says"), [
    ("callers", {"symbol": "pkg.billing.nope"}, "no symbol"),
    ("callers", {}, "missing argument"),
    ("callers", {"symbol": 3}, "must be a non-empty string"),
    ("callers", {"symbol": "pkg.billing.prorate", "bogus": 1}, "unknown argument"),
    ("no_such_tool", {}, "no tool"),
    ("related", {"targets": ["/etc/passwd"]}, "absolute path"),
    ("related", {"targets": ["../outside.py"]}, "'..'"),
    ("outline", {"paths": [".git/config"]}, "inside .git"),
    ("check_edit", {"files": {"/etc/passwd": "x = 1\n"}}, "absolute"),
    ("check_edit", {"files": {"../evil.py": "x = 1\n"}}, ".."),
    ("check_edit", {"files": {"pkg/big.py": "x = 1\n" * 3_500_000}}, "MB"),
    ("check_edit", {"files": {"pkg/a.py": "x = 1\n"}, "deleted": ["pkg/a.py"]}, "both"),
    ("check_edit", {}, "propose at least one"),
    ("check", {"mode": "everything"}, "'mode'"),
    ("context", {"task": "x", "limit": 0}, "'limit'"),
    ("context", {"task": "x", "profile": "nope"}, "'profile'"),
])
def test_bad_input_is_an_error_result(client: Client, name: str, arguments: dict[str, Any], says: str) -> None:
    assert says in client.error(name, arguments)
    assert client.doc("callers", {"symbol": "pkg.billing.prorate"})["callers"]  # still serving


def test_unreadable_proposals_are_warnings(client: Client, repo: GitRepo) -> None:
    binary = client.doc("check_edit", {"files": {"pkg/api.py": "x = 1\x00\x01\n"}})
    assert binary["warnings"] and binary["verdict"] == "pass"
    syntax = client.doc("check_edit", {"files": {"pkg/api.py": "def broken(:\n"}})
    assert any("syntax" in w["message"] for w in syntax["warnings"])


def test_a_symlink_leaving_the_repository_is_refused(client: Client, repo: GitRepo, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    link = repo.path("escape")
    link.symlink_to(outside, target_is_directory=True)
    try:
        assert client.error("check_edit", {"files": {"escape/mod.py": "x = 1\n"}})
        assert not (outside / "mod.py").exists()
    finally:
        link.unlink()


@pytest.mark.slow
def test_answers_follow_head_commit_checkout_rebase(client: Client, repo: GitRepo, home: Path) -> None:
    def callers() -> tuple[str, set[str]]:
        doc = client.doc("callers", {"symbol": "pkg.billing.prorate"})
        return doc["head"], {c["path"] for c in doc["callers"] if c["kind"] == "call"}

    main = repo.head
    # A commit adds a caller.
    added = repo.commit("more", {"pkg/extra.py": "from pkg.billing import prorate\n\n\ndef more():\n    return prorate(1, 1)\n"})
    assert callers() == (added, {"pkg/api.py", "pkg/billing.py", "pkg/extra.py", "tests/test_billing.py"})
    # A checkout of a branch without it.
    repo.git("checkout", "-q", "-b", "side", main)
    side = repo.commit("side", {"pkg/side.py": "from pkg.billing import prorate\n\nprorate(0, 0)\n"})
    assert callers() == (side, {"pkg/api.py", "pkg/billing.py", "pkg/side.py", "tests/test_billing.py"})
    # A rebase of it onto main: both callers.
    repo.git("rebase", "-q", "main")
    rebased = repo.head
    assert rebased not in (side, added)
    assert callers() == (rebased, {"pkg/api.py", "pkg/billing.py", "pkg/extra.py", "pkg/side.py", "tests/test_billing.py"})
    # Staging alone moves the index, not HEAD: the graph still describes HEAD, and check sees the staged change.
    repo.write({"pkg/billing.py": FILES["pkg/billing.py"].replace("(sub, at)", "(sub)")})
    repo.git("add", "pkg/billing.py")
    staged = client.doc("check", {"mode": "staged"})
    assert staged["base"] == rebased and staged["verdict"] == "block"
    repo.git("reset", "-q", "--hard")
    assert client.doc("check", {})["verdict"] == "pass"
    # A second server on the same repository at once answers the same.
    for other in connect(repo, home):
        assert other.doc("callers", {"symbol": "pkg.billing.prorate"}) == client.doc("callers", {"symbol": "pkg.billing.prorate"})
    repo.git("checkout", "-q", "main")
    assert callers()[0] == added


@pytest.mark.slow
def test_client_leaving_mid_call_ends_the_server_cleanly(repo: GitRepo, home: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "graphguard", "mcp", "--repo", str(repo.root)], cwd=home,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(home))
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        proc.stdin.flush()

    try:
        send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                           "clientInfo": {"name": "t", "version": "0"}}})
        assert json.loads(proc.stdout.readline())["id"] == 1
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {"name": "check_edit", "arguments": {"files": {"pkg/api.py": "x = 1\n"}}}})
        proc.stdin.close()  # gone before the answer: stdin at its end, stdout a pipe nobody reads
        proc.stdout.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert b"Traceback" not in (proc.stderr.read() if proc.stderr else b"")
    # Nothing left held: the next process takes the write lock and answers.
    result = run_cli(repo, "callers", "pkg.billing.prorate", "--format", "json")
    assert result.code == 0 and json.loads(result.out)["callers"]


def test_other_commands_never_import_the_sdk(repo: GitRepo, home: Path) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "graphguard", "check", "--repo", str(repo.root)],
                          cwd=home, capture_output=True, env=server_env(home), check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    modules = {line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    assert "graphguard.check" in modules or "graphguard" in modules
    assert not {m for m in modules if m == "mcp" or m.startswith(("mcp.", "mcp_types", "graphguard.server"))}



def test_compact_answers_expand_to_the_full_ones(client: Client) -> None:
    from graphguard.report.compact import expand

    def steady(doc: dict[str, Any]) -> dict[str, Any]:
        doc.get("stats", {}).pop("elapsed_ms", None)
        return doc

    for name, arguments in (("callers", {"symbol": "pkg.billing.prorate"}), ("outline", {"paths": ["pkg"]}),
                            ("context", {"task": "prorate a subscription"}),
                            ("check_edit", {"files": {"pkg/api.py": "from pkg.billing import prorate\n\nprorate(1)\n"}})):
        full = client.doc(name, arguments)
        short = client.doc(name, {**arguments, "compact": True})
        assert len(json.dumps(short)) < len(json.dumps(full))
        assert steady(expand(short)) == steady(full)


def test_the_contract_lists_each_tool_and_its_arguments() -> None:
    from graphguard.server.tools import TOOLS

    contract = (Path(__file__).resolve().parent.parent / "docs" / "contract.md").read_text(encoding="utf-8")
    section = contract[contract.index("## `graphguard mcp`"):]
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| (.*?) \|", section, re.MULTILINE)}
    assert list(rows) == [t.name for t in TOOLS]
    for tool in TOOLS:
        assert all(f"`{arg}`" in rows[tool.name] for arg in tool.properties), tool.name


@pytest.mark.slow
def test_an_answer_waits_for_the_refresher_a_hook_started(make_repo: Callable[..., GitRepo], tmp_path: Path) -> None:
    """Hooks installed: a checkout under the running server starts a background refresher. While it cannot
    finish (the test holds the graph's write lock) `callers` answers from the old graph after a second, marked
    stale, and `check` answers nothing; once the refresher has finished, both describe the new HEAD."""
    from graphguard.repo import open_repo

    repo = make_repo(LIB)
    main = repo.head
    repo.git("checkout", "-q", "-b", "topic")
    topic = repo.commit("caller", {"pkg/other.py": "from pkg.mod import f\n\n\ndef h():\n    return f(3)\n"})
    repo.git("checkout", "-q", "main")
    assert run_cli(repo, "install").code == 0
    home = tmp_path / "home"
    home.mkdir()
    for client in connect(repo, home):
        assert client.doc("callers", {"symbol": "pkg.mod.f"})["head"] == main
        store = open_repo(str(repo.root)).store
        try:
            with store.write_lock(5):
                subprocess.run(["git", "checkout", "-q", "topic"], cwd=repo.root, check=True, capture_output=True,
                               env={k: v for k, v in os.environ.items() if k not in GIT_LEAKS})
                stale = client.doc("callers", {"symbol": "pkg.mod.f"})
                assert stale["head"] == main and stale["freshness"]["state"] == "stale", stale["freshness"]
                pending = client.portal.start_task_soon(client.session.call_tool, "check", {})
                with pytest.raises(concurrent.futures.TimeoutError):
                    pending.result(timeout=1.0)  # waiting: the graph still describes main
            result = pending.result(timeout=60)
        finally:
            store.close()
        assert result.structured_content["base"] == topic
        doc = client.doc("callers", {"symbol": "pkg.mod.f"})
        assert doc["head"] == topic and "pkg/other.py" in {c["path"] for c in doc["callers"]}
        assert doc["freshness"]["state"] in ("current", "refreshed")


# --- HEAD moving under an answer ----------------------------------------------------------------


BREAKING = source(FILES["pkg/billing.py"]).replace("def prorate(sub, at):", "def prorate(sub, at, tz):")
BROKEN = {("pkg/api.py", 5), ("pkg/billing.py", 11), ("tests/test_billing.py", 5)}


def broken_callers(doc: dict[str, Any]) -> set[tuple[str, int]]:
    return {(k["path"], k["line"]) for c in doc["changes"] if c["symbol"] == "pkg.billing.prorate"
            for k in c["callers"] if k["status"] == "broken"}


@pytest.mark.parametrize(("tool", "arguments"), [
    ("check_edit", {"files": {"pkg/billing.py": BREAKING}}),
    ("check", {}),
])
def test_head_moving_during_an_answer_leaves_it_for_the_commit_it_began_at(
        make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch, tool: str, arguments: dict[str, Any]) -> None:
    """A commit lands just after the answer fixed its commit (the session's freshness check, the read
    transaction begun) and before the check itself runs: the answer is for the commit it began at, whole,
    not an error from bringing the graph up to date inside the answer's read transaction."""
    from graphguard.server import tools
    from graphguard.server.session import Session

    repo = make_repo({k: v for k, v in FILES.items()})
    if tool == "check":
        repo.write({"pkg/billing.py": BREAKING})
    session = Session(str(repo.root))
    began = repo.head
    fixed = Session.answering
    moved: list[str] = []

    @contextlib.contextmanager
    def head_moves_meanwhile(self: Session, **kwargs: Any) -> Iterator[str]:
        with fixed(self, **kwargs) as head:
            late = f"pkg/late{len(moved)}.py"
            repo.write({late: "from pkg.billing import prorate\n\nprorate(1, 2)\n"})
            repo.git("add", late)  # that file alone: a breaking edit of the working tree stays uncommitted
            repo.git("commit", "-q", "--no-verify", "-m", "meanwhile")
            moved.append(repo.head)
            yield head

    monkeypatch.setattr(Session, "answering", head_moves_meanwhile)
    try:
        doc = tools.call(session, tool, arguments)
        assert moved and moved[0] != began
        assert doc["base"] == began and doc["verdict"] == "block"
        # Against that commit the late caller is a new file of the working tree, and it breaks too.
        assert broken_callers(doc) == BROKEN | {("pkg/late0.py", 3)}
        monkeypatch.setattr(Session, "answering", fixed)
        after = tools.call(session, tool, arguments)  # the next answer is for the new HEAD
        assert after["base"] == moved[0] and broken_callers(after) == BROKEN | {("pkg/late0.py", 3)}
    finally:
        session.close()


@pytest.mark.slow  # 15-35 s on a loaded two-core machine: two servers, 16 moves of HEAD
def test_check_edit_while_head_moves_under_two_servers(make_repo: Callable[..., GitRepo], tmp_path: Path) -> None:
    """The issue's stress, bounded: two servers, a thread committing, checking out and rebasing every few
    tens of milliseconds, check_edit asked of both meanwhile. Every answer is a correct answer for the one
    commit it names: no error, no mix of two graphs. (Figures for the report: printed, never asserted.)"""
    import random
    import threading
    import time

    repo = make_repo({k: v for k, v in FILES.items()})
    home = tmp_path / "home"
    home.mkdir()
    main = repo.head
    repo.git("branch", "side")
    made = {main}
    late: set[str] = set()
    done = threading.Event()
    failed: list[BaseException] = []

    def move_head() -> None:
        rng = random.Random(18)
        try:
            for n in range(16):
                time.sleep(rng.uniform(0.05, 0.3))
                step = n % 4
                if step in (0, 2):  # a commit on whichever branch is out, adding a caller
                    path = f"pkg/late{n}.py"
                    late.add(path)
                    repo.commit(f"late {n}", {path: "from pkg.billing import prorate\n\nprorate(1, 2)\n"})
                elif step == 1:
                    repo.git("checkout", "-q", "side")
                else:  # side onto main, then main again
                    repo.git("rebase", "-q", "main")
                    made.add(repo.head)
                    repo.git("checkout", "-q", "main")
                made.add(repo.head)
        except BaseException as e:  # noqa: BLE001 - asserted below: a move that failed is no stress
            failed.append(e)
        finally:
            done.set()

    answers: list[tuple[float, Any]] = []

    def ask(client: Client) -> None:
        while not done.is_set():
            t0 = time.perf_counter()
            result = client.call("check_edit", {"files": {"pkg/billing.py": BREAKING}})
            answers.append((time.perf_counter() - t0, result))

    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(contextlib.contextmanager(connect)(repo, home)) for _ in range(2)]
        mover = threading.Thread(target=move_head)
        askers = [threading.Thread(target=ask, args=(s,)) for s in servers]
        for t in (mover, *askers):
            t.start()
        for t in (mover, *askers):
            t.join(timeout=300)
    errors = [r.content[0].text for _, r in answers if r.is_error]
    print(f"\ncheck_edit under moving HEAD: {len(errors)} errors of {len(answers)} calls, max {max(s for s, _ in answers):.2f} s")
    assert not errors, errors
    assert not failed and len(answers) >= 10
    for _, result in answers:
        doc = result.structured_content
        assert doc["base"] in made or repo.git("cat-file", "-t", doc["base"]) == "commit"  # a rebase's own steps too
        assert doc["verdict"] == "block"
        broken = broken_callers(doc)
        assert BROKEN <= broken and {p for p, _ in broken - BROKEN} <= late
