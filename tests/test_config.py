"""Configuration: `[tool.graphguard]` in pyproject.toml or `.graphguard.toml`, its errors, and its globs."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphguard.config import DEFAULT_TESTS, Config, Globs, _anchored, load
from graphguard.errors import GraphguardError
from graphguard.languages.python.modules import DEFAULT_TEST_DATA
from tests.helpers import GitRepo, Result, source

Run = Callable[..., Result]

ALL_KEYS = """
block_on = ["removed", "param-removed"]
exclude = ["gen/**", "**/vendor/**"]
generated = ["**/*_pb2.py"]
tests = ["checks/**"]
public_api = ["pkg.api"]
test_data = ["cases", "tests/**/golden"]
fail_on_unknown = true
"""
EXPECTED = Config(
    block_on=("removed", "param-removed"),
    exclude=("gen/**", "**/vendor/**"),
    generated=("**/*_pb2.py",),
    tests=("checks/**",),
    public_api=("pkg.api",),
    test_data=("cases", "tests/**/golden"),
    fail_on_unknown=True,
)


def fields(c: Config) -> tuple[object, ...]:
    return (c.block_on, c.exclude, c.generated, c.tests, c.public_api, c.fail_on_unknown, c.test_data)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(source(text))
    return root


# --- parsing ------------------------------------------------------------------------------------


def test_defaults_without_configuration(tmp_path: Path) -> None:
    c = load(str(tmp_path))
    assert fields(c) == (("syntax-error",), (), (), DEFAULT_TESTS, (), False, DEFAULT_TEST_DATA)


def test_pyproject_without_a_graphguard_table_is_the_defaults(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n\n[tool.black]\nline-length = 100\n"})
    assert fields(load(str(tmp_path))) == fields(Config())


def test_every_key_in_pyproject(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n\n[tool.graphguard]\n" + source(ALL_KEYS)})
    c = load(str(tmp_path))
    assert fields(c) == fields(EXPECTED)
    assert "pyproject.toml" in c.source


def test_every_key_in_graphguard_toml(tmp_path: Path) -> None:
    write(tmp_path, {".graphguard.toml": ALL_KEYS})
    c = load(str(tmp_path))
    assert fields(c) == fields(EXPECTED)
    assert c.source == ".graphguard.toml"


def test_dashes_are_allowed(tmp_path: Path) -> None:
    write(tmp_path, {".graphguard.toml": """
        block-on = ["signature"]
        public-api = ["pkg"]
        fail-on-unknown = true
    """})
    c = load(str(tmp_path))
    assert (c.block_on, c.public_api, c.fail_on_unknown) == (("signature",), ("pkg",), True)


def test_graphguard_toml_takes_the_pyproject_table_as_written(tmp_path: Path) -> None:
    write(tmp_path, {".graphguard.toml": "[tool.graphguard]\n" + source(ALL_KEYS)})
    c = load(str(tmp_path))
    assert fields(c) == fields(EXPECTED)
    assert c.source == ".graphguard.toml [tool.graphguard]"


def _readme_example() -> str:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Configuration"):]
    return section[section.index("```toml\n") + 8:section.index("\n```", section.index("```toml"))]


@pytest.mark.parametrize("where", [".graphguard.toml", "pyproject.toml"])
def test_the_readme_example_loads_in_either_file(tmp_path: Path, where: str) -> None:
    example = _readme_example()
    assert example.startswith("[tool.graphguard]\n")
    write(tmp_path, {where: example})
    c = load(str(tmp_path))
    assert c.block_on == ("syntax-error", "removed") and c.public_api == ("mypkg",)


def test_graphguard_toml_wins_over_pyproject(tmp_path: Path) -> None:
    write(tmp_path, {
        ".graphguard.toml": 'exclude = ["a/**"]\n',
        "pyproject.toml": '[tool.graphguard]\nexclude = ["b/**"]\n',
    })
    assert load(str(tmp_path)).exclude == ("a/**",)


def test_empty_lists_replace_the_defaults(tmp_path: Path) -> None:
    write(tmp_path, {".graphguard.toml": "tests = []\n"})
    c = load(str(tmp_path))
    assert c.tests == ()
    assert not c.is_test("tests/test_a.py")


def _error(tmp_path: Path, files: dict[str, str]) -> str:
    write(tmp_path, files)
    with pytest.raises(GraphguardError) as info:
        load(str(tmp_path))
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param("exclud = ['a']\n", "exclud", id="unknown-key"),
        pytest.param("source = 'x'\n", "source", id="internal-field-is-not-a-key"),
        pytest.param("[nested]\nx = 1\n", "nested", id="unknown-table"),
        pytest.param("exclude = 'gen/**'\n", "exclude", id="string-for-list"),
        pytest.param("tests = ['a', 1]\n", "tests", id="list-of-non-strings"),
        pytest.param("block-on = 'removed'\n", "block-on", id="dashed-key-wrong-type"),
        pytest.param("generated = {a = 1}\n", "generated", id="table-for-list"),
        pytest.param("public_api = 'pkg'\n", "public_api", id="public-api"),
        pytest.param("fail_on_unknown = 'yes'\n", "fail_on_unknown", id="string-for-bool"),
        pytest.param("fail-on-unknown = 1\n", "fail-on-unknown", id="int-for-bool"),
        pytest.param("test_data = 'fixtures'\n", "test_data", id="string-for-test-data"),
        pytest.param("test-data = ['/abs/cases']\n", "test-data", id="absolute-test-data"),
        pytest.param("test_data = ['']\n", "test_data", id="empty-test-data"),
        pytest.param("test_data = ['../up']\n", "test_data", id="climbing-test-data"),
    ],
)
@pytest.mark.parametrize("where", [".graphguard.toml", "pyproject.toml"])
def test_bad_key_is_one_line_naming_it(tmp_path: Path, text: str, key: str, where: str) -> None:
    if where == "pyproject.toml":
        text = "[tool.graphguard]\n" + text.replace("[nested]", "[tool.graphguard.nested]")
    message = _error(tmp_path, {where: text})
    assert f"'{key}'" in message
    assert where in message


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param("[tool.black]\nline-length = 100\n", "write the keys at the top level (block_on = [...]) or under [tool.graphguard]",
                     id="another-tools-table"),
        pytest.param("[graphguard]\nexclude = ['a/**']\n", "write the keys at the top level or under [tool.graphguard], not under [graphguard]",
                     id="graphguard-table-without-tool"),
        pytest.param("exclude = ['a/**']\n\n[tool.graphguard]\ntests = []\n",
                     "'exclude' outside [tool.graphguard]: write every key in one place, at the top level or under [tool.graphguard]",
                     id="keys-in-both-places"),
        pytest.param("[tool.graphguard]\nexclude = []\n\n[tool.ruff]\nx = 1\n", "[tool.ruff] outside [tool.graphguard]",
                     id="another-tool-beside-ours"),
        pytest.param("[tool.graphguard]\nexclud = []\n", "[tool.graphguard]: unknown key 'exclud' (did you mean 'exclude'?)",
                     id="misspelt-key-under-the-table"),
        pytest.param("fail-on-unknwn = true\n", "unknown key 'fail-on-unknwn' (did you mean 'fail_on_unknown'?)", id="misspelt-dashed"),
        pytest.param("zzz = 1\n", "unknown key 'zzz' (known: block_on, exclude, fail_on_unknown, generated, public_api, retrieval_fit, test_data, tests)",
                     id="nothing-close"),
    ],
)
def test_graphguard_toml_errors_say_what_to_write(tmp_path: Path, text: str, says: str) -> None:
    message = _error(tmp_path, {".graphguard.toml": text})
    assert message.startswith(".graphguard.toml")
    assert says in message


def test_all_errors_are_reported_at_once(tmp_path: Path) -> None:
    message = _error(tmp_path, {".graphguard.toml": "exclude = 'x'\nfoo = 1\nfail_on_unknown = 'no'\n"})
    for key in ("exclude", "foo", "fail_on_unknown"):
        assert f"'{key}'" in message


def test_invalid_toml_in_graphguard_toml_is_an_error(tmp_path: Path) -> None:
    message = _error(tmp_path, {".graphguard.toml": "exclude = [\n"})
    assert ".graphguard.toml" in message and "TOML" in message


def test_graphguard_table_that_is_not_a_table(tmp_path: Path) -> None:
    message = _error(tmp_path, {"pyproject.toml": "[tool]\ngraphguard = 3\n"})
    assert "[tool.graphguard]" in message


def test_someone_elses_broken_pyproject_does_not_stop_graphguard(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[project\nname = \n"})
    c = load(str(tmp_path))
    assert fields(c) == fields(Config())
    assert [(w.path, w.message) for w in c.warnings] == [
        ("pyproject.toml", "not valid TOML (line 1, column 9: Expected ']' at the end of a table declaration):"
                           " [tool.graphguard] not read; the defaults apply")]


def test_a_pyproject_that_is_not_utf8_is_a_warning_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"[project]\nname = 'x'\n\n[tool.graphguard]\nexclude = ['caf\xe9/**']\n")
    (w,) = load(str(tmp_path)).warnings
    assert w.message.startswith("not valid TOML (line 5: not UTF-8)")


def test_the_position_of_a_toml_error_is_read_from_python_3_14s_attributes(tmp_path: Path) -> None:
    import tomllib

    from graphguard.config import _decode_error

    class Positioned(tomllib.TOMLDecodeError):  # 3.14: msg, lineno, colno; the message no longer ends "(at line ...)"
        msg, lineno, colno = "Unclosed array", 7, 3

    assert _decode_error(b"", Positioned("Unclosed array")) == "line 7, column 3: Unclosed array"
    assert _decode_error(b"a = [\n", tomllib.TOMLDecodeError("Invalid value (at end of document)")) == (
        "line 2, the end of the file: Invalid value")


def test_a_broken_graphguard_toml_stays_an_error_beside_a_broken_pyproject(tmp_path: Path) -> None:
    message = _error(tmp_path, {".graphguard.toml": "exclude = [\n", "pyproject.toml": "[project\n"})
    assert message.startswith(".graphguard.toml: not valid TOML (line 2")


def test_a_valid_graphguard_toml_is_read_whatever_pyproject_holds(tmp_path: Path) -> None:
    write(tmp_path, {".graphguard.toml": 'exclude = ["a/**"]\n', "pyproject.toml": "[project\n"})
    c = load(str(tmp_path))
    assert c.exclude == ("a/**",) and c.warnings == ()


@pytest.mark.parametrize(("first", "second"), [("block_on", "block-on"), ("public-api", "public_api"), ("fail_on_unknown", "fail-on-unknown")])
@pytest.mark.parametrize("where", [".graphguard.toml", "pyproject.toml"])
def test_two_spellings_of_one_key_are_an_error_naming_both(tmp_path: Path, first: str, second: str, where: str) -> None:
    value = "true" if "fail" in first else '["removed"]'
    text = f"{first} = {value}\n{second} = {value}\n"
    message = _error(tmp_path, {where: ("[tool.graphguard]\n" if where == "pyproject.toml" else "") + text})
    assert message.startswith(where)
    assert f"'{first}' and '{second}' are the same key: keep one" in message


def test_broken_pyproject_is_a_warning_in_the_check_and_stats(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # Its [tool.graphguard] would have accepted nothing more; the defaults apply and say so.
    repo = make_repo({**PROJECT, "pyproject.toml": "[project]\nname = 'x'\n\n[tool.graphguard]\nblock_on = ['removed'\ntests = []\n"})
    repo.write({"pkg/core.py": "def f(a, b):\n    return a\n"})
    repo.git("add", "-A")
    said = "not valid TOML (line 6, column 1: Unclosed array): [tool.graphguard] not read; the defaults apply"
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err  # the check ran, with the defaults: the broken callers block
    assert r.json["warnings"] == [{"path": "pyproject.toml", "message": said}]
    r = graphguard(repo, "check", "--staged")
    assert f"warning: pyproject.toml: {said}" in r.out.splitlines()
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["config_warnings"] == [{"path": "pyproject.toml", "message": said}]
    assert r.json["test_files"] == 1  # the default test globs
    r = graphguard(repo, "stats")
    assert f"  warning pyproject.toml: {said}" in r.out.splitlines()


@pytest.mark.parametrize(
    "args", [("stats",), ("check",), ("refresh",)], ids=["stats", "check", "refresh-never-fails"]
)
def test_cli_reports_a_bad_key_in_one_line(make_repo: Callable[..., GitRepo], graphguard_cli: Run, args: tuple[str, ...]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pyproject.toml": "[tool.graphguard]\nexlude = ['gen/**']\n"})
    r = graphguard_cli(repo, *args)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert "Traceback" not in r.err
    assert "'exlude'" in lines[0]
    if args == ("refresh",):
        assert r.code == 0  # a post-* hook warns, never fails git
        assert lines[0].startswith("graphguard: warning:")
    else:
        assert r.code == 2
        assert lines[0].startswith("graphguard: error:")
        assert r.out == ""


# --- glob semantics -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/test_*.py", "test_a.py", True),
        ("**/test_*.py", "pkg/test_a.py", True),
        ("**/test_*.py", "a/b/c/test_x.py", True),
        ("**/test_*.py", "pkg/atest_a.py", False),
        ("**/test_*.py", "pkg/test_a.pyi", False),
        ("**/test_*.py", "test_dir/a.py", False),
        ("tests/**", "tests/a.py", True),
        ("tests/**", "tests/unit/deep/a.py", True),
        ("tests/**", "pkg/tests/a.py", False),
        ("tests/**", "tests_old/a.py", False),
        ("gen/**", "gen/a_pb2.py", True),
        ("gen/**", "gen/x/y.py", True),
        ("gen/**", "src/gen/a.py", False),
        ("gen/**", "generated/a.py", False),
        ("**/tests/**", "tests/a.py", True),
        ("**/tests/**", "pkg/sub/tests/a.py", True),
        ("**/tests/**", "pkg/mytests/a.py", False),
        ("*.py", "a.py", True),
        ("*.py", "pkg/a.py", False),
        ("pkg/*.py", "pkg/a.py", True),
        ("pkg/*.py", "pkg/sub/a.py", False),
        ("pkg/**/*.py", "pkg/a.py", True),
        ("pkg/**/*.py", "pkg/sub/deep/a.py", True),
        ("pkg/?.py", "pkg/a.py", True),
        ("pkg/?.py", "pkg/ab.py", False),
        ("pkg/?.py", "pkg//.py", False),
        ("a+b/(x).py", "a+b/(x).py", True),  # regex characters are literal
        ("a+b/(x).py", "aab/x.py", False),
    ],
)
def test_glob(pattern: str, path: str, matches: bool) -> None:
    assert Globs((pattern,))(path) is matches


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("tests/test_a.py", True),
        ("pkg/test_a.py", True),
        ("pkg/a_test.py", True),
        ("conftest.py", True),
        ("pkg/tests/helpers.py", True),
        ("test/helpers.py", True),
        ("pkg/testing.py", False),
        ("pkg/contest.py", False),
        ("pkg/a.py", False),
    ],
)
def test_default_test_globs(path: str, is_test: bool) -> None:
    assert Config().is_test(path) is is_test


def test_no_patterns_match_nothing() -> None:
    assert not Globs(())("a.py")
    assert not Config().is_excluded("a.py")


# --- the globs at work --------------------------------------------------------------------------

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(a):\n    return a\n",
    "gen/__init__.py": "",
    "gen/api_pb2.py": "from pkg.core import f\n\n\ndef g():\n    return f(1)\n",
    "pkg/vendor/lib.py": "def v():\n    return 0\n",
    "checks/check_core.py": "from pkg.core import f\n\n\ndef check_f():\n    assert f(1) == 1\n",
    "tests/test_core.py": "from pkg.core import f\n\n\ndef test_f():\n    assert f(1) == 1\n",
}


def stored_files(repo: GitRepo) -> dict[str, bool]:
    conn = sqlite3.connect(repo.graph_path)
    try:
        return {path: bool(t) for path, t in conn.execute("SELECT path, is_test FROM files")}
    finally:
        conn.close()


def test_exclude_keeps_files_out_of_the_graph(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**PROJECT, ".graphguard.toml": 'exclude = ["gen/**", "**/vendor/**"]\n'})
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    files = stored_files(repo)
    assert set(files) == {"pkg/__init__.py", "pkg/core.py", "checks/check_core.py", "tests/test_core.py"}
    assert r.json["files"] == 4
    r = graphguard(repo, "callers", "pkg.core.f", "--format", "json")
    assert r.code == 0, r.err
    assert "gen/api_pb2.py" not in r.out
    assert "tests/test_core.py" in r.out


def test_test_globs_mark_test_files(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PROJECT)
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["test_files"] == 1
    assert stored_files(repo)["tests/test_core.py"] is True
    assert stored_files(repo)["checks/check_core.py"] is False

    # A configuration change rebuilds the graph without a commit.
    repo.write({"pyproject.toml": '[tool.graphguard]\ntests = ["checks/**", "**/test_*.py"]\n'})
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["test_files"] == 2
    files = stored_files(repo)
    assert files["checks/check_core.py"] is True
    assert files["tests/test_core.py"] is True
    assert files["pkg/core.py"] is False


def test_check_obeys_a_graphguard_toml_written_as_the_pyproject_table(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({**PROJECT, ".graphguard.toml": '[tool.graphguard]\nblock_on = ["signature"]\n'})
    repo.write({"pkg/core.py": "def f(a, b=None):\n    return a\n"})  # an optional parameter: blocks only as configured
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err
    assert r.json["verdict"] == "block"
    repo.write({".graphguard.toml": '[tool.black]\nline-length = 100\n'})
    r = graphguard(repo, "check", "--staged")
    assert r.code == 2 and r.err.strip().count("\n") == 0
    assert "write the keys at the top level (block_on = [...]) or under [tool.graphguard]" in r.err


def test_excluding_more_later_drops_files(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PROJECT)
    assert graphguard(repo, "index").code == 0
    assert "gen/api_pb2.py" in stored_files(repo)
    repo.write({".graphguard.toml": 'exclude = ["gen/**"]\n'})
    assert graphguard(repo, "refresh").code == 0
    assert "gen/api_pb2.py" not in stored_files(repo)
    assert "pkg/core.py" in stored_files(repo)


_SEGMENT = st.sampled_from(["tests", "test", "Tests", "atests", "tests.py", "test_x.py", "x_test.py", "_test.py", "test_.py", "conftest.py",
                            "conftest.pyi", "test_x.pyi", "test_x.py.bak", "a", "b.py", "é", "[t]", "te*st", ".tests",
                            "a.test.ts", ".test.", "a.spec.js", "spec.ts", "a.test", "__tests__", "x__tests__", "a.specs.ts"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_SEGMENT, min_size=1, max_size=5))
def test_the_default_test_globs_match_as_pathspec_does(parts: list[str]) -> None:
    import pathspec

    path = "/".join(parts)
    spec = pathspec.GitIgnoreSpec.from_lines([_anchored(p) for p in DEFAULT_TESTS])
    assert Config().is_test(path) == spec.match_file(path), path


# --- what the patterns left out -----------------------------------------------------------------

BREAK_F = {"pkg/core.py": "def f(a, b):\n    return a\n"}  # gen/api_pb2.py, checks/ and tests/ call f(1)


def _staged_check(make_repo: Callable[..., GitRepo], graphguard: Run, config: str, change: dict[str, str]) -> tuple[Result, Result]:
    repo = make_repo({**PROJECT, ".graphguard.toml": config})
    repo.write(change)
    repo.git("add", "-A")
    return graphguard(repo, "check", "--staged"), graphguard(repo, "check", "--staged", "--format", "json")


def test_generated_everything_says_no_caller_was_checked(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    text, js = _staged_check(make_repo, graphguard, 'generated = ["**"]\n', BREAK_F)
    assert js.code == 0, js.err
    assert [w["message"] for w in js.json["warnings"]] == [
        'generated = ["**"] covers every changed Python file (1): calls written in them are not checked',
        'generated = ["**"] covers every use of pkg.core.f (3 files): no caller was checked',
    ]
    assert {w["path"] for w in js.json["warnings"]} == {".graphguard.toml"}
    summary = text.out.splitlines()[-1]
    assert summary == "graphguard: pass: 1 interface change, no caller checked (staged changes against HEAD)"
    assert "bind" not in summary


def test_generated_callers_name_the_pattern_that_covers_them(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    config = 'generated = ["gen/**", "checks/**", "tests/**", "docs/**"]\n'
    text, js = _staged_check(make_repo, graphguard, config, BREAK_F)
    assert [w["message"] for w in js.json["warnings"]] == [
        'generated = ["gen/**", "checks/**", "tests/**"] covers every use of pkg.core.f (3 files): no caller was checked']
    assert text.out.splitlines()[-1].endswith("no caller checked (staged changes against HEAD)")


def test_a_caller_left_is_checked_and_nothing_is_said(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    text, js = _staged_check(make_repo, graphguard, 'generated = ["gen/**"]\n', BREAK_F)
    assert js.code == 1 and js.json["warnings"] == []
    assert "BLOCK" in text.out.splitlines()[-1]


@pytest.mark.parametrize("patterns", ['["**"]', '["pkg/**"]'])
def test_every_changed_file_excluded_says_nothing_was_checked(make_repo: Callable[..., GitRepo], graphguard: Run, patterns: str) -> None:
    text, js = _staged_check(make_repo, graphguard, f"exclude = {patterns}\n", BREAK_F)
    assert js.code == 0, js.err
    said = f"exclude = {patterns} covers every changed Python file (1): none was checked"
    assert js.json["warnings"] == [{"path": ".graphguard.toml", "message": said}]
    assert f"warning: .graphguard.toml: {said}" in text.out.splitlines()


def test_an_excluded_file_beside_a_checked_one_is_not_a_warning(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    _, js = _staged_check(make_repo, graphguard, 'exclude = ["pkg/vendor/**"]\n', {**BREAK_F, "pkg/vendor/lib.py": "def v(x):\n    return 0\n"})
    assert js.code == 1 and js.json["warnings"] == []


def test_what_was_left_out_names_the_patterns_and_counts_the_definitions() -> None:
    from graphguard.check import leftout

    c = Config(generated=("!keep.py", "**", "docs/**"), source="pyproject.toml [tool.graphguard]")
    (w,) = leftout.generated_uses(c, {f"m.f{i}": ["a.py", "b/c.py"] for i in range(5)})
    assert (w.path, w.message) == ("pyproject.toml", 'generated = ["**"] covers every use of m.f0, m.f1, m.f2 (+2 more) (2 files):'
                                                     " no caller was checked")
    assert leftout.generated_uses(c, {}) == [] and leftout.generated_changes(Config(), ["a.py"]) == []
    # The patterns that match by themselves are named (no file read: "configuration"); when none does, all of them.
    (w,) = leftout.excluded_changes(Config(exclude=("a/**", "!a/keep.py", "b/**")), ["a/x.py"], [])
    assert (w.path, w.message) == ("configuration", 'exclude = ["a/**"] covers every changed Python file (1): none was checked')
    (w,) = leftout.excluded_changes(Config(exclude=("!b.py",)), ["a.py"], [])
    assert w.message.startswith('exclude = ["!b.py"] covers')
    assert leftout.excluded_changes(Config(exclude=("a/**",)), ["a/x.py"], ["b.py"]) == []


def test_the_default_test_data_leaves_the_digest_as_before_and_a_setting_changes_it() -> None:
    # A graph built before the key existed stays current; a different setting rebuilds it.
    assert Config().digest() == repr(((), DEFAULT_TESTS))
    assert len({Config().digest(), Config(test_data=()).digest(), Config(test_data=("cases",)).digest()}) == 3
