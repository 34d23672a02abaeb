"""Walks over the stored graph, one statement a step: callers of a definition, fixtures' users, importing tests.

Functions of the connection (testselect and retrieval walk with them); each returns the rows in the order
SQLite gives them, as the walks were written against.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from graphguard.store.db import marks


def module_of(db: sqlite3.Connection, path: str) -> str | None:
    row = db.execute("SELECT module FROM files WHERE path = ?", (path,)).fetchone()
    return row[0] if row else None


def modules_of(db: sqlite3.Connection, paths: Sequence[str]) -> list[tuple[str, str]]:
    """(path, module) of the stored files among `paths` (at most db.CHUNK)."""
    return db.execute(f"SELECT path, module FROM files WHERE path IN ({marks(paths)})", paths).fetchall()


def classes_among(db: sqlite3.Connection, qualnames: Sequence[str]) -> list[str]:
    """The `qualnames` (at most db.CHUNK) that name a stored class."""
    return [q for (q,) in db.execute(
        f"SELECT DISTINCT qualname FROM symbols WHERE qualname IN ({marks(qualnames)}) AND kind = 'class'", qualnames)]


def is_class(db: sqlite3.Connection, qualname: str) -> bool:
    return db.execute("SELECT 1 FROM symbols WHERE qualname = ? AND kind = 'class' LIMIT 1", (qualname,)).fetchone() is not None


def bases_of(db: sqlite3.Connection, cls: str) -> list[tuple[str, str]]:
    """(base, path of its definition) of each inherit site written in `cls`, in the stored order. The sites are looked
    for in the files that define `cls` or something under it: an index lookup each, never all inherit sites."""
    return db.execute(
        "SELECT s.target, t.path FROM sites s JOIN symbols y ON y.qualname = s.target JOIN files t ON t.id = y.file_id"
        " WHERE s.file_id IN (SELECT file_id FROM symbols WHERE qualname >= ? AND qualname < ?)"
        " AND s.scope = ? AND s.kind = 'inherit' AND s.target IS NOT NULL ORDER BY s.target, s.rowid, y.id",
        (cls, cls + "/", cls)).fetchall()


def callers_by_target(db: sqlite3.Connection, qualname: str) -> list[tuple[str, str]]:
    """(path, scope) of the calls and references resolved to `qualname` (or to the class whose __init__ it is)."""
    return db.execute(
        "SELECT f.path, s.scope FROM sites s JOIN files f ON f.id = s.file_id WHERE (s.target = ? OR s.init_target = ?)"
        " AND s.kind IN ('call', 'reference')", (qualname, qualname)).fetchall()


def unresolved_method_calls(db: sqlite3.Connection, name: str) -> list[tuple[str, str]]:
    """(path, scope) of the unresolved calls `<something>.name(...)`."""
    return db.execute(
        "SELECT f.path, s.scope FROM sites s JOIN files f ON f.id = s.file_id"
        " WHERE s.name = ? AND s.resolution = 'unresolved' AND s.kind = 'call' AND s.text LIKE ?", (name, "%." + name)).fetchall()


def calls_of(db: sqlite3.Connection, qualname: str) -> list[tuple[str, str]]:
    """(path, scope) of the calls resolved to `qualname` (a class: its instantiations)."""
    return db.execute(
        "SELECT f.path, s.scope FROM sites s JOIN files f ON f.id = s.file_id WHERE s.target = ? AND s.kind = 'call'",
        (qualname,)).fetchall()


def test_functions_mentioning(db: sqlite3.Connection, name: str, *, path: str | None = None,
                              bounds: tuple[str, str] | None = None) -> list[tuple[str, str, str]]:
    """(path, qualname, signature) of the test files' functions whose signature mentions `name`, in definition
    order: in the file at `path`, or in the paths within `bounds` (path >= lo and < hi), or everywhere."""
    scope, args = ("f.path = ?", (path,)) if path is not None else ("f.path >= ? AND f.path < ?", bounds) if bounds else ("1", ())
    return db.execute(
        "SELECT f.path, s.qualname, s.signature FROM files f JOIN symbols s ON s.file_id = f.id"
        f" WHERE {scope} AND f.is_test = 1 AND s.kind IN ('function', 'method') AND instr(s.signature, ?) > 0"
        " ORDER BY s.id", (*args, name)).fetchall()


def file_id(db: sqlite3.Connection, path: str) -> int | None:
    row = db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
    return row[0] if row else None


def test_paths(db: sqlite3.Connection, bounds: tuple[str, str] | None) -> list[str]:
    """The test files' paths within `bounds` (path >= lo and < hi), or all of them."""
    rows = (db.execute("SELECT path FROM files WHERE path >= ? AND path < ? AND is_test = 1", bounds) if bounds
            else db.execute("SELECT path FROM files WHERE is_test = 1"))
    return [q for (q,) in rows]


def import_edges_into(db: sqlite3.Connection, dsts: Sequence[int]) -> list[tuple[int, int, str]]:
    """(src, dst, src's path) of the import edges into the files `dsts` (at most db.CHUNK ids)."""
    return db.execute(
        "SELECT e.src, e.dst, s.path FROM file_edges e JOIN files s ON s.id = e.src"
        f" WHERE e.dst IN ({marks(dsts)}) AND e.kind = 'import'", dsts).fetchall()


def scoped_imports_into(db: sqlite3.Connection, dsts: Sequence[int]) -> list[tuple[int, int, str, int]]:
    """(importer, imported, scope, whether the scope is a function) of the imports into `dsts` written in a scope."""
    return db.execute(
        "SELECT i.file_id, i.target_file, i.scope, EXISTS(SELECT 1 FROM symbols y WHERE y.file_id = i.file_id"
        " AND y.qualname = f.module || '.' || i.scope AND y.kind IN ('function', 'method'))"
        f" FROM imports i JOIN files f ON f.id = i.file_id WHERE i.target_file IN ({marks(dsts)}) AND i.scope != ''", dsts).fetchall()


def module_level_imports_into(db: sqlite3.Connection, dsts: Sequence[int]) -> set[tuple[int, int]]:
    """(importer, imported) of the module-level imports into `dsts`."""
    return {(src, dst) for src, dst in db.execute(
        f"SELECT file_id, target_file FROM imports WHERE target_file IN ({marks(dsts)}) AND scope = ''", dsts)}


def definition_lines(db: sqlite3.Connection, paths: Sequence[str]) -> list[tuple[str, str, int]]:
    """(path, qualname, line) of every definition in the files at `paths` (at most db.CHUNK), file by file."""
    return db.execute(
        "SELECT f.path, s.qualname, s.line FROM files f JOIN symbols s ON s.file_id = f.id"
        f" WHERE f.path IN ({marks(paths)}) ORDER BY f.id, s.id", paths).fetchall()


# --- the expansion's edges (retrieval/graphdata) ---------------------------------------------------------------


def file_edges_from(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, int, str, int]]:
    """(src, dst, kind, n_symbols) of the file edges out of `ids`."""
    return db.execute(f"SELECT src, dst, kind, n_symbols FROM file_edges WHERE src IN ({marks(ids)})", ids).fetchall()


def file_edges_into(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, int, str, int]]:
    """(src, dst, kind, n_symbols) of the file edges into `ids`."""
    return db.execute(f"SELECT src, dst, kind, n_symbols FROM file_edges WHERE dst IN ({marks(ids)})", ids).fetchall()


def uses_made_in(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, int, str, str]]:
    """(file, file of the target, kind, target) of the resolved sites in the files `ids`."""
    return db.execute(
        "SELECT s.file_id, t.file_id, s.kind, s.target FROM sites s JOIN symbols t ON t.qualname = s.target"
        f" WHERE s.file_id IN ({marks(ids)}) AND s.target IS NOT NULL",
        ids,
    ).fetchall()


def uses_made_of(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, int, str, str]]:
    """(file, file of the site, kind, site's scope) of the sites resolved to a definition in the files `ids`."""
    return db.execute(
        "SELECT t.file_id, s.file_id, s.kind, s.scope FROM symbols t JOIN sites s ON s.target = t.qualname"
        f" WHERE t.file_id IN ({marks(ids)})",
        ids,
    ).fetchall()


def _like_prefix(qualname: str) -> str:
    return qualname.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"


def uses_made_in_symbols(db: sqlite3.Connection, fid: int, names: Sequence[str]) -> list[tuple[int, str, str]]:
    """(file of the target, kind, target) of the resolved sites inside the definitions `names` of file `fid` (or in
    what they nest)."""
    scope_match = " OR ".join(["s.scope IN (" + marks(names) + ")"] + ["s.scope LIKE ? ESCAPE '\\'"] * len(names))
    return db.execute(
        "SELECT t.file_id, s.kind, s.target FROM sites s JOIN symbols t ON t.qualname = s.target"
        f" WHERE s.file_id = ? AND s.target IS NOT NULL AND ({scope_match})",
        (fid, *names, *(_like_prefix(q) for q in names)),
    ).fetchall()


def uses_made_of_symbols(db: sqlite3.Connection, fid: int, names: Sequence[str]) -> list[tuple[int, str, str]]:
    """(file of the site, kind, site's scope) of the sites resolved to the definitions `names` of file `fid` (or to
    their members)."""
    target_match = " OR ".join(["t.qualname IN (" + marks(names) + ")"] + ["t.qualname LIKE ? ESCAPE '\\'"] * len(names))
    return db.execute(
        "SELECT s.file_id, s.kind, s.scope FROM symbols t JOIN sites s ON s.target = t.qualname"
        f" WHERE t.file_id = ? AND ({target_match})",
        (fid, *names, *(_like_prefix(q) for q in names)),
    ).fetchall()


def functions_of_file(db: sqlite3.Connection, fid: int) -> list[tuple[str, str]]:
    """(name, qualname) of the functions defined in file `fid` (nested ones too)."""
    return db.execute("SELECT name, qualname FROM symbols WHERE file_id = ? AND kind = 'function'", (fid,)).fetchall()


def tests_under(db: sqlite3.Connection, folder: str) -> list[tuple[int, str, str]]:
    """(file id, qualname, signature) of the `test*` functions and methods of the test files under `folder`
    ("" for all)."""
    like = (folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%") if folder else "%"
    return db.execute(
        "SELECT f.id, s.qualname, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE f.is_test AND f.path LIKE ? ESCAPE '\\' AND s.name LIKE 'test%' AND s.kind IN ('function', 'method')",
        (like,),
    ).fetchall()


def import_degrees(db: sqlite3.Connection, ids: Sequence[int]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(file, import edges out of it) and (file, import edges into it) of the files `ids`."""
    m = marks(ids)
    out = db.execute(f"SELECT src, count(*) FROM file_edges WHERE kind = 'import' AND src IN ({m}) GROUP BY src", ids).fetchall()
    into = db.execute(f"SELECT dst, count(*) FROM file_edges WHERE kind = 'import' AND dst IN ({m}) GROUP BY dst", ids).fetchall()
    return out, into
