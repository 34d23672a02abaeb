"""`graphguard check`: flags -> the check's pipeline (graphguard.check) -> report -> exit code."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import BinaryIO

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.repo import open_repo
from graphguard.result import CheckResult, Verdict


def check(
    repo_path: str,
    *,
    staged: bool = False,
    worktree: bool = False,
    base: str | None = None,
    head: str | None = None,
    fmt: str = "text",
    verbose: bool = False,
    proposed: Sequence[str] = (),
    deleted: Sequence[str] = (),
) -> int:
    from graphguard.check import run, run_proposed

    t0 = time.perf_counter()
    repo = open_repo(repo_path)
    if proposed or deleted:
        result = run_proposed(repo, read_proposals(proposed, sys.stdin.buffer if sys.stdin is not None else None), deleted)
    else:
        result = run(repo, staged=staged, worktree=worktree, base=base, head=head)
    return _finish(result, fmt, t0, repo.root, verbose)


def explain(code: str) -> int:
    """`graphguard check --explain CODE`: no repository needed."""
    from graphguard import codes
    from graphguard.config import Config

    said = codes.explain(code, default_block_on=Config().block_on)
    if said is None:
        raise GraphguardError(f"no code '{code}': the codes are {', '.join(c.name for c in codes.TABLE)}")
    output.write(said + "\n")
    return 0


def read_proposals(specs: Sequence[str], stdin: BinaryIO | None) -> dict[str, bytes]:
    """`--proposed PATH=FILE` (FILE `-`: standard input) or `--proposed PATH` (standard input, at most
    once) -> path -> bytes. Split at the first '=': a PATH holding '=' needs the PATH=FILE form.
    The paths are validated by the check (graphguard.check.proposed); only FILE is read here."""
    from graphguard.check.proposed import MAX_FILE_BYTES

    out: dict[str, bytes] = {}
    from_stdin = None
    for spec in specs:
        path, sep, source = spec.partition("=")
        if not sep or source == "-":
            if from_stdin is not None:
                raise GraphguardError(f"--proposed {spec}: standard input is read once, already for {from_stdin};"
                                      " give the others as PATH=FILE")
            if stdin is None or stdin.isatty():  # a terminal: the command would wait for a person
                raise GraphguardError(f"--proposed {spec}: no content on standard input (a terminal); give PATH=FILE")
            from_stdin = path
            data = stdin.read(MAX_FILE_BYTES + 1)  # one byte over: the check refuses it with the bound in the message
        else:
            data = _read_file(spec, source, MAX_FILE_BYTES + 1)
        if path in out:
            raise GraphguardError(f"--proposed {path}: given twice")
        out[path] = data
    return out


def _read_file(spec: str, name: str, limit: int) -> bytes:
    try:
        with open(name, "rb") as f:
            return f.read(limit)
    except OSError as e:
        raise GraphguardError(f"--proposed {spec}: cannot read {name} ({e.strerror})") from None


def _finish(result: CheckResult, fmt: str, t0: float, root: str, verbose: bool) -> int:
    from graphguard.report import PRINTS_TESTS, RENDERERS

    result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
    test_runner = None
    if fmt in PRINTS_TESTS:  # only when tests are printed
        from graphguard.report import runner

        test_runner = runner.find(root, result)
    output.write(RENDERERS[fmt](result, verbose=verbose, runner=test_runner))
    if fmt == "github":  # GitHub sets GITHUB_STEP_SUMMARY in every step: only this format writes it
        from graphguard.report.github import append_step_summary

        try:
            append_step_summary(result, runner=test_runner)
        except GraphguardError as e:
            output.warn(f"step summary not written: {e}")
    return 1 if result.verdict is Verdict.BLOCK else 0
