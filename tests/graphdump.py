"""A whole graph database as plain, id-free rows: two graphs of one commit must dump equal.

Row ids differ between an incremental graph and a fresh one, so every id is
replaced by the path it stands for, and every table is sorted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

QUERIES = {
    "meta": "SELECT key, value FROM meta WHERE key IN ('head', 'config')",
    "files": "SELECT path, blob, module, is_test, iface, parsed, warnings FROM files",
    "symbols": """SELECT f.path, s.qualname, s.name, s.kind, s.line, s.end_line, s.signature, s.bases
                  FROM symbols s JOIN files f ON f.id = s.file_id""",
    "sites": """SELECT f.path, s.kind, s.scope, s.text, s.name, s.resolution, s.target, s.init_target, s.line,
                       s.end_line, s.col, s.end_col, s.n_positional, s.keywords, s.has_star, s.has_starstar
                FROM sites s JOIN files f ON f.id = s.file_id""",
    "imports": """SELECT f.path, i.line, i.module, i.name, i.status, t.path, i.scope, i.type_checking
                  FROM imports i JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file""",
    "file_edges": """SELECT a.path, b.path, e.kind, e.n_symbols
                     FROM file_edges e JOIN files a ON a.id = e.src JOIN files b ON b.id = e.dst""",
    # Rows whose file id points nowhere are damage a join would hide: count them.
    "orphans": """SELECT 'symbols', count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)
                  UNION ALL SELECT 'sites', count(*) FROM sites WHERE file_id NOT IN (SELECT id FROM files)
                  UNION ALL SELECT 'imports', count(*) FROM imports WHERE file_id NOT IN (SELECT id FROM files)
                  UNION ALL SELECT 'file_edges', count(*) FROM file_edges
                            WHERE src NOT IN (SELECT id FROM files) OR dst NOT IN (SELECT id FROM files)""",
}


def dump(graph_path: str | Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table of the graph at `graph_path` as sorted rows, ids replaced by paths."""
    conn = sqlite3.connect(f"file:{graph_path}?mode=ro", uri=True)
    try:
        return {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in QUERIES.items()}
    finally:
        conn.close()


def differences(a: dict[str, list[tuple[object, ...]]], b: dict[str, list[tuple[object, ...]]], limit: int = 5) -> list[str]:
    """A short account of how two dumps differ (empty when they are equal)."""
    out = []
    for table in QUERIES:
        only_a = sorted(set(a[table]) - set(b[table]), key=repr)
        only_b = sorted(set(b[table]) - set(a[table]), key=repr)
        if only_a or only_b or len(a[table]) != len(b[table]):
            out.append(f"{table}: {len(a[table])} vs {len(b[table])} rows; only in first {only_a[:limit]}; only in second {only_b[:limit]}")
    return out
