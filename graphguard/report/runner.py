"""How the repository runs its tests, when it shows it: the command a report prints under "tests to run".

A command is printed only when the repository names its runner; a guessed `pytest`
in a project that runs `manage.py test` would send people to a command that fails.

    pytest     pytest.ini; [tool.pytest.ini_options] (or [tool.pytest]) in pyproject.toml;
               [tool:pytest] in setup.cfg; [pytest] in tox.ini; a conftest.py at the root or
               above a test to run; a test to run that imports pytest
    django     a manage.py that mentions django, above the tests to run (labels are dotted
               module names relative to its folder)
    unittest   every test to run imports unittest (and none imports pytest)
    vitest, jest, mocha, node --test
               TypeScript/JavaScript tests: the nearest package.json above them whose `test` script
               (else any script) runs one; vitest and jest take the tests by name (`-t`) when every
               caller in the files sits in a named `it`/`test` (the Language's `test_names`)

A repository with Python and TypeScript tests gets both commands, joined by `&&` (`TestRunner.other`).

`detect` is pure over the files' bytes. `find` is the one function here that reads, from
git (a commit's tree, never the working tree), and only when there are tests to print.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphguard.model import UseKind
from graphguard.result import CheckResult, Compared

#: Above this many test files a command names their folders, and above this many folders the whole suite:
#: a command line of hundreds of paths helps nobody.
MAX_IN_COMMAND = 20
#: Test files read to see whether they import pytest or unittest (when no configuration says).
MAX_READ = 50
ROOT_FILES = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")

_PYTEST_SECTIONS = {
    "pyproject.toml": re.compile(rb"^\s*\[\s*tool\s*\.\s*pytest(\s*\.\s*ini_options)?\s*\]", re.MULTILINE),
    "setup.cfg": re.compile(rb"^\s*\[\s*tool:pytest\s*\]", re.MULTILINE),
    "tox.ini": re.compile(rb"^\s*\[\s*pytest\s*\]", re.MULTILINE),
}
_IMPORTS_PYTEST = re.compile(rb"^\s*(import\s+pytest\b|from\s+pytest\b|from\s+_pytest\b)", re.MULTILINE)
_IMPORTS_UNITTEST = re.compile(rb"^\s*(import\s+unittest\b|from\s+unittest\b)", re.MULTILINE)
_DJANGO = re.compile(rb"\bdjango\b", re.IGNORECASE)


class RunnerKind(enum.Enum):
    PYTEST = "pytest"
    DJANGO = "django"
    UNITTEST = "unittest"
    VITEST = "vitest"
    JEST = "jest"
    MOCHA = "mocha"
    NODE = "node --test"

    @property
    def runs_scripts(self) -> bool:
        """A runner of TypeScript/JavaScript tests (it takes those files, Python's take `.py` ones)."""
        return self not in (RunnerKind.PYTEST, RunnerKind.DJANGO, RunnerKind.UNITTEST)


#: What a package.json script runs, searched in this order (`vitest` before `jest`: a vitest script may name jest's
#: matchers in a flag; never the reverse), and the command line that runs given files.
_SCRIPT_RUNNERS = ((RunnerKind.VITEST, re.compile(r"\bvitest\b"), "npx vitest run"),
                   (RunnerKind.JEST, re.compile(r"\bjest\b"), "npx jest"),
                   (RunnerKind.MOCHA, re.compile(r"\bmocha\b"), "npx mocha"),
                   (RunnerKind.NODE, re.compile(r"\bnode\b[^&|;]*\s--test\b"), "node --test"))
_COMMANDS = {kind: line for kind, _, line in _SCRIPT_RUNNERS}
_BY_NAME = frozenset({RunnerKind.VITEST, RunnerKind.JEST})
#: `-t` takes a regular expression (jest's and vitest's name pattern): a name's own specials are escaped.
_REGEX_SPECIALS = re.compile(r"[\\^$.|?*+()\[\]{}]")


@dataclass(frozen=True)
class TestRunner:
    """The repository's test runner and what showed it (`evidence`, a file or a section of one)."""

    __test__ = False  # not a pytest test class, whatever its name
    kind: RunnerKind
    evidence: str
    manage_dir: str = ""  # django: the folder holding manage.py; a script runner: package.json's ("" for the root)
    names: tuple[str, ...] = ()  # vitest, jest: the tests to run by name (empty: the whole files)
    other: TestRunner | None = None  # the runner of the other language's tests (Python's, then the scripts')

    def own(self, paths: Sequence[str]) -> list[str]:
        """The test files this runner takes (a script runner TS/JS ones, the others `.py` ones)."""
        return [p for p in paths if p.endswith(".py") != self.kind.runs_scripts]

    def targets(self, paths: Sequence[str]) -> list[str] | None:
        """What the command names: the test files; their folders when the files are too many to list
        (not for unittest, which discovers from one folder); None for the whole suite."""
        files = sorted(set(paths))
        if len(files) <= MAX_IN_COMMAND:
            return files
        parents = {posixpath.dirname(p) for p in files}
        # A folder inside another one on the line would run its tests twice.
        folders = sorted(f for f in parents if not any(a in parents for a in _folders(f)))
        if self.kind is RunnerKind.UNITTEST or "" in folders or len(folders) > MAX_IN_COMMAND:
            return None
        return folders

    def scope(self, paths: Sequence[str]) -> str:
        """How much of the suite the command runs, for the line that shows it ("" when it names the files)."""
        files, targets = sorted(set(paths)), self.targets(paths)
        if targets == files:
            return ""
        if targets is None:
            return f"{len(files)} test files: the whole suite"
        return f"{len(files)} test files in {len(targets)} folder{'s' * (len(targets) != 1)}"

    def command(self, paths: Sequence[str]) -> str | None:
        """The command that runs these test files from the repository's root; None when it cannot name them."""
        mine = self._command(self.own(paths)) if self.own(paths) else None
        theirs = self.other.command(paths) if self.other is not None else None
        return " && ".join(c for c in (mine, theirs) if c) or None

    def _command(self, paths: Sequence[str]) -> str | None:
        if self.kind.runs_scripts:
            return self._script_command(paths)
        targets = self.targets(paths)
        if self.kind is RunnerKind.PYTEST:
            return "python -m pytest" + "".join(" " + shlex.quote(t) for t in targets or ())
        if self.kind is RunnerKind.UNITTEST:
            return "python -m unittest" + ("".join(" " + shlex.quote(t) for t in targets) if targets else " discover")
        cd = f"cd {shlex.quote(self.manage_dir)} && " if self.manage_dir else ""
        if targets is None:
            return f"{cd}python manage.py test"
        labels = [label for t in targets if (label := _django_label(self.manage_dir, t))]
        return f"{cd}python manage.py test" + "".join(" " + label for label in labels) if labels else None


    def _script_command(self, paths: Sequence[str]) -> str | None:
        """npx vitest run / npx jest / npx mocha / node --test, from package.json's folder, files relative to it."""
        prefix = self.manage_dir + "/" if self.manage_dir else ""
        targets = self.targets([p for p in paths if p.startswith(prefix)])
        cd = f"cd {shlex.quote(self.manage_dir)} && " if self.manage_dir else ""
        line = cd + _COMMANDS[self.kind] + "".join(" " + shlex.quote(t[len(prefix):] or ".") for t in targets or ())
        if self.names and self.kind in _BY_NAME:
            line += " -t " + shlex.quote("|".join(_REGEX_SPECIALS.sub(r"\\\g<0>", n) for n in self.names))
        return line


def _django_label(manage_dir: str, path: str) -> str | None:
    """`netbox/circuits/tests/test_api.py` under `netbox` -> `circuits.tests.test_api`, a folder `netbox/circuits/tests`
    -> `circuits.tests` (manage.py takes dotted names, no file paths)."""
    prefix = manage_dir + "/" if manage_dir else ""
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix):]
    parts = (rel.removesuffix(".py")).split("/")
    return ".".join(parts) if all(p.isidentifier() for p in parts) else None


def _folders(path: str) -> list[str]:
    """The folders above a path, nearest first, ending with the root ("")."""
    out = []
    while path:
        path = posixpath.dirname(path)
        out.append(path)
    return out


def candidates(tests: Iterable[str]) -> list[str]:
    """The files whose presence or text `detect` needs, besides the tests themselves."""
    found = dict.fromkeys(ROOT_FILES)
    for t in tests:
        for folder in _folders(t):
            found[posixpath.join(folder, "conftest.py")] = None
            found[posixpath.join(folder, "manage.py")] = None
            if not t.endswith(".py"):  # a TS/JS test: the package.json whose scripts name its runner
                found[posixpath.join(folder, "package.json")] = None
    return list(found)


def detect(files: Mapping[str, bytes], tests: Sequence[str]) -> TestRunner | None:
    """The runners these files show (Python's, and the scripts' as its `other`). `files`: the candidates that
    exist (and the tests read), path -> bytes."""
    scripts = [t for t in tests if not t.endswith(".py")]
    python = [t for t in tests if t.endswith(".py")]
    theirs = _script_runner(files, scripts) if scripts else None
    mine = _python_runner(files, python) if python else None
    if mine is None:
        return theirs
    return dataclasses.replace(mine, other=theirs) if theirs is not None else mine


def _script_runner(files: Mapping[str, bytes], tests: Sequence[str]) -> TestRunner | None:
    """The runner the nearest package.json above the first test names in its scripts (`test` first)."""
    for folder in _folders(tests[0]):
        manifest = posixpath.join(folder, "package.json")
        if manifest not in files:
            continue
        scripts = _scripts(files[manifest])
        for key in sorted(scripts, key=lambda k: k != "test"):
            for kind, pattern, _ in _SCRIPT_RUNNERS:
                if pattern.search(scripts[key]):
                    return TestRunner(kind, f'"{key}" script in {manifest}', folder)
    return None


def _scripts(data: bytes) -> dict[str, str]:
    """package.json's `scripts` (name -> command line); {} when it is no JSON object with one."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return {}
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    return {k: v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {}


def _python_runner(files: Mapping[str, bytes], tests: Sequence[str]) -> TestRunner | None:
    if "pytest.ini" in files:
        return TestRunner(RunnerKind.PYTEST, "pytest.ini")
    for name, section in _PYTEST_SECTIONS.items():
        match = section.search(files.get(name, b""))
        if match:
            return TestRunner(RunnerKind.PYTEST, f"{match.group().decode('ascii', 'replace').strip()} in {name}")
    conftests = sorted({c for t in tests for f in _folders(t) if (c := posixpath.join(f, "conftest.py")) in files})
    if conftests:
        return TestRunner(RunnerKind.PYTEST, conftests[0])
    read = [files[t] for t in tests if t in files]
    if any(_IMPORTS_PYTEST.search(text) for text in read):
        return TestRunner(RunnerKind.PYTEST, "tests that import pytest")
    for t in tests:  # the nearest manage.py above a test
        for folder in _folders(t):
            manage = posixpath.join(folder, "manage.py")
            if manage in files and _DJANGO.search(files[manage]):
                return TestRunner(RunnerKind.DJANGO, manage, folder)
    if read and len(read) == len(tests) and all(_IMPORTS_UNITTEST.search(text) for text in read):
        return TestRunner(RunnerKind.UNITTEST, "tests that import unittest")
    return None


def test_paths(result: CheckResult) -> list[str]:
    """Every test file the result names, sorted."""
    return sorted({t.path for ch in result.changes for t in ch.tests})


def find(root: str, result: CheckResult) -> TestRunner | None:
    """The runner shown by the compared commit (HEAD for staged or working-tree checks); None without tests.

    Two git processes (ls-tree of the candidate paths, cat-file of the few whose text counts).
    """
    tests = test_paths(result)
    if not tests:
        return None
    from graphguard import git

    rev = result.head if result.compared is Compared.COMMITS and result.head else "HEAD"
    wanted = candidates(tests) + tests[:MAX_READ]
    names = set(wanted)
    entries = [e for e in git.blobs_at(root, rev, wanted).values() if e.path in names]  # git takes paths as patterns
    files = {e.path: b"" for e in entries}
    # Presence is enough for pytest.ini and conftest.py; the others are read (a few KiB each).
    read: dict[str, list[str]] = {}
    for e in entries:
        if posixpath.basename(e.path) not in ("pytest.ini", "conftest.py"):
            read.setdefault(e.sha, []).append(e.path)
    for sha, data in git.read_blobs(root, read):
        files.update(dict.fromkeys(read[sha], data))
    return named(detect(files, tests), result, files)


def named(runner: TestRunner | None, result: CheckResult, files: Mapping[str, bytes]) -> TestRunner | None:
    """The runner (and its `other`) with the names of the tests to run, for those that take names."""
    if runner is None:
        return None
    other = named(runner.other, result, files)
    names = _test_names(result, files, runner.own(test_paths(result))) if runner.kind in _BY_NAME else ()
    return dataclasses.replace(runner, names=names, other=other)


def _test_names(result: CheckResult, files: Mapping[str, bytes], tests: Sequence[str]) -> tuple[str, ...]:
    """The tests around every caller in these test files; () when one test file has a caller in no named test,
    or none at all (it is reached through others): then the files are run whole."""
    from graphguard.languages import for_path

    lines: dict[str, set[int]] = {t: set() for t in tests}
    for ch in result.changes:
        for c in ch.callers:
            if c.path in lines and c.kind is not UseKind.IMPORT:  # an import runs with the file, in no test
                lines[c.path].add(c.line)
    out: set[str] = set()
    for path, wanted in lines.items():
        lang = for_path(path)
        if not wanted or path not in files or lang is None:
            return ()
        names = lang.test_names(files[path], sorted(wanted), kind=lang.facts_kind(path))
        if None in names:
            return ()
        out.update(n for n in names if n is not None)
    return tuple(sorted(out))
