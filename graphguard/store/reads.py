"""Questions asked of a stored graph: who calls this, who imports this, which tests reach it.

Read-only over the SQLite snapshot. Names at the API are dotted strings.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import NamedTuple

from graphguard.model import CallShape, Resolution, UseKind, last_name
from graphguard.resolved import Use
from graphguard.store.counts import BUILTIN_METHODS, Counts
from graphguard.store.db import chunked, marks

__all__ = ["BUILTIN_METHODS", "CodeGraph", "SymbolRow", "Use"]


class SymbolRow(NamedTuple):
    qualname: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str


#: Classes whose inherit edges are read in one go when deciding whether they form one hierarchy.
CLASS_CHUNK = 32
#: Subclasses walked when looking for the overrides of a method (CodeGraph.overrides).
MAX_SUBCLASSES = 200


class _Hierarchies:
    """Union-find over classes joined by inherit edges: one representative per hierarchy."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(self, edges: Iterable[tuple[str, str]]) -> set[str]:
        """Joins each (subclass, base); returns the classes the edges named."""
        touched: set[str] = set()
        for sub, base in edges:
            a, b = self.find(sub), self.find(base)
            if a != b:
                self.parent[a] = b
            touched.update((sub, base))
        return touched


class CodeGraph(Counts):
    """The questions of a stored graph; what it counts (`stats`, the warnings, the imports per file) come from `Counts`."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def symbol(self, qualname: str) -> SymbolRow | None:
        row = self.db.execute(
            "SELECT s.qualname, s.kind, f.path, s.line, s.end_line, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.qualname = ? ORDER BY f.path LIMIT 1",
            (qualname,),
        ).fetchone()
        return SymbolRow(*row) if row else None

    def symbols_named(self, name: str) -> list[SymbolRow]:
        rows = self.db.execute(
            "SELECT s.qualname, s.kind, f.path, s.line, s.end_line, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.name = ? ORDER BY s.qualname",
            (name,),
        )
        return [SymbolRow(*r) for r in rows]

    def overrides(self, cls: str, name: str) -> list[SymbolRow]:
        """The methods `name` that subclasses of `cls` in the repository define (at most MAX_SUBCLASSES classes walked)."""
        seen = {cls}
        todo = [cls]
        out: list[SymbolRow] = []
        while todo and len(seen) < MAX_SUBCLASSES:
            base = todo.pop(0)
            for (sub,) in self.db.execute("SELECT DISTINCT scope FROM sites WHERE target = ? AND kind = 'inherit'", (base,)):
                if sub in seen:
                    continue
                seen.add(sub)
                todo.append(sub)
                row = self.symbol(f"{sub}.{name}")
                if row is not None and row.kind == "method":
                    out.append(row)
        return out

    def _hierarchies(self) -> dict[str, str]:
        """Class qualname -> a representative of its in-repository hierarchy (union-find over inherit sites)."""
        # An inherit site's scope is the subclass (resolve.py), its target the base.
        hierarchies = _Hierarchies()
        hierarchies.join(self.db.execute("SELECT scope, target FROM sites WHERE kind = 'inherit' AND target IS NOT NULL"))
        return {k: hierarchies.find(k) for k in hierarchies.parent}

    def _inherit_edges(self, classes: Sequence[str]) -> list[tuple[str, str]]:
        """(subclass, base) of every inherit site naming one of `classes` as subclass or as base."""
        out: list[tuple[str, str]] = []
        for chunk in chunked(classes, 400):
            out += self.db.execute(
                f"SELECT scope, target FROM sites WHERE target IN ({marks(chunk)}) AND kind = 'inherit'", chunk).fetchall()
            # An inherit site's scope is the subclass, and it lies in the subclass's file: sites has no index on
            # scope, but one on the file.
            out += self.db.execute(
                "SELECT s.scope, s.target FROM symbols c JOIN sites s ON s.file_id = c.file_id"
                f" WHERE c.qualname IN ({marks(chunk)}) AND c.kind = 'class' AND s.kind = 'inherit' AND s.scope = c.qualname"
                " AND s.target IS NOT NULL", chunk).fetchall()
        return out

    def _connected(self, classes: Iterable[str]) -> bool:
        """True when the classes lie in one hierarchy. The inherit edges are walked out from them only, so this
        costs what their hierarchies hold, not what the repository does (`_hierarchies` reads every site); and
        the classes are taken a few at a time, so that one with neither a base nor a subclass (the common case
        of a name many unrelated classes define: `run`, `get`) answers after the first few."""
        hierarchies = _Hierarchies()
        wanted: list[str] = []
        found: set[str] = set()
        it = iter(classes)
        while chunk := [c for _, c in zip(range(CLASS_CHUNK), it)]:
            wanted += chunk
            touched = hierarchies.join(self._inherit_edges(chunk))
            if len(wanted) > 1 and any(c not in touched for c in chunk):
                return False  # a hierarchy of its own
            found |= touched
        if len(set(wanted)) <= 1:
            return True
        seen = set(wanted) | found
        frontier = sorted(found - set(wanted))
        while len({hierarchies.find(c) for c in wanted}) > 1:
            if not frontier:
                return False
            found = hierarchies.join(self._inherit_edges(frontier))
            frontier = sorted(found - seen)
            seen |= found
        return True  # the rest of the hierarchy cannot part them

    def _classes_defining(self, name: str, *, declared: bool = True) -> Iterator[str]:
        """Classes defining a method of this name, read as they are asked for; with `declared`, also the interfaces
        and type literals that declare one (TypeScript's members: an untyped `x.name()` may be of those types)."""
        kinds = "('method', 'member')" if declared else "('method')"
        for (qualname,) in self.db.execute(f"SELECT DISTINCT qualname FROM symbols WHERE name = ? AND kind IN {kinds}", (name,)):
            yield qualname.rsplit(".", 1)[0]

    def unique_hierarchy(self, method: str) -> bool:
        """True when every class defining this method's name lies in the method's own hierarchy."""
        name = last_name(method)
        # By qualname (unique, indexed) and the name compared in Python: with `name = ?` in the query SQLite picks
        # the index on names and reads every method so named (45,000 `run` at 100k files).
        names = [r[0] for r in self.db.execute("SELECT name FROM symbols WHERE qualname = ? AND kind = 'method'", (method,))]
        if name not in names:
            return False  # not a method: its class is not among those defining the name
        return self._connected(self._classes_defining(name))

    def by_name_resolution(self, method: str) -> Resolution:
        """How far an unknown receiver's `x.name()` can be pinned on `method`.

        "by-name" when only its class defines the name; "by-name-weak" when overrides in
        the same hierarchy define it too (which one runs depends on the receiver), or when
        builtin types have a method of that name (`x.values()` may well be a dict);
        "candidate" when several hierarchies define it.
        """
        name = last_name(method)
        if not self.unique_hierarchy(method):
            return Resolution.CANDIDATE
        # An interface's member runs nothing: with one class implementing it, that class's method is what runs.
        one = len(list(itertools.islice(self._classes_defining(name, declared=False), 2))) == 1
        return Resolution.BY_NAME if one and name not in BUILTIN_METHODS else Resolution.BY_NAME_WEAK

    def uses_of(self, qualname: str, *, candidates: bool = True) -> list[Use]:
        """Every call site and reference of `qualname`, resolved ones first, then by name."""
        rows = list(
            self.db.execute(
                "SELECT f.path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, s.resolution, s.n_positional, s.keywords,"
                " s.has_star, s.has_starstar, s.target != ? FROM sites s JOIN files f ON f.id = s.file_id"
                " WHERE s.target = ? OR s.init_target = ?",
                (qualname, qualname, qualname),
            )
        )
        uses = [self._use(r) for r in rows]
        sym = self.symbol(qualname)
        if candidates and sym is not None and sym.kind == "method":
            name = last_name(qualname)
            by_name = Resolution.BY_NAME.value if self.unique_hierarchy(qualname) else "candidate"
            for r in self.db.execute(
                "SELECT f.path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, ?, s.n_positional, s.keywords,"
                " s.has_star, s.has_starstar, 0 FROM sites s JOIN files f ON f.id = s.file_id"
                " WHERE s.name = ? AND s.resolution = 'unresolved' AND s.text LIKE ?",
                (by_name, name, "%." + name),
            ):
                uses.append(self._use(r))
        elif candidates and sym is not None:
            name = last_name(qualname)
            for r in self.db.execute(
                "SELECT f.path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, 'candidate', s.n_positional, s.keywords,"
                " s.has_star, s.has_starstar, 0 FROM sites s JOIN files f ON f.id = s.file_id"
                " WHERE s.name = ? AND s.resolution = 'unresolved'",
                (name,),
            ):
                uses.append(self._use(r))
        order = {"exact": 0, "partial": 0, "by-name": 1, "by-name-weak": 1, "candidate": 2}
        return sorted(set(uses), key=lambda u: (order.get(u.resolution, 3), u.path, u.line, u.col, u.kind))

    @staticmethod
    def _use(r: tuple) -> Use:  # type: ignore[type-arg]
        path, line, end_line, col, scope, kind, text, resolution, n_pos, kws, star, starstar, via_init = r
        return Use(path, line, end_line, col, scope, UseKind(kind), text, Resolution(resolution),
                   CallShape.from_row(n_pos, kws, star, starstar), bool(via_init))

    def importers_of(self, path: str) -> list[tuple[str, int]]:
        return list(
            self.db.execute(
                "SELECT s.path, e.n_symbols FROM file_edges e JOIN files d ON d.id = e.dst JOIN files s ON s.id = e.src"
                " WHERE d.path = ? AND e.kind = 'import' ORDER BY s.path",
                (path,),
            )
        )

    def importers_of_module(self, path: str) -> list[tuple[str, int, str]]:
        """(path, first line, module) of each file with an import resolved to the file at `path`."""
        return list(self.db.execute(
            "SELECT f.path, min(i.line), f.module FROM imports i JOIN files f ON f.id = i.file_id JOIN files t ON t.id = i.target_file"
            " WHERE t.path = ? GROUP BY f.path", (path,)))

    def importers_by_name(self, module: str, name: str) -> list[tuple[str, int, int]]:
        """(path, line, line) of every stored `from module import name`."""
        return list(self.db.execute(
            "SELECT f.path, i.line, i.line FROM imports i JOIN files f ON f.id = i.file_id WHERE i.module = ? AND i.name = ?",
            (module, name),
        ))

    def call_shapes(self, path: str) -> list[tuple[str | None, int, str, int, int]]:
        """(target, n_positional, keywords, has_star, has_starstar) of the stored calls in the file at `path`."""
        return list(self.db.execute(
            "SELECT s.target, s.n_positional, s.keywords, s.has_star, s.has_starstar FROM sites s JOIN files f ON f.id = s.file_id"
            " WHERE f.path = ? AND s.kind = 'call'", (path,)))

    def subclasses_of(self, cls: str) -> list[tuple[str, str]]:
        """(path, scope) of the stored classes that name `cls` as a base."""
        return list(self.db.execute(
            "SELECT f.path, s.scope FROM sites s JOIN files f ON f.id = s.file_id WHERE s.target = ? AND s.kind = 'inherit'", (cls,)))

    def limited_calls(self, name: str) -> list[tuple[str, int, int, int, str, str, str, int, str, int, int]]:
        """Stored calls of `name` whose resolution a limit stopped: (path, line, end_line, col, scope, text, resolution,
        n_positional, keywords, has_star, has_starstar)."""
        return list(self.db.execute(
            "SELECT f.path, s.line, s.end_line, s.col, s.scope, s.text, s.resolution, s.n_positional, s.keywords, s.has_star, s.has_starstar"
            " FROM sites s JOIN files f ON f.id = s.file_id WHERE s.name = ? AND s.kind = 'call'"
            " AND s.resolution IN ('too-deep', 'too-long')",  # literals: so the partial index sites_limited_name applies
            (name,),
        ))

    def files_naming(self, names: Collection[str]) -> set[str]:
        """Paths of the files with a site or an import of one of `names`."""
        q = marks(names)
        rows = {p for (p,) in self.db.execute(f"SELECT DISTINCT f.path FROM sites s JOIN files f ON f.id = s.file_id WHERE s.name IN ({q})", tuple(names))}
        rows |= {p for (p,) in self.db.execute(f"SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.name IN ({q})", tuple(names))}
        return rows

    def paths(self) -> list[str]:
        """Every stored path, in the order SQLite reads them (StoredPaths.all sorts)."""
        return [p for (p,) in self.db.execute("SELECT path FROM files")]

    def blobs_by_path(self) -> dict[str, str]:
        """path -> blob of every stored file."""
        return dict(self.db.execute("SELECT path, blob FROM files").fetchall())

    def tests_of(self, path: str) -> list[str]:
        return [
            r[0]
            for r in self.db.execute(
                "SELECT s.path FROM file_edges e JOIN files d ON d.id = e.dst JOIN files s ON s.id = e.src"
                " WHERE d.path = ? AND e.kind = 'test-of' ORDER BY s.path",
                (path,),
            )
        ]

    # --- for the answers (answers/callers, answers/outline) -------------------------------------

    def parsed_blobs(self) -> dict[str, str]:
        """path -> blob sha of every parsed file."""
        return dict(self.db.execute("SELECT path, blob FROM files WHERE parsed"))

    def file_rows(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        """path -> (blob sha, module) of those of `paths` the graph holds."""
        rows: dict[str, tuple[str, str]] = {}
        for i in range(0, len(paths), 500):  # within SQLite's limit of bound parameters
            chunk = paths[i:i + 500]
            for path, blob, module in self.db.execute(
                    f"SELECT path, blob, module FROM files WHERE path IN ({','.join('?' * len(chunk))})", chunk):
                rows[path] = (blob, module)
        return rows

    def definitions_in(self, path: str) -> list[tuple[str, str, int, int, str]]:
        """(qualname, kind, line, end_line, signature) of a file's symbols in line order."""
        return list(self.db.execute(
            "SELECT s.qualname, s.kind, s.line, s.end_line, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE f.path = ? ORDER BY s.line, s.id", (path,)))
