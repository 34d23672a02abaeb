"""The ast reader and the LibCST reader give the same signature model; spans give what whole modules give.

Over real code (modules of the running interpreter's standard library, read as text, never
imported) and generated programs (hypothesmith). bench/signature_readers.py runs the same
comparison over a whole repository (Django: 2,818 files).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from collections.abc import Callable

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

from graphguard.languages.python import signature, spans
from tests.helpers import GitRepo
from tests.signature_readers import readers_differ, rows, spans_differ

STDLIB = sysconfig.get_paths()["stdlib"]
#: LibCST reads about 2,000 lines a second: these (about 11,000 lines) keep the test under ten seconds.
_PARTS = ("email", "json", "argparse.py", "dataclasses.py", "enum.py")
EXAMPLES = int(os.environ.get("GRAPHGUARD_PROPERTY_EXAMPLES", "40"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])


def _stdlib_files() -> list[str]:
    out = []
    for part in _PARTS:
        path = os.path.join(STDLIB, part)
        if os.path.isdir(path):
            out += sorted(os.path.join(d, f) for d, _, names in os.walk(path) for f in names if f.endswith(".py"))
        elif os.path.isfile(path):
            out.append(path)
    return out


FILES = _stdlib_files()


def _source(path: str) -> str:
    with open(path, encoding="utf-8") as f:  # data: read, never imported
        return f.read()


def test_the_stdlib_sample_is_there() -> None:
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, STDLIB))
def test_both_readers_agree_on_real_modules(path: str) -> None:
    assert readers_differ(_source(path)) is None


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, STDLIB))
def test_spans_give_what_the_whole_module_gives(path: str) -> None:
    difference, fallbacks = spans_differ(_source(path))
    assert difference is None
    assert fallbacks == 0  # every definition of ordinary code is read from its span alone


@pytest.mark.slow
@FAST
@given(hypothesmith.from_node())
def test_both_readers_agree_on_generated_modules(source: str) -> None:
    assert readers_differ(source) is None


@pytest.mark.slow
@FAST
@given(hypothesmith.from_node())
def test_spans_agree_on_generated_modules(source: str) -> None:
    assert spans_differ(source, one_by_one=False)[0] is None


@pytest.mark.parametrize(
    ("source", "wanted", "text"),
    [
        # A method: its span is indented inside its class, decorators included.
        ("class C:\n    x = 1\n\n    @staticmethod\n    @other(\n  'odd indent')\n    def m(a, b=2): ...\n", "C.m", "def m(a, b=2)"),
        # A class's constructor from a same-file base read with it, through a nested class's namespace too.
        ("class A:\n    def __init__(self, a): ...\nclass B(A): ...\nclass C(B):\n    def m(self): ...\n", "C", "class C(a)"),
        ("class O:\n    class I:\n        def __init__(self, i): ...\n    class J(I): ...\n", "O.J", "class J(i)"),
        # A docstring whose lines are less indented than the method.
        ('class C:\n    def m(self, a):\n        """Doc\nat column 0\n"""\n', "C.m", "def m(self, a)"),
        # A method of a class defined twice: the second definition holds none (the whole module decides).
        ("class C:\n    def m(self): ...\nclass C:\n    pass\n", "C.m", None),
        ("def f(a): ...\ndef f(a, b): ...\n", "f", "def f(a, b)"),
        ("import typing\nclass C:\n    @typing.overload\n    def m(self, a: int): ...\n    def m(self, a, b=0): ...\n", "C.m", "def m(self, a, b=0)"),
    ],
)
def test_spans(source: str, wanted: str, text: str | None) -> None:
    from graphguard.languages.python import parse as python

    data = textwrap.dedent(source).encode()
    sigs = spans.extract_spans(data, python.parse(data), {wanted})
    assert (sigs.defs[wanted].text if wanted in sigs.defs else None) == text
    assert rows(sigs) == rows(signature.ModuleSignatures({q: s for q, s in signature.extract(data).defs.items() if q == wanted},
                                                         sigs.all_names))


def test_syntax_newer_than_this_python_is_read_by_libcst() -> None:
    # PEP 695 (Python 3.12): on an older interpreter ast cannot read it; LibCST can.
    data = b"x = 1\n\nclass C:\n    def m[T](self, x: T) -> T: ...\n"
    from graphguard.languages.python import parse as python

    assert spans.extract_spans(data, python.parse(data), {"C.m"}).defs["C.m"].text == "def m(self, x: T) -> T"


def test_a_signature_change_of_ordinary_code_imports_no_libcst(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/mod.py": "def f(a, b):\n    return a\n",
                      "app/use.py": "from pkg.mod import f\n\n\ndef g():\n    return f(1, 2)\n"})
    repo.write({"pkg/mod.py": "def f(a, b, c):\n    return a\n"})
    repo.git("add", "-A")
    # In a process of its own: this one has imported libcst already.
    probe = ("import sys; from graphguard.main import main; code = main(['check', '--format', 'json']);"
             " sys.stderr.write(f'exit {code}: ' + ('libcst loaded' if 'libcst' in sys.modules else 'no libcst'))")
    r = subprocess.run([sys.executable, "-c", probe], check=False, cwd=repo.root, capture_output=True, text=True, timeout=120)
    assert r.stderr.endswith("exit 1: no libcst"), r.stderr


def _table_sources() -> list[str]:
    """Every source of tests/test_signature.py's tables (the model's rules, case by case)."""
    from tests import test_signature

    out = []
    for value in vars(test_signature).values():
        for mark in getattr(value, "pytestmark", ()):
            names = mark.args[0] if mark.name == "parametrize" else ()
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            if "source" in names:
                index = names.index("source")
                out += [row[index] if len(names) > 1 else row for row in mark.args[1]]
    return [textwrap.dedent(s) if isinstance(s, str) else s.decode("utf-8", "replace") for s in out]


@pytest.mark.parametrize("source", [s for s in _table_sources() if len(s) < 20_000], ids=lambda s: s[:40])
def test_both_readers_agree_on_the_rule_tables(source: str) -> None:
    # Each rule of the model is shared by the readers; this shows each reader feeds it the same records.
    assert readers_differ(source) is None


@pytest.mark.parametrize(
    "source",
    [
        "class Aj\u00b7B\u0135\u0144:\n    def m(self, a, b=1): ...\n",  # `·` continues an identifier, `\w` does not match it
        "def cafe\u0301(a, b=1): ...\n",  # a combining accent (decomposed `é`)
        "import x\nclass C(x.a\u00b7b):\n    def __init__(self, a): ...\n",  # an attribute's last name
        "class A\u0132:\n    def m(self): ...\n",  # `Ĳ`, which Python folds to `IJ`: kept as written
    ],
)
def test_identifiers_are_read_as_written_whatever_their_characters(source: str) -> None:
    assert readers_differ(source) is None
