"""The shadow check of proposed contents: `graphguard.check.run_proposed` and `check --proposed`.

Real git repositories in temp dirs. A proposal is checked as `check --worktree` would check the
working tree after the write (a parity test writes it and compares), while nothing is written:
not the file, not the index, not a row of the graph or of the blob cache.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from graphguard.check import run_proposed
from graphguard.check.proposed import MAX_FILE_BYTES, MAX_TOTAL_BYTES, normalise
from graphguard.errors import GraphguardError
from graphguard.repo import open_repo
from graphguard.report.json_report import to_dict
from tests.graphdump import dump
from tests.helpers import GIT_LEAKS, GitRepo, Result, cli_command, source
from tests.test_check import BASE, NEW_STAMP, callers, change_of

Propose = Callable[..., dict[str, Any]]
Graphguard = Callable[..., Result]


@pytest.fixture
def indexed(make_repo: Callable[..., GitRepo], graphguard: Graphguard) -> GitRepo:
    """BASE committed and its graph built."""
    repo = make_repo(BASE)
    assert graphguard(repo, "index").code == 0
    return repo


def propose(repo: GitRepo, files: Mapping[str, str | bytes] | None = None, deleted: tuple[str, ...] = ()) -> dict[str, Any]:
    """run_proposed in process -> the graphguard.check/1 document (str contents are dedented)."""
    data = {p: c if isinstance(c, bytes) else source(c).encode() for p, c in (files or {}).items()}
    return to_dict(run_proposed(open_repo(str(repo.root)), data, deleted))


def state(repo: GitRepo) -> tuple[object, ...]:
    """Everything a shadow check must leave as it was: the work tree's files, git's view of them,
    the index file, and every row of the graph and of the blob cache."""
    files = {str(p.relative_to(repo.root)): p.read_bytes() for p in sorted(repo.root.rglob("*"))
             if p.is_file() and ".git" not in p.relative_to(repo.root).parts}
    index = (repo.root / ".git" / "index").read_bytes()
    blobs_db = repo.root / ".git" / "graphguard" / "blobs.sqlite3"
    conn = sqlite3.connect(f"file:{blobs_db}?mode=ro", uri=True)
    try:
        blobs = sorted(conn.execute("SELECT sha, facts FROM blobs").fetchall())
    finally:
        conn.close()
    return files, repo.git("status", "--porcelain", "--untracked-files=all"), index, dump(repo.graph_path), blobs


# --- what is reported, and that nothing is written -------------------------------------------


def test_proposed_break_is_reported_and_nothing_is_written(indexed: GitRepo) -> None:
    repo = indexed
    before = state(repo)
    on_disk = repo.path("pkg/clock.py").read_bytes()
    data = propose(repo, {"pkg/clock.py": NEW_STAMP})
    assert data["verdict"] == "block"
    assert data["compared"] == "proposed" and data["head"] == "PROPOSED" and data["base"] == repo.head
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["breaking"] == ["required-param-added:tz"]
    found = callers(ch)
    assert found[("app/report.py", 5)] == ("broken", "missing required argument 'tz'")
    assert found[("app/jobs.py", 5)][0] == "broken"
    assert {t["path"] for t in ch["tests"]} >= {"tests/test_clock.py"}
    assert repo.path("pkg/clock.py").read_bytes() == on_disk
    assert state(repo) == before


def test_proposed_fix_of_an_unstaged_break_passes(indexed: GitRepo) -> None:
    repo = indexed
    repo.write({"pkg/clock.py": NEW_STAMP})  # the agent's earlier edit, not staged: it counts
    assert propose(repo, {"README.md": "hello\n"})["verdict"] == "block"
    fixed = {
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, tz='UTC')"),
        "app/report.py": BASE["app/report.py"].replace("stamp(2)", "stamp(2, 'UTC')"),
        "tests/test_clock.py": BASE["tests/test_clock.py"].replace("stamp(3)", "stamp(3, tz=None)"),
    }
    before = state(repo)
    data = propose(repo, fixed)
    assert data["verdict"] == "pass", data
    assert {c["status"] for c in change_of(data, "pkg.clock.stamp")["callers"]} == {"ok"}
    assert state(repo) == before
    # Proposing the committed version back is a revert: nothing left to report.
    assert propose(repo, {"pkg/clock.py": BASE["pkg/clock.py"]})["changes"] == []


def test_proposed_deletion_of_a_called_module(indexed: GitRepo) -> None:
    before = state(indexed)
    data = propose(indexed, deleted=("pkg/clock.py",))
    assert data["verdict"] == "block"
    ch = change_of(data, "pkg.clock.stamp")
    assert ch["change"] == "removed"
    assert callers(ch)[("app/report.py", 5)][0] == "broken"
    assert state(indexed) == before
    assert indexed.path("pkg/clock.py").exists()


def test_new_file_with_a_broken_call(indexed: GitRepo) -> None:
    data = propose(indexed, {"app/extra.py": """
        from pkg.clock import stamp


        def go():
            return stamp()
        """})
    assert data["verdict"] == "block"
    assert ("app/extra.py", 5) in {(c["path"], c["line"]) for ch in data["changes"] for c in ch["callers"]
                                   if c["status"] == "broken"}
    assert not indexed.path("app/extra.py").exists()


def test_deleting_a_file_that_is_not_there_changes_nothing(indexed: GitRepo) -> None:
    data = propose(indexed, deleted=("pkg/nowhere.py",))
    assert data["verdict"] == "pass" and data["changes"] == [] and data["stats"]["files_changed"] == 0


SCENARIOS: dict[str, tuple[dict[str, str | bytes], tuple[str, ...]]] = {
    "signature": ({"pkg/clock.py": NEW_STAMP}, ()),
    "half-fix": ({"pkg/clock.py": NEW_STAMP, "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, 2)")}, ()),
    "syntax-error": ({"pkg/clock.py": NEW_STAMP, "app/jobs.py": "from pkg.clock import stamp\n\n\ndef run(:\n    return stamp(1)\n"}, ()),
    "deletion": ({}, ("app/report.py", "pkg/clock.py")),
    "new-file": ({"pkg/more.py": "from pkg.clock import unused\n\nunused()\n"}, ()),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_same_answer_as_check_worktree_after_the_write(indexed: GitRepo, graphguard: Graphguard, name: str) -> None:
    files, deleted = SCENARIOS[name]
    repo = indexed
    repo.write({"tests/test_jobs.py": BASE["tests/test_jobs.py"] + "\n\ndef test_more():\n    run()\n"})  # an unstaged edit
    # The first call scans the working tree as git lists it, the second keeps that scan, the third reuses it.
    answers = [propose(repo, files, deleted) for _ in range(3)]
    shadow = answers[0]
    for key in ("base", "verdict", "changes", "warnings", "notes"):
        assert shadow[key] == answers[1][key] == answers[2][key], key
    repo.write({**files, **dict.fromkeys(deleted)})
    r = graphguard(repo, "check", "--worktree", "--format", "json")
    written = r.json
    assert r.code == (1 if written["verdict"] == "block" else 0)
    for key in ("base", "verdict", "changes", "warnings"):
        assert shadow[key] == written[key], key
    assert shadow["stats"]["files_changed"] == written["stats"]["files_changed"]


# --- bad input: one line, nothing checked ----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/etc/passwd.py", "an absolute path"),
        ("C:/x.py", "an absolute path"),
        ("../outside.py", "'..' is not allowed"),
        ("pkg/../../outside.py", "'..' is not allowed"),
        (".git/hooks/pre-commit.py", "inside .git"),
        ("pkg/.GIT/x.py", "inside .git"),
        ("pkg\\clock.py", "separate folders with '/'"),
        ("", "not a file path"),
        ("./", "not a file path"),
        ("a\0.py", "NUL"),
    ],
)
def test_bad_paths_are_refused(indexed: GitRepo, path: str, message: str) -> None:
    with pytest.raises(GraphguardError, match=message) as e:
        propose(indexed, {path: b"x = 1\n"})
    assert "\n" not in str(e.value)
    with pytest.raises(GraphguardError, match=message):
        propose(indexed, deleted=(path,))


def test_paths_are_normalised() -> None:
    assert normalise("./pkg//clock.py") == "pkg/clock.py"
    assert normalise("a:b.py") == "a:b.py"  # not a drive
    with pytest.raises(GraphguardError, match="must be a string"):
        normalise(3)


def test_symlinks_on_the_way_are_refused(indexed: GitRepo, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("x = 1\n")
    os.symlink(outside, indexed.path("pkg/out"))
    os.symlink("clock.py", indexed.path("pkg/alias.py"))
    with pytest.raises(GraphguardError, match="pkg/out is a symlink"):
        propose(indexed, {"pkg/out/x.py": b"y = 2\n"})
    with pytest.raises(GraphguardError, match="pkg/out is a symlink"):
        propose(indexed, {"pkg/out/new/x.py": b"y = 2\n"})
    with pytest.raises(GraphguardError, match="pkg/alias.py is a symlink"):
        propose(indexed, {"pkg/alias.py": b"y = 2\n"})
    with pytest.raises(GraphguardError, match="pkg/clock.py is a file, not a folder"):
        propose(indexed, {"pkg/clock.py/x.py": b"y = 2\n"})
    with pytest.raises(GraphguardError, match="pkg/out.py: a folder, not a file"):
        os.mkdir(indexed.path("pkg/out.py"))
        propose(indexed, {"pkg/out.py": b"y = 2\n"})
    assert (outside / "x.py").read_text() == "x = 1\n"


def test_conflicting_proposals_are_refused(indexed: GitRepo) -> None:
    with pytest.raises(GraphguardError, match="pkg/clock.py: both proposed and deleted"):
        propose(indexed, {"pkg/clock.py": NEW_STAMP}, ("pkg/clock.py",))
    with pytest.raises(GraphguardError, match="pkg/clock.py: proposed twice"):
        propose(indexed, {"pkg/clock.py": NEW_STAMP, "./pkg/clock.py": NEW_STAMP})
    with pytest.raises(GraphguardError, match="expected a list"):
        run_proposed(open_repo(str(indexed.root)), {}, "pkg/clock.py")
    with pytest.raises(GraphguardError, match="must be bytes"):
        run_proposed(open_repo(str(indexed.root)), {"pkg/clock.py": "text"})  # type: ignore[dict-item]


def test_oversized_proposals_are_refused(indexed: GitRepo) -> None:
    big = b"#" * (MAX_FILE_BYTES + 1)
    with pytest.raises(GraphguardError, match=r"pkg/clock.py: the proposed content is 10.0 MB, over the bound of 10.0 MB a file"):
        propose(indexed, {"pkg/clock.py": big})
    part = b"#" * MAX_FILE_BYTES
    many = {f"pkg/m{i}.py": part for i in range(MAX_TOTAL_BYTES // MAX_FILE_BYTES + 1)}
    with pytest.raises(GraphguardError, match="in all, over the bound"):
        propose(indexed, many)


@pytest.mark.parametrize(("content", "why"), [(b"x = 1\0\n", "binary"), (b"x = '\xe9'\n", "not UTF-8")])
def test_content_that_is_not_text_is_a_warning(indexed: GitRepo, content: bytes, why: str) -> None:
    indexed.write({"pkg/clock.py": NEW_STAMP})  # its working-tree version is left out too: the agent is replacing it
    data = propose(indexed, {"pkg/clock.py": content})
    assert [w["path"] for w in data["warnings"]] == ["pkg/clock.py"]
    assert why in data["warnings"][0]["message"] and "not checked" in data["warnings"][0]["message"]
    assert data["changes"] == [] and data["verdict"] == "pass"


def test_syntax_error_is_reported_as_the_check_reports_it(indexed: GitRepo) -> None:
    data = propose(indexed, {"pkg/clock.py": "def stamp(ts:\n    return ts\n"})
    warning = next(w for w in data["warnings"] if w["path"] == "pkg/clock.py")
    assert "syntax error" in warning["message"]


def test_non_python_and_excluded_paths_are_ignored_with_a_note(make_repo: Callable[..., GitRepo], graphguard: Graphguard) -> None:
    repo = make_repo({**BASE, "pyproject.toml": '[tool.graphguard]\nexclude = ["gen/**"]\n'})
    data = propose(repo, {"README.md": b"# hi\n", "gen/x.py": b"def (\n"}, ("docs/old.txt",))
    assert data["changes"] == [] and data["warnings"] == []
    assert "not Python files, not checked: README.md, docs/old.txt" in data["notes"]
    assert "excluded by the configuration, not checked: gen/x.py" in data["notes"]


def test_repository_without_commits(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo()
    assert propose(repo, {"a.py": "x = 1\n"})["compared"] == "nothing"


def test_repeated_calls_on_one_repo_agree(indexed: GitRepo) -> None:
    handle = open_repo(str(indexed.root))
    answers = [to_dict(run_proposed(handle, {"pkg/clock.py": source(NEW_STAMP).encode()})) for _ in range(3)]
    answers += [to_dict(run_proposed(handle, {"pkg/clock.py": source(BASE["pkg/clock.py"]).encode()}))]
    for a in answers:
        a["stats"]["elapsed_ms"] = 0
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["verdict"] == "block" and answers[3]["verdict"] == "pass"


# --- the command line ------------------------------------------------------------------------


def cli(repo: GitRepo, *args: str, stdin: bytes = b"") -> Result:
    env = {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}
    proc = subprocess.run(cli_command("check", *args), cwd=repo.root, input=stdin, capture_output=True, env=env,
                          timeout=120, check=False)
    return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_cli_proposed_from_a_file_and_from_stdin(indexed: GitRepo, tmp_path: Path) -> None:
    repo = indexed
    before = state(repo)
    new = tmp_path / "clock.py"
    new.write_text(source(NEW_STAMP))
    r = cli(repo, "--proposed", f"pkg/clock.py={new}", "--format", "json")
    assert r.code == 1, r.err
    assert callers(change_of(r.json, "pkg.clock.stamp"))[("app/report.py", 5)][0] == "broken"
    r = cli(repo, "--proposed", "pkg/clock.py", "--format", "json", stdin=source(BASE["pkg/clock.py"]).encode())
    assert r.code == 0, r.err
    assert r.json["compared"] == "proposed" and r.json["verdict"] == "pass"
    r = cli(repo, "--deleted", "pkg/clock.py")
    assert r.code == 1 and "proposed contents over the working tree" in r.out
    assert state(repo) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--proposed", "/abs.py=x"), "cannot read x"),
        (("--proposed", "/abs.py=-"), "/abs.py: an absolute path"),
        (("--proposed", "../up.py"), "'..' is not allowed"),
        (("--proposed", "a.py", "--proposed", "b.py"), "standard input is read once"),
        (("--proposed", "a.py", "--staged"), "not with --staged"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(indexed: GitRepo, args: tuple[str, ...], message: str) -> None:
    r = cli(indexed, *args, stdin=b"x = 1\n")
    assert r.code == 2
    assert message in r.err
    assert "Traceback" not in r.err


def test_a_conflict_is_refused(indexed: GitRepo) -> None:
    repo = indexed
    repo.git("checkout", "-q", "-b", "other")
    repo.commit("other", {"pkg/clock.py": NEW_STAMP})
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"pkg/clock.py": NEW_STAMP.replace("tz", "zone")})
    repo.git("merge", "other", check=False)
    with pytest.raises(GraphguardError, match="pkg/clock.py is in conflict"):
        propose(repo, {"app/jobs.py": "x = 1\n"})


def test_one_open_repo_follows_head(indexed: GitRepo) -> None:
    """A long-lived process keeps its Repo (and the kept scan): after a commit the answers describe the new HEAD."""
    repo = indexed
    handle = open_repo(str(repo.root))
    clock = source(NEW_STAMP).encode()
    for _ in range(2):
        assert to_dict(run_proposed(handle, {"pkg/clock.py": clock}))["verdict"] == "block"
    repo.commit("tz everywhere", {
        "pkg/clock.py": NEW_STAMP,
        "app/jobs.py": BASE["app/jobs.py"].replace("stamp(1)", "stamp(1, tz='UTC')"),
        "app/report.py": BASE["app/report.py"].replace("stamp(2)", "stamp(2, 'UTC')"),
        "tests/test_clock.py": BASE["tests/test_clock.py"].replace("stamp(3)", "stamp(3, tz=None)"),
    })
    data = to_dict(run_proposed(handle, {"pkg/clock.py": clock}))
    assert data["base"] == repo.head and data["changes"] == [] and data["verdict"] == "pass"
    data = to_dict(run_proposed(handle, {"pkg/clock.py": source(BASE["pkg/clock.py"]).encode()}))
    assert data["verdict"] == "block"
    assert callers(change_of(data, "pkg.clock.stamp"))[("app/report.py", 5)][0] == "broken"
