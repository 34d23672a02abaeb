"""The CI renderers (markdown, sarif, github, codequality): pure functions of a CheckResult, no git needed."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from graphguard import __version__
from graphguard.main import _parser
from graphguard.model import UseKind
from graphguard.report import RENDERERS, codequality, github, markdown, sarif
from graphguard.result import CallerImpact, CheckResult, Compared, FileWarning, Status, SymbolImpact
from graphguard.result import TestHit as Hit  # not collected by pytest

#: The official SARIF 2.1.0 schema (OASIS errata01), vendored: the schema checks run in every clone.
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

BROKEN, UNKNOWN, OK = Status.BROKEN, Status.UNKNOWN, Status.OK


def caller(path: str, line: int, name: str, status: Status = BROKEN, reason: str = "missing required argument 'tz'") -> CallerImpact:
    return CallerImpact(path=path, line=line, end_line=line + 1, caller=name, status=status, reason=reason)


def change(symbol: str = "billing.proration.calculate_proration", path: str = "billing/proration.py", line: int = 12,
           callers: tuple[CallerImpact, ...] = (), tests: tuple[Hit, ...] = (), **kw: Any) -> SymbolImpact:
    fields: dict[str, Any] = {"change": "signature", "breaking": ("required-param-added:tz", "param-removed:at"),
                              "before": "def calculate_proration(sub, at)", "after": "def calculate_proration(sub, *, tz)"}
    fields.update(kw)
    return SymbolImpact(symbol=symbol, path=path, line=line, callers=callers, tests=tests, **fields)


def result(*changes: SymbolImpact, **kw: Any) -> CheckResult:
    return CheckResult(base="a" * 40, head="b" * 40, compared="commits", changes=list(changes), files_changed=2, **kw)


def typical() -> CheckResult:
    """One change with a broken, an unknown and an ok caller and a test; one removal without callers."""
    return result(
        change(callers=(caller("partners/api.py", 40, "partners.api.create_subscription"),
                        caller("partners/x.py", 4, "partners.x.forward", UNKNOWN, "**kwargs forwarding"),
                        caller("billing/ok.py", 9, "billing.ok.use", OK, "binds")),
               tests=(Hit("tests/test_proration.py", 5, True),)),
        change("billing.util.gone", "billing/util.py", 3, change="removed", breaking=(), before="def gone()", after=None, line_now=3),
        warnings=[FileWarning("pkg/bad.py", "syntax error at line 3; file not checked")],
        notes=["unstaged changes were not checked"],
    )


def shifted(res: CheckResult, by: int) -> CheckResult:
    """The same result with every line number moved: what an unrelated edit above does."""
    def move(ch: SymbolImpact) -> SymbolImpact:
        callers = tuple(dataclasses.replace(k, line=k.line + by, end_line=k.end_line + by) for k in ch.callers)
        return dataclasses.replace(ch, line=ch.line + by, callers=callers)

    return dataclasses.replace(res, changes=[move(ch) for ch in res.changes])


def many_broken(n: int, unknown: int = 0) -> CheckResult:
    callers = tuple(caller(f"pkg/m{i:02}.py", 10 + i, f"pkg.m{i:02}.use") for i in range(n))
    callers += tuple(caller(f"pkg/u{i:02}.py", 3, f"pkg.u{i:02}.use", UNKNOWN, "*args forwarding") for i in range(unknown))
    return result(change(callers=callers, tests=tuple(Hit(f"tests/test_{i:02}.py", 1, False) for i in range(20))))


# --- registry and command line ---------------------------------------------------------------


def test_every_format_is_registered_and_accepted_by_check() -> None:
    formats = ("text", "json", "markdown", "sarif", "github", "codequality")
    assert set(formats) <= set(RENDERERS)
    for fmt in formats:
        assert _parser().parse_args(["check", "--format", fmt]).format == fmt


@pytest.mark.parametrize("fmt", ["markdown", "sarif", "github", "codequality"])
def test_renderers_are_deterministic_and_sorted(fmt: str) -> None:
    res = typical()
    reordered = dataclasses.replace(res, changes=[dataclasses.replace(ch, callers=ch.callers[::-1]) for ch in reversed(res.changes)])
    assert RENDERERS[fmt](res) == RENDERERS[fmt](reordered) == RENDERERS[fmt](typical())


@pytest.mark.parametrize(("compared", "text_says", "markdown_says"), [
    (Compared.STAGED, "(staged changes against HEAD,", "(staged changes against `HEAD`,"),
    (Compared.WORKTREE, "(working tree against HEAD,", "(working tree against `HEAD`,"),
    (Compared.COMMITS, "(bbbbbbbbbbbb against aaaaaaaaaaaa,", "(`bbbbbbbbbbbb` against `aaaaaaaaaaaa`,"),
    (Compared.PROPOSED, "(proposed contents over the working tree, against HEAD,", "(proposed,"),
    (Compared.NOTHING, "(nothing,", "(nothing to compare,"),
])
def test_every_format_says_what_was_compared(compared: Compared, text_says: str, markdown_says: str) -> None:
    res = dataclasses.replace(result(), compared=compared.value)  # the wire string becomes the member
    assert res.compared is compared
    assert text_says in RENDERERS["text"](res) and markdown_says in RENDERERS["markdown"](res)
    assert json.loads(RENDERERS["json"](res))["compared"] == compared.value
    assert json.loads(RENDERERS["sarif"](res))["runs"][0]["properties"]["compared"] == compared.value
    assert all(RENDERERS[fmt](res) for fmt in RENDERERS)


# --- markdown ----------------------------------------------------------------------------------


def test_markdown_pull_request_comment() -> None:
    out = markdown.render(typical())
    assert out.startswith(markdown.MARKER + "\n")
    summary = out.splitlines()[1]
    assert "block" in summary and "1 broken caller" in summary and "1 unknown" in summary and "2 changed interfaces" in summary
    # The broken sites come first, each once; then one collapsed section per changed symbol, sorted by
    # path; inside it, the callers that still bind are collapsed too.
    assert out.splitlines()[3:7] == [
        "**Broken sites**: 1 site in 1 file", "",
        "| location | caller | uses | reason |", "|---|---|---|---|"]
    assert out.splitlines()[7] == ("| `partners/api.py:40` | `partners.api.create_subscription` | "
                                   "`billing.proration.calculate_proration` | missing required argument 'tz' |")
    assert out.count("<details") == 3 and out.count("</details>") == 3 and "<details open>" not in out
    assert out.index("**Broken sites**") < out.index("<details>\n<summary><code>billing.proration.calculate_proration</code>") < out.index(
        "<details>\n<summary><code>billing.util.gone</code>")
    assert "```diff\n- def calculate_proration(sub, at)\n+ def calculate_proration(sub, *, tz)\n```" in out
    assert "`required-param-added:tz`, `param-removed:at`" in out
    assert "| status | location | caller | reason |" in out
    rows = [line for line in out.splitlines() if line.startswith(("| ❌", "| ⚠️", "| ✅"))]
    assert [r.split(" | ")[1] for r in rows] == ["`partners/api.py:40`", "`partners/x.py:4`"]  # broken, unknown
    assert "<details>\n<summary>+ 1 caller still binds</summary>\n\n- `billing/ok.py`: line 9\n\n</details>" in out
    assert "No callers in the repository." in out
    assert "- `tests/test_proration.py`" in out and "pytest" not in out  # no runner shown: no command
    mermaid = re.search(r"```mermaid\n(.*?)\n```", out, re.DOTALL)
    assert mermaid is not None
    diagram = mermaid.group(1)
    assert diagram.startswith("flowchart")
    assert re.search(r'S0\["billing\.proration\.calculate_proration<br/>', diagram)
    assert "S0 -->|broken| C0" in diagram and "S0 -.->|unknown| C1" in diagram and "S0 -.->|test| T0" in diagram
    assert "billing.ok.use" not in diagram  # ok callers are not impact
    # Warnings and notes come last.
    assert out.index("pkg/bad.py") > mermaid.end() and out.rstrip().endswith("unstaged changes were not checked")


def test_markdown_without_interface_change() -> None:
    out = markdown.render(result())
    assert "no interface change" in out
    assert "<details" not in out and "mermaid" not in out and len(out.splitlines()) <= 3


def test_markdown_diagram_is_capped() -> None:
    out = markdown.render(many_broken(40))
    diagram = re.search(r"```mermaid\n(.*?)\n```", out, re.DOTALL).group(1)  # type: ignore[union-attr]
    caller_nodes = re.findall(r"^\s+C\d+\[", diagram, re.MULTILINE)
    assert len(caller_nodes) == markdown.MAX_DIAGRAM_CALLERS == 15
    assert '"+25 more callers"' in diagram
    assert len(re.findall(r"^\s+T\d+\[", diagram, re.MULTILINE)) == markdown.MAX_DIAGRAM_TESTS
    assert '"+10 more test files"' in diagram


def test_markdown_callers_that_still_bind_are_one_line_per_file() -> None:
    ok = tuple(caller(f"pkg/k{i % 3}.py", 100 - i, f"pkg.k{i % 3}.g", OK, "binds") for i in range(60))
    out = markdown.render(result(change(callers=ok + (caller("pkg/a.py", 1, "pkg.a.f"),))))
    assert "<summary>+ 60 callers still bind</summary>" in out
    listed = [line for line in out.splitlines() if line.startswith("- `pkg/k")]
    assert listed[0] == "- `pkg/k0.py`: lines 43, 46, 49, 52, 55, 58, 61, 64, 67, 70, 73, 76, 79, 82, 85, 88, 91, 94, 97, 100"
    assert len(listed) == 3 and "pkg/k0.py:" not in out
    many = tuple(caller(f"pkg/f{i:03}.py", 1, "g", OK, "binds") for i in range(markdown.MAX_TABLE_ROWS + 5))
    out = markdown.render(result(change(callers=many)))
    assert out.count("- `pkg/f") == markdown.MAX_TABLE_ROWS and "- … 5 more files: `graphguard check --verbose` lists every caller" in out
    assert "| status |" not in out  # no broken or unknown caller: no table


def test_markdown_table_is_capped_with_broken_callers_first() -> None:
    res = result(change(callers=tuple(caller(f"pkg/k{i:02}.py", 1, f"pkg.k{i:02}.g", OK, "binds") for i in range(30))
                        + many_broken(40).changes[0].callers))
    out = markdown.render(res, verbose=True)  # verbose: the callers that still bind are rows of the table too
    table = out[out.index("| status | location | caller | reason |"):]
    rows = [line for line in table.splitlines()[2:] if line.startswith("| ")]
    assert len(rows) == markdown.MAX_TABLE_ROWS + 1 == 51
    assert all(r.startswith("| ❌ broken") for r in rows[:40]) and rows[40].startswith("| ✅ ok")
    assert "20 more callers" in rows[-1]


def test_markdown_diagram_labels_are_escaped() -> None:
    nasty = 'pkg.m.f["x"]|<b>(y){z}`#'
    out = markdown.render(result(change(callers=(caller("pkg/m.py", 3, nasty),))))
    diagram = re.search(r"```mermaid\n(.*?)\n```", out, re.DOTALL).group(1)  # type: ignore[union-attr]
    nodes = [line for line in diagram.splitlines() if re.match(r"\s+C\d+", line)]
    assert len(nodes) == 1
    assert re.fullmatch(r'\s+C0\["[^"\[\]|<>(){}`]*?<br/>pkg/m\.py:3"\]:::broken', nodes[0]), nodes[0]
    assert "#quot;" in nodes[0] and "#91;" in nodes[0] and "#35;" in nodes[0]


def test_markdown_table_cells_survive_pipes_and_markup() -> None:
    out = markdown.render(result(change(callers=(caller("pkg/m.py", 3, "pkg.m.f", reason="a | b <script> *c*"),))))
    row = next(line for line in out.splitlines() if line.startswith("| ❌"))
    assert len(re.split(r"(?<!\\)\|", row)) == 6  # four cells, the pipe in the reason is escaped
    assert "<script>" not in out and "&lt;script&gt;" in row


def test_markdown_stays_under_the_size_limit() -> None:
    res = result(*(change(f"pkg.m{i:03}.f", f"pkg/m{i:03}.py", 1, callers=tuple(
        caller(f"pkg/c{j:03}.py", j + 1, f"pkg.c{j:03}.g", OK, "binds") for j in range(30))) for i in range(100)),
        change("pkg.zzz.f", "pkg/zzz.py", 1, callers=(caller("pkg/a.py", 1, "pkg.a.g"),)))
    assert len(markdown.render(res, max_bytes=10**7).encode()) > 100_000
    out = markdown.render(res)
    assert len(out.encode()) <= markdown.COMMENT_LIMIT
    assert out.splitlines()[1].startswith("❌ **graphguard: block**")
    assert "<code>pkg.zzz.f</code>" in out  # the section with a broken caller is kept, ok-only ones go first
    assert "Left out to stay under the size limit" in out
    assert out.count("<details") == out.count("</details>")
    tiny = markdown.render(res, max_bytes=300)
    assert len(tiny.encode()) <= 300


# --- sarif -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    import jsonschema  # a test dependency: a missing one is an error, not a skip

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


@pytest.mark.parametrize("res", [typical(), result(), many_broken(150, unknown=3)], ids=["typical", "empty", "many"])
def test_sarif_is_schema_valid(sarif_validator: Any, res: CheckResult) -> None:
    doc = json.loads(sarif.render(res))
    errors = sorted(sarif_validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_sarif_tool_and_rules() -> None:
    doc = json.loads(sarif.render(typical()))
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "graphguard" and driver["version"] == __version__ and driver["informationUri"].startswith("https://")
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in driver["rules"]}
    assert levels == {"graphguard/broken-caller": "error", "graphguard/unknown-caller": "warning", "graphguard/interface-change": "note"}
    for rule in driver["rules"]:
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"]
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    assert [n["level"] for n in run["invocations"][0]["toolExecutionNotifications"]] == ["warning", "note"]


def test_sarif_primary_location_is_the_definition_and_callers_are_related() -> None:
    (run,) = json.loads(sarif.render(typical()))["runs"]
    by_rule = {(r["ruleId"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]): r for r in run["results"]}
    assert sorted(by_rule) == [("graphguard/broken-caller", "billing.proration.calculate_proration"),
                               ("graphguard/interface-change", "billing.util.gone"),
                               ("graphguard/unknown-caller", "billing.proration.calculate_proration")]
    broken = by_rule["graphguard/broken-caller", "billing.proration.calculate_proration"]
    assert broken["level"] == "error"
    primary = broken["locations"][0]["physicalLocation"]
    assert primary == {"artifactLocation": {"uri": "billing/proration.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 12}}
    (related,) = broken["relatedLocations"]
    assert related["id"] == 1
    assert related["physicalLocation"]["artifactLocation"] == {"uri": "partners/api.py", "uriBaseId": "%SRCROOT%"}
    assert related["physicalLocation"]["region"] == {"startLine": 40, "endLine": 41}
    assert "[partners/api.py:40](1)" in broken["message"]["text"]
    unknown = by_rule["graphguard/unknown-caller", "billing.proration.calculate_proration"]
    assert unknown["level"] == "warning" and "[partners/x.py:4](1)" in unknown["message"]["text"]
    # Results are sorted by (path, line, symbol): billing/proration.py before billing/util.py.
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]] == [
        "billing/proration.py", "billing/proration.py", "billing/util.py"]


def test_sarif_fingerprints_ignore_line_numbers() -> None:
    def prints(res: CheckResult) -> list[str]:
        return [r["partialFingerprints"][sarif.FINGERPRINT] for r in json.loads(sarif.render(res))["runs"][0]["results"]]

    before = prints(typical())
    assert prints(shifted(typical(), 7)) == before
    assert len(set(before)) == len(before)
    assert all(re.fullmatch(r"[0-9a-f]{64}", p) for p in before)
    renamed = typical()
    renamed.changes[0] = dataclasses.replace(renamed.changes[0], symbol="billing.proration.other")
    assert prints(renamed)[0] != before[0]


def test_sarif_escapes_brackets_in_linked_messages_and_encodes_uris() -> None:
    res = result(change(path="my pkg/mod.py", callers=(caller("a b/c.py", 2, "ab.c.f", reason="got [1] arguments"),)))
    (r,) = json.loads(sarif.render(res))["runs"][0]["results"]
    assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20pkg/mod.py"
    assert "[a b/c.py:2](1)" in r["message"]["text"] and "got \\[1\\] arguments" in r["message"]["text"]


def test_sarif_levels_follow_the_verdict() -> None:
    accepted = result(change(callers=(caller("a.py", 1, "a.f"),), ignored=("*",)))
    (r,) = json.loads(sarif.render(accepted))["runs"][0]["results"]
    assert accepted.verdict == "pass" and r["ruleId"] == "graphguard/broken-caller" and r["level"] == "warning"
    configured = result(change(callers=(caller("a.py", 1, "a.f", OK, "binds"),)), block_on=frozenset({"param-removed"}))
    (r,) = json.loads(sarif.render(configured))["runs"][0]["results"]
    assert configured.verdict == "block" and r["ruleId"] == "graphguard/interface-change" and r["level"] == "error"


# --- github --------------------------------------------------------------------------------------


def test_github_annotations_and_escaping() -> None:
    res = result(change(symbol="pkg.f", callers=(
        caller("odd,dir:x/m.py", 7, "pkg.m.g", reason="100% wrong\r\nsecond line"),
        caller("pkg/u.py", 2, "pkg.u.h", UNKNOWN, "**kwargs forwarding"),
    )))
    lines = github.render(res).splitlines()
    assert lines[0] == ("::error file=odd%2Cdir%3Ax/m.py,line=7,endLine=8,title=Broken call to pkg.f"
                        "::pkg.m.g: 100%25 wrong%0D%0Asecond line%0Apkg.f changed (signature: required-param-added:tz, "
                        "param-removed:at) at billing/proration.py:12%0Anow: def calculate_proration(sub, *, tz)")
    assert lines[1].startswith("::warning file=pkg/u.py,line=2,endLine=3,title=Call to pkg.f may be broken::")
    assert lines[2].startswith("graphguard: block: 1 broken caller") and len(lines) == 3


def test_github_shows_the_ten_most_important_then_counts_the_rest() -> None:
    res = many_broken(12, unknown=3)
    lines = github.render(res).splitlines()
    annotations = [line for line in lines if line.startswith(("::error", "::warning"))]
    assert len(annotations) == github.MAX_ANNOTATIONS == 10
    assert all(line.startswith("::error") for line in annotations)  # broken before unknown
    files = [re.search(r"file=([^,]+)", line).group(1) for line in annotations]  # type: ignore[union-attr]
    assert files == sorted(files) == [f"pkg/m{i:02}.py" for i in range(10)]
    notice = lines[10]
    assert notice.startswith("::notice::") and "5 more callers" in notice and "2 broken, 3 unknown" in notice
    assert not any(line.startswith("::") for line in lines[11:])


def test_github_without_breakage_prints_only_a_summary() -> None:
    assert github.render(result()) == "graphguard: pass: no interface change (2 Python files changed)"


def test_step_summary_is_appended(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    assert github.append_step_summary(typical(), {"GITHUB_STEP_SUMMARY": str(summary)}) == str(summary)
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n\n" + markdown.MARKER)
    assert text.endswith(markdown.render(typical()))
    assert github.append_step_summary(typical(), {}) is None
    assert github.append_step_summary(typical(), {"GITHUB_STEP_SUMMARY": ""}) is None


def test_step_summary_stays_under_one_mebibyte(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"x" * (github.STEP_SUMMARY_LIMIT - 20_000))
    big = many_broken(400, unknown=400)
    assert github.append_step_summary(big, {"GITHUB_STEP_SUMMARY": str(summary)}) == str(summary)
    size = summary.stat().st_size
    assert github.STEP_SUMMARY_LIMIT - 20_000 < size < github.STEP_SUMMARY_LIMIT
    assert "graphguard: block" in summary.read_text(encoding="utf-8")
    # Full: nothing more is appended.
    summary.write_bytes(b"x" * (github.STEP_SUMMARY_LIMIT - 100))
    assert github.append_step_summary(big, {"GITHUB_STEP_SUMMARY": str(summary)}) is None
    assert summary.stat().st_size == github.STEP_SUMMARY_LIMIT - 100
    # A missing file is created.
    fresh = tmp_path / "fresh.md"
    github.append_step_summary(big, {"GITHUB_STEP_SUMMARY": str(fresh)})
    assert 0 < fresh.stat().st_size < github.STEP_SUMMARY_LIMIT


# --- codequality -----------------------------------------------------------------------------


def test_codequality_issues() -> None:
    issues = json.loads(codequality.render(typical()))
    assert isinstance(issues, list)
    for issue in issues:
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(issue)
        assert issue["description"] and isinstance(issue["location"]["path"], str)
        assert isinstance(issue["location"]["lines"]["begin"], int)
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
    summary = [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues]
    assert summary == [  # one per broken or unknown caller, at the call site; one info per change; sorted by path, line
        ("graphguard/interface-change", "info", "billing/proration.py", 12),
        ("graphguard/interface-change", "info", "billing/util.py", 3),
        ("graphguard/broken-caller", "blocker", "partners/api.py", 40),
        ("graphguard/unknown-caller", "minor", "partners/x.py", 4),
    ]
    assert "missing required argument 'tz'" in issues[2]["description"]
    assert "billing.proration.calculate_proration" in issues[2]["description"]


def test_codequality_fingerprints_are_stable_and_unique() -> None:
    def prints(res: CheckResult) -> list[str]:
        return [i["fingerprint"] for i in json.loads(codequality.render(res))]

    assert prints(shifted(typical(), 5)) == prints(typical())
    # Two calls from one function to the same symbol: two issues, two fingerprints, still line-free.
    twice = result(change(callers=(caller("a.py", 3, "a.f"), caller("a.py", 9, "a.f"))))
    fps = prints(twice)
    assert len(fps) == len(set(fps)) == 3
    assert prints(shifted(twice, 100)) == fps


# --- github titles -------------------------------------------------------------------------------


def _site(kind: str, status: Status = BROKEN) -> CallerImpact:
    return CallerImpact(path="app/use.py", line=3, end_line=3, caller="app.use.g", status=status, reason="r", kind=UseKind(kind))


@pytest.mark.parametrize(
    ("kind", "status", "kw", "expected"),
    [
        ("call", BROKEN, {}, "Broken call to billing.proration.calculate_proration"),
        ("call", UNKNOWN, {}, "Call to billing.proration.calculate_proration may be broken"),
        ("reference", UNKNOWN, {}, "Reference to billing.proration.calculate_proration may be broken"),
        ("import", BROKEN, {"change": "removed", "before": "def calculate_proration(sub, at)"},
         "Import of removed name billing.proration.calculate_proration"),
        ("call", BROKEN, {"change": "removed", "before": "def calculate_proration(sub, at)"},
         "Call to removed function billing.proration.calculate_proration"),
        ("call", BROKEN, {"change": "renamed", "before": "def calculate_proration(self, at)"},
         "Call to renamed method billing.proration.calculate_proration"),
        ("call", BROKEN, {"change": "moved", "before": "class calculate_proration(a)"},
         "Call to moved class billing.proration.calculate_proration"),
        ("inherit", BROKEN, {"change": "removed", "before": "class calculate_proration(a)"},
         "Subclass of removed class billing.proration.calculate_proration"),
        ("inherit", BROKEN, {}, "Broken subclass of billing.proration.calculate_proration"),
        ("reference", BROKEN, {"change": "removed"}, "Reference to removed name billing.proration.calculate_proration"),
        ("import", BROKEN, {"change": "syntax-error", "before": None}, "Import of billing.proration.calculate_proration, which does not parse"),
    ],
)
def test_github_title_says_what_the_site_is(kind: str, status: Status, kw: dict[str, Any], expected: str) -> None:
    assert github.title(_site(kind, status), change(**kw)) == expected


def test_github_titles_on_a_real_change(make_repo: Any, graphguard: Any) -> None:
    repo = make_repo({
        "billing/__init__.py": "",
        "billing/proration.py": "def calculate_proration(sub, at):\n    return at\n\n\ndef old_helper():\n    return 0\n\n\n"
                                "class Plan:\n    pass\n",
        "app/__init__.py": "",
        "app/use.py": "from billing.proration import Plan, calculate_proration\nfrom billing.proration import old_helper\n\n\n"
                      "class Gold(Plan):\n    pass\n\n\n"
                      "def g(s):\n    return calculate_proration(s, 1), old_helper()\n",
    })
    repo.write({"billing/proration.py": "def calculate_proration(sub, at, tz):\n    return at\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "github")
    assert r.code == 1, r.err
    titles = sorted(re.findall(r"title=([^:]*)::", r.out))
    assert titles == [
        "Broken call to billing.proration.calculate_proration",
        "Call to removed function billing.proration.old_helper",
        "Import of removed name billing.proration.Plan",
        "Import of removed name billing.proration.old_helper",
        "Subclass of removed class billing.proration.Plan",
    ], r.out


def _sarif_of(repo: Any, graphguard: Any) -> list[dict[str, Any]]:
    r = graphguard(repo, "check", "--staged", "--format", "sarif")
    assert r.code == 1, r.err
    return list(json.loads(r.out)["runs"][0]["results"])


def test_sarif_removed_definition_points_at_a_line_of_the_new_file(make_repo: Any, graphguard: Any, sarif_validator: Any) -> None:
    padding = "".join(f"def keep_{i}():\n    return {i}\n\n\n" for i in range(10))
    repo = make_repo({"lib/__init__.py": "", "lib/util.py": padding + "def gone(x):\n    return x\n",
                      "app/__init__.py": "", "app/use.py": "from lib import util\n\n\ndef g():\n    return util.gone(1)\n"})
    old_line = padding.count("\n") + 1  # 41
    repo.write({"lib/util.py": "def keep_0():\n    return 0\n"})  # two lines now
    repo.git("add", "lib/util.py")
    r = graphguard(repo, "check", "--staged", "--format", "sarif")
    doc = json.loads(r.out)
    assert not list(sarif_validator.iter_errors(doc))
    (res,) = [x for x in doc["runs"][0]["results"] if x["properties"]["symbol"] == "lib.util.gone"]
    primary = res["locations"][0]["physicalLocation"]
    assert primary["artifactLocation"]["uri"] == "lib/util.py" and primary["region"]["startLine"] <= 2
    old = res["relatedLocations"][0]
    assert old["id"] == 0 and old["physicalLocation"]["region"]["startLine"] == old_line
    assert f"[lib/util.py:{old_line}](0)" in res["message"]["text"]
    assert [x["id"] for x in res["relatedLocations"]] == [0, 1]  # then the broken site
    assert res["relatedLocations"][1]["physicalLocation"]["artifactLocation"]["uri"] == "app/use.py"


def test_sarif_definition_of_a_deleted_file_points_at_its_first_broken_site(make_repo: Any, graphguard: Any, sarif_validator: Any) -> None:
    repo = make_repo({"lib/__init__.py": "", "lib/util.py": "\n\n\ndef gone(x):\n    return x\n",
                      "app/__init__.py": "", "app/use.py": "from lib import util\n\n\ndef g():\n    return util.gone(1)\n"})
    repo.git("rm", "-q", "lib/util.py")
    r = graphguard(repo, "check", "--staged", "--format", "sarif")
    doc = json.loads(r.out)
    assert not list(sarif_validator.iter_errors(doc))
    gone = [x for x in doc["runs"][0]["results"] if x["properties"]["symbol"] == "lib.util.gone"]
    assert gone, r.out
    for res in gone:
        primary = res["locations"][0]["physicalLocation"]
        assert primary["artifactLocation"]["uri"] == "app/use.py" and primary["region"]["startLine"] == 5
        assert res["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "lib/util.py"


GOLDEN = Path(__file__).parent / "data" / "golden"


def test_markdown_golden(update_golden: bool) -> None:
    """The whole comment of `typical()`, byte for byte: `pytest -k golden --update-golden` rewrites it after a
    deliberate change (review the diff)."""
    golden = GOLDEN / "markdown-typical.md"
    out = markdown.render(typical())
    if update_golden:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")
