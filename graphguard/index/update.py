"""Bring the stored graph to a commit: parse only unseen blobs, re-resolve only what they affect.

    ls-tree HEAD -> (path, blob) -> blobs not in the cache are parsed (in
    parallel when there are many) -> the files whose resolution can change are
    re-resolved -> one transaction replaces their rows.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import time
from collections.abc import Callable

from graphguard import git
from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.index import progress
from graphguard.index.dirty import Dirty
from graphguard.index.facts import UNREADABLE
from graphguard.index.plan import Entry, Plan, facts_key, is_config, rebuild_is_cheaper
from graphguard.index.progress import HOOK_VARIABLE, Phases
from graphguard.index.restore import Restore
from graphguard.index.rows import add_file, add_resolution, digests_of, module_of
from graphguard.index.storedmap import _StoredMap
from graphguard.index.workers import _Job, resolve
from graphguard.languages.python.modules import Layout, ModuleMap
from graphguard.model import FileFacts, IndexResult
from graphguard.resolved import FileResolution
from graphguard.store import Store
from graphguard.store import rows as stored_rows
from graphguard.store.paths import file_count
from graphguard.store.writes import _Rows, write, write_empty


class Indexer(Dirty, Restore):
    def __init__(
        self, paths: git.RepoPaths, store: Store, *, progress: bool = False, lock_timeout: float = 30.0, config: Config | None = None,
        text_index: bool = True,
    ):
        self.paths = paths
        # Retrieval's text index is built with the graph (no query pays for it), except where the graph moves on the
        # pre-commit hook's critical path: the refresher after the commit brings it along.
        self.text_index = text_index
        self.root = paths.root
        self.store = store
        # On a terminal; and in a git hook on any stderr (an IDE logs it, the pre-commit framework shows it after the
        # hook, so plain lines there): a commit that waits for a cold index must say why. A script's stderr stays quiet.
        in_hook = bool(os.environ.get("PRE_COMMIT") or os.environ.get(HOOK_VARIABLE))
        self.progress = progress and (sys.stderr.isatty() or in_hook)
        self.phases = Phases(self.progress, tty=sys.stderr.isatty() and not os.environ.get("PRE_COMMIT"))
        self._facts: dict[str, FileFacts] = {}
        self._raw: dict[str, str] = {}
        # Warnings of the facts that resolution workers decoded (the parent never sees those facts).
        self._warned: dict[str, tuple[str, ...]] = {}
        self.lock_timeout = lock_timeout
        self.config = config or load_config(self.root)
        self._tests: dict[str, bool] = {}
        self._stored_head: str | None = None
        self._old_map: ModuleMap | None = None
        self._unsaved: list[tuple[str, str]] = []  # parsed, not yet in the blob cache
        self._configs_changed = False  # the update's changes touch a config file of module resolution (plan.is_config)

    def is_test(self, path: str) -> bool:
        known = self._tests.get(path)
        if known is None:
            known = self._tests[path] = bool(self.config.is_test(path))
        return known

    def is_current(self, head: str) -> bool:
        return self.store.meta("head") == head and self.store.meta("config") == self.config.digest()

    def update(self, head: str | None = None) -> IndexResult:
        t0 = time.perf_counter()
        head = head if head is not None else git.head(self.root)
        store = self.store
        if head is None:  # no commit yet: an empty graph
            with store.write_lock(self.lock_timeout), store.transaction() as db:
                write_empty(db)
            return IndexResult(None, noop=True)
        if self.is_current(head):
            return IndexResult(head, noop=True, elapsed_ms=int((time.perf_counter() - t0) * 1000))
        with store.write_lock(self.lock_timeout):
            if self.is_current(head):  # another process did it while we waited
                return IndexResult(head, noop=True)
            changes = self._changes(head)
            if self._from_snapshot(head, changes):
                result = self._restored(head)
            else:
                if self.store.meta("head") != self._stored_head:  # started from a snapshot: its changes, not the graph's
                    changes = self._changes(head)
                result = self._update(head, changes)
            from graphguard.retrieval.maintain import after_index

            with self.phases("history and text index", "updating history and text index" if result.resolved >= progress.SHOW_FROM else ""):
                after_index(store, self.root, head, text=self.text_index)
        result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
        return result

    def _update(self, head: str, changes: list[git.RawChange] | None) -> IndexResult:
        gc.disable()
        self._configs_changed = changes is not None and any(is_config(c.path) for c in changes)
        try:
            delta = self._delta(changes)
            return self._update_delta(head, delta) if delta is not None else self._update_unsafe(head)
        finally:
            gc.enable()

    # an update that costs the change: files modified in place, none added or removed

    def _update_delta(self, head: str, modified: dict[str, Entry]) -> IndexResult:
        db = self.store.graph
        with self.phases("list files"):
            paths = sorted(modified)
            old = stored_rows.rows_of(db, paths)
            n_old = file_count(db)
            roots = tuple(json.loads(self.store.meta("module_roots2") or "[]"))
        if len(old) < len(modified) or not roots:  # a file the graph does not have: not a modification after all
            return self._update_unsafe(head)
        changed = [p for p in paths if old[p][1] != modified[p].blob]
        parsed = self.ensure_facts(modified[p] for p in changed)
        modmap = _StoredMap(self, roots)
        with self.phases("find dirty"):
            digests = {p: digests_of(p, self.facts(facts_key(p, modified[p].blob)) or FileFacts()) for p in changed}
            dirty = self._dirty(old, n_old, [], [], changed, digests, modmap, {p: modified[p].blob for p in changed})
        if rebuild_is_cheaper(len(dirty), n_old):
            return self._update_unsafe(head, rebuild=True)
        ids = {p: v[0] for p, v in old.items()}
        job = _Job(self, modified, ids, set(changed), modmap, digests, sorted(dirty), stored=True, head=head)
        sources = resolve(self, job)
        self._write(head, job, sources, [], [ids[p] for p in changed], [job.id_of(p) or 0 for p in dirty], None, rebuild=False)
        warnings = [(str(p), str(w)) for p, w in json.loads(self.store.meta("snapshot_warnings") or "[]")]
        for path in changed:
            f = self._facts.get(modified[path].blob)
            warnings.extend((path, w) for w in (f.warnings if f is not None else ()))
        return IndexResult(head, files=n_old, parsed=parsed, resolved=len(dirty), warnings=warnings)

    # an update that lists the whole tree

    def _update_unsafe(self, head: str, *, rebuild: bool = False) -> IndexResult:
        db = self.store.graph
        with self.phases("list files"):
            entries, warnings = self.snapshot(head)
            new = {e.path: e for e in entries}
            old = stored_rows.every_row(db)
        plan, parsed, modmap, digests = self._plan(new, old, rebuild=rebuild)
        gone = set(plan.removed)
        ids = {p: v[0] for p, v in old.items() if p not in gone}
        next_id = max(ids.values(), default=0) + 1
        for path in sorted(plan.changed - ids.keys()):  # the ids SQLite would give them, in the order it would
            ids[path] = next_id
            next_id += 1
        job = _Job(self, new, ids, plan.changed, modmap, digests, sorted(plan.dirty | plan.changed), head=head)
        sources = resolve(self, job)
        self.save_facts()
        self._write(head, job, sources, [old[p][0] for p in plan.removed], [old[p][0] for p in plan.changed if p in old],
                    [old[p][0] for p in plan.dirty if p in old], warnings, rebuild=plan.rebuild, roots=modmap.roots,
                    layout=Layout.of(new, self.config.test_data))
        for e in entries:
            f = self._facts.get(e.blob)
            warnings.extend((e.path, w) for w in (f.warnings if f is not None else self._warned.get(e.blob, ())))
        return IndexResult(head, files=len(new), parsed=parsed, resolved=len(plan.dirty), warnings=warnings)

    def _plan(
        self, new: dict[str, Entry], old: dict[str, tuple[int, str, str, str]], *, rebuild: bool
    ) -> tuple[Plan, int, ModuleMap, dict[str, dict[str, str]]]:
        """The plan of an update from the stored rows `old` to the tree `new`, and what making it took: how many
        blobs it parsed, the module map of `new`, the interface digests of the changed files (none when cold)."""
        added = [p for p in new if p not in old]
        removed = [p for p in old if p not in new]
        if not old and self.progress and len(added) >= progress.SHOW_FROM:
            print(f"graphguard: no graph of this repository yet: building it from {len(added)} files, once (graphguard"
                  " install starts it in the background; graphguard index builds it beforehand)", file=sys.stderr, flush=True)
        modified = [p for p in new if p in old and old[p][1] != new[p].blob]
        # A first index decodes the facts while they are parsed: resolution needs every one of them.
        parsed = self.ensure_facts((new[p] for p in added + modified), decode=not old, defer_save=True)

        with self.phases("module map"):
            modmap = ModuleMap.build(new, self.config.test_data)
            cold = (
                rebuild
                or not old
                or self.store.meta("config") != self.config.digest()
                or any(module_of(modmap, p) != old[p][2] for p in new if p in old)
            )
        with self.phases("find dirty"):
            # Interface digests tell which names changed; a rebuild needs them only for the files' rows.
            digests = {} if cold else {p: digests_of(p, self.facts(facts_key(p, new[p].blob)) or FileFacts()) for p in added + modified}
            self._old_map = ModuleMap.build(old, self.config.test_data) if (added or removed) and not cold else modmap
            dirty = set(new) if cold else self._dirty(dict(old), len(old), added, removed, modified, digests, modmap,
                                                      {p: new[p].blob for p in modified})
            if rebuild_is_cheaper(len(dirty), len(new)):
                dirty = set(new)
        # Only when every file is re-resolved may the tables be emptied and rewritten whole.
        return Plan(added, modified, removed, dirty, rebuild=dirty == set(new)), parsed, modmap, digests

    def _rows(self, job: _Job, paths: list[str], tick: Callable[[int], None] | None = None) -> _Rows:
        """The rows of `paths` (sorted): a changed file's row and symbols, and every file's sites, imports and edges."""
        rows = _Rows()
        for path in paths:
            if path in job.changed:
                self._file_rows(job, path, rows)
        for i, path in enumerate(paths, 1):
            self._resolution_rows(job, job.resolve_file(path), rows)
            if tick and i % 50 == 0:
                tick(i)
        return rows

    def _file_rows(self, job: _Job, path: str, rows: _Rows) -> None:
        e = job.new[path]
        add_file(rows, job.ids[path], path, e.blob, self.facts(facts_key(path, e.blob)) or UNREADABLE, module_of(job.modmap, path),
                 is_test=self.is_test(path), digests=job.digests.get(path))

    def _resolution_rows(self, job: _Job, r: FileResolution, rows: _Rows) -> None:
        add_resolution(rows, r, job.id_of, self.is_test)

    # the write


    def _write(
        self, head: str, job: _Job, sources: list[_Rows | tuple[str, int]], gone: list[int], changed_ids: list[int],
        resolved_ids: list[int], warnings: list[tuple[str, str]] | None, *, rebuild: bool, roots: tuple[str, ...] | None = None,
        layout: Layout | None = None,
    ) -> None:
        """The rows in one transaction (store.writes.write); then the workers' scratch databases go."""
        label = "writing the graph" if len(job.paths) >= progress.SHOW_FROM else ""
        try:
            with self.phases("write", label):
                write(self.store.graph, self.store.transaction, head, self.config.digest(), sources, gone, changed_ids, resolved_ids, warnings,
                      rebuild=rebuild, roots=roots, layout=layout, phase=self.phases)
        finally:
            if job.scratch:
                shutil.rmtree(job.scratch, ignore_errors=True)
