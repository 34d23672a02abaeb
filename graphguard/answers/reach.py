""""No callers" is never silent: when nothing resolved calls a symbol, what still might (`callers`, `impact`).

An empty list reads as "safe to change"; it may only mean that resolution could not follow the callers. Two
kinds of use may reach a symbol without resolving to it: a call of the same name whose receiver has no known type
(the by-name candidates `CodeGraph.uses_of` lists), and an import that led nowhere but names the symbol's module
or the symbol (a module missing under that name, another import root, a specifier that did not resolve).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphguard.model import Resolution, UseKind, last_name
from graphguard.resolved import Use
from graphguard.store.reads import CodeGraph, SymbolRow

#: Uses that reached the symbol itself (a one-of target is one of its own possibilities).
RESOLVED = (Resolution.EXACT, Resolution.PARTIAL, Resolution.ONE_OF)
#: Uses found by the called name alone, on a receiver whose type is not known.
BY_NAME = (Resolution.BY_NAME, Resolution.BY_NAME_WEAK, Resolution.CANDIDATE)
#: Unresolved imports listed in an answer (all are counted).
MAX_LISTED = 5

#: (path, line, module or specifier, imported name, module of the importing file): CodeGraph.unresolved_imports.
ImportRow = tuple[str, int, str, "str | None", "str | None"]


@dataclass(frozen=True)
class Unresolved:
    """What might call a symbol that nothing resolved calls."""

    by_name: int  # calls of the same name on receivers of unknown type (in the answer's callers, resolution by-name/candidate)
    unresolved_imports: int  # imports that led nowhere but name the symbol's module or the symbol
    imports: tuple[dict[str, Any], ...]  # the first MAX_LISTED of them

    def note(self) -> str:
        if not self.by_name and not self.unresolved_imports:
            return "no callers: none resolved, no call of the same name, no unresolved import that could reach it"
        parts = []
        if self.by_name:
            parts.append(f"{self.by_name} call{'s' if self.by_name > 1 else ''} of the same name on receivers of unknown type"
                         " (listed, resolution by-name or candidate)")
        if self.unresolved_imports:
            where = ", ".join(f"{i['path']}:{i['line']} {i['module']}" for i in self.imports)
            more = "" if len(self.imports) == self.unresolved_imports else ", ..."
            parts.append(f"{self.unresolved_imports} unresolved import{'s' if self.unresolved_imports > 1 else ''}"
                         f" that could reach it ({where}{more})")
        return "no resolved callers, but " + " and ".join(parts) + ": it may have callers graphguard cannot see"

    def to_json(self) -> dict[str, Any]:
        return {"by_name": self.by_name, "unresolved_imports": self.unresolved_imports, "imports": list(self.imports),
                "note": self.note()}


def resolved_callers(uses: Iterable[Use]) -> int:
    """Calls and references (not imports) resolved to the symbol."""
    return sum(u.kind is not UseKind.IMPORT and u.resolution in RESOLVED for u in uses)


def unresolved(graph: CodeGraph, sym: SymbolRow, uses: Sequence[Use]) -> Unresolved | None:
    """What might call `sym` when no use of `uses` (its uses, CodeGraph.uses_of) resolved to it; None when one did."""
    if resolved_callers(uses):
        return None
    by_name = sum(u.kind is not UseKind.IMPORT and u.resolution in BY_NAME for u in uses)
    module = graph.module_of(sym.path) or ""
    names, fragments = _asked(sym.qualname, sym.path, module)
    reaching = [r for r in graph.unresolved_imports(names, fragments)
                if r[0] != sym.path and could_reach(r, sym.qualname, sym.path, module)]
    listed = tuple({"path": p, "line": line, "module": m, "name": n} for p, line, m, n, _ in reaching[:MAX_LISTED])
    return Unresolved(by_name, len(reaching), listed)


def _asked(qualname: str, path: str, module: str) -> tuple[list[str], list[str]]:
    """What an import that could reach the symbol names (could_reach's cases): the names it may import, the
    fragments its module or specifier holds. The store's prefilter; could_reach decides."""
    top = _defined_name(qualname, module)
    if "#" in qualname:
        return [top], sorted(_file_stems(path))
    tail = module.rsplit(".", 1)[-1]
    return sorted({top, tail}), [tail]


def could_reach(row: ImportRow, qualname: str, path: str, module: str) -> bool:
    """Whether an import that led nowhere may have meant the symbol `qualname` defined at `path` (in `module`)."""
    importer, _, imported, name, _ = row
    if importer.endswith((".py", ".pyi")) == ("#" in qualname):
        return False  # Python imports Python; TypeScript and JavaScript import each other
    top = _defined_name(qualname, module)
    if name is not None and name == top and name != "default":
        return True  # `from lib.mod import f`, `import { total } from "./carts"`: the symbol's own name
    # A module of the file's name, imported whole (`import a.mod`, `from a.mod import *`; `import * as m from
    # "./x/cart"`, a side-effect import, a default one): a name it does not define cannot reach the symbol.
    whole = name in (None, "*") or (name == "default" == top)
    if "#" in qualname:  # TypeScript/JavaScript: a specifier whose last segment names the file
        return whole and _specifier_stem(imported) in _file_stems(path)
    tail = module.rsplit(".", 1)[-1]
    if whole and imported.rsplit(".", 1)[-1] == tail:
        return True
    parent = module.rsplit(".", 2)[-2] if module.count(".") else ""
    return name == tail and imported.rsplit(".", 1)[-1] == parent  # `from pkg import mod`, `mod` missing there


def _defined_name(qualname: str, module: str) -> str:
    """The name the module defines: `f` of `pkg.mod.f`, `Cart` of `pkg.mod.Cart.total` and of `src/cart.ts#Cart.total`."""
    if "#" in qualname:
        return qualname.partition("#")[2].split(".", 1)[0]
    inside = qualname[len(module) + 1:] if module and qualname.startswith(module + ".") else last_name(qualname)
    return inside.split(".", 1)[0]


def _specifier_stem(specifier: str) -> str:
    base = posixpath.basename(specifier.rstrip("/"))
    for ext in (".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def _file_stems(path: str) -> set[str]:
    """The names a specifier may end with to mean the file: its stem, or its folder's name for an index file."""
    stem = _specifier_stem(path)
    folder = posixpath.basename(posixpath.dirname(path))
    return {stem, folder} if stem == "index" and folder else {stem}
