"""A graph in memory, built from source texts by the indexer's own steps: for tests of what reads a graph.

`in_memory({"pkg/a.py": "def f(x): ...", "pkg/b.py": "from pkg.a import f\\nf(1)\\n"})` parses each file through
its `Language` (the facts the indexer caches), builds the module map, resolves every file with its language's
resolver and writes the rows (index.rows) in the one transaction of a rebuild (store.writes.write) into a
SQLite database in memory with the graph's schema (store.db.open_memory). No git, no files: the blobs are the
SHAs git would give the texts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping

from graphguard import git
from graphguard.config import Config
from graphguard.index.facts import parse_blob
from graphguard.index.plan import facts_key, is_config
from graphguard.index.rows import add_file, add_resolution, module_of
from graphguard.languages import FileResolver, Tree, for_path
from graphguard.languages.python.modules import Layout, ModuleMap
from graphguard.languages.python.resolver import Resolver
from graphguard.model import FileFacts
from graphguard.resolved import FileResolution
from graphguard.store.db import open_memory, transaction
from graphguard.store.reads import CodeGraph
from graphguard.store.schema import GRAPH_SCHEMA, GRAPH_VERSION
from graphguard.store.writes import _Rows, write

#: The commit an in-memory graph says it describes.
MEMORY_HEAD = "0" * 40


class MemoryGraph(CodeGraph):
    """A CodeGraph over an in-memory database, with what built it: each file's bytes, blob and facts, the module map."""

    def __init__(self, files: Mapping[str, bytes], config: Config):
        super().__init__(open_memory(GRAPH_SCHEMA, GRAPH_VERSION))
        self.config = config
        self.files = dict(files)  # every file, indexed or not (a language's resolver reads its config files)
        self.data = {p: d for p, d in sorted(files.items()) if for_path(p) is not None and not config.is_excluded(p)}
        self.blobs = {p: git.blob_sha(d) for p, d in self.data.items()}
        self.facts = {p: FileFacts.from_json(parse_blob(d, facts_key(p, self.blobs[p]))) for p, d in self.data.items()}
        self._by_blob = {self.blobs[p]: f for p, f in self.facts.items()}
        self.modmap = ModuleMap.build(self.data, config.test_data)

    def facts_of_blob(self, sha: str) -> FileFacts | None:
        """The facts of a blob of this graph (what the indexer's `facts` answers): a source of facts."""
        return self._by_blob.get(sha)

    def facts_of(self, path: str) -> FileFacts | None:
        return self.facts.get(path)


def in_memory(files: Mapping[str, str | bytes], *, config: Config | None = None) -> MemoryGraph:
    """The graph of `files` (path -> source text) as a first index of a commit holding them writes it."""
    graph = MemoryGraph({p: d.encode() if isinstance(d, str) else d for p, d in files.items()}, config or Config())
    paths = sorted(graph.data)
    ids = {p: i for i, p in enumerate(paths, 1)}
    rows = _Rows()
    for path in paths:
        add_file(rows, ids[path], path, graph.blobs[path], graph.facts[path], module_of(graph.modmap, path),
                 is_test=bool(graph.config.is_test(path)), digests=None)
    resolve = _resolving(graph)
    for path in paths:
        add_resolution(rows, resolve(path), ids.get, lambda p: bool(graph.config.is_test(p)))
    db = graph.db
    write(db, lambda: transaction(db), MEMORY_HEAD, graph.config.digest(), [rows], [], [], [], [], rebuild=True,
          roots=graph.modmap.roots, layout=Layout.of(paths, graph.config.test_data), phase=lambda _: contextlib.nullcontext())
    return graph


def _resolving(graph: MemoryGraph) -> Callable[[str], FileResolution]:
    """A file's resolution by its language's resolver, one per language (as index.workers._Job.resolve_file)."""
    python = Resolver(graph.modmap, graph.facts_of)
    others: dict[str, FileResolver] = {}

    def resolve(path: str) -> FileResolution:
        lang = for_path(path)
        if lang is None or not lang.by_path:
            return python.resolve_file(path)
        if lang.name not in others:
            # As index.workers._Job lists them from the commit's tree: its config files and the files no language reads.
            configs = [p for p in sorted(graph.files) if is_config(p)]
            assets = [p for p in sorted(graph.files) if for_path(p) is None]
            others[lang.name] = lang.resolver(Tree(sorted(p for p in graph.data if lang.claims(p)), graph.facts_of, graph.files.get,
                                                   configs=configs, assets=assets))
        return lang.resolve_file(others[lang.name], path)

    return resolve
