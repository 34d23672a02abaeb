"""Reports at the scale of a real merge: a change that breaks thousands of callers in hundreds of files.

The pull-request comment (markdown) and the step summary stay under GitHub's limits, name every
broken site or count it, say how much was left out, and stay valid Markdown.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graphguard.report import markdown
from tests.helpers import GitRepo

N_FUNCTIONS, N_FILES = 10, 300
GITHUB_COMMENT_LIMIT = 65_536  # characters


@pytest.fixture
def wide_break(make_repo: Any) -> GitRepo:
    """`lib.core.f0..f9` each gain a required parameter; 300 files call each of them, 3,000 broken sites."""
    core = "".join(f"def f{i}(a):\n    return a\n\n\n" for i in range(N_FUNCTIONS))
    names = ", ".join(f"f{i}" for i in range(N_FUNCTIONS))
    files = {"lib/__init__.py": "", "lib/core.py": core, "app/__init__.py": ""}
    for n in range(N_FILES):
        body = "".join(f"def use_{i}(x):\n    return f{i}(x) + f{i}(x + 1)\n\n\n" for i in range(N_FUNCTIONS))
        files[f"app/m{n:03}.py"] = f"from lib.core import {names}\n\n\n{body}"
    repo = make_repo(files)
    repo.write({"lib/core.py": core.replace("(a):", "(a, b):")})
    repo.git("add", "-A")
    return repo


def _broken_sites(doc: dict[str, Any]) -> set[tuple[str, int, str]]:
    return {(k["path"], k["line"], ch["symbol"]) for ch in doc["changes"] for k in ch["callers"] if k["status"] == "broken"}


def _accounted(out: str) -> tuple[set[tuple[str, int, str]], Counter[str], int]:
    """What a comment holds: the sites it lists, the sites it counts per file, and the sites its cut line counts."""
    listed = {(m[1], int(m[2]), m[3]) for m in re.finditer(r"^\| `([^`]+):(\d+)` \| `[^`]+` \| `([^`]+)` \|", out, re.MULTILINE)}
    counted = Counter({m[1]: int(m[2]) for m in re.finditer(r"^\| `([^`:]+)` \| (\d+) \|$", out, re.MULTILINE)})
    cut = re.search(r"Left out to stay under the size limit: (\d+) broken sites? in (\d+) more files?", out)
    return listed, counted, int(cut[1]) if cut else 0


def _valid_markdown(out: str) -> None:
    """Balanced `<details>`, every table row as wide as its header, code fences closed."""
    depth = 0
    for tag in re.findall(r"</?details\b", out):
        depth += 1 if tag == "<details" else -1
        assert depth >= 0
    assert depth == 0
    assert out.count("<summary>") == out.count("</summary>")
    assert len(re.findall(r"^```", out, re.MULTILINE)) % 2 == 0
    for table in re.findall(r"(?:^\|.*\|\n)+", out, re.MULTILINE):
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in table.splitlines()}
        assert len(widths) == 1, table[:300]


@pytest.mark.slow
def test_a_change_that_breaks_thousands_of_callers_fits_a_pull_request_comment(wide_break: GitRepo, graphguard: Any) -> None:
    doc = json.loads(graphguard(wide_break, "check", "--staged", "--format", "json").out)
    sites = _broken_sites(doc)
    assert len(sites) == N_FUNCTIONS * N_FILES  # two calls on one line are one site
    r = graphguard(wide_break, "check", "--staged", "--format", "markdown")
    assert r.code == 1, r.err
    out = r.out
    assert len(out) < GITHUB_COMMENT_LIMIT
    _valid_markdown(out)
    assert "**Broken sites**: 3000 sites in 300 files" in out
    # The broken sites come first, before any changed interface's details.
    assert out.index("**Broken sites**") < out.index("<details")
    listed, counted, cut = _accounted(out)
    assert listed and listed <= sites
    assert counted, "the sites not listed are counted per file"
    rest = Counter(path for path, _, _ in sites - listed)
    assert all(counted[f] == rest[f] for f in counted)
    assert sum(rest.values()) == sum(counted.values()) + cut  # every site is listed or counted
    assert "Left out to stay under the size limit" in out


def test_when_even_the_counts_do_not_fit_the_cut_line_says_how_many_sites_and_files() -> None:
    from tests.test_report_formats import caller, change, result

    callers = tuple(caller(f"pkg/sub{i:04}/module_with_a_long_name.py", 7, f"pkg.sub{i:04}.g") for i in range(2000))
    out = markdown.render(result(change(callers=callers)))
    assert len(out) < GITHUB_COMMENT_LIMIT
    _valid_markdown(out)
    listed, counted, cut = _accounted(out)
    assert cut > 0 and len(listed) + sum(counted.values()) + cut == 2000
    m = re.search(r"Left out to stay under the size limit: (\d+) broken sites in (\d+) more files \(not counted above\)", out)
    assert m is not None and int(m[1]) == int(m[2]) == cut


@pytest.mark.slow
def test_the_step_summary_of_a_wide_break_stays_under_one_mebibyte(wide_break: GitRepo, graphguard: Any,
                                                                    tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    r = graphguard(wide_break, "check", "--staged", "--format", "github")
    assert r.code == 1, r.err
    text = summary.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < 1024 * 1024
    _valid_markdown(text)
    listed, counted, cut = _accounted(text)
    assert len(listed) == N_FUNCTIONS * N_FILES and not counted and not cut  # a mebibyte holds them all
