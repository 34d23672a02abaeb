""""No callers" is never silent (issue 22 §2): `callers` and `impact`, on the CLI and in the MCP server, say when no
use resolved to a symbol and count what still might reach it, for Python and TypeScript."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from graphguard.answers.reach import could_reach
from graphguard.server import tools
from graphguard.server.session import Session
from tests.helpers import GitRepo, Result, source

Run = Callable[..., Result]

PY = {
    "pkg/__init__.py": "",
    "pkg/cart.py": source('''
        class Cart:
            def total(self):
                return 1


        class Basket:
            def total(self):
                return 2


        def unused():
            return 0


        def used():
            return 1
        '''),
    # c's type is unknown: `c.total()` is a by-name candidate of both classes' method.
    "pkg/shop.py": "def pay(c):\n    return c.total()\n",
    # pkg.legacy does not exist: an import that led nowhere, naming the function.
    "pkg/old.py": "from pkg.legacy.cart import unused\n\nunused()\n",
    "pkg/new.py": "from pkg.cart import used\n\nused()\n",
}

TS = {
    "src/cart.ts": "export function total(a: number): number {\n  return a\n}\n\nexport function lonely(): number {\n  return 0\n}\n",
    # a misspelt specifier: unresolved, its last segment is not the file's but the imported name is the function's
    "src/use.ts": 'import { total } from "./carts"\n\ntotal(1)\n',
    "src/other.ts": 'import * as cart from "./missing/cart"\nimport { x } from "./gone/cart"\n\ncart.x()\n',  # the first could
}


def test_python_by_name_candidates_are_counted(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PY)
    doc = graphguard(repo, "callers", "pkg.cart.Cart.total", "--format", "json").json
    maybe = doc["no_resolved_callers"]
    assert maybe["by_name"] == 1
    assert maybe["unresolved_imports"] == 0  # pkg.legacy.cart is imported for another name
    assert maybe["note"].startswith("no resolved callers, but 1 call of the same name on receivers of unknown type")
    text = graphguard(repo, "callers", "pkg.cart.Cart.total").out
    assert "# no resolved callers, but 1 call of the same name" in text


def test_python_unresolved_imports_that_name_the_symbol_are_counted(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PY)
    for command in ("callers", "impact"):
        doc = graphguard(repo, command, "pkg.cart.unused", "--format", "json").json
        maybe = doc["no_resolved_callers"]
        assert maybe["unresolved_imports"] == 1, command
        assert maybe["imports"] == [{"path": "pkg/old.py", "line": 1, "module": "pkg.legacy.cart", "name": "unused"}]
    assert any("1 unresolved import that could reach it (pkg/old.py:1 pkg.legacy.cart)" in n for n in doc["notes"])
    assert "unresolved import that could reach it" in graphguard(repo, "impact", "pkg.cart.unused").out


def test_resolved_callers_leave_it_out(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(PY)
    doc = graphguard(repo, "callers", "pkg.cart.used", "--format", "json").json
    assert doc["no_resolved_callers"] is None and doc["callers"]


def test_typescript_both_kinds_are_counted(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo(TS)
    doc = graphguard(repo, "callers", "src/cart.ts#total", "--format", "json").json
    maybe = doc["no_resolved_callers"]
    assert maybe["by_name"] == 1  # `total(1)`, its import unresolved
    assert [(i["path"], i["module"]) for i in maybe["imports"]] == [("src/other.ts", "./missing/cart"), ("src/use.ts", "./carts")]
    lonely = graphguard(repo, "callers", "src/cart.ts#lonely", "--format", "json").json["no_resolved_callers"]
    assert lonely["by_name"] == 0 and lonely["unresolved_imports"] == 1  # ./missing/cart names the file
    assert graphguard(repo, "callers", "src/cart.ts#lonely", "--compact").json["nrc"]["ui"] == 1


def test_the_server_says_so_too(make_repo: Callable[..., GitRepo]) -> None:
    py, ts = Session(str(make_repo(PY).root)), Session(str(make_repo(TS).root))
    try:
        callers = tools.call(py, "callers", {"symbol": "pkg.cart.unused"})
        impact = tools.call(ts, "impact", {"symbol": "src/cart.ts#total"})
        nothing = tools.call(ts, "callers", {"symbol": "src/cart.ts#lonely", "compact": True})
    finally:
        py.close()
        ts.close()
    assert callers["no_resolved_callers"]["unresolved_imports"] == 1
    assert impact["no_resolved_callers"]["by_name"] == 1
    assert nothing["nrc"]["nt"].startswith("no resolved callers, but 1 unresolved import")


@pytest.mark.parametrize(("row", "qualname", "path", "module", "reaches"), [
    (("a.py", 1, "other.root.cart", None, None), "pkg.cart.f", "pkg/cart.py", "pkg.cart", True),  # a module of that name
    (("a.py", 1, "other.root.cart", "g", None), "pkg.cart.f", "pkg/cart.py", "pkg.cart", False),  # imported for another name
    (("a.py", 1, "pkg", "cart", None), "pkg.cart.f", "pkg/cart.py", "pkg.cart", True),  # from pkg import cart
    (("a.py", 1, "pkg.gone", "Cart", None), "pkg.cart.Cart.total", "pkg/cart.py", "pkg.cart", True),  # the class
    (("a.py", 1, "pkg.gone", "g", None), "pkg.cart.f", "pkg/cart.py", "pkg.cart", False),
    (("a.ts", 1, "../lib/cart.js", "*", None), "src/lib/cart.ts#f", "src/lib/cart.ts", "src/lib/cart.ts", True),
    (("a.ts", 1, "../lib/cart.js", "y", None), "src/lib/cart.ts#f", "src/lib/cart.ts", "src/lib/cart.ts", False),
    (("a.ts", 1, "@/lib/cart", None, None), "src/lib/cart/index.ts#f", "src/lib/cart/index.ts", "", True),
    (("a.ts", 1, "./cart", "default", None), "src/cart.ts#default", "src/cart.ts", "", True),
    (("a.ts", 1, "./other", "default", None), "src/cart.ts#default", "src/cart.ts", "", False),
    (("a.ts", 1, "./carts", "g", None), "src/cart.ts#f", "src/cart.ts", "", False),
])
def test_could_reach(row: tuple[str, int, str, str | None, str | None], qualname: str, path: str, module: str,
                     reaches: bool) -> None:
    assert could_reach(row, qualname, path, module) is reaches
