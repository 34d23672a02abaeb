"""The text report: broken and unknown callers in full, the rest counted; `--verbose`; piped output."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

import pytest

from graphguard.report import RENDERERS, text
from graphguard.result import CallerImpact, ChangeKind, CheckResult, Status, SymbolImpact
from graphguard.result import TestHit as Hit  # not collected by pytest
from tests.helpers import GitRepo, Result, cli_command

Run = Callable[..., Result]

#: 30 modules of 10 calls each, plus their 30 imports: 330 callers of one function.
MODULES, CALLS = 30, 10
CALLERS = MODULES * (CALLS + 1)


def _caller_module(i: int) -> str:
    uses = "".join(f"\n\ndef use_{j}(s):\n    return calculate_proration(s, {j})\n" for j in range(CALLS))
    return "from billing import calculate_proration\n" + uses


def _billing(params: str) -> dict[str, str]:
    return {"billing/__init__.py": f"def calculate_proration({params}):\n    return at\n"}


@pytest.fixture
def many_callers(make_repo: Callable[..., GitRepo]) -> GitRepo:
    """`billing.calculate_proration(sub, at)` with 330 callers and a test, pytest configured in pyproject.toml."""
    files = {f"app/m{i:02}.py": _caller_module(i) for i in range(MODULES)}
    files["tests/test_m00.py"] = "from app.m00 import use_0\n\n\ndef test_use():\n    assert use_0(1) == 0\n"
    files["pyproject.toml"] = '[tool.pytest.ini_options]\naddopts = "-q"\n'
    return make_repo({**files, **_billing("sub, at")})


def _lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


def test_an_optional_parameter_with_330_callers_is_a_few_lines(many_callers: GitRepo, graphguard: Run) -> None:
    many_callers.write(_billing("sub, at, tz=None"))
    many_callers.git("add", "-A")
    r = graphguard(many_callers, "check", "--staged")
    assert r.code == 0, r.err
    assert _lines(r.out) == [
        "billing/__init__.py:1: billing.calculate_proration signature [optional-param-added:tz]",
        "    before: def calculate_proration(sub, at)",
        "    after:  def calculate_proration(sub, at, tz=None)",
        f"  {CALLERS} callers still bind (--verbose lists them)",
        "  tests through its callers: tests/test_m00.py",
        "tests to run ([tool.pytest.ini_options] in pyproject.toml): python -m pytest tests/test_m00.py",
        "graphguard: pass: 1 interface change, all callers bind (staged changes against HEAD)",
    ]
    verbose = graphguard(many_callers, "check", "--staged", "--verbose")
    assert verbose.code == 0
    ok = [line for line in verbose.out.splitlines() if line.startswith("  ok      ")]
    assert len(ok) == CALLERS
    assert "  ok      app/m00.py:5: app.m00.use_0: binds" in ok or "  ok      app/m00.py:5: m00.use_0: binds" in ok
    assert "still bind" not in verbose.out


def test_broken_callers_are_listed_in_full_and_the_rest_counted(many_callers: GitRepo, graphguard: Run) -> None:
    many_callers.write({**_billing("sub, at, tz=None"), "app/m03.py": _caller_module(3).replace("(s, 2)", "(s, 2, 3, 4)")})
    many_callers.git("add", "-A")
    r = graphguard(many_callers, "check", "--staged")
    assert r.code == 1
    broken = [line for line in r.out.splitlines() if line.startswith("  broken ")]
    assert broken == [line for line in broken if re.match(r"  broken  app/m03\.py:13: \S+use_2: ", line)] and len(broken) == 1
    assert f"  + {CALLERS - 1} callers still bind (--verbose lists them)" in r.out.splitlines()
    assert r.out.splitlines()[-1].startswith("graphguard: BLOCK: 1 broken caller")


def test_a_verbose_report_stays_valid_through_a_pipe(many_callers: GitRepo) -> None:
    """Piped (not a terminal): no colour codes, valid UTF-8, one record per line even for odd file names."""
    many_callers.write({"app/new\nline.py": _caller_module(0), "app/caf\udce9.py": _caller_module(0)})
    many_callers.git("add", "-A")
    many_callers.git("commit", "-qm", "odd names", "--no-verify")
    many_callers.write(_billing("sub, at, tz=None"))
    many_callers.git("add", "-A")
    proc = subprocess.run(cli_command("check", "--staged", "--verbose"), cwd=many_callers.root, capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")  # strict: raises on a byte that is not UTF-8
    assert "\x1b[" not in out
    records = [line for line in out.splitlines() if line.startswith("  ok      ")]
    assert len(records) == CALLERS + CALLS + 1  # a name that is not UTF-8 is not indexed (a warning says so)
    assert all(re.fullmatch(r"  ok      [^:]+:\d+: \S+: (binds|imports it)", line) for line in records), records[:3]
    assert any(line.startswith("  ok      app/new\\nline.py:5: ") for line in records)


def test_a_block_piped_into_a_reader_that_leaves_still_blocks(many_callers: GitRepo) -> None:
    """`graphguard check | head -1`: the reader is gone before the report is written; the exit code is the verdict."""
    many_callers.write(_billing("sub, at, tz"))
    many_callers.git("add", "-A")
    proc = subprocess.Popen(cli_command("check", "--staged", "--verbose"), cwd=many_callers.root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # nobody reads: the first write fails with EPIPE
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


# --- the renderer alone ------------------------------------------------------------------------


def _caller(line: int, status: Status, reason: str = "binds") -> CallerImpact:
    return CallerImpact(path=f"pkg/c{line:03}.py", line=line, end_line=line, caller=f"pkg.c{line:03}.g", status=status, reason=reason)


def _result(*callers: CallerImpact, tests: tuple[Hit, ...] = ()) -> CheckResult:
    change = SymbolImpact(symbol="pkg.f", path="pkg/f.py", line=1, change=ChangeKind.SIGNATURE, breaking=("required-param-added:b",),
                          before="def f(a)", after="def f(a, b)", callers=callers, tests=tests)
    return CheckResult(base="a" * 40, head="b" * 40, compared="commits", changes=[change], files_changed=1)


def test_one_caller_that_binds_reads_in_the_singular() -> None:
    out = text.render(_result(_caller(1, Status.BROKEN, "missing required argument 'b'"), _caller(2, Status.OK)), colour=False)
    assert "  + 1 caller still binds (--verbose lists them)" in out.splitlines()
    out = text.render(_result(_caller(2, Status.OK)), colour=False)
    assert "  1 caller still binds (--verbose lists them)" in out.splitlines()


def test_unknown_callers_are_listed_too() -> None:
    res = _result(_caller(1, Status.UNKNOWN, "**kwargs forwarding"), *(_caller(i, Status.OK) for i in range(2, 40)))
    lines = text.render(res, colour=False).splitlines()
    assert "  unknown pkg/c001.py:1: pkg.c001.g: **kwargs forwarding" in lines
    assert "  + 38 callers still bind (--verbose lists them)" in lines
    assert len(text.render(res, verbose=True, colour=False).splitlines()) == len(lines) + 38 - 1


def test_long_test_lists_are_cut_unless_verbose() -> None:
    tests = tuple(Hit(f"tests/test_{i:02}.py", 1, False) for i in range(25))
    res = _result(_caller(1, Status.OK), tests=tests)
    short = next(line for line in text.render(res, colour=False).splitlines() if line.startswith("  tests through"))
    assert short.endswith("tests/test_09.py (+15 more: --verbose lists all)")
    full = next(line for line in text.render(res, verbose=True, colour=False).splitlines() if line.startswith("  tests through"))
    assert full.endswith("tests/test_24.py")


@pytest.mark.parametrize("fmt", ["json", "sarif", "codequality", "github"])
def test_complete_formats_do_not_depend_on_verbose(fmt: str) -> None:
    res = _result(_caller(1, Status.BROKEN, "missing required argument 'b'"), *(_caller(i, Status.OK) for i in range(2, 9)))
    assert RENDERERS[fmt](res) == RENDERERS[fmt](res, verbose=True)


LONG_PARAMS = ", ".join(f"option_number_{i}=None" for i in range(16))  # a 400-character signature


@pytest.fixture
def callbacks(make_repo: Callable[..., GitRepo]) -> GitRepo:
    """`lib.handle` (a 400-character signature) gains a required parameter; six modules pass it as a callback,
    one calls it twice on one line."""
    files = {"lib/__init__.py": f"def handle(event, {LONG_PARAMS}):\n    return event\n", "app/__init__.py": ""}
    for i in range(6):
        files[f"app/r{i}.py"] = "from lib import handle\n\n\ndef setup(bus):\n    bus.register(handle)\n"
    files["app/twice.py"] = "from lib import handle\n\n\ndef go():\n    return handle(1) or handle(2)\n"
    repo = make_repo(files)
    repo.write({"lib/__init__.py": f"def handle(event, source, {LONG_PARAMS}):\n    return event\n"})
    repo.git("add", "-A")
    return repo


def test_a_long_signature_is_printed_once_per_change_not_on_every_unknown_line(callbacks: GitRepo, graphguard: Run) -> None:
    r = graphguard(callbacks, "check", "--staged")
    assert r.code == 1, r.err
    lines = r.out.splitlines()
    unknown = [line for line in lines if line.lstrip().startswith("unknown")]
    assert len(unknown) == 6 and all(len(line) < 160 for line in unknown), unknown
    assert r.out.count("option_number_15=None") == 2  # before: and after:, once each


def test_two_calls_on_one_line_print_once(callbacks: GitRepo, graphguard: Run) -> None:
    r = graphguard(callbacks, "check", "--staged")
    broken = [line for line in r.out.splitlines() if line.lstrip().startswith("broken")]
    assert broken == ["  broken  app/twice.py:5: app.twice.go: missing required argument 'source' (2 calls on this line)"], r.out
