"""Parser fidelity: what graphguard reads of a file is what Python reads of it.

A small sample of the corpus benchmark (bench/parse_fidelity.py runs Django, sqlalchemy and the
standard library): tricky files written inline, each compared with `ast.parse`. And the other
places where a file's meaning was lost: a blob git cannot give, an import of a stdlib or installed
module beside a repository folder of its name, a symbol asked for by its re-exported name.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable

import pytest

from graphguard.languages.python import parse as python
from graphguard.model import FileFacts
from tests.helpers import GitRepo, Result

LONG_RUN = b"    # a comment line in a long run\n" * 1100

SAMPLES: dict[str, bytes] = {
    # The sqlalchemy case: a docstring line that starts with `#` and ends the string.
    "docstring-hash-line": b'def f():\n    """Doc.\n\n    #12207"""\n    return g(1)\n\n# a comment\ndef h():\n    # a comment\n    return f()\n',
    # ... after a run of comment lines long enough for the slow-text path.
    "docstring-hash-line-long-run": b'def f():\n    x = 1\n' + LONG_RUN + b'    """Doc.\n    #12207"""\n    return g(x)\n',
    "f-strings": b"x = f\"{a['#']}\"\ny = f'{b!r:#>10}'\nz = f\"\"\"\n# not a comment {c}\n\"\"\"\nw = g(z)\n",
    "nested-quotes": b"s = \"it's # not\"\nt = 'say \"#\"'\nu = '''a\n# b\n'''\nv = f(s, t, u)\n",
    "bytes": b"b = b\"#\"\nc = rb'\\#'\nd = b\"\"\"\n#x\n\"\"\"\ne = f(b, c, d)\n",
    "escaped-quotes": b"s = 'a\\'#'\nt = \"\"\"x\\\"\"\"\n# y\"\"\"\nu = f(s, t)\n",
    "single-quoted-continued": b"s = 'a\\\n# b'\nt = f(s)\n",
    "line-continuation": b"x = 1 + \\\n    2\n# c\ny = (1,\n# c\n2)\nz = f(x, y)\n",
    "continuation-into-comment": b"x = 1 + \\\n# c\n2\n",
    "form-feed": b"\x0c# comment\ndef f():\n\x0c    # c\n    return g(1)\n",
    "crlf": b'def f():\r\n    # c\r\n    s = """\r\n# in string\r\n"""\r\n    return g(s)\r\n',
    "tabs": b"def f():\n\t# c\n\tif x:\n\t\t# c\n\t\treturn g(1)\n",
    "match": b'match x:\n    case {"#": 1}:\n        # c\n        f()\n',
    "python2-print": b'print "hello"\n',
    "python2-exec": b'exec "x = 1" in ns\n',
    # Valid Python that tree-sitter's grammar fails on (CPython's test_compile.py): not a syntax error.
    "dedent-in-brackets": b"def f():\n    def g():\n        (bar.\n    baz)\n    return g\n",
    # ast.parse accepts it (only compiling refuses it).
    "future-star": b"from __future__ import *\n",
    "unknown-coding": b"# coding: uft-8\nx = 1\n",
    "bom-and-utf8-declaration": b"\xef\xbb\xbf# coding: utf8\nx = 1\n",
    "undecodable": "def f():\n    return 'déjà'\n".encode("latin-1"),
    "unclosed": b"def f(:\n    pass\n",
}


def ast_fails(source: bytes) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(source)
        except (SyntaxError, ValueError):
            return True
    return False


def syntax_warned(facts: FileFacts) -> bool:
    return any(w.startswith("syntax error") for w in facts.warnings)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_syntax_error_is_reported_exactly_when_python_finds_one(name: str) -> None:
    source = SAMPLES[name]
    assert syntax_warned(python.parse(source)) == ast_fails(source)


@pytest.mark.parametrize("name", sorted(n for n, s in SAMPLES.items() if not ast_fails(s)))
def test_blanking_comment_lines_changes_no_fact(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = SAMPLES[name]
    blanked = python.parse(source)
    monkeypatch.setattr(python, "_comment_lines", lambda _source: [])
    as_written = python.parse(source)
    assert blanked == as_written


def test_the_docstring_line_that_closes_the_string_keeps_the_facts() -> None:
    f = python.parse(SAMPLES["docstring-hash-line-long-run"])
    assert f.warnings == ()
    assert [c.callee for c in f.calls] == ["g"]


def test_valid_python_that_tree_sitter_cannot_read_says_so_without_calling_it_a_syntax_error() -> None:
    (warning,) = python.parse(SAMPLES["dedent-in-brackets"]).warnings
    assert warning == "tree-sitter could not read line 3, which Python parses; facts are partial"


# --- files that are not parsed are warnings ------------------------------------------------------------


def test_a_blob_git_cannot_read_is_a_warning_that_stats_counts(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"a.py": "def f():\n    pass\n", "b.py": "import a\na.f()\n"})
    sha = repo.git("rev-parse", "HEAD:a.py")
    (repo.root / ".git" / "objects" / sha[:2] / sha[2:]).unlink()  # as in a damaged clone, or a mirror without its large files
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["warnings"] == 1
    text = graphguard(repo, "stats").out
    assert "warnings  1" in text
    assert "warning a.py: git could not read the file's contents; not parsed" in text


# --- imports beside a repository folder of the same name --------------------------------------------------


def test_a_folder_without_init_does_not_hide_a_stdlib_or_installed_module(
    make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]
) -> None:
    repo = make_repo({
        # netbox: scripts/packaging/ holds a script; sqlalchemy: test/ext/asyncio/ holds tests.
        "scripts/packaging/hatch_metadata.py": "from packaging.version import Version\n",
        "scripts/verify.py": "import packaging.version\nfrom pytest import approx\n",
        "test/ext/asyncio/test_session.py": "from asyncio import current_task\nimport asyncio.queues\n",
        # Control: a folder of the repository that nothing outside has a module for.
        "tools/mylocalpkg/a.py": "x = 1\n",
        "tools/use.py": "from mylocalpkg import gone\nimport mylocalpkg.missing\n",
    })
    r = graphguard(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    unresolved = sorted(u["module"] for u in r.json["imports"]["unresolved_list"])
    assert unresolved == ["mylocalpkg.gone", "mylocalpkg.missing"]


# --- a symbol asked for by the name it is imported under ------------------------------------------------------


def test_callers_finds_a_symbol_by_its_re_exported_name(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({
        "pkg/__init__.py": "from .util import warn as warn\nfrom pkg.util import Helper as PublicHelper\n",
        "pkg/util/__init__.py": "from .deprecations import warn_deprecated as warn, Helper\n",
        "pkg/util/deprecations.py": "def warn_deprecated(msg):\n    pass\n\n\nclass Helper:\n    def run(self):\n        pass\n",
        "app.py": "import pkg\nfrom pkg import util\n\npkg.warn('x')\nutil.warn('y')\npkg.PublicHelper().run()\n",
    })
    r = graphguard(repo, "callers", "pkg.warn", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["symbol"] == "pkg.util.deprecations.warn_deprecated"
    assert sorted(c["line"] for c in r.json["callers"] if c["path"] == "app.py" and c["kind"] == "call") == [4, 5]
    r = graphguard(repo, "callers", "pkg.PublicHelper.run", "--format", "json")
    assert r.code == 0, r.err
    assert r.json["symbol"] == "pkg.util.deprecations.Helper.run"
    r = graphguard(repo, "callers", "pkg.nothing")
    assert r.code == 2 and "no symbol 'pkg.nothing'" in r.err


# --- odd annotations ---------------------------------------------------------------------------------------


def test_check_of_a_dataclass_with_bytes_annotations_on_both_sides(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    dataclass = "from dataclasses import dataclass\n\n\n@dataclass\nclass C:\n    x: b'int'\n"
    repo = make_repo({"pkg/__init__.py": "", "pkg/m.py": dataclass, "pkg/u.py": "from pkg.m import C\n\n\ndef g():\n    return C(1)\n"})
    repo.write({"pkg/m.py": dataclass + "    y: rb'str'\n"})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert "internal error" not in r.err
    assert r.code == 1, r.out  # a required field added: C(1) no longer binds


def test_related_takes_a_re_exported_name(make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]) -> None:
    repo = make_repo({
        "pkg/__init__.py": "from .impl import helper as helper\n",
        "pkg/impl.py": "def helper():\n    pass\n",
        "app.py": "import pkg\n\npkg.helper()\n",
    })
    r = graphguard(repo, "related", "pkg.helper", "--format", "json")
    assert r.code == 0, r.err
    assert "pkg/impl.py" in r.out
