"""The module map of an update that adds and removes no file, asked of the stored graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from graphguard.languages.python.modules import ModuleMap, is_python
from graphguard.store import Store
from graphguard.store.rows import every_path, module_at


class _HasStore(Protocol):
    store: Store


class _StoredMap(ModuleMap):
    """The module map of the files in the graph, asked of the graph instead of built from every path: an update
    that adds and removes no file keeps the roots (in meta) and therefore every name. A file's module is one
    indexed query, memoised; what a name's files are, and which names are top-level or packages, is answered
    from the stored paths, read once (one query of `files`) on the first such question: with hundreds of import
    roots (ansible has 660), a query per root and question cost minutes. Answers as ModuleMap.build over the
    same paths would. Queries go through the indexer's store at the time of asking: a forked worker has a
    store of its own (the paths, read before the fork, are shared)."""

    def __init__(self, indexer: _HasStore, roots: tuple[str, ...]):
        self._ix = indexer
        self._named_memo: dict[str, list[str]] = {}
        self._module_memo: dict[str, str | None] = {}
        self._top_memo: dict[str, bool] = {}
        self._prefix_memo: dict[str, bool] = {}
        self._roots_memo: dict[str, list[str]] = {}
        self._paths: frozenset[str] | None = None
        self._below: dict[str, int] = {}  # folder -> how many files are below it, at any depth
        super().__init__(paths=frozenset(), roots=roots, by_name=_Lazy(self._named), primary=_Lazy(self._module),
                         top_names=_Test(self._is_top), prefixes=_Test(self._is_prefix))

    def load(self) -> frozenset[str]:
        """Every stored path (and the folders' counts), read once."""
        if self._paths is None:
            # Python's map: the files of other languages are no modules of it (ModuleMap.build leaves them out too).
            paths = frozenset(p for p in every_path(self._ix.store.graph) if is_python(p))
            below: dict[str, int] = {}
            for path in paths:
                folder = path
                while "/" in folder:
                    folder = folder.rsplit("/", 1)[0]
                    below[folder] = below.get(folder, 0) + 1
            self._paths, self._below = paths, below
        return self._paths

    def _named(self, name: str) -> list[str] | None:
        if name not in self._named_memo:
            rel = name.replace(".", "/")
            if name.rsplit(".", 1)[-1] == "__init__":  # only a top-level __init__.py has such a name
                candidates = ["__init__.py", "__init__.pyi"] if name == "__init__" else []
            else:
                candidates = [f"{r}/{rel}{tail}" if r else rel + tail for r in self._roots_of(name.split(".", 1)[0]) for tail in _TAILS]
            paths = self.load()
            self._named_memo[name] = sorted(c for c in set(candidates) if c in paths)
        return self._named_memo[name] or None

    def _module(self, path: str) -> str | None:
        if path not in self._module_memo:
            self._module_memo[path] = module_at(self._ix.store.graph, path)
        return self._module_memo[path]

    def _under(self, folder: str, but: tuple[str, ...] = ()) -> bool:
        """Is there a file below `folder` (other than `but`)?"""
        paths = self.load()
        below = self._below.get(folder, 0)
        return below > 0 and below > sum(1 for b in set(but) if b in paths and b.startswith(folder + "/"))

    def _is_prefix(self, name: str) -> bool:
        """Is some module's name `name.<more>`? A file below the folder of `name` under some root, not its __init__."""
        if name not in self._prefix_memo:
            rel = name.replace(".", "/")
            folders = [f"{r}/{rel}" if r else rel for r in self._roots_of(name.split(".", 1)[0])]
            self._prefix_memo[name] = any(self._under(f, (f + "/__init__.py", f + "/__init__.pyi")) for f in folders)
        return self._prefix_memo[name]

    def _is_top(self, top: str) -> bool:
        """Is some module's name `top` or `top.<more>`?"""
        if top not in self._top_memo:
            if top == "__init__":
                self._top_memo[top] = bool(self._named(top))
            else:
                self._top_memo[top] = bool(self._roots_of(top))
        return self._top_memo[top]

    def _roots_of(self, top: str) -> list[str]:
        """The roots with a module `top` or a folder `top` holding files: the only roots a name under `top` can
        be found in (ansible has 400 roots; a name is under one or two)."""
        if top not in self._roots_memo:
            paths = self.load()
            self._roots_memo[top] = [r for r in self.roots if (b := f"{r}/{top}" if r else top) + ".py" in paths
                                     or b + ".pyi" in paths or self._under(b)]
        return self._roots_memo[top]


_TAILS = (".py", ".pyi", "/__init__.py", "/__init__.pyi")


class _Lazy(dict[str, Any]):
    """A dict whose values are computed on demand (None: no such key): what ModuleMap's code reads of by_name and primary."""

    def __init__(self, compute: Callable[[str], Any]):
        super().__init__()
        self._compute = compute

    def get(self, key: str, default: Any = None) -> Any:
        value = self._compute(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._compute(key) is not None

    def __getitem__(self, key: str) -> Any:
        value = self._compute(key)
        if value is None:
            raise KeyError(key)
        return value


class _Test(frozenset[str]):
    """A set known by its membership test only: what ModuleMap's code asks of top_names and prefixes."""

    _test: Callable[[str], bool]

    def __new__(cls, test: Callable[[str], bool]) -> _Test:  # noqa: PYI034 - a final private class
        made = super().__new__(cls)
        made._test = test
        return made

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._test(key)


