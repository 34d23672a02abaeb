"""The rows a file gives the graph: its row and symbols (when it changed), its sites, imports and edges (when it
is resolved). The indexer and the in-memory graph (index.memory) write through these, so both hold the same rows."""

from __future__ import annotations

import json
from collections.abc import Callable

from graphguard.languages import for_path, symbol_name
from graphguard.languages.python.digests import interface_digests
from graphguard.languages.python.modules import ModuleMap
from graphguard.model import FileFacts
from graphguard.resolved import FileResolution
from graphguard.store.writes import _Rows


def module_of(modmap: ModuleMap, path: str) -> str:
    """A file's module name: Python's from the map; a language's that names modules by path, the path."""
    lang = for_path(path)
    return path if lang is not None and lang.by_path else modmap.module_of(path)


def digests_of(path: str, facts: FileFacts) -> dict[str, str]:
    """The interface digests of a file, by its language."""
    lang = for_path(path)
    return lang.interface(facts) if lang is not None and lang.by_path else interface_digests(facts)


def add_file(rows: _Rows, fid: int, path: str, blob: str, facts: FileFacts, module: str, *, is_test: bool,
             digests: dict[str, str] | None) -> None:
    """A changed file's row (`digests`: its interface digests when known already) and its definitions."""
    rows.files.append((fid, path, blob, module, int(is_test), json.dumps(digests or digests_of(path, facts)),
                       int(facts.parsed), json.dumps(facts.warnings) if facts.warnings else None))
    rows.symbols.extend(
        (fid, symbol_name(path, module, d.qualname), d.qualname.rsplit(".", 1)[-1], d.kind.value, d.line, d.end_line, d.signature,
         json.dumps(d.bases) if d.bases else None)
        for d in facts.definitions
    )


def add_resolution(rows: _Rows, r: FileResolution, id_of: Callable[[str], int | None], is_test: Callable[[str], bool]) -> None:
    """A resolved file's sites, imports and edges: one import edge per file it uses, and a test's `test-of` edge
    to each file it uses that is not a test."""
    fid = id_of(r.path)
    assert fid is not None
    rows.sites.extend(
        (fid, s.kind, s.scope, s.text, s.name, s.resolution.value, s.target, s.init_target, s.line, s.end_line,
         s.col, s.end_col, s.shape.n_positional, ",".join(s.shape.keywords), int(s.shape.has_star), int(s.shape.has_starstar))
        for s in r.sites
    )
    rows.imports.extend(
        (fid, i.line, i.module, i.name, i.status, id_of(i.target_path) if i.target_path else None, i.scope, int(i.type_checking),
         i.form, i.category)
        for i in r.imports
    )
    test = is_test(r.path)
    for dst, symbols in r.uses.items():
        dst_id = id_of(dst)
        if dst_id is None:
            continue
        rows.edges.append((fid, dst_id, "import", len(symbols)))
        if test and not is_test(dst):
            rows.edges.append((fid, dst_id, "test-of", len(symbols)))
