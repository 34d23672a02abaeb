"""The Language interface: which language a path is in, and Python's adapter giving today's answers."""

from __future__ import annotations

import subprocess
import sys

from graphguard.languages import LANGUAGES, MAX_BYTES, for_path
from graphguard.languages.python import encoding, signature
from graphguard.languages.python.language import PYTHON
from graphguard.languages.python.modules import ModuleMap
from graphguard.languages.typescript.language import TYPESCRIPT


def test_for_path_picks_the_language_by_suffix_and_nothing_else():
    assert for_path("pkg/mod.py") is PYTHON
    assert for_path("pkg/mod.pyi") is PYTHON
    assert for_path("pkg/mod.pyc") is None
    for path in ("web/app.ts", "web/app.tsx", "web/types.d.ts", "a.mts", "a.cts", "a.js", "a.jsx", "a.mjs", "a.cjs"):
        assert for_path(path) is TYPESCRIPT, path
    assert for_path("web/app.tsz") is None
    assert for_path("README") is None
    assert LANGUAGES == {"python": PYTHON, "typescript": TYPESCRIPT}


def test_python_answers_as_its_modules_do():
    source = b"def f(a, b=1):\n    return g(a)\n\ndef g(x):\n    return x\n"
    facts = PYTHON.parse(source)
    assert [d.qualname for d in facts.definitions] == ["f", "g"]
    assert PYTHON.signatures(source) == signature.extract(source)
    assert set(PYTHON.signatures(source, facts, ["g"]).defs) == {"g"}
    modmap = PYTHON.module_map(["pkg/__init__.py", "pkg/mod.py", "README.md", "web/app.ts"])
    assert modmap == ModuleMap.build(["pkg/__init__.py", "pkg/mod.py"])
    assert PYTHON.module_names("src/pkg/mod.py", {"src"}) == ["pkg.mod", "src.pkg.mod"]
    assert PYTHON.text(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n") == encoding.to_text(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    assert PYTHON.comment_edit(b"x = 1\n# a\n", b"x = 1\n# b\n") is not None
    assert PYTHON.comment_edit(b"x = 1\n", b"x = 2\n") is None


def test_parse_never_raises_on_a_nesting_too_deep():
    facts = PYTHON.parse(b"x = " + b"(" * 100_000 + b")" * 100_000 + b"\n")
    assert not facts.parsed or facts.warnings


def test_parse_skips_a_file_over_the_limit():
    facts = PYTHON.parse(b"x = 1\n" * (MAX_BYTES // 6 + 1))
    assert not facts.parsed


def test_importing_the_languages_loads_no_parser():
    code = "import sys, graphguard.languages; print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'libcst'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_for_path_agrees_with_claims():
    for path in ["a.py", "a.pyi", ".py", "a.b/c", "a", "a.PY", "x.py/y", "a.tar.py", "py", "a.pyc", "dir.py/", "a/b.c.pyi"]:
        assert (for_path(path) is not None) == PYTHON.claims(path), path
    for path in ["a.ts", "a.d.ts", "a.tsx", "a.js", "a.TS", "a.ts/b", "ts", "a.tsx.bak", "a.json"]:
        assert (for_path(path) is not None) == TYPESCRIPT.claims(path), path
