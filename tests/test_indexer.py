"""The persisted graph: built from git blobs at HEAD, updated incrementally, robust to odd files and crashes."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable

import pytest

from graphguard.index.facts import PARALLEL_THRESHOLD, parse_blob, parse_blobs
from graphguard.languages import MAX_BYTES
from graphguard.languages.python.modules import LAYOUT_HEAD_KEY, LAYOUT_KEY, Layout
from tests.helpers import GitRepo, Result, cli_command

Run = Callable[..., Result]

SMALL = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    pass\n",
    "pkg/b.py": "from pkg.a import f\nf()\n",
}


def index(graphguard: Run, repo: GitRepo) -> dict[str, object]:
    r = graphguard(repo, "index", "--format", "json")
    assert r.code == 0, r.err
    result: dict[str, object] = r.json
    return result


def call_sites(graphguard: Run, repo: GitRepo, symbol: str, resolution: str = "exact") -> set[tuple[str, int]]:
    """(path, line) of the calls of `symbol` that `callers` lists with this resolution."""
    r = graphguard(repo, "callers", symbol, "--format", "json")
    assert r.code == 0, r.err
    return {(c["path"], c["line"]) for c in r.json["callers"] if c["kind"] == "call" and c["resolution"] == resolution}


def stats(graphguard: Run, repo: GitRepo) -> dict[str, object]:
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    result: dict[str, object] = r.json
    return result


# --- incremental updates -------------------------------------------------------------------------------


def test_first_index_parses_every_file_and_a_second_is_a_no_op(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    first = index(graphguard, repo)
    assert (first["head"], first["files"], first["parsed"], first["noop"]) == (repo.head, 3, 3, False)
    second = index(graphguard, repo)
    assert (second["head"], second["parsed"], second["noop"]) == (repo.head, 0, True)


def test_added_file_is_the_only_one_parsed(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.commit("add", {"pkg/c.py": "from pkg.a import f\ndef g():\n    f()\n"})
    result = index(graphguard, repo)
    assert (result["files"], result["parsed"]) == (4, 1)
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 2), ("pkg/c.py", 3)}


def test_modified_file_is_re_parsed_and_its_calls_replaced(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.commit("modify", {"pkg/b.py": "from pkg.a import f\n\nf()\nf()\n"})
    assert index(graphguard, repo)["parsed"] == 1
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 3), ("pkg/b.py", 4)}


def test_deleted_file_leaves_the_graph(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.commit("delete", {"pkg/b.py": None})
    result = index(graphguard, repo)
    assert (result["files"], result["parsed"]) == (2, 0)
    assert call_sites(graphguard, repo, "pkg.a.f") == set()
    assert stats(graphguard, repo)["files"] == 2


def test_deleted_definition_is_gone_and_its_callers_no_longer_resolve(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.commit("move f", {"pkg/a.py": "def g():\n    pass\n"})
    r = graphguard(repo, "callers", "pkg.a.f", "--format", "json")
    assert r.code == 2
    assert stats(graphguard, repo)["calls"] == {
        "total": 1, "resolved": 0, "by_name": 0, "external": 0, "unresolved": 1, "name_matches_repo": 0,
    }


def test_renamed_file_is_not_re_parsed_and_its_calls_move(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.git("mv", "pkg/b.py", "pkg/renamed.py")
    repo.commit("rename")
    result = index(graphguard, repo)
    assert (result["files"], result["parsed"]) == (3, 0)
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/renamed.py", 2)}


def test_renamed_module_is_re_resolved_by_its_importers(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.git("mv", "pkg/a.py", "pkg/moved.py")
    repo.commit("rename the module")
    index(graphguard, repo)
    # b.py still imports pkg.a: its call no longer resolves, and matches only by name.
    assert call_sites(graphguard, repo, "pkg.moved.f") == set()
    assert call_sites(graphguard, repo, "pkg.moved.f", "candidate") == {("pkg/b.py", 2)}
    unresolved = stats(graphguard, repo)["imports"]
    assert isinstance(unresolved, dict)
    assert unresolved["unresolved_list"] == [{"path": "pkg/b.py", "line": 1, "module": "pkg.a.f"}]


def test_switching_branches_answers_for_the_new_head_without_re_parsing_seen_blobs(
    make_repo: Callable[..., GitRepo], graphguard: Run
) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("feature", {"pkg/a.py": "def f():\n    pass\ndef h():\n    f()\n"})
    assert index(graphguard, repo)["parsed"] == 1
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/a.py", 4), ("pkg/b.py", 2)}

    repo.git("checkout", "-q", "main")
    back = index(graphguard, repo)
    assert (back["head"], back["parsed"]) == (repo.head, 0)
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 2)}
    assert graphguard(repo, "callers", "pkg.a.h").code == 2

    repo.git("checkout", "-q", "feature")
    assert index(graphguard, repo)["parsed"] == 0
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/a.py", 4), ("pkg/b.py", 2)}


def dump(repo: GitRepo) -> set[tuple[object, ...]]:
    """Everything the graph holds, without row ids: files, symbols, sites, imports, file edges."""
    with sqlite3.connect(repo.graph_path) as db:
        rows: set[tuple[object, ...]] = set()
        rows.update(("file", *r) for r in db.execute("SELECT path, blob, module, is_test, parsed, warnings FROM files"))
        rows.update(("symbol", *r) for r in db.execute(
            "SELECT f.path, s.qualname, s.kind, s.line, s.end_line, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"))
        rows.update(("site", *r) for r in db.execute(
            "SELECT f.path, s.kind, s.scope, s.text, s.resolution, s.target, s.init_target, s.line, s.col FROM sites s"
            " JOIN files f ON f.id = s.file_id"))
        rows.update(("import", *r) for r in db.execute(
            "SELECT f.path, i.line, i.module, i.name, i.status, t.path FROM imports i JOIN files f ON f.id = i.file_id"
            " LEFT JOIN files t ON t.id = i.target_file"))
        rows.update(("edge", *r) for r in db.execute(
            "SELECT s.path, d.path, e.kind, e.n_symbols FROM file_edges e JOIN files s ON s.id = e.src JOIN files d ON d.id = e.dst"))
    db.close()
    return rows


@pytest.mark.slow
def test_incremental_updates_equal_a_rebuild_from_scratch(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(
        {
            "shop/__init__.py": "from .billing import charge\n",
            "shop/billing/__init__.py": "from .core import charge\n",
            "shop/billing/core.py": "def charge(amount):\n    pass\n",
            "shop/base.py": "class Base:\n    def ping(self):\n        pass\n",
            "shop/child.py": "from shop.base import Base\nclass Child(Base):\n    pass\n",
            "app.py": "from shop import charge\nfrom shop.child import Child\ncharge(1)\nChild().ping()\n",
            "tests/test_app.py": "import app\nfrom shop.billing.core import charge\ncharge(2)\n",
        }
    )
    steps = [
        # The definition is renamed: the re-export chain and its users no longer resolve.
        {"shop/billing/core.py": "def bill(amount):\n    pass\n"},
        # The chain re-exports the new name under the old one.
        {"shop/billing/__init__.py": "from .core import bill as charge\n"},
        # A base class loses its method, which moves to a new mixin.
        {"shop/base.py": "from shop.mixin import Mixin\nclass Base(Mixin):\n    pass\n",
         "shop/mixin.py": "class Mixin:\n    def ping(self):\n        pass\n"},
        # A body-only edit, and a module deleted.
        {"shop/mixin.py": "class Mixin:\n    def ping(self):\n        return 1\n", "tests/test_app.py": None},
        # A module that was imported but missing appears.
        {"app.py": "from shop import charge, extra\nextra.run()\n", "shop/extra.py": "def run():\n    pass\n"},
        # A method reached through a return annotation of another module goes, then comes back.
        {"shop/session.py": "class Session:\n    def close(self):\n        pass\n",
         "shop/api.py": "from shop.session import Session\ndef make() -> Session:\n    return Session()\n",
         "app.py": "from shop import api\napi.make().close()\n"},
        {"shop/session.py": "class Session:\n    def shutdown(self):\n        pass\n"},
        {"shop/session.py": "class Session:\n    def close(self):\n        pass\n"},
        # A star re-export narrows its __all__; an instance attribute changes type.
        {"shop/star.py": "__all__ = ['a', 'b']\ndef a():\n    pass\ndef b():\n    pass\n",
         "shop/__init__.py": "from .billing import charge\nfrom .star import *\n",
         "shop/service.py": "from shop.session import Session\nclass Service:\n    def __init__(self):\n        self.s = Session()\n",
         "tests/test_svc.py": "from shop import a, b\nfrom shop.service import Service\na()\nb()\nService().s.close()\n"},
        {"shop/star.py": "__all__ = ['a']\ndef a():\n    pass\ndef b():\n    pass\n",
         "shop/service.py": "from shop.base import Base\nclass Service:\n    def __init__(self):\n        self.s = Base()\n"},
    ]
    index(graphguard, repo)
    for step in steps:
        repo.commit("step", step)
        index(graphguard, repo)
        incremental = dump(repo)
        repo.graph_path.unlink()
        index(graphguard, repo)
        assert dump(repo) == incremental, step
    assert call_sites(graphguard, repo, "shop.session.Session.close") == {("app.py", 2)}


def test_callers_brings_the_graph_up_to_date_by_itself(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.commit("more", {"pkg/c.py": "from pkg.a import f\nf()\n"})
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 2), ("pkg/c.py", 2)}
    assert stats(graphguard, repo)["head"] == repo.head


def test_linked_worktree_has_its_own_graph_and_shares_parsed_blobs(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    repo.git("branch", "feature")
    worktree = GitRepo(repo.root.parent / "worktree")
    repo.git("worktree", "add", "-q", str(worktree.root), "feature")
    worktree.commit("feature", {"pkg/c.py": "from pkg.a import f\n\nf()\n"})
    result = index(graphguard, worktree)
    assert (result["files"], result["parsed"]) == (4, 1)  # the three blobs of main are cached
    assert call_sites(graphguard, worktree, "pkg.a.f") == {("pkg/b.py", 2), ("pkg/c.py", 3)}
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 2)}


# --- files that are not plain Python --------------------------------------------------------------------


@pytest.mark.slow
def test_odd_files_are_indexed_or_skipped_with_a_warning(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    line = b"def f(a, b):\n    return g(a) + b\n"
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/ok.py": "def good():\n    pass\n",
            "pkg/bad.py": "def broken(:\n    pass\n",
            "pkg/empty.py": "",
            "pkg/nested.py": "x = " + "(" * 500 + "1" + ")" * 500 + "\n" + "f(" * 500 + ")" * 500 + "\n",
            "pkg/my módulo.py": "from pkg.ok import good\ngood()\n",
            "pkg/módulo.py": "def acción():\n    pass\n",
            "pkg/user.py": "from pkg.módulo import acción\nacción()\n",
            "pkg/binary.py": b"x = 1\n\x00\x01\x02",
            "pkg/latin.py": "# -*- coding: latin-1 -*-\ndef café():\n    pass\n".encode("latin-1"),
            "pkg/undeclared.py": "def g():\n    return 'déjà'\n".encode("latin-1"),
            "pkg/big.py": line * (5_000_000 // len(line) + 1),
        }
    )
    assert len(repo.path("pkg/big.py").read_bytes()) > MAX_BYTES
    os.symlink("ok.py", repo.path("pkg/link.py"))
    os.symlink("nowhere.py", repo.path("pkg/dangling.py"))
    repo.commit("symlinks")

    result = index(graphguard, repo)
    warned = {w["path"] for w in result["warnings"]}  # type: ignore[union-attr]
    assert warned == {"pkg/bad.py", "pkg/binary.py", "pkg/undeclared.py", "pkg/big.py", "pkg/link.py", "pkg/dangling.py"}
    s = stats(graphguard, repo)
    assert s["warnings"] == 6
    assert s["files"] == 12  # symlinks are not files of the graph
    assert call_sites(graphguard, repo, "pkg.ok.good") == {("pkg/my módulo.py", 2)}
    assert call_sites(graphguard, repo, "pkg.módulo.acción") == {("pkg/user.py", 2)}
    assert graphguard(repo, "callers", "pkg.latin.café").code == 0
    assert graphguard(repo, "callers", "pkg.undeclared.g").code == 0
    # The text report lists each warning with its file.
    text = graphguard(repo, "stats")
    assert text.code == 0
    assert "pkg/big.py: 5 MB file" in text.out and "pkg/link.py: symlink" in text.out


def test_file_name_that_is_not_utf8_is_skipped_with_a_warning(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    # Stage the blob under a Latin-1 name with plumbing: not every file system takes such a name.
    sha = subprocess.run(("git", "hash-object", "-w", "--stdin"), cwd=repo.root, input=b"from pkg.a import f\nf()\n",
                         capture_output=True, check=True).stdout.decode().strip()
    name = os.fsdecode(b"pkg/caf\xe9.py")
    repo.git("update-index", "--add", "--cacheinfo", f"100644,{sha},{name}")
    repo.git("commit", "-q", "-m", "latin-1 name")
    result = index(graphguard, repo)
    assert result["files"] == 3
    assert result["warnings"] == [{"path": "pkg/caf\ufffd.py", "message": "file name is not valid UTF-8; not indexed"}]
    assert stats(graphguard, repo)["warnings"] == 1
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 2)}
    assert graphguard(repo, "stats").code == 0


def test_empty_repository_indexes_to_an_empty_graph(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo()
    r = graphguard(repo, "index")
    assert r.code == 0, r.err
    s = stats(graphguard, repo)
    assert (s["head"], s["files"], s["symbols"]) == ("", 0, 0)
    # Then the first commit is indexed as usual.
    repo.commit("first", SMALL)
    assert index(graphguard, repo)["files"] == 3


def test_outside_a_repository_is_an_error(tmp_path: os.PathLike[str], graphguard: Run) -> None:
    r = graphguard(tmp_path, "index")
    assert r.code == 2
    assert r.err.startswith("graphguard: error: not a git repository")


def test_parallel_parse_of_many_new_files(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    n = PARALLEL_THRESHOLD + 6
    files = {"gen/__init__.py": "", "gen/base.py": "def base():\n    pass\n"}
    files.update({f"gen/m{i:03d}.py": f"from gen.base import base\ndef f{i}():\n    base()\n" for i in range(n)})
    repo = make_repo(files)
    result = index(graphguard, repo)
    assert (result["files"], result["parsed"]) == (n + 2, n + 2)
    assert call_sites(graphguard, repo, "gen.base.base") == {(f"gen/m{i:03d}.py", 3) for i in range(n)}
    s = stats(graphguard, repo)
    assert (s["symbols"], s["calls"]["resolved"]) == (n + 1, n)  # type: ignore[index]


def test_parallel_and_serial_parse_agree() -> None:
    blobs = [(f"{i:040x}", f"def f{i}(a, *b, c=1):\n    return g{i}(a)\n".encode()) for i in range(PARALLEL_THRESHOLD + 1)]
    blobs.append(("f" * 40, b"\x00binary"))
    assert sorted(parse_blobs(blobs)) == sorted((sha, parse_blob(data)) for sha, data in blobs)


# --- the store -----------------------------------------------------------------------------------------------


def test_store_lives_in_the_git_directory_and_the_work_tree_stays_clean(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    assert repo.graph_path.is_file()
    assert repo.git("status", "--porcelain", "--ignored", "--untracked-files=all") == ""


def test_graph_describes_head_never_the_work_tree(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    repo.write({"pkg/b.py": "from pkg.a import f\n\n\nf()\nf()\n", "pkg/a.py": None, "pkg/new.py": "from pkg.a import f\nf()\n"})
    repo.git("add", "pkg/new.py")  # staged, not committed: not HEAD either
    assert call_sites(graphguard, repo, "pkg.a.f") == {("pkg/b.py", 2)}
    s = stats(graphguard, repo)
    assert (s["head"], s["files"]) == (repo.head, 3)


def test_stats_json_has_the_contract_keys(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """
                import os
                from pkg.b import helper
                from pkg.missing import thing
                def f(obj):
                    helper()
                    os.getcwd()
                    obj.helper()
            """,
            "pkg/b.py": "def helper():\n    pass\n",
        }
    )
    s = stats(graphguard, repo)
    assert s["schema"] == "graphguard.stats/1"
    assert s["head"] == repo.head
    assert (s["files"], s["symbols"], s["warnings"]) == (3, 2, 0)
    assert isinstance(s["edges"], int) and s["edges"] > 0
    assert s["imports"] == {
        "total": 3,
        "internal": 1,
        "external": 1,
        "unresolved": 1,
        "unresolved_list": [{"path": "pkg/a.py", "line": 3, "module": "pkg.missing.thing"}],
    }
    calls = s["calls"]
    assert isinstance(calls, dict)
    assert (calls["total"], calls["resolved"], calls["name_matches_repo"]) == (3, 1, 2)


def test_callers_of_an_unknown_symbol_is_a_one_line_error(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    r = graphguard(repo, "callers", "pkg.a.nope")
    assert r.code == 2
    assert r.out == ""
    assert r.err.startswith("graphguard: error: no symbol 'pkg.a.nope'")
    assert len(r.err.splitlines()) == 1


@pytest.mark.slow
def test_corrupted_graph_is_rebuilt_with_a_one_line_warning(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    repo = make_repo(SMALL)
    assert graphguard_cli(repo, "index").code == 0
    repo.graph_path.write_bytes(b"this is not a database\n" * 500)
    r = graphguard_cli(repo, "callers", "pkg.a.f", "--format", "json")
    assert r.code == 0
    assert {(c["path"], c["line"]) for c in r.json["callers"]} == {("pkg/b.py", 1), ("pkg/b.py", 2)}
    assert "Traceback" not in r.err
    (warning,) = r.err.splitlines()
    assert warning.startswith("graphguard: warning: graph at ") and "rebuilding it" in warning


@pytest.mark.slow
def test_corrupted_blob_cache_is_rebuilt(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    repo = make_repo(SMALL)
    assert graphguard_cli(repo, "index").code == 0
    (repo.root / ".git" / "graphguard" / "blobs.sqlite3").write_bytes(b"\x00garbage" * 500)
    repo.commit("change", {"pkg/c.py": "from pkg.a import f\nf()\n"})
    r = graphguard_cli(repo, "index", "--format", "json")
    assert r.code == 0
    assert r.json["parsed"] == 1
    assert len(r.err.splitlines()) == 1 and "blob cache" in r.err


@pytest.mark.slow
def test_graph_of_another_schema_version_is_rebuilt(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    repo = make_repo(SMALL)
    assert graphguard_cli(repo, "index").code == 0
    with sqlite3.connect(repo.graph_path) as db:
        db.execute("PRAGMA user_version = 1")
    db.close()
    r = graphguard_cli(repo, "stats", "--format", "json")
    assert r.code == 0
    assert (r.json["files"], r.json["head"]) == (3, repo.head)
    (warning,) = r.err.splitlines()
    assert "schema version 1" in warning and "rebuilding it" in warning
    with sqlite3.connect(repo.graph_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] != 1
    db.close()


@pytest.mark.slow
def test_graph_with_damaged_pages_is_rebuilt(make_repo: Callable[..., GitRepo], graphguard_cli: Run) -> None:
    files = {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    pass\n"}
    files.update({f"pkg/m{i}.py": "from pkg.a import f\n" + "f()\n" * 50 for i in range(40)})
    repo = make_repo(files)
    assert graphguard_cli(repo, "index").code == 0
    data = bytearray(repo.graph_path.read_bytes())
    page = 4096
    for offset in range(3 * page, len(data) - page, 4 * page):
        data[offset : offset + page] = b"\xa5" * page
    repo.graph_path.write_bytes(bytes(data))
    r = graphguard_cli(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["files"] == 42
    assert "damaged" in r.err and "Traceback" not in r.err


# --- a killed index ---------------------------------------------------------------------------------------


def generated(n: int, version: int) -> dict[str, str]:
    """`n` distinct modules that all call gen.base.base."""
    files = {"gen/__init__.py": "", "gen/base.py": "def base(a, b):\n    pass\n"}
    for i in range(n):
        body = "".join(f"def f{j}_v{version}(a, b):\n    return base(a, b) + {i}\n" for j in range(30))
        files[f"gen/m{i:03d}.py"] = "from gen.base import base\n" + body
    return files


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.2, 0.6])
def test_killed_index_leaves_a_usable_graph(make_repo: Callable[..., GitRepo], graphguard: Run, delay: float) -> None:
    repo = make_repo(generated(60, 1))
    old = repo.head
    assert index(graphguard, repo)["head"] == old
    new = repo.commit("regenerate", generated(300, 2))

    proc = subprocess.Popen(cli_command("index"), cwd=repo.root, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

    # Whatever the timing, the stored graph is the old one or the new one, never a mix.
    with sqlite3.connect(repo.graph_path) as db:
        (head,) = db.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
        (files,) = db.execute("SELECT count(*) FROM files").fetchone()
        (calls,) = db.execute("SELECT count(*) FROM sites WHERE kind = 'call' AND target = 'gen.base.base'").fetchone()
    db.close()
    assert (head, files, calls) in {(old, 62, 60 * 30), (new, 302, 300 * 30)}

    # And the next command brings it to HEAD.
    s = stats(graphguard, repo)
    assert (s["head"], s["files"]) == (new, 302)
    assert len(call_sites(graphguard, repo, "gen.base.base")) == 300 * 30


# --- where and how it runs ----------------------------------------------------------------------------


def test_runs_from_a_subdirectory_of_a_repository_whose_path_has_spaces_and_accents(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run
) -> None:
    repo = make_repo(SMALL, name="my repo é")
    r = graphguard_cli(repo.root / "pkg", "callers", "pkg.a.f", "--format", "json")
    assert r.code == 0, r.err
    assert {(c["path"], c["line"]) for c in r.json["callers"]} == {("pkg/b.py", 1), ("pkg/b.py", 2)}


@pytest.mark.slow
def test_concurrent_index_runs_all_succeed(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(generated(80, 1))
    procs = [
        subprocess.Popen(cli_command("index", "--format", "json"), cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outcomes = [(p.communicate(timeout=120)[1], p.returncode) for p in procs]
    assert outcomes == [(b"", 0)] * 3
    assert len(call_sites(graphguard, repo, "gen.base.base")) == 80 * 30


def test_repository_with_a_top_level_init_is_indexed(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({"__init__.py": "def f(a):\n    pass\n", "m.py": "from __init__ import f\nf(1)\n"})
    r = graphguard(repo, "callers", "__init__.f")
    assert r.code == 0 and "m.py:2" in r.out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("pre_commit", [False, True])
def test_progress_on_a_terminal_has_a_line_per_phase(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch,
                                                     pre_commit: bool) -> None:
    from graphguard.index import progress
    from graphguard.repo import ensure_current, open_repo

    repo = make_repo({f"pkg/m{i}.py": f"def f{i}():\n    pass\n" for i in range(6)} | {"pkg/__init__.py": ""})
    monkeypatch.setattr(progress, "SHOW_FROM", 2)
    if pre_commit:
        monkeypatch.setenv("PRE_COMMIT", "1")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    ensure_current(open_repo(str(repo.root)), progress=True)
    lines = terminal.getvalue().split("\n")
    if pre_commit:  # the framework shows a hook's output after it: plain lines, never overwritten in place
        assert "\r" not in terminal.getvalue() and "graphguard: parsing 7/7 in " in terminal.getvalue()
        return
    lines = [line for line in lines if "no graph of this repository yet" not in line]
    # Each phase overwrites its own line (\r) and ends it with its time.
    finals = [line.rsplit("\r", 1)[-1] for line in lines if line]
    assert [f.split(" ")[1] for f in finals] == ["parsing", "resolving", "writing", "updating"], finals
    assert finals[0].startswith("graphguard: parsing 7/7 in ") and finals[1].startswith("graphguard: resolving 7/7 in ")


# --- the module layout kept for the check -------------------------------------------------------------------


def _kept_layout(repo: GitRepo) -> tuple[str | None, Layout | None]:
    with sqlite3.connect(repo.graph_path) as db:
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('head', ?, ?)", (LAYOUT_KEY, LAYOUT_HEAD_KEY)).fetchall())
        paths = [p for (p,) in db.execute("SELECT path FROM files")]
    layout = Layout.from_json(meta.get(LAYOUT_KEY))
    if meta.get(LAYOUT_HEAD_KEY) == meta["head"]:  # a layout that names the graph's commit is the layout of its paths
        assert layout == Layout.of(paths)
    return meta.get(LAYOUT_HEAD_KEY), layout


def test_the_layout_of_the_paths_is_kept_with_the_commit_it_describes(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    assert _kept_layout(repo)[0] == repo.head
    repo.commit("a body edit", {"pkg/a.py": "def f():\n    return 1\n"})
    assert index(graphguard, repo)["parsed"] == 1
    assert _kept_layout(repo)[0] == repo.head  # no file came or went: the same layout, now of this commit
    repo.commit("a new package", {"lib/sub/__init__.py": "", "lib/sub/c.py": "from pkg.a import f\n"})
    index(graphguard, repo)
    head, layout = _kept_layout(repo)
    assert head == repo.head and layout is not None and "lib/sub" in layout.packages


def test_a_layout_that_names_another_commit_is_not_used(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(SMALL)
    index(graphguard, repo)
    with sqlite3.connect(repo.graph_path) as db:  # as a version that kept no layout leaves it after its update
        db.execute("UPDATE meta SET value = 'an older commit' WHERE key = ?", (LAYOUT_HEAD_KEY,))
        # ... and a layout that would name `pkg/a.py` module `a`: no longer what `pkg/b.py` imports.
        wrong = Layout(("pkg",), Counter({"pkg": 3}), Counter(), frozenset())
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (wrong.to_json(), LAYOUT_KEY))
    repo.write({"pkg/a.py": "def f(x):\n    pass\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err
    assert {c["path"] for c in r.json["changes"][0]["callers"]} == {"pkg/b.py"}  # module names from the paths themselves
    repo.git("commit", "-qm", "f takes x")
    index(graphguard, repo)
    assert _kept_layout(repo)[0] == "an older commit"  # a delta does not vouch for a layout it did not write
