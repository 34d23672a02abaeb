"""What the test runners collect and how they name it: pytest's and unittest's test files and test functions,
vitest's, jest's and mocha's test files, pytest's node ids, and the parameter names a fixture is requested by. Pure.
"""

from __future__ import annotations

import ast
import posixpath


def is_test_module(path: str) -> bool:
    """A file a test runner collects by default: pytest's `test_*.py` and `*_test.py`, and
    unittest's (and Django's) `test*.py`, which takes an app's `tests.py` too; vitest's, jest's and
    mocha's `*.test.*`, `*.spec.*` and the scripts under `__tests__/` (TypeScript/JavaScript)."""
    name = posixpath.basename(path)
    if name.endswith(".py"):
        return name.startswith("test") or name.endswith("_test.py")
    return is_script_test(path)


#: The suffixes of the TypeScript/JavaScript files a test runner collects (a `.d.ts` declares, it runs nothing).
_SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def is_script_test(path: str) -> bool:
    """A TypeScript/JavaScript test file: `*.test.*`, `*.spec.*`, or under a `__tests__/` folder."""
    name = posixpath.basename(path)
    if not name.endswith(_SCRIPT_SUFFIXES) or name.endswith(".d.ts"):
        return False
    stem = name.rpartition(".")[0]
    return stem.endswith((".test", ".spec")) or "__tests__" in path.split("/")[:-1]


def enclosing_test(local: str) -> str | None:
    """The collected test a local qualname is, or lies in (`f.<locals>.g` lies in `f`); None when none."""
    outer = local.split(".<locals>.", 1)[0]
    parts = outer.split(".")
    if len(parts) == 1 and parts[0].startswith("test"):
        return outer
    # pytest collects `Test*` classes, unittest any TestCase subclass whatever its name (`class T(TestCase)`):
    # a test method of a top-level class of a test module is taken for a test either way.
    if len(parts) == 2 and parts[1].startswith("test"):
        return outer
    return None


def node_id(path: str, local: str | None) -> str:
    """pytest's node id: `tests/test_x.py::TestClass::test_y`, or the file for the whole of it."""
    return path if local is None else path + "::" + local.replace(".", "::")


def parameter_names(signature: str) -> tuple[str, ...]:
    """The parameter names of a stored signature text (`def f(a, b=1, *c, d, **e) -> X`); () when it does not parse."""
    text = signature.strip()
    text = text.removeprefix("async ")
    try:
        tree = ast.parse(text + ": pass")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, ast.FunctionDef):
        return ()
    a = fn.args
    return tuple(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
