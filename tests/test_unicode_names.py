"""File names that differ only by Unicode normalisation: `café.py` composed (NFC) and decomposed (NFD).

What CPython does (checked on Linux with a real interpreter): the parser NFKC-normalises the
names in the source, so `import café` names the module `café` however the accent was typed; the
file system compares bytes, so the module is the file whose name is that NFKC spelling. A file
whose name is not in NFKC form is found by no import statement (only importlib, given its bytes).
"""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

from graphguard.languages.python.parse import parse
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")
NOT_NFKC = f"file name not in NFKC form ({NFD + '.py'!a}): Python NFKC-normalises the names of an import, so no import statement finds this file"

#: Both spellings of a module and of a package; a caller of each, each spelling the import both ways.
BOTH = {
    f"{NFC}.py": "def f(a):\n    return a\n",
    f"{NFD}.py": "def f(a, b):\n    return a\n",
    f"{NFC}pkg/__init__.py": "def p(a):\n    return a\n",
    f"{NFD}pkg/__init__.py": "def p(a, b):\n    return a\n",
    "composed.py": f"import {NFC}\nimport {NFC}pkg\n\n\ndef g():\n    return {NFC}.f(1) + {NFC}pkg.p(1)\n",
    "decomposed.py": f"from {NFD} import f\nfrom {NFD}pkg import p\n\n\ndef h():\n    return f(1) + p(1)\n",
}


def _callers(graphguard: Run, repo: GitRepo, symbol: str) -> list[tuple[str, int]]:
    r = graphguard(repo, "callers", symbol, "--format", "json")
    assert r.code == 0, r.err
    return sorted((c["path"], c["line"]) for c in r.json["callers"])


def test_cpython_imports_the_nfkc_spelling_whatever_the_source_spells(tmp_path: Path) -> None:
    # The model below is CPython's: checked here on this machine's interpreter, not assumed.
    (tmp_path / f"{NFC}.py").write_text("WHO = 'composed'\n")
    (tmp_path / f"{NFD}.py").write_text("WHO = 'decomposed'\n")
    for spelt in (NFC, NFD):
        out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, '.'); import {spelt}; print({spelt}.WHO)"],
                             cwd=tmp_path, capture_output=True, text=True, check=True).stdout
        assert out.strip() == "composed"
    (tmp_path / f"{NFC}.py").unlink()
    r = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, '.'); import {NFD}"], cwd=tmp_path, capture_output=True, text=True,
                       check=False)
    assert "ModuleNotFoundError" in r.stderr


def test_the_parser_reads_names_as_python_does() -> None:
    facts = parse(f"import {NFD}\nfrom {NFD}pkg import {NFD}_x as {NFD}_y\nimport \ufb01x\n__all__ = ['{NFD}']\n\n\ndef {NFD}_g({NFD}_a):\n"
                  f"    return {NFD}.f({NFD}_a, k{NFD}=1)\n".encode())
    assert [(i.module, i.name, i.alias) for i in facts.imports] == [(NFC, None, None), (f"{NFC}pkg", f"{NFC}_x", f"{NFC}_y"), ("fix", None, None)]
    assert [d.qualname for d in facts.definitions] == [f"{NFC}_g"]
    (call,) = facts.calls
    assert call.callee == f"{NFC}.f" and call.shape.keywords == (f"k{NFC}",)
    assert facts.all_names == (NFD,)  # a string is not normalised: `from m import *` looks up exactly this


def test_both_spellings_are_two_modules_and_every_import_finds_the_composed_one(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BOTH)
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["files"] == 6  # none merged, none lost
    assert r.json["imports"]["internal"] == 4 and r.json["imports"]["unresolved"] == 0
    composed_and_decomposed_callers = [("composed.py", 6), ("decomposed.py", 1), ("decomposed.py", 6)]
    assert _callers(graphguard, repo, f"{NFC}.f") == composed_and_decomposed_callers
    assert _callers(graphguard, repo, f"{NFC}pkg.p") == [("composed.py", 6), ("decomposed.py", 2), ("decomposed.py", 6)]
    assert _callers(graphguard, repo, f"{NFD}.f") == []
    assert _callers(graphguard, repo, f"{NFD}pkg.p") == []
    text = graphguard(repo, "stats").out
    assert f"  warning {NFD}.py: {NOT_NFKC}" in text.splitlines()
    assert ascii(NFD + 'pkg/__init__.py') in text


def test_a_signature_change_in_the_composed_file_blocks_a_caller_that_spells_it_decomposed(make_repo: Callable[..., GitRepo],
                                                                                            graphguard: Run) -> None:
    repo = make_repo(BOTH)
    repo.write({f"{NFC}.py": "def f(a, c):\n    return a\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err
    (change,) = r.json["changes"]
    assert change["symbol"] == f"{NFC}.f"
    assert sorted((c["path"], c["line"]) for c in change["callers"] if c["status"] == "broken") == [("composed.py", 6), ("decomposed.py", 6)]


def test_a_signature_change_in_the_decomposed_file_breaks_no_caller(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(BOTH)
    repo.write({f"{NFD}.py": "def f(a, b, c):\n    return a\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 0, r.err
    (change,) = r.json["changes"]
    assert change["symbol"] == f"{NFD}.f" and change["callers"] == []


def test_with_only_the_decomposed_file_no_import_finds_it(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({f"{NFD}.py": "def f(a):\n    return a\n",
                      "composed.py": f"import {NFC}\n\n\ndef g():\n    return {NFC}.f(1)\n",
                      "decomposed.py": f"from {NFD} import f\n\n\ndef h():\n    return f(1)\n"})
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["files"] == 3
    # No file has the name the imports name: as for any module not in the repository (CPython: ModuleNotFoundError
    # unless one is installed), both are external, whichever way they spell it.
    assert (r.json["imports"]["internal"], r.json["imports"]["external"], r.json["imports"]["unresolved"]) == (0, 2, 0)
    assert f"  warning {NFD}.py: {NOT_NFKC}" in graphguard(repo, "stats").out.splitlines()
    assert _callers(graphguard, repo, f"{NFD}.f") == []
    repo.write({f"{NFD}.py": "def f(a, b):\n    return a\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 0, r.err
    assert [(c["symbol"], c["callers"]) for c in r.json["changes"]] == [(f"{NFD}.f", [])]
