"""Bugs that `mypy --strict` found, each as the user meets it."""

from __future__ import annotations

from collections.abc import Callable

from tests.helpers import GitRepo, Result

DATACLASS = "from dataclasses import dataclass\n\n\n@dataclass\nclass C:\n    a: int\n"
USE = "from pkg.m import C\n\n\ndef g():\n    return C(1)\n"


# Found by mypy in signature.py `_annotation_name`: "bytes" has no "partition" with a str argument. A dataclass field
# annotated with a bytes literal made `check` crash with TypeError (exit 2, "internal error").
def test_check_survives_a_bytes_literal_annotation_on_a_dataclass_field(
    make_repo: Callable[..., GitRepo], graphguard: Callable[..., Result]
) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/m.py": DATACLASS, "pkg/u.py": USE})
    repo.write({"pkg/m.py": DATACLASS + '    b: b"int"\n'})
    repo.git("add", "-A")
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert "internal error" not in r.err
    assert r.code in (0, 1), r.err
