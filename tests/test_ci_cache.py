"""CI starts warm: `.git/graphguard` from an earlier run (another clone, another path, another commit) restored
into a fresh clone, as actions/cache or GitLab's `cache:` does, before `graphguard check --base`.

The blob cache is content-addressed (facts by blob SHA), so it is safe to share; the snapshot graph of another
commit is brought current incrementally. Either must give the answer a cold clone gives, and a cache of another
graphguard version, or a damaged one, must be rebuilt, never trusted.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from graphguard.store.schema import BLOB_SCHEMA_VERSION
from graphguard.versions import FACTS_VERSION, SCHEMA_VERSION
from tests.graphdump import differences, dump
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]
CI_DOC = Path(__file__).resolve().parent.parent / "docs" / "ci.md"

LIB = {
    "pkg/__init__.py": "",
    "pkg/text.py": "def slugify(value, allow_unicode=False):\n    return value\n\n\ndef title(s):\n    return s.title()\n",
    "pkg/views.py": "from pkg.text import slugify, title\n\n\ndef show(x):\n    return slugify(title(x))\n",
    "pkg/models.py": "from pkg import text\n\n\nclass Page:\n    def url(self):\n        return text.slugify(self.name, allow_unicode=True)\n",
    "tests/test_text.py": "from pkg.text import slugify\n\n\ndef test_slugify():\n    assert slugify('a') == 'a'\n",
}


def origin_with_pull_request(make_repo: Callable[..., GitRepo]) -> GitRepo:
    """old-main (tag) -> main (one more file changed) -> pr (branch: slugify takes a required separator, a new module)."""
    origin = make_repo(LIB, name="origin")
    origin.git("tag", "old-main")
    origin.commit("main moves on", {"pkg/views.py": LIB["pkg/views.py"] + "\n\ndef more():\n    return title('x')\n"})
    origin.git("checkout", "-q", "-b", "pr")
    origin.commit("slugify takes a separator", {"pkg/text.py": LIB["pkg/text.py"].replace("(value, ", "(value, sep, ")})
    origin.commit("a new module", {"pkg/feed.py": "from pkg.text import title\n\n\ndef feed():\n    return title('f')\n"})
    origin.git("checkout", "-q", "main")
    return origin


def fresh_clone(origin: GitRepo, dest: Path, rev: str) -> GitRepo:
    """`git clone` (a CI job's checkout) at `rev`, with a local main as actions/checkout's fetch-depth: 0 gives origin/main."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    GitRepo(dest.parent).git("clone", "-q", str(origin.root), str(dest))
    clone = GitRepo(dest)
    clone.git("checkout", "-q", rev)
    return clone


def earlier_run(origin: GitRepo, tmp_path: Path, graphguard_cli: Run, rev: str) -> Path:
    """What an earlier CI job left for the cache: `.git/graphguard` of an indexed clone at `rev` (at another path)."""
    clone = fresh_clone(origin, tmp_path / "earlier" / "job", rev)
    assert graphguard_cli(clone, "index").code == 0
    saved = tmp_path / "ci-cache" / "graphguard"
    shutil.copytree(clone.root / ".git" / "graphguard", saved)
    shutil.rmtree(clone.root)  # the runner is gone: nothing may point back into it
    return saved


def restore(saved: Path, clone: GitRepo, *, graph: bool) -> None:
    """The CI cache step: blobs.sqlite3 alone, or the whole directory."""
    store = clone.root / ".git" / "graphguard"
    if graph:
        shutil.copytree(saved, store)
    else:
        store.mkdir()
        shutil.copy(saved / "blobs.sqlite3", store / "blobs.sqlite3")


def report(result: Result) -> object:
    assert result.code in (0, 1), result.err
    data = json.loads(result.out)
    data.get("stats", {}).pop("elapsed_ms", None)
    data.pop("freshness", None)  # how the graph came to be (built, restored, refreshed): what differs by design
    return data


def cold_answer(origin: GitRepo, tmp_path: Path, graphguard_cli: Run) -> tuple[object, dict[str, list[tuple[object, ...]]]]:
    """`check --base main` in a fresh clone with no cache, and its graph (at the merge base) dumped."""
    cold = fresh_clone(origin, tmp_path / "cold", "pr")
    answer = report(graphguard_cli(cold, "check", "--base", "main", "--format", "json"))
    return answer, dump(cold.graph_path)


@pytest.mark.slow
@pytest.mark.parametrize("graph", [False, True], ids=["blobs", "blobs+graph"])
def test_restored_cache_gives_the_cold_answer_and_parses_only_new_blobs(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path, graph: bool,
) -> None:
    origin = origin_with_pull_request(make_repo)
    cold, cold_graph = cold_answer(origin, tmp_path, graphguard_cli)
    assert cold["verdict"] == "block"  # type: ignore[index]
    saved = earlier_run(origin, tmp_path, graphguard_cli, "old-main")

    warm = fresh_clone(origin, tmp_path / "warm" / "job", "main")  # another path than the earlier run's
    restore(saved, warm, graph=graph)
    indexed = graphguard_cli(warm, "index", "--format", "json")
    assert indexed.code == 0 and "warning" not in indexed.err, indexed.err
    # Only main's changed file is new to the cache; a restored graph re-resolves less than all of it.
    assert indexed.json["parsed"] == 1
    assert (indexed.json["resolved"] < indexed.json["files"]) is graph
    assert not differences(dump(warm.graph_path), cold_graph)

    warm.git("checkout", "-q", "pr")
    assert report(graphguard_cli(warm, "check", "--base", "main", "--format", "json")) == cold


@pytest.mark.slow
def test_restored_graph_at_the_merge_base_itself_is_used_as_is(make_repo: Callable[..., GitRepo], graphguard_cli: Run,
                                                                 tmp_path: Path) -> None:
    """The cache of main's own run, restored in a PR's job: nothing to index, and the same answer."""
    origin = origin_with_pull_request(make_repo)
    cold, cold_graph = cold_answer(origin, tmp_path, graphguard_cli)
    saved = earlier_run(origin, tmp_path, graphguard_cli, "main")
    warm = fresh_clone(origin, tmp_path / "warm", "pr")
    restore(saved, warm, graph=True)
    assert report(graphguard_cli(warm, "check", "--base", "main", "--format", "json")) == cold
    assert not differences(dump(warm.graph_path), cold_graph)


@pytest.mark.slow
def test_cache_of_another_repository_at_a_commit_this_clone_lacks_is_sound(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path,
) -> None:
    """A fork's cache, or a run at a merge commit that was never fetched: its head is unknown here, some
    paths are shared with other contents. Only facts of identical blobs may be reused."""
    origin = origin_with_pull_request(make_repo)
    cold, cold_graph = cold_answer(origin, tmp_path, graphguard_cli)
    other = make_repo({**LIB, "pkg/text.py": "def slugify(value):\n    return value\n", "pkg/extra.py": "X = 1\n"},
                      name="other")
    saved = earlier_run(other, tmp_path, graphguard_cli, "main")
    warm = fresh_clone(origin, tmp_path / "warm", "pr")
    restore(saved, warm, graph=True)
    assert report(graphguard_cli(warm, "check", "--base", "main", "--format", "json")) == cold
    assert not differences(dump(warm.graph_path), cold_graph)


def _set_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("which", ["blobs", "graph", "both"])
def test_cache_of_another_graphguard_version_is_rebuilt_not_trusted(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path, which: str,
) -> None:
    """A cache saved by an older graphguard (restore-keys match any earlier key): what it holds of another
    version is rebuilt. Facts carry the parser's version, so a current graph with older facts beside it is
    still sound (it was resolved from current facts): only a restored blob cache alone is tried that way."""
    origin = origin_with_pull_request(make_repo)
    cold, cold_graph = cold_answer(origin, tmp_path, graphguard_cli)
    saved = earlier_run(origin, tmp_path, graphguard_cli, "main")
    if which in ("blobs", "both"):
        _set_version(saved / "blobs.sqlite3", BLOB_SCHEMA_VERSION - 1)
    if which in ("graph", "both"):
        _set_version(saved / "graph.sqlite3", (SCHEMA_VERSION - 1) * 1000 + FACTS_VERSION)
    warm = fresh_clone(origin, tmp_path / "warm", "main")
    restore(saved, warm, graph=which != "blobs")
    indexed = graphguard_cli(warm, "index", "--format", "json")
    assert indexed.code == 0
    rebuilt = {"blob cache", "graph"} if which == "both" else {"blob cache" if which == "blobs" else "graph"}
    assert set(re.findall(r"warning: (blob cache|graph) at .* has schema version \d+, expected \d+; rebuilding it",
                          indexed.err)) == rebuilt, indexed.err
    assert indexed.json["noop"] is False  # a graph of another version is not taken for one of this commit
    # No fact of another parser version is reused; current facts are.
    assert indexed.json["parsed"] == (indexed.json["files"] if "blob cache" in rebuilt else 0)
    assert not differences(dump(warm.graph_path), cold_graph)
    warm.git("checkout", "-q", "pr")
    assert report(graphguard_cli(warm, "check", "--base", "main", "--format", "json")) == cold


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _scribble(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for at in range(4096 + 100, len(data), 997):  # every page after the first (which holds the schema version)
        data[at] ^= 0x5A
    path.write_bytes(bytes(data))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"\x1f\x8b\x08 a gzip header, say: the cache step unpacked the wrong thing" * 100)


DAMAGE = {"truncated": _truncate, "scribbled": _scribble, "empty": _empty, "not-sqlite": _not_sqlite}


@pytest.mark.slow
@pytest.mark.parametrize("rev", ["old-main", "main"])
@pytest.mark.parametrize("which", ["blobs.sqlite3", "graph.sqlite3"])
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_cache_is_rebuilt_and_gives_the_cold_answer(
    make_repo: Callable[..., GitRepo], graphguard_cli: Run, tmp_path: Path, damage: str, which: str, rev: str,
) -> None:
    origin = origin_with_pull_request(make_repo)
    cold, cold_graph = cold_answer(origin, tmp_path, graphguard_cli)
    saved = earlier_run(origin, tmp_path, graphguard_cli, rev)
    DAMAGE[damage](saved / which)
    warm = fresh_clone(origin, tmp_path / "warm", "pr")
    restore(saved, warm, graph=True)
    result = graphguard_cli(warm, "check", "--base", "main", "--format", "json")
    assert "Traceback" not in result.err
    assert report(result) == cold
    # Whatever the check read of the damaged file, the graph at the merge base is the cold one once `stats`
    # (which checks every page, and rebuilds what is damaged) has run there.
    warm.git("checkout", "-q", "main")
    assert graphguard_cli(warm, "stats").code == 0
    assert not differences(dump(warm.graph_path), cold_graph)


@pytest.mark.slow
def test_cache_restored_at_a_stale_lock_and_logs_is_harmless(make_repo: Callable[..., GitRepo], graphguard_cli: Run,
                                                              tmp_path: Path) -> None:
    """actions/cache saves the whole directory: the write lock file and a hook log come along."""
    origin = origin_with_pull_request(make_repo)
    cold, _ = cold_answer(origin, tmp_path, graphguard_cli)
    saved = earlier_run(origin, tmp_path, graphguard_cli, "old-main")
    (saved / "write.lock").write_text("")
    (saved / "hook.log").write_text("an old run's log\n")
    warm = fresh_clone(origin, tmp_path / "warm", "pr")
    restore(saved, warm, graph=True)
    assert report(graphguard_cli(warm, "check", "--base", "main", "--format", "json")) == cold


# --- the snippets of docs/ci.md ---------------------------------------------------------------


def _section(title: str) -> str:
    text = CI_DOC.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start:end if end != -1 else len(text)]


def _yaml_blocks(section: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)


def test_ci_doc_cache_snippets_are_valid_yaml_that_cache_the_store() -> None:
    yaml = pytest.importorskip("yaml")
    github, gitlab = (yaml.safe_load(block) for block in _yaml_blocks(_section("CI: start warm from a cache")))

    steps = github["jobs"]["graphguard"]["steps"]
    checkout = next(s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0  # the merge base
    cache_at = next(i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("actions/cache@"))
    cache = steps[cache_at]["with"]
    assert cache["path"].strip() == ".git/graphguard"
    assert "${{ github.sha }}" in cache["key"]
    restore_keys = [k for k in cache["restore-keys"].splitlines() if k.strip()]
    assert restore_keys and all(cache["key"].startswith(k.strip()) for k in restore_keys)
    check_at = next(i for i, s in enumerate(steps) if "graphguard check --base" in str(s.get("run", "")))
    assert cache_at < check_at  # restored before the check reads it

    job = gitlab["graphguard"]
    assert str(job["variables"]["GIT_DEPTH"]) == "0"
    assert job["cache"]["paths"] == [".git/graphguard"]
    assert job["cache"]["key"] and job["cache"].get("fallback_keys")
    assert any("graphguard check --base" in line for line in job["script"])
