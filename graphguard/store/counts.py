"""What a stored graph counts: `stats`, the warnings of its files, its imports file by file (answers/stats, imports).

`Counts` is a mixin of `reads.CodeGraph` (its `db`, its class hierarchies).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from graphguard.store.db import chunked, marks
from graphguard.store.schema import MetaKey

#: Method names of builtin types: a call on an untyped receiver with one of these names is
#: as likely a dict, list, str or set as the repository's class.
BUILTIN_METHODS = frozenset(
    name for t in (dict, list, str, bytes, set, frozenset, tuple, int, float, object) for name in dir(t)
)



class Counts:
    """The counting half of CodeGraph."""

    if TYPE_CHECKING:
        db: sqlite3.Connection

        def _hierarchies(self) -> dict[str, str]: ...

    def stats(self) -> dict[str, object]:
        db = self.db

        def one(query: str) -> int:
            return int(db.execute(query).fetchone()[0])

        imports = dict(db.execute("SELECT status, count(*) FROM imports GROUP BY status").fetchall())
        unresolved = [
            {"path": p, "line": l, "module": m if n is None else f"{m}.{n}" if n != "*" else m}
            for p, l, m, n in db.execute(
                "SELECT f.path, i.line, i.module, i.name FROM imports i JOIN files f ON f.id = i.file_id"
                " WHERE i.status = 'unresolved' ORDER BY f.path, i.line"
            )
        ]
        calls = dict(db.execute("SELECT resolution, count(*) FROM sites WHERE kind = 'call' GROUP BY resolution").fetchall())
        total_calls = sum(calls.values())
        resolved = calls.get("exact", 0) + calls.get("partial", 0)
        name_matches = one(
            "SELECT count(*) FROM sites WHERE kind = 'call' AND (target IS NOT NULL OR name IN (SELECT name FROM symbols))"
        )
        # Method calls on unknown receivers whose name only one class hierarchy defines.
        by_name = 0
        method_owners: dict[str, set[str]] = {}
        coded: set[str] = set()  # names some class defines with code (a TS interface's member only declares one)
        for qualname, name, kind in db.execute("SELECT qualname, name, kind FROM symbols WHERE kind IN ('method', 'member')"):
            method_owners.setdefault(name, set()).add(qualname.rsplit(".", 1)[0])
            if kind == "method":
                coded.add(name)
        roots = self._hierarchies()
        unique = {n for n, owners in method_owners.items()
                  if n in coded and len({roots.get(c, c) for c in owners}) == 1 and n not in BUILTIN_METHODS}
        for name, count in db.execute(
            "SELECT name, count(*) FROM sites WHERE kind = 'call' AND resolution = 'unresolved' AND text LIKE '%.%' GROUP BY name"
        ):
            if name in unique:
                by_name += count
        warnings = one("SELECT count(*) FROM files WHERE warnings IS NOT NULL OR NOT parsed")
        total_imports = sum(imports.values())
        return {
            "files": one("SELECT count(*) FROM files"),
            "test_files": one("SELECT count(*) FROM files WHERE is_test"),
            "symbols": one("SELECT count(*) FROM symbols"),
            "edges": one("SELECT count(*) FROM sites WHERE target IS NOT NULL") + one("SELECT count(*) FROM file_edges"),
            "imports": {
                "total": total_imports,
                "internal": imports.get("internal", 0),
                "external": imports.get("external", 0),
                "unresolved": imports.get("unresolved", 0),
                "unresolved_list": unresolved,
            },
            "calls": {
                "total": total_calls,
                "resolved": resolved,
                "by_name": by_name,
                "external": calls.get("external", 0),
                "unresolved": calls.get("unresolved", 0),
                "name_matches_repo": name_matches,
            },
            "warnings": warnings + len(self._snapshot_warnings()),
        }

    def import_rows(self, paths: Collection[str] | None = None) -> list[tuple[str, int, str, str | None, str, str | None, str | None, str | None]]:
        """(path, line, module or specifier, name, status, target path, form, category) of the imports of `paths`
        (None: every file), by path and line."""
        sql = ("SELECT f.path, i.line, i.module, i.name, i.status, t.path, i.form, i.category FROM imports i"
               " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file")
        if paths is None:
            return list(self.db.execute(sql + " ORDER BY f.path, i.line, i.rowid"))
        out = []
        for chunk in chunked(sorted(paths)):
            out += self.db.execute(sql + f" WHERE f.path IN ({marks(chunk)}) ORDER BY f.path, i.line, i.rowid", chunk).fetchall()
        return sorted(out, key=lambda r: (r[0], r[1]))

    def unresolved_imports(self, names: Sequence[str], fragments: Sequence[str]) -> list[tuple[str, int, str, str | None, str | None]]:
        """(path, line, module or specifier, name, module of the importing file) of the imports that led nowhere and
        import one of `names` or name a module holding one of `fragments` (LIKE: a prefilter), by path and line."""
        if not names and not fragments:
            return []
        where = " OR ".join([f"i.name IN ({marks(names)})"] * bool(names) + ["i.module LIKE ?"] * len(fragments))
        return list(self.db.execute(
            "SELECT f.path, i.line, i.module, i.name, f.module FROM imports i JOIN files f ON f.id = i.file_id"
            f" WHERE i.status = 'unresolved' AND ({where}) ORDER BY f.path, i.line, i.rowid",
            (*names, *(f"%{f}%" for f in fragments))))

    def module_of(self, path: str) -> str | None:
        """The module name of the file at `path` (Python's dotted name; TypeScript/JavaScript: its path)."""
        row = self.db.execute("SELECT module FROM files WHERE path = ?", (path,)).fetchone()
        return str(row[0]) if row else None

    def counts_by_file(self) -> list[tuple[str, str, str, str | None, int]]:
        """(path, "import", status, category, count) and (path, "call", resolution, None, count) of every file."""
        rows: list[tuple[str, str, str, str | None, int]] = [
            (p, "import", st, cat, n) for p, st, cat, n in self.db.execute(
                "SELECT f.path, i.status, i.category, count(*) FROM imports i JOIN files f ON f.id = i.file_id"
                " GROUP BY f.path, i.status, i.category")]
        rows += [(p, "call", res, None, n) for p, res, n in self.db.execute(
            "SELECT f.path, s.resolution, count(*) FROM sites s JOIN files f ON f.id = s.file_id WHERE s.kind = 'call'"
            " GROUP BY f.path, s.resolution")]
        return rows

    def warnings(self) -> list[tuple[str, str]]:
        out = [(p, w) for p, ws in self.db.execute("SELECT path, warnings FROM files WHERE warnings IS NOT NULL ORDER BY path")
               for w in json.loads(ws)]
        # A file not parsed is a warning even where its row says nothing (written by an older version).
        out.extend((p, "not parsed") for (p,) in self.db.execute("SELECT path FROM files WHERE warnings IS NULL AND NOT parsed"))
        out.extend(self._snapshot_warnings())
        return sorted(out)

    def _snapshot_warnings(self) -> list[tuple[str, str]]:
        """Warnings about files that are not in the graph at all (symlinks, undecodable names)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (MetaKey.SNAPSHOT_WARNINGS.value,)).fetchone()
        return [(p, w) for p, w in json.loads(row[0])] if row and row[0] else []
