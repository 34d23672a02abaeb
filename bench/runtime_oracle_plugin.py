"""pytest plugin for bench/runtime_oracle.py: every test outcome and every failure's traceback, as JSON lines.

Loaded with `-p runtime_oracle_plugin` (bench/ on PYTHONPATH); writes to $GG_RT_OUT, keeps the
frames that lie under $GG_RT_ROOT (the project's own files).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from typing import Any

OUT = os.environ.get("GG_RT_OUT", "")
ROOT = os.path.realpath(os.environ.get("GG_RT_ROOT", "."))
WANTED = (TypeError, AttributeError, ImportError, NameError)


def _write(record: dict[str, Any]) -> None:
    if OUT:
        with open(OUT, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def pytest_runtest_logreport(report: Any) -> None:
    _write({"event": "test", "nodeid": report.nodeid, "when": report.when, "outcome": report.outcome})


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _write({"event": "collect-error", "nodeid": report.nodeid})


def _origin(exc: BaseException) -> BaseException | None:
    """The exception itself or the first in its chain (pytest wraps an import error in a CollectError) that the oracle counts."""
    seen = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, WANTED):
            return e
        e = e.__cause__ or e.__context__
    return None


def pytest_exception_interact(node: Any, call: Any, report: Any) -> None:
    excinfo = call.excinfo
    if excinfo is None:
        return
    exc = _origin(excinfo.value)
    if exc is None:
        return
    frames = []
    for f in traceback.extract_tb(exc.__traceback__):
        path = os.path.realpath(f.filename)
        if path.startswith(ROOT + os.sep):
            frames.append([os.path.relpath(path, ROOT), f.lineno])
    # A SyntaxError-free ImportError raised by the import system has the importing line as its last project frame.
    _write({"event": "exception", "nodeid": report.nodeid, "type": type(exc).__name__, "message": str(exc)[:400], "frames": frames})


# Exceptions a test never sees: click's CliRunner, for one, catches whatever the command raises and
# the test then fails on its exit code. With $GG_RT_TRACE set, a tracer on the project's own frames
# records where each such exception was raised (its first frame: for a call that does not bind,
# the caller's line, since the callee never starts).
NAME = os.environ.get("GG_RT_TRACE", "")
# Lines to watch ($GG_RT_LINES, JSON [[path, line], ...]: the sites graphguard calls broken): did they run after the change?
_WATCH: dict[str, set[int]] = {}
for _path, _line in json.loads(os.environ.get("GG_RT_LINES") or "[]"):
    _WATCH.setdefault(os.path.join(ROOT, _path), set()).add(_line)
_ran: set[tuple[str, int]] = set()
_raised: dict[int, tuple[BaseException, list[list[object]]]] = {}  # id -> (the exception, kept alive; frames innermost first)


def _local(frame: Any, event: str, arg: Any) -> Any:
    if event == "line":
        if frame.f_lineno in _WATCH.get(frame.f_code.co_filename, ()):
            _ran.add((os.path.relpath(frame.f_code.co_filename, ROOT), frame.f_lineno))
    elif event == "exception":
        exc = arg[1]
        if isinstance(exc, WANTED) and NAME in str(exc):
            _raised.setdefault(id(exc), (exc, []))[1].append([os.path.relpath(frame.f_code.co_filename, ROOT), frame.f_lineno])
    return _local


_holds: dict[Any, bool] = {}  # code object -> does it hold a watched line (only those pay for line events)


def _global(frame: Any, event: str, arg: Any) -> Any:
    code = frame.f_code
    if code.co_filename.startswith(ROOT + os.sep):
        if code not in _holds:
            lines = {line for _, _, line in code.co_lines() if line is not None}
            _holds[code] = bool(lines & _WATCH.get(code.co_filename, set()))
        frame.f_trace_lines = _holds[code]
        return _local
    return None


def pytest_configure(config: Any) -> None:
    _write({"event": "rootdir", "path": str(config.rootpath)})


def pytest_unconfigure(config: Any) -> None:
    for exc, frames in _raised.values():
        _write({"event": "exception", "nodeid": "", "type": type(exc).__name__, "message": str(exc)[:400], "frames": frames[::-1], "traced": True})
    if _WATCH:
        _write({"event": "ran", "lines": sorted(_ran)})


if os.environ.get("GG_RT_TRACE"):
    sys.settrace(_global)
    threading.settrace(_global)
