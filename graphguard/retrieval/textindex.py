"""BM25 over the repository's symbols: an SQLite FTS5 index kept in step with the graph's files table.

Every definition (and each module's own top-level code) is one document with
four fields: its name, its prose (docstrings and comments), its body, and the
words of its file's path. The token text of a blob is cached by blob SHA
(`text_blobs`, zlib-compressed JSON), so an unchanged blob is never tokenized
again, on this branch or any other. `text_fts` is contentless: it keeps only
the inverted index, and a document is deleted by giving FTS5 its original
text back from that cache. `text_files` records which blob of each path the
index holds; `ensure` compares it with `files` and re-indexes only the paths
whose blob changed. It costs one meta read when the index already describes
the graph's head.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from graphguard.retrieval.tokenize import Doc, Span, path_tokens, split_source
from graphguard.store import paths as stored_paths
from graphguard.store import symbols as stored_symbols
from graphguard.store.db import chunked, marks, rollback, transaction
from graphguard.store.schema import TEXT_SCHEMA, MetaKey, meta, set_meta

#: Bump when the tokenizer or the documents change: the cache and the index are rebuilt.
TEXT_VERSION = "3"

#: bm25() column weights, in column order: name, prose (docstrings, comments), body, path.
WEIGHTS = (3.0, 2.0, 1.0, 1.5)

#: Keep the cache of blobs no longer in the snapshot until it holds this many times the live ones.
CACHE_SLACK = 3

# Bounds, so that one huge file costs what a large ordinary one does: only its first MAX_BLOB_BYTES are
# tokenized; at most MAX_DOCS definitions of a file are documents of their own (the first, by line: the rest
# belong to the module's document); a field holds at most MAX_FIELD_TOKENS tokens (BM25 weighs a long document
# down anyway, and the FTS index grows with every token).
MAX_BLOB_BYTES = 1 << 20
MAX_DOCS = 2000
MAX_FIELD_TOKENS = 20000


class Hit(NamedTuple):
    path: str
    qualname: str  # full dotted name; the module's own name for its top-level code
    kind: str  # function | method | class | module
    line: int
    end_line: int
    score: float  # BM25, higher is better


def _encode(docs: Sequence[tuple[str, str, int, int, str, str, str]]) -> bytes:
    return zlib.compress(json.dumps(docs, separators=(",", ":")).encode(), 3)


def _decode(data: bytes) -> list[tuple[str, str, int, int, str, str, str]]:
    return [tuple(d) for d in json.loads(zlib.decompress(data))]


def blob_docs(text: str, spans: Sequence[tuple[str, str, int, int]]) -> list[tuple[str, str, int, int, str, str, str]]:
    """(relative qualname, kind, line, end_line, name, prose, body) for each definition and the module ("", "module")."""
    spans = sorted(spans, key=lambda s: s[2])[:MAX_DOCS]
    kinds = {q: k for q, k, _, _ in spans}
    docs: list[Doc] = split_source(text, [Span(q, a, b) for q, _, a, b in spans])
    return [(d.qualname, kinds.get(d.qualname, "module"), d.line, d.end_line, d.name, _capped(d.prose), _capped(d.body))
            for d in docs]


def _capped(field: str) -> str:
    """At most MAX_FIELD_TOKENS of a field's space-separated tokens (cheap when it is shorter: no split)."""
    if len(field) <= MAX_FIELD_TOKENS * 2:  # every token takes at least two characters with its space
        return field
    cut = -1
    for _ in range(MAX_FIELD_TOKENS):
        cut = field.find(" ", cut + 1)
        if cut < 0:
            return field
    return field[:cut]


TABLES = ("text_blobs", "text_files", "text_docs", "text_fts", "text_vocab")


def is_current(db: sqlite3.Connection, head: str) -> bool:
    """Whether the index describes `head`, and all its tables are there (a table gone is damage: not current,
    so that `ensure` rebuilds it)."""
    if meta(db, MetaKey.TEXT_STATE) != f"{TEXT_VERSION}:{head}":
        return False
    return bool(db.execute(f"SELECT count(*) FROM sqlite_master WHERE name IN ({marks(TABLES)})", TABLES).fetchone()[0] == len(TABLES))


#: A commit's diff longer than this is compared table to table instead (as fast, and one query).
MAX_DIFF_PATHS = 5000

#: Which paths differ between two commits (None when it cannot say): `ensure` then compares only these.
Differ = Callable[[str, str], "Sequence[str] | None"]


class Work(NamedTuple):
    """What one `ensure` did: files (re)indexed, and blobs tokenized (the others' documents came from the cache)."""

    files: int
    tokenized: int


#: meta key of the last `ensure` that changed the index: JSON {"by": ..., "head": ..., "files": n, "tokenized": n}.
WORK_KEY = MetaKey.TEXT_WORK.value


def ensure(db: sqlite3.Connection, head: str, read_blobs: Callable[[list[str]], dict[str, bytes]],
           differ: Differ | None = None, *, by: str = "query") -> int:
    """Bring the index up to the files table; return how many files were (re)indexed. The caller holds the
    write lock and no transaction is open. With `differ`, only the paths that differ between the commit the
    index describes and `head` are compared (a few after a commit, whatever the repository holds). A damaged
    index (a table gone, a cached row that does not decode) is dropped and built again, never an error; `by`
    names who paid for the work (recorded in meta, see WORK_KEY)."""
    try:
        if is_current(db, head):
            return 0
        return _ensure(db, head, read_blobs, differ, by).files
    except _DAMAGE as e:
        rollback(db)
        print(f"graphguard: warning: the text index is damaged ({e}); rebuilding it", file=sys.stderr)
        reset(db)
        return _ensure(db, head, read_blobs, None, by).files


#: What a damaged text index raises: SQLite (a table gone, a malformed page), zlib and JSON (a cached row
#: that does not decode), and the shapes that do not fit (a row of the wrong length).
_DAMAGE = (sqlite3.DatabaseError, zlib.error, ValueError, TypeError, IndexError, KeyError)


def reset(db: sqlite3.Connection) -> None:
    """Drop every table of the text index and create them empty (the text index is a cache of git's blobs)."""
    for name in reversed(TABLES):  # the vocabulary view before the index it reads
        db.execute(f"DROP TABLE IF EXISTS {name}")
    db.execute("DELETE FROM meta WHERE key IN ('text_state', 'text_version', 'text_blobs', 'text_config')")
    db.executescript(TEXT_SCHEMA)


def _ensure(db: sqlite3.Connection, head: str, read_blobs: Callable[[list[str]], dict[str, bytes]],
            differ: Differ | None, by: str) -> Work:
    changed = _changed_since(db, head, differ)
    with transaction(db):
        work = _update(db, read_blobs, changed)
        set_meta(db, MetaKey.TEXT_STATE, f"{TEXT_VERSION}:{head}")
        db.execute("INSERT OR REPLACE INTO meta SELECT 'text_config', value FROM meta WHERE key = 'config'")
        if work.files:
            record = {"by": by, "head": head, "files": work.files, "tokenized": work.tokenized}
            set_meta(db, MetaKey.TEXT_WORK, json.dumps(record, sort_keys=True))
    return work


def last_work(db: sqlite3.Connection) -> dict[str, object] | None:
    """The record of the last `ensure` that changed the index (None when there is none or it is unreadable)."""
    row = meta(db, MetaKey.TEXT_WORK)
    try:
        value = json.loads(row) if row is not None else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _changed_since(db: sqlite3.Connection, head: str, differ: Differ | None) -> list[str] | None:
    """The paths whose files rows can differ from the index's, or None: compare every path. Only the commit's diff
    when the index describes a commit and the graph was built with the same configuration (an exclusion added
    changes the files table with no commit)."""
    if differ is None:
        return None
    state = {k: v for k, v in db.execute("SELECT key, value FROM meta WHERE key IN ('text_state', 'text_config', 'config')")}
    version, _, old = (state.get("text_state") or "").partition(":")
    if version != TEXT_VERSION or not old or state.get("text_config") != state.get("config"):
        return None
    try:
        paths = differ(old, head)
    except Exception:  # noqa: BLE001 - the old commit may be gone (gc after a rewrite): compare everything
        return None
    return None if paths is None or len(paths) > MAX_DIFF_PATHS else sorted(set(paths))


def _differences(db: sqlite3.Connection, changed: Sequence[str] | None) -> tuple[dict[str, str], dict[str, tuple[int, str, str]]]:
    """(path -> blob the index holds that the files table no longer has, path -> (id, blob, module) of files rows
    the index does not hold), compared in SQLite: over `changed` only, or every path."""
    stale_q = "SELECT t.path, t.blob FROM text_files t LEFT JOIN files f ON f.path = t.path WHERE (f.blob IS NULL OR f.blob != t.blob)"
    fresh_q = ("SELECT f.id, f.path, f.blob, f.module FROM files f LEFT JOIN text_files t ON t.path = f.path"
               " WHERE (t.blob IS NULL OR t.blob != f.blob)")
    if changed is None:
        return dict(db.execute(stale_q)), {p: (i, b, m) for i, p, b, m in db.execute(fresh_q)}
    stale: dict[str, str] = {}
    fresh: dict[str, tuple[int, str, str]] = {}
    for chunk in chunked(changed):
        stale.update(db.execute(f"{stale_q} AND t.path IN ({marks(chunk)})", chunk))
        fresh.update((p, (fid, b, m)) for fid, p, b, m in db.execute(f"{fresh_q} AND f.path IN ({marks(chunk)})", chunk))
    return stale, fresh


#: Paths indexed per round of a big update: their blobs are read, tokenized and written, then let go, so that
#: a 100,000-file first build holds one round's text and documents in memory, not the repository's.
ROUND = 500


def _update(db: sqlite3.Connection, read_blobs: Callable[[list[str]], dict[str, bytes]],
            changed: Sequence[str] | None = None) -> Work:
    if meta(db, MetaKey.TEXT_VERSION) != TEXT_VERSION:
        for table in ("text_blobs", "text_files", "text_docs"):
            db.execute(f"DELETE FROM {table}")
        db.execute("DELETE FROM meta WHERE key = 'text_blobs'")
        db.execute("INSERT INTO text_fts(text_fts) VALUES ('delete-all')")
        set_meta(db, MetaKey.TEXT_VERSION, TEXT_VERSION)
        changed = None
    # What differs between the two tables: after a commit a few paths of 100,000.
    indexed, current = _differences(db, changed)
    stale = sorted(indexed)
    fresh = sorted(current)
    if not stale and not fresh:
        return Work(0, 0)
    cached = _load_cache(db, {indexed[p] for p in stale})
    if any(indexed[p] not in cached for p in stale):
        # The cache lost a document the index holds: its words cannot be given back, start over.
        db.execute("INSERT INTO text_fts(text_fts) VALUES ('delete-all')")
        db.execute("DELETE FROM text_docs")
        db.execute("DELETE FROM text_files")
        current = stored_paths.module_rows(db)
        stale, fresh = [], sorted(current)
    for path in stale:
        ptoks = " ".join(path_tokens(path))
        ids = [r[0] for r in db.execute("SELECT id FROM text_docs WHERE path = ? ORDER BY id", (path,))]
        docs = cached[indexed[path]]
        for rowid, d in zip(ids, docs):
            db.execute("INSERT INTO text_fts(text_fts, rowid, name, prose, body, path) VALUES ('delete', ?, ?, ?, ?, ?)",
                       (rowid, d[4], d[5], d[6], ptoks))
        db.execute("DELETE FROM text_docs WHERE path = ?", (path,))
        db.execute("DELETE FROM text_files WHERE path = ?", (path,))
    tokenized = 0
    for i in range(0, len(fresh), ROUND):
        tokenized += _index_round(db, read_blobs, fresh[i : i + ROUND], current)
    live = stored_paths.file_count(db)
    if _cached_blobs(db, tokenized) > CACHE_SLACK * live + 1000:
        db.execute("DELETE FROM text_blobs WHERE blob NOT IN (SELECT blob FROM text_files)")
        db.execute("DELETE FROM meta WHERE key = 'text_blobs'")
    return Work(len(fresh), tokenized)


def _index_round(db: sqlite3.Connection, read_blobs: Callable[[list[str]], dict[str, bytes]], paths: Sequence[str],
                 current: dict[str, tuple[int, str, str]]) -> int:
    """Index `paths`: their documents from the cache by blob, or tokenized (and cached) when the cache has none;
    return how many blobs were tokenized."""
    cached = _load_cache(db, {current[p][1] for p in paths})
    missing = sorted({current[p][1] for p in paths} - set(cached))
    if missing:
        wanted = set(missing)  # once: built for each path, it made the first index quadratic (hours at 100,000 files)
        spans_of = _spans_by_blob(db, [p for p in paths if current[p][1] in wanted], current)
        texts = read_blobs(missing)
        new_rows = []
        for sha in missing:
            data = texts.pop(sha, None)
            docs = blob_docs(_text_of(data), spans_of.get(sha, []))
            cached[sha] = docs
            new_rows.append((sha, _encode(docs)))
        db.executemany("INSERT OR REPLACE INTO text_blobs VALUES (?, ?)", new_rows)
    for path in paths:
        _, blob, module = current[path]
        ptoks = " ".join(path_tokens(path))
        for d in cached[blob]:
            qualname = f"{module}.{d[0]}" if d[0] else module
            rowid = db.execute("INSERT INTO text_docs(path, qualname, kind, line, end_line) VALUES (?, ?, ?, ?, ?)",
                               (path, qualname, d[1], d[2], d[3])).lastrowid
            db.execute("INSERT INTO text_fts(rowid, name, prose, body, path) VALUES (?, ?, ?, ?, ?)", (rowid, d[4], d[5], d[6], ptoks))
        db.execute("INSERT OR REPLACE INTO text_files VALUES (?, ?)", (path, blob))
    return len(missing)


def _text_of(data: bytes | None) -> str:
    """A blob's text for the tokenizer: at most MAX_BLOB_BYTES of it (a generated table of megabytes says little
    that its first megabyte does not, and would cost seconds)."""
    if data is None:
        return ""
    return data[:MAX_BLOB_BYTES].decode("utf-8", "replace")


def _cached_blobs(db: sqlite3.Connection, added: int) -> int:
    """How many blobs the cache holds, `added` new ones included: a count kept in meta, since counting the table
    reads all of it (20 ms at 100,000 files, on every commit's hook)."""
    kept = meta(db, MetaKey.TEXT_BLOBS)
    n = int(kept) + added if kept is not None and str(kept).isdigit() else db.execute("SELECT count(*) FROM text_blobs").fetchone()[0]
    set_meta(db, MetaKey.TEXT_BLOBS, str(n))
    return int(n)


def _load_cache(db: sqlite3.Connection, shas: Iterable[str]) -> dict[str, list[tuple[str, str, int, int, str, str, str]]]:
    out = {}
    for chunk in chunked(shas):
        for sha, data in db.execute(f"SELECT blob, docs FROM text_blobs WHERE blob IN ({marks(chunk)})", chunk):
            out[sha] = _decode(data)
    return out


def _spans_by_blob(db: sqlite3.Connection, paths: list[str], current: dict[str, tuple[int, str, str]]) -> dict[str, list[tuple[str, str, int, int]]]:
    """Module-relative (qualname, kind, line, end_line) of each blob's definitions, from the symbols table."""
    out: dict[str, list[tuple[str, str, int, int]]] = {}
    for path in paths:
        fid, blob, module = current[path]
        if blob in out:
            continue
        prefix = len(module) + 1
        out[blob] = [(q[prefix:], k, a, b) for q, k, a, b in stored_symbols.spans_of(db, fid)]
    return out


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 query matching any of the terms (they are lowercase letters and digits: nothing to escape)."""
    return " OR ".join(f'"{t}"' for t in terms)


class Damaged(Exception):
    """The index could not be read (a row that does not decode, a malformed page): rebuild it (maintain.rebuild)."""


def search(db: sqlite3.Connection, terms: Sequence[str], *, limit: int = 200, weights: Sequence[float] = WEIGHTS) -> list[Hit]:
    if not terms:
        return []
    try:
        return _search(db, terms, limit, weights)
    except sqlite3.DatabaseError as e:
        raise Damaged(str(e)) from e


def _search(db: sqlite3.Connection, terms: Sequence[str], limit: int, weights: Sequence[float]) -> list[Hit]:
    cur = db.cursor()
    try:
        rows = cur.execute(
            "SELECT d.path, d.qualname, d.kind, d.line, d.end_line, -m.s FROM"
            f" (SELECT rowid, bm25(text_fts, {', '.join(str(float(w)) for w in weights)}) AS s FROM text_fts"
            "  WHERE text_fts MATCH ? ORDER BY s LIMIT ?) m"
            " JOIN text_docs d ON d.id = m.rowid ORDER BY m.s, d.path, d.line",
            (match_expression(terms), limit),
        ).fetchall()
    finally:
        cur.close()  # a statement left open on a row that failed to decode would lock the tables a rebuild drops
    return [Hit(*r) for r in rows]


#: In an index this large, a term found in more than COMMON_SHARE of the documents is left out of a query that
#: has at least two other terms: it costs the most time (every document holding it is scored) and weighs the least.
LARGE_INDEX = 20000
COMMON_SHARE = 0.2
#: And the terms of a query hold at most this many documents between them (the most common are left out first,
#: down to the two rarest): BM25 scores every document a term holds, so without a cap the query would cost what
#: the repository holds (about 1 microsecond a document: 0.3 s on a 100,000-file monorepo), while a term that
#: common weighs little against the rarer ones kept. Indexes of Django's size rarely reach it.
POSTINGS_BUDGET = 50000


def useful_terms(db: sqlite3.Connection, terms: Sequence[str]) -> list[str]:
    try:
        n = db.execute("SELECT max(id) FROM text_docs").fetchone()[0] or 0
    except sqlite3.DatabaseError as e:
        raise Damaged(str(e)) from e
    if n <= LARGE_INDEX or len(terms) < 3:
        return list(terms)
    dfs = document_frequencies(db, terms)
    keep = [t for t in terms if dfs.get(t, 0) <= COMMON_SHARE * n]
    if len(keep) < 2:
        keep = list(terms)
    return within_budget(keep, dfs, POSTINGS_BUDGET)


def within_budget(terms: Sequence[str], dfs: dict[str, int], budget: int) -> list[str]:
    """`terms` less the most common ones, until the documents they hold fit in `budget`; never fewer than two."""
    kept = sorted(dict.fromkeys(terms), key=lambda t: (dfs.get(t, 0), t))
    total = sum(dfs.get(t, 0) for t in kept)
    while total > budget and len(kept) > 2:
        total -= dfs.get(kept.pop(), 0)
    chosen = set(kept)
    return [t for t in terms if t in chosen]


def document_frequencies(db: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
    """How many documents hold each term (from the fts5vocab view)."""
    if not terms:
        return {}
    q = f"SELECT term, doc FROM text_vocab WHERE term IN ({','.join('?' * len(terms))})"
    try:
        return dict(db.execute(q, list(terms)))
    except sqlite3.DatabaseError as e:
        raise Damaged(str(e)) from e
