"""The SQL schemas of the graph, the blob cache and the text index, their versions, and the graph's meta keys."""

from __future__ import annotations

import sqlite3
from enum import Enum
from typing import Protocol

from graphguard.versions import BLOB_VERSION, FACTS_VERSION, SCHEMA_VERSION

BLOB_SCHEMA_VERSION = BLOB_VERSION * 100 + FACTS_VERSION  # cached facts of another parser are re-parsed

#: The graph's `PRAGMA user_version`. Facts of another parser version mean a graph resolved from them: rebuild it too.
GRAPH_VERSION = SCHEMA_VERSION * 1000 + FACTS_VERSION


class MetaKey(str, Enum):
    """The keys of the graph's meta table (the values are what stored graphs hold: never change one)."""

    HEAD = "head"  # the commit the graph describes ('' when there is none)
    CONFIG = "config"  # the digest of the configuration it was built with
    SNAPSHOT_WARNINGS = "snapshot_warnings"
    MODULE_ROOTS = "module_roots2"
    MODULE_LAYOUT = "module_layout2"
    MODULE_LAYOUT_HEAD = "module_layout_head"
    HISTORY_HEAD = "history_head"
    TEXT_STATE = "text_state"
    TEXT_VERSION = "text_version"
    TEXT_BLOBS = "text_blobs"
    TEXT_CONFIG = "text_config"
    TEXT_WORK = "text_work"
    RETRIEVAL_FIT = "retrieval_fit"

    def __str__(self) -> str:
        return self.value


def meta(conn: sqlite3.Connection, key: MetaKey) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key.value,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: MetaKey, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key.value, value))


class _HasMeta(Protocol):
    def meta(self, key: str) -> str | None: ...


def head(store: _HasMeta) -> str | None:
    """The commit the stored graph describes (None before a first build, '' for a repository without one)."""
    return store.meta(MetaKey.HEAD.value)


def describes(store: _HasMeta, head: str | None, config_digest: str) -> bool:
    """Whether the stored graph describes `head`, built with the configuration of this digest (two meta reads)."""
    return store.meta(MetaKey.HEAD.value) == head and store.meta(MetaKey.CONFIG.value) == config_digest

TEXT_SCHEMA = """
-- Retrieval's text index (graphguard/retrieval/textindex.py): token text per blob, BM25 over symbols.
CREATE TABLE text_blobs(blob TEXT PRIMARY KEY, docs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE text_files(path TEXT PRIMARY KEY, blob TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE text_docs(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
    line INTEGER NOT NULL, end_line INTEGER NOT NULL
);
CREATE INDEX text_docs_path ON text_docs(path);
CREATE VIRTUAL TABLE text_fts USING fts5(name, prose, body, path, content='', tokenize='unicode61');
CREATE VIRTUAL TABLE text_vocab USING fts5vocab(text_fts, 'row');
"""

GRAPH_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, blob TEXT NOT NULL, module TEXT NOT NULL,
    is_test INTEGER NOT NULL, iface TEXT, parsed INTEGER NOT NULL, warnings TEXT
);
CREATE TABLE symbols(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, qualname TEXT NOT NULL, name TEXT NOT NULL,
    kind TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature TEXT NOT NULL,
    bases TEXT
);
CREATE INDEX symbols_qualname ON symbols(qualname);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX symbols_file ON symbols(file_id);
-- One row per use of a name: kind is call | reference | inherit | import.
CREATE TABLE sites(
    file_id INTEGER NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL, text TEXT NOT NULL,
    name TEXT NOT NULL, resolution TEXT NOT NULL, target TEXT, init_target TEXT,
    line INTEGER NOT NULL, end_line INTEGER NOT NULL, col INTEGER NOT NULL, end_col INTEGER NOT NULL,
    n_positional INTEGER NOT NULL, keywords TEXT NOT NULL, has_star INTEGER NOT NULL, has_starstar INTEGER NOT NULL
);
CREATE INDEX sites_target ON sites(target) WHERE target IS NOT NULL;
CREATE INDEX sites_init ON sites(init_target) WHERE init_target IS NOT NULL;
CREATE INDEX sites_unresolved_name ON sites(name) WHERE resolution = 'unresolved';
CREATE INDEX sites_limited_name ON sites(name) WHERE resolution IN ('too-deep', 'too-long');
CREATE INDEX sites_file ON sites(file_id);
-- File to file: kind import (n_symbols distinct symbols used) or test-of.
CREATE TABLE file_edges(
    src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL, n_symbols INTEGER NOT NULL,
    PRIMARY KEY(src, dst, kind)
) WITHOUT ROWID;
CREATE INDEX file_edges_dst ON file_edges(dst, kind);
CREATE TABLE imports(
    file_id INTEGER NOT NULL, line INTEGER NOT NULL, module TEXT NOT NULL, name TEXT,
    status TEXT NOT NULL, target_file INTEGER, scope TEXT NOT NULL, type_checking INTEGER NOT NULL,
    form TEXT, category TEXT
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_module ON imports(module);
""" + TEXT_SCHEMA + """
-- Retrieval's git history (graphguard/retrieval/history.py).
CREATE TABLE history_commits(id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, time INTEGER NOT NULL, n_files INTEGER NOT NULL);
CREATE TABLE history_paths(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE history_touches(path_id INTEGER NOT NULL, commit_id INTEGER NOT NULL, PRIMARY KEY(path_id, commit_id)) WITHOUT ROWID;
CREATE INDEX history_touches_commit ON history_touches(commit_id);
"""

BLOB_SCHEMA = """
CREATE TABLE blobs(sha TEXT PRIMARY KEY, facts BLOB NOT NULL, crc INTEGER NOT NULL) WITHOUT ROWID;
"""
