"""Bring the stored graph to a commit: parse only unseen blobs, re-resolve only what they affect.

    ls-tree HEAD -> (path, blob) -> blobs not in the cache are parsed (in
    parallel when there are many) -> the files whose resolution can change are
    re-resolved -> one transaction replaces their rows.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from graphguard import git
from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.errors import GraphguardError
from graphguard.files import ensure_dir
from graphguard.languages.python.digests import EVERY_NAME, changed_names, interface_digests, returns_of
from graphguard.languages.python.modules import LAYOUT_HEAD_KEY, LAYOUT_KEY, Layout, ModuleMap, importable_spelling, is_python
from graphguard.languages.python.modules import names_of as module_names  # the indexer has a names_of of its own
from graphguard.languages.python.resolver import Resolver
from graphguard.model import DefKind, FileFacts, FileResolution, IndexResult
from graphguard.store import Store

#: The facts of a file whose blob git could not give (a missing object, a shallow or damaged clone).
UNREADABLE = FileFacts(warnings=("git could not read the file's contents; not parsed",), parsed=False)
#: Below this many unseen blobs a process pool costs more than it saves.
PARALLEL_THRESHOLD = 64
CHUNK = 48


@dataclass(frozen=True)
class Entry:
    path: str
    blob: str


# --- parsing (runs in worker processes: module-level, picklable) ----------------------------


#: An update whose plan re-resolves more than this share of the stored files (and at least REBUILD_FROM of
#: them) rebuilds the graph instead: every file resolved from a module map in memory into emptied tables costs
#: less than that many resolved through the stored map with their rows replaced one by one. Measured on
#: ansible (1,554 files): 375 files re-resolved in 10.5 s, all 1,554 rebuilt in 7.2 s; even at 0.16.
REBUILD_SHARE = 0.15
#: Below this many files to re-resolve an update is quick whichever way it goes: it keeps its plan.
REBUILD_FROM = 100


def rebuild_is_cheaper(dirty: int, files: int) -> bool:
    """Would re-resolving `dirty` of `files` cost more than a rebuild? Measured by the plan's size."""
    return dirty >= REBUILD_FROM and dirty > REBUILD_SHARE * files


def parse_blob(data: bytes) -> str:
    from graphguard.languages.python import parse as python

    try:
        facts = python.parse(data)
    except RecursionError:
        facts = python.skipped("too deeply nested to parse")
    return facts.to_json()


def _parse_chunk(chunk: list[tuple[str, bytes]]) -> list[tuple[str, str]]:
    gc.disable()  # millions of short-lived nodes; the cyclic collector only slows this down
    return [(sha, parse_blob(data)) for sha, data in chunk]


#: prctl(2) option: the signal a process gets when the thread that forked it dies.
PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Worker initializer: never outlive the indexer. A worker left behind by a killed (kill -9,
    OOM) parent would block forever on the task pipe it shares with its siblings."""
    if not (sys.platform == "linux" and _kill_me_with_my_parent()):
        import threading

        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="graphguard-watchdog").start()
    if os.getppid() != parent:  # the parent died before the line above: no signal will come
        os._exit(1)


def _kill_me_with_my_parent() -> bool:
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """Where prctl is missing: poll for the parent, whose death re-parents this process."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _can_fork() -> bool:
    """Workers are forked, never spawned: spawn and forkserver start a new interpreter in the
    current directory (the analysed repository) with that directory first on sys.path, so a
    repository file named `multiprocessing.py`, `graphguard/` or `libcst/` would be imported and
    run. Where fork is missing (Windows) the parse stays in this process."""
    import multiprocessing  # 8 ms: only when there is a pool to make

    return "fork" in multiprocessing.get_all_start_methods()


def _parse_stream(blobs: list[tuple[str, bytes]]) -> Iterator[list[tuple[str, str]]]:
    """(sha, facts JSON) of the blobs, a chunk at a time as workers finish them (in this process when there
    are few). Workers die with this process and never hold the write lock (store.Lock); if one dies (the OOM
    killer), the chunks it left are parsed here, after a warning."""
    total = len(blobs)
    workers = min(os.cpu_count() or 1, 8)
    if total < PARALLEL_THRESHOLD or workers < 2 or not _can_fork():
        for i in range(0, total, CHUNK):
            yield [(sha, parse_blob(data)) for sha, data in blobs[i : i + CHUNK]]
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # Big files first so that the last chunk is not the slow one.
    blobs = sorted(blobs, key=lambda b: -len(b[1]))
    n = max(1, total // CHUNK)
    chunks = [blobs[i::n] for i in range(n)]
    left: list[tuple[str, bytes]] = []
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"), initializer=_die_with_parent, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(_parse_chunk, chunk) for chunk in chunks]
        for chunk, future in zip(chunks, futures):
            try:
                done = future.result()
            except BrokenProcessPool:
                left.extend(chunk)
                continue
            yield done
    finally:
        pool.shutdown(cancel_futures=True)
    if left:
        print(f"graphguard: warning: a parse worker died (killed, or out of memory?); parsing the {len(left)} files"
              " it had not done in this process", file=sys.stderr)
        for i in range(0, len(left), CHUNK):
            yield [(sha, parse_blob(data)) for sha, data in left[i : i + CHUNK]]


def parse_blobs(blobs: list[tuple[str, bytes]], progress: Callable[[int, int], None] | None = None) -> list[tuple[str, str]]:
    """(sha, facts JSON) for each blob: in worker processes when there are many (see _parse_stream)."""
    out: list[tuple[str, str]] = []
    for chunk in _parse_stream(blobs):
        out.extend(chunk)
        if progress:
            progress(len(out), len(blobs))
    return out


# --- the update -----------------------------------------------------------------------------


def _stored_digests(raw: str | None) -> dict[str, str]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {EVERY_NAME: ""}  # unreadable: assume everything changed
    return value if isinstance(value, dict) else {EVERY_NAME: ""}


class Phases:
    """Wall time per phase of one update (`times`: bench/index_bench.py prints them) and, when `show`, its progress
    on stderr: on a terminal one line per phase that counts up in place (`graphguard: resolving 1200/2818 files`) and
    ends with the phase's time; elsewhere (an IDE's git console, the pre-commit framework's capture, a CI log) plain
    lines, one at the start, one every PLAIN_EVERY seconds, one at the end."""

    def __init__(self, show: bool, tty: bool = True):
        self.show = show
        self.tty = tty
        self.times: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.times[name] = self.times.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def __call__(self, name: str, label: str = "", total: int = 0) -> Iterator[Callable[[int], None]]:
        """Time the phase `name`; with a `label` show its progress. Yields `tick(done)`."""
        start = time.perf_counter()
        shown = self.show and bool(label)
        every, end, begin = (0.1, "", "\r") if self.tty else (PLAIN_EVERY, "\n", "")
        last = start

        def tick(done: int) -> None:
            nonlocal last
            now = time.perf_counter()
            if shown and (now - last >= every or (self.tty and done >= total)):
                last = now
                print(f"{begin}graphguard: {label} {done}/{total}", end=end, file=sys.stderr, flush=True)

        if shown:
            print(f"{begin}graphguard: {label}" + (f" 0/{total}" if total else "..."), end=end, file=sys.stderr, flush=True)
        try:
            yield tick
        finally:
            elapsed = time.perf_counter() - start
            self.add(name, elapsed)
            if shown:
                count = f" {total}/{total}" if total else ""
                print(f"{begin}graphguard: {label}{count} in {elapsed:.1f} s" + ("\x1b[K" if self.tty else ""), file=sys.stderr,
                      flush=True)


#: Seconds between two progress lines where stderr is no terminal.
PLAIN_EVERY = 5.0
#: Set by `graphguard hook-impl` (the native hooks): this process runs inside a git hook.
HOOK_VARIABLE = "GRAPHGUARD_HOOK"


#: Below this many files to parse or re-resolve, an update shows no progress lines (it is over at once).
SHOW_FROM = 50


class Indexer:
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

    # facts by blob, from this run's parse or the cache

    def facts(self, sha: str) -> FileFacts | None:
        f = self._facts.get(sha)
        if f is None:
            # Not cached (or dropped as damaged): parse it again rather than resolve without it.
            raw = self._raw.pop(sha, None) or self.store.load_facts(sha) or self._reparse(sha)
            if raw is None:
                return None
            f = _decode(raw)
            if f is None:
                return None
            self._facts[sha] = f
            if f.warnings:
                self._warned[sha] = f.warnings
        return f

    def _reparse(self, sha: str) -> str | None:
        parsed = parse_blobs(list(git.read_blobs(self.root, [sha])))
        self.store.save_facts(parsed)
        return parsed[0][1] if parsed else None

    def is_test(self, path: str) -> bool:
        known = self._tests.get(path)
        if known is None:
            known = self._tests[path] = bool(self.config.is_test(path))
        return known

    def ensure_facts(self, entries: Iterable[Entry], *, decode: bool = False, defer_save: bool = False) -> int:
        """Parse every blob of `entries` the cache does not hold; return how many were parsed. With `decode`,
        their facts are decoded as the workers hand them over (while the others still parse) rather than
        when resolution first asks. With `defer_save`, they go to the blob cache at `save_facts()`: while
        resolution workers run, when there are any."""
        wanted = {e.blob for e in entries}
        missing = sorted(wanted - self.store.known_blobs(wanted))
        if not missing:
            return 0
        blobs = list(git.read_blobs(self.root, missing))
        parsed: list[tuple[str, str]] = []
        label = "parsing" if len(blobs) >= SHOW_FROM else ""
        with self.phases("parse", label, len(blobs)) as tick:
            for chunk in _parse_stream(blobs):
                parsed.extend(chunk)
                if decode:
                    t = time.perf_counter()
                    for sha, raw in chunk:
                        f = _decode(raw)
                        if f is not None:
                            self._facts[sha] = f
                    self.phases.add("decode (in parse)", time.perf_counter() - t)
                else:
                    self._raw.update(chunk)
                tick(len(parsed))
        self._unsaved.extend(parsed)
        if not defer_save:
            self.save_facts()
        return len(parsed)

    def save_facts(self) -> None:
        if self._unsaved:
            with self.phases("save facts"):
                self.store.save_facts(self._unsaved)
            self._unsaved = []

    # the snapshot

    def snapshot(self, rev: str) -> tuple[list[Entry], list[tuple[str, str]]]:
        entries: list[Entry] = []
        warnings: list[tuple[str, str]] = []
        for e in git.ls_tree(self.root, rev):
            if not is_python(e.path) or self.config.is_excluded(e.path):
                continue
            if not git.is_utf8_name(e.path):
                shown = e.path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                warnings.append((shown, "file name is not valid UTF-8; not indexed"))
                continue
            if not importable_spelling(e.path):
                warnings.append((e.path, (f"file name not in NFKC form ({e.path!a}): Python NFKC-normalises the names"
                                          " of an import, so no import statement finds this file")))
            if e.mode == git.MODE_SYMLINK:
                warnings.append((e.path, "symlink; not followed"))
            elif e.mode == git.MODE_SUBMODULE:
                continue
            else:
                entries.append(Entry(e.path, e.sha))
        return entries, warnings

    def is_current(self, head: str) -> bool:
        return self.store.meta("head") == head and self.store.meta("config") == self.config.digest()

    def update(self, head: str | None = None) -> IndexResult:
        t0 = time.perf_counter()
        head = head if head is not None else git.head(self.root)
        store = self.store
        if head is None:  # no commit yet: an empty graph
            with store.write_lock(self.lock_timeout), store.transaction() as db:
                for table in ("files", "symbols", "sites", "file_edges", "imports"):
                    db.execute(f"DELETE FROM {table}")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('head', '')")
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

            with self.phases("history and text index", "updating history and text index" if result.resolved >= SHOW_FROM else ""):
                after_index(store, self.root, head, text=self.text_index)
        result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
        return result

    # snapshots of the graph at recent commits

    def _changes(self, head: str) -> list[git.RawChange] | None:
        """What differs between the graph's commit and `head`; None when there is no such diff to trust: no graph,
        another configuration, or a commit git no longer has (gc'd after a rebase, a shallow clone)."""
        stored = self._stored_head = self.store.meta("head")
        if not stored or self.store.meta("config") != self.config.digest():
            return None
        try:
            return git.diff_raw(self.root, stored, head)
        except GraphguardError:
            return None

    def _indexed(self, path: str) -> bool:
        return is_python(path) and git.is_utf8_name(path) and not (self.config.exclude and self.config.is_excluded(path))

    def _from_snapshot(self, head: str, changes: list[git.RawChange] | None) -> bool:
        """On a big move (a checkout of another branch or release), save the graph being left, then start from
        the saved snapshot nearest to `head` if it is nearer than the graph: True when that is `head` itself.
        A small move (a commit) neither saves nor looks."""
        stored = self.store.meta("head")
        if not stored or self.store.meta("config") != self.config.digest():
            return False
        distance = None if changes is None else sum(1 for c in changes if self._indexed(c.path))
        if distance is not None and distance < SNAPSHOT_FROM:
            return False
        with self.phases("snapshots", "saving and looking for snapshots of the graph"):
            if distance is not None and stored not in self.store.snapshots():
                self.store.save_snapshot(stored)
            else:
                self.store.prune_snapshots()  # the age bound holds when nothing new is saved too
            # Where the graph's own distance is unknown (its commit is gone), only a near snapshot is a better start.
            best, best_distance = None, distance if distance is not None else SNAPSHOT_FROM
            for other in self.store.snapshots():
                meta = self.store.snapshot_meta(other, ("head", "config"))
                if meta is None or meta.get("head") != other or meta.get("config") != self.config.digest():
                    continue
                d = 0 if other == head else self._distance(other, head)
                if d is not None and d < best_distance:
                    best, best_distance = other, d
            if best is None or not self.store.restore_snapshot(best):
                return False
        return best == head

    def _distance(self, a: str, b: str) -> int | None:
        """How many indexed files differ between two commits; None when git does not know one of them."""
        try:
            changes = git.diff(self.root, a, b)
        except GraphguardError:
            return None
        return sum(1 for c in changes if self._indexed(c.path))

    def _restored(self, head: str) -> IndexResult:
        """What an index of `head` reports, read from the restored graph: its files and their warnings."""
        db = self.store.graph
        warnings = [tuple(w) for w in json.loads(self.store.meta("snapshot_warnings") or "[]")]
        files = 0
        for path, raw in db.execute("SELECT path, warnings FROM files ORDER BY path"):
            files += 1
            warnings.extend((path, w) for w in (json.loads(raw) if raw else ()))
        return IndexResult(head, files=files, warnings=[(str(p), str(w)) for p, w in warnings])

    def _update(self, head: str, changes: list[git.RawChange] | None) -> IndexResult:
        gc.disable()
        try:
            delta = self._delta(changes)
            return self._update_delta(head, delta) if delta is not None else self._update_unsafe(head)
        finally:
            gc.enable()

    # an update that costs the change: files modified in place, none added or removed

    def _delta(self, changes: list[git.RawChange] | None) -> dict[str, Entry] | None:
        """The indexed files `changes` modify, when that is all they do to indexed files (nothing added, removed,
        turned into a link; not too many): then the module map stays as stored, and the update reads only rows
        of the files concerned. None otherwise: the whole tree is listed and compared."""
        if changes is None:
            return None
        modified: dict[str, Entry] = {}
        for c in changes:
            if not (is_python(c.path) and git.is_utf8_name(c.path)):
                if is_python(c.path):
                    return None
                continue
            if self.config.exclude and self.config.is_excluded(c.path):
                continue
            if c.status != "M" or c.old is None or c.new is None or not (c.old.mode.startswith("100") and c.new.mode.startswith("100")):
                return None
            modified[c.path] = Entry(c.path, c.new.sha)
        return modified if len(modified) <= DELTA_MAX else None

    def _update_delta(self, head: str, modified: dict[str, Entry]) -> IndexResult:
        db = self.store.graph
        with self.phases("list files"):
            old: dict[str, tuple[int, str, str, str]] = {}
            paths = sorted(modified)
            for i in range(0, len(paths), ID_BATCH):
                batch = paths[i : i + ID_BATCH]
                old.update((path, (fid, blob, module, iface)) for fid, path, blob, module, iface in db.execute(
                    f"SELECT id, path, blob, module, iface FROM files WHERE path IN ({','.join('?' * len(batch))})", batch))
            n_old = db.execute("SELECT count(*) FROM files").fetchone()[0]
            roots = tuple(json.loads(self.store.meta("module_roots2") or "[]"))
        if len(old) < len(modified) or not roots:  # a file the graph does not have: not a modification after all
            return self._update_unsafe(head)
        changed = [p for p in paths if old[p][1] != modified[p].blob]
        parsed = self.ensure_facts(modified[p] for p in changed)
        modmap = _StoredMap(self, roots)
        with self.phases("find dirty"):
            digests = {p: interface_digests(self.facts(modified[p].blob) or FileFacts()) for p in changed}
            dirty = self._dirty(old, n_old, [], [], changed, digests, modmap, {p: modified[p].blob for p in changed})
        if rebuild_is_cheaper(len(dirty), n_old):
            return self._update_unsafe(head, rebuild=True)
        ids = {p: v[0] for p, v in old.items()}
        job = _Job(self, modified, ids, set(changed), modmap, digests, sorted(dirty), stored=True)
        sources = self._resolve(job)
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
            old = {path: (fid, blob, module, iface) for fid, path, blob, module, iface in db.execute("SELECT id, path, blob, module, iface FROM files")}
        added = [p for p in new if p not in old]
        removed = [p for p in old if p not in new]
        if not old and self.progress and len(added) >= SHOW_FROM:
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
                or any(modmap.module_of(p) != old[p][2] for p in new if p in old)
            )
        with self.phases("find dirty"):
            # Interface digests tell which names changed; a rebuild needs them only for the files' rows.
            digests = {} if cold else {p: interface_digests(self.facts(new[p].blob) or FileFacts()) for p in added + modified}
            self._old_map = ModuleMap.build(old, self.config.test_data) if (added or removed) and not cold else modmap
            dirty = set(new) if cold else self._dirty(dict(old), len(old), added, removed, modified, digests, modmap,
                                                      {p: new[p].blob for p in modified})
            if rebuild_is_cheaper(len(dirty), len(new)):
                dirty = set(new)
        # Only when every file is re-resolved may the tables be emptied and rewritten whole.
        rebuild = dirty == set(new)
        changed = set(new) if rebuild else set(added) | set(modified)
        gone = set(removed)
        ids = {p: v[0] for p, v in old.items() if p not in gone}
        next_id = max(ids.values(), default=0) + 1
        for path in sorted(changed - ids.keys()):  # the ids SQLite would give them, in the order it would
            ids[path] = next_id
            next_id += 1
        job = _Job(self, new, ids, changed, modmap, digests, sorted(dirty | changed))
        sources = self._resolve(job)
        self.save_facts()
        self._write(head, job, sources, [old[p][0] for p in removed], [old[p][0] for p in changed if p in old],
                    [old[p][0] for p in dirty if p in old], warnings, rebuild=rebuild, roots=modmap.roots, layout=Layout.of(new, self.config.test_data))
        for e in entries:
            f = self._facts.get(e.blob)
            warnings.extend((e.path, w) for w in (f.warnings if f is not None else self._warned.get(e.blob, ())))
        return IndexResult(head, files=len(new), parsed=parsed, resolved=len(dirty), warnings=warnings)

    def _dirty(
        self,
        old: dict[str, tuple[int, str, str, str]],
        n_old: int,
        added: list[str],
        removed: list[str],
        modified: list[str],
        digests: dict[str, dict[str, str]],
        modmap: ModuleMap,
        blobs: dict[str, str],
    ) -> set[str]:
        """Files whose resolution can differ: the changed ones and those that use a name whose interface changed.
        `old` holds the stored rows of the changed files at least (`n_old` files are stored); the rows of the
        files reached are added to it as the edges are followed."""
        db = self.store.graph
        gone = set(removed)
        dirty = set(added) | set(modified)
        fresh = set(added)
        # Files not dirty yet; once none is left, every file is dirty: nothing left to look for.
        clean = n_old - len(gone) - len(dirty - fresh)
        old_map = self._old_map if (added or removed) and self._old_map is not None else modmap

        def names_of(path: str) -> list[str]:
            """Every name a file is importable under (several roots can give it several), removed files' from the old map."""
            return [n for m in (old_map, modmap) if _in_map(m, path) for n in _names_in(m, path)]

        queue: list[tuple[str, set[str]]] = []
        queued: dict[str, set[str]] = {}

        def push(path: str, names: set[str]) -> None:
            # Only names not yet looked for: whether a file uses a set of names is the union over them.
            have = queued.setdefault(path, set())
            news = {EVERY_NAME} if EVERY_NAME in names else names - have
            if news and EVERY_NAME not in have:
                have |= news
                queue.append((path, news))

        for p in removed:
            push(p, {EVERY_NAME})
        for p in modified:
            names = changed_names(_stored_digests(old[p][3]), digests[p])
            push(p, names | self._made_by(blobs[p], names))
        if added or removed:
            affected = {p: lines for p, lines in self._affected_by_modules(added + removed, names_of, old_map, modmap).items() if p not in gone}
            clean -= len(affected.keys() - dirty - fresh)
            dirty |= affected.keys()
            # What such a file binds through those imports (and derives from them) may resolve differently now:
            # its users too.
            for p in sorted(affected.keys() - set(added)):
                push(p, self._bound_by(old[p][0], lines=affected[p]))
        while queue and clean > 0:
            path, names = queue.pop()
            fid, module = old[path][0], old[path][2]
            modules = sorted(set(names_of(path)) | {module})
            plain, results = returns_of(names)
            for src_path, src_id, src_blob, src_module, src_iface in db.execute(
                "SELECT f.path, f.id, f.blob, f.module, f.iface FROM file_edges e JOIN files f ON f.id = e.src WHERE e.dst = ? AND e.kind = 'import'",
                (fid,),
            ):
                old.setdefault(src_path, (src_id, src_blob, src_module, src_iface))
                if src_path in gone or EVERY_NAME in queued.get(src_path, ()):
                    continue  # gone, or dirty already with every name passed on
                used = self._uses_names(src_id, src_blob, module, modules, plain) if plain else set()
                if results and (through := self._uses_names(src_id, src_blob, module, modules, results)) and self._uses_results(src_blob, results):
                    used |= through
                if not used:
                    continue
                if src_path not in dirty:
                    dirty.add(src_path)
                    clean -= 1
                # Subclasses, re-exports and what is derived from them pass the change on.
                push(src_path, self._passes_on(src_id, src_blob, module, modules, used))
        return dirty - gone

    def _made_by(self, blob: str, names: set[str]) -> set[str]:
        """A changed file's own module-level names made by calling one whose return annotation changed
        (`obj = make()`): what they are bound to changed with it, though their digests did not."""
        _, results = returns_of(names)
        facts = self.facts(blob) if results else None
        if facts is None:
            return set()
        return _derived(facts, {n.rsplit(".", 1)[-1] for n in results})  # `warning`, not its class `Display`

    def _affected_by_modules(
        self, paths: list[str], names_of: Callable[[str], list[str]], old_map: ModuleMap, modmap: ModuleMap
    ) -> dict[str, set[int]]:
        """Files with an import that a module appearing or vanishing (at `paths`) can resolve differently, with
        the lines of those imports: one naming it, a package above it or a module below it (`from a import b`
        once `a/b.py` comes: not `from a import c`); one under a top-level name that came or went (it turns
        from external to not found, or back; `sub.c` once `src/proj/sub/c.py` is added); a relative one not found."""
        names = {n for p in paths for n in names_of(p)}
        prefixes = {n.rsplit(".", i)[0] for n in names for i in range(n.count(".") + 1)}
        tops = old_map.top_names ^ modmap.top_names
        affected: dict[str, set[int]] = {}
        for path, line, module, name, status in self.store.graph.execute(
            "SELECT f.path, i.line, i.module, i.name, i.status FROM imports i JOIN files f ON f.id = i.file_id"
        ):
            if _import_affected(module, name, status, names, prefixes, tops):
                affected.setdefault(path, set()).add(line)
        return affected

    def _bound_by(self, file_id: int, *, lines: set[int]) -> set[str]:
        """The module-level names a file binds by its imports on `lines`, and those it derives from them; every
        name when one is a star import or a class's base may involve one (its members come from the base)."""
        row = self.store.graph.execute("SELECT blob FROM files WHERE id = ?", (file_id,)).fetchone()
        facts = self.facts(row[0]) if row else None
        if facts is None:
            return {EVERY_NAME}
        imports = [i for i in facts.imports if i.line in lines]
        if any(i.name == "*" for i in imports):
            return {EVERY_NAME}
        bound = {i.bound_name for i in imports if not i.scope}
        if any(d.kind is DefKind.CLASS and any(_mentions(b, bound) for b in d.bases) for d in facts.definitions):
            return {EVERY_NAME}
        return bound | _derived(facts, bound)

    def _uses_names(self, file_id: int, blob: str, module: str, modules: list[str], names: set[str]) -> set[str]:
        """The names through which a file uses `names` of `module` (importable as any of `modules`); empty if none."""
        db = self.store.graph
        if EVERY_NAME in names:
            return {EVERY_NAME}
        marks = ",".join("?" * len(names))
        mods = ",".join("?" * len(modules))
        bound = {
            name
            for (name,) in db.execute(
                f"SELECT i.name FROM imports i WHERE i.file_id = ? AND i.module IN ({mods}) AND (i.name IN ({marks}) OR i.name = '*')",
                (file_id, *modules, *names),
            )
        }
        if bound:
            return bound if "*" not in bound else {EVERY_NAME}
        # Sites name their target by the defining file's own module name.
        targets = [f"{module}.{n}" for n in names]
        like = " OR ".join("target = ? OR target LIKE ?" for _ in targets)
        last = {n.rsplit(".", 1)[-1] for n in names}  # a member's name: `x.close()` unresolved
        marks = ",".join("?" * len(last))
        args: list[object] = [file_id, *last]
        for t in targets:
            args += [t, t + ".%"]
        hit = db.execute(f"SELECT 1 FROM sites WHERE file_id = ? AND (name IN ({marks}) OR {like}) LIMIT 1", args).fetchone()
        if hit:
            return set(names)
        # A use that resolved to nothing left no site (`class K(mod.Base)` before `Base` existed): where the
        # module itself is imported (`import pkg.mod`, or `from pkg import mod as alias`), look for the name in
        # the file's own text of uses.
        mods = ",".join("?" * len(modules))
        if db.execute(f"SELECT 1 FROM imports WHERE file_id = ? AND (name IS NULL AND module IN ({mods})"
                      f" OR name IS NOT NULL AND module || '.' || name IN ({mods})) LIMIT 1", (file_id, *modules, *modules)).fetchone():
            facts = self.facts(blob)
            if facts is None or not last.isdisjoint(_words(facts)):
                return set(names)
        return set()

    def _uses_results(self, blob: str, names: set[str]) -> bool:
        """Can a file's resolution depend on what calling one of `names` returns? Only where a result is used:
        bound (`x = d.warning()`, any binding naming it), called on (`d.get().close()`), or in a class's bases,
        a decorator or an annotation; a call whose result is dropped (`d.warning(msg)`) binds as before."""
        facts = self.facts(blob)
        if facts is None:
            return True
        last = {n.rsplit(".", 1)[-1] for n in names}
        last |= {i.bound_name for i in facts.imports if i.name in last}  # `from a import get as g`: `g()`
        texts = [b.value for b in facts.bindings]
        texts += [t for d in facts.definitions for t in (*d.bases, *d.decorators, d.returns or "")]
        if any(not last.isdisjoint(_WORD.findall(t)) for t in texts):
            return True
        chains = [c.callee for c in facts.calls] + [r.target for r in facts.references]
        return any(not last.isdisjoint(_CALLED.findall(t)) for t in chains if "()" in t)

    def _passes_on(self, file_id: int, blob: str, module: str, modules: list[str], used: set[str]) -> set[str]:
        """The names under which a file that uses `used` of `module` passes a change of them on to its own users.

        A name it imports is bound again in it (a re-export: `from .a import f`, under its alias), and so is
        whatever it derives from one at module level: a binding (`obj = make()`), a function returning one
        (`def get() -> K`). A class whose base may involve one passes on every name: its members come from
        the base, whatever they are called."""
        db = self.store.graph
        if db.execute("SELECT 1 FROM sites WHERE file_id = ? AND kind = 'inherit' AND target LIKE ? LIMIT 1", (file_id, module + ".%")).fetchone():
            return {EVERY_NAME}
        facts = self.facts(blob)
        if facts is None:
            return {EVERY_NAME}
        bound = self._rebinds(file_id, facts, modules, used)
        if EVERY_NAME in bound:
            return {EVERY_NAME}
        refs = bound | {part for n in used - {EVERY_NAME} for part in n.split(".")}
        if any(d.kind is DefKind.CLASS and any(_mentions(b, refs) for b in d.bases) for d in facts.definitions):
            return {EVERY_NAME}
        return bound | _derived(facts, refs)

    def _rebinds(self, file_id: int, facts: FileFacts, modules: list[str], names: set[str]) -> set[str]:
        """The names a file binds at module level by importing `names` from one of `modules`; for EVERY_NAME,
        every name it binds from them (the modules themselves included: `import a.b as m`)."""
        mods = ",".join("?" * len(modules))
        rows = set(self.store.graph.execute(
            f"SELECT line, name FROM imports WHERE file_id = ? AND scope = '' AND module IN ({mods})", (file_id, *modules)
        ))
        if any(name == "*" for _, name in rows):
            return set(names)  # a star import re-exports them under their own names
        # The graph keeps the imported name; the facts have the alias it is bound to.
        every = EVERY_NAME in names
        return {i.bound_name for i in facts.imports if (i.line, i.name) in rows and (every or i.name is not None and i.name in names)}

    # resolution: in forked workers when there are many files

    def _resolve(self, job: _Job) -> list[_Rows | tuple[str, int]]:
        """The rows of every file of `job`, per chunk in order: rows in memory, or (scratch database, chunk)
        where a worker left them."""
        paths = job.paths
        label = "resolving" if len(paths) >= SHOW_FROM else ""
        workers = min(os.cpu_count() or 1, 8)
        with self.phases("resolve", label, len(paths)) as tick:
            if len(paths) < PARALLEL_RESOLVE or workers < 2 or not _can_fork():
                rows = self._rows(job, paths, tick)
                return [rows]
            return self._resolve_in_workers(job, workers, tick)

    def _resolve_in_workers(self, job: _Job, workers: int, tick: Callable[[int], None]) -> list[_Rows | tuple[str, int]]:
        """Fork workers that share this process's facts (copy-on-write) and resolve contiguous runs of the
        sorted paths; each writes its rows to a scratch database of its own, which `_write` copies from in
        the runs' order, so the graph is row for row the one a serial run writes. Workers die with this
        process, never hold the write lock and never touch the graph; if one dies, every run is redone here."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        global _JOB
        job.chunks = _chunks(job.paths, [self._weight(job.blob_of(p)) for p in job.paths], workers * CHUNKS_PER_WORKER)
        job.scratch = _scratch_dir(self.store.dir)
        out: list[_Rows | tuple[str, int]] = []
        done = 0
        _JOB = job
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_resolve_worker_init, initargs=(os.getpid(),))
        try:
            futures = [pool.submit(_resolve_chunk, i) for i in range(len(job.chunks))]
            self.save_facts()  # the workers exist (forked at the first submit): this process is free meanwhile
            for i, future in enumerate(futures):
                scratch, index, warned = future.result()
                assert index == i
                self._warned.update(warned)
                out.append((scratch, index))
                done += len(job.chunks[i])
                tick(done)
        except BrokenProcessPool:
            print("graphguard: warning: a resolution worker died (killed, or out of memory?); resolving in this process",
                  file=sys.stderr)
            shutil.rmtree(job.scratch, ignore_errors=True)
            job.scratch = ""
            out = [self._rows(job, job.paths, tick)]
        except BaseException:  # a worker's full disk, say: its scratch database is not left to fill it
            pool.shutdown(cancel_futures=True)
            shutil.rmtree(job.scratch, ignore_errors=True)
            job.scratch = ""
            raise
        finally:
            pool.shutdown(cancel_futures=True)
            _JOB = None
        return out

    def _weight(self, sha: str | None) -> int:
        """What resolving a file costs, roughly: its uses of names (decoded facts), else an average file's."""
        f = self._facts.get(sha) if sha is not None else None
        return 20 + len(f.calls) + len(f.references) + len(f.imports) if f is not None else 200

    def _rows(self, job: _Job, paths: list[str], tick: Callable[[int], None] | None = None) -> _Rows:
        """The rows of `paths` (sorted): a changed file's row and symbols, and every file's sites, imports and edges."""
        rows = _Rows()
        for path in paths:
            if path in job.changed:
                self._file_rows(job, path, rows)
        resolver = job.resolver()
        for i, path in enumerate(paths, 1):
            self._resolution_rows(job, resolver.resolve_file(path), rows)
            if tick and i % 50 == 0:
                tick(i)
        return rows

    def _file_rows(self, job: _Job, path: str, rows: _Rows) -> None:
        e = job.new[path]
        facts = self.facts(e.blob) or UNREADABLE
        module = job.modmap.module_of(path)
        fid = job.ids[path]
        rows.files.append((fid, path, e.blob, module, int(self.is_test(path)), json.dumps(job.digests.get(path) or interface_digests(facts)),
                           int(facts.parsed), json.dumps(facts.warnings) if facts.warnings else None))
        rows.symbols.extend(
            (fid, f"{module}.{d.qualname}", d.qualname.rsplit(".", 1)[-1], d.kind.value, d.line, d.end_line, d.signature,
             json.dumps(d.bases) if d.bases else None)
            for d in facts.definitions
        )

    def _resolution_rows(self, job: _Job, r: FileResolution, rows: _Rows) -> None:
        id_of = job.id_of
        fid = id_of(r.path)
        assert fid is not None
        rows.sites.extend(
            (fid, s.kind, s.scope, s.text, s.name, s.resolution.value, s.target, s.init_target, s.line, s.end_line,
             s.col, s.end_col, s.shape.n_positional, ",".join(s.shape.keywords), int(s.shape.has_star), int(s.shape.has_starstar))
            for s in r.sites
        )
        rows.imports.extend(
            (fid, i.line, i.module, i.name, i.status, id_of(i.target_path) if i.target_path else None, i.scope, int(i.type_checking))
            for i in r.imports
        )
        test = self.is_test(r.path)
        for dst, symbols in r.uses.items():
            dst_id = id_of(dst)
            if dst_id is None:
                continue
            rows.edges.append((fid, dst_id, "import", len(symbols)))
            if test and not self.is_test(dst):
                rows.edges.append((fid, dst_id, "test-of", len(symbols)))

    # the write

    def _write(
        self, head: str, job: _Job, sources: list[_Rows | tuple[str, int]], gone: list[int], changed_ids: list[int],
        resolved_ids: list[int], warnings: list[tuple[str, str]] | None, *, rebuild: bool, roots: tuple[str, ...] | None = None,
        layout: Layout | None = None,
    ) -> None:
        """One transaction: the rows of removed files go, changed files get their row and symbols, and every
        resolved file gets its sites, imports and outgoing edges. `rebuild` means every file is changed and
        resolved: then every table is emptied and the indexes are built once at the end instead of kept up
        row by row. Otherwise the indexes stay, and only the rows of the files concerned are deleted, set-wise.
        Workers' scratch databases are attached (never inside a transaction) and copied from in SQL."""
        db = self.store.graph
        aliases: dict[str, str] = {}
        label = "writing the graph" if len(job.paths) >= SHOW_FROM else ""
        try:
            with self.phases("write", label):
                for source in sources:
                    if isinstance(source, tuple) and source[0] not in aliases:
                        aliases[source[0]] = f"w{len(aliases)}"
                        db.execute("ATTACH DATABASE ? AS " + aliases[source[0]], (source[0],))
                with self.store.transaction():
                    indexes = _drop_indexes(db) if rebuild else []
                    if rebuild:
                        for table in GRAPH_TABLES:
                            db.execute(f"DELETE FROM {table}")
                        _delete_where_in(db, ["DELETE FROM files WHERE id IN ({})"], gone)
                    else:
                        _delete_where_in(db, [
                            "DELETE FROM file_edges WHERE dst IN ({})", "DELETE FROM symbols WHERE file_id IN ({})",
                            "DELETE FROM files WHERE id IN ({})",
                        ], gone)
                        _delete_where_in(db, ["DELETE FROM symbols WHERE file_id IN ({})"], changed_ids)
                        _delete_where_in(db, [
                            "DELETE FROM sites WHERE file_id IN ({})", "DELETE FROM imports WHERE file_id IN ({})",
                            "DELETE FROM file_edges WHERE src IN ({})",
                        ], gone + resolved_ids)
                    for table, insert in _INSERTS.items():
                        for source in sources:
                            if isinstance(source, _Rows):
                                db.executemany(insert.format("VALUES (" + ",".join("?" * _WIDTH[table]) + ")"), getattr(source, table))
                            else:
                                db.execute(insert.format(f"SELECT * FROM {aliases[source[0]]}.{table}_{source[1]}"))
                    with self.phases("create indexes"):  # within the line of the write
                        for _, sql in indexes:
                            db.execute(sql)
                    _write_layout(db, head, layout)  # before the head moves: it reads the head the graph had
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head,))
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)", (self.config.digest(),))
                    if warnings is not None:  # the tree's own warnings (links, names): the same after a delta
                        db.execute("INSERT OR REPLACE INTO meta VALUES ('snapshot_warnings', ?)", (json.dumps(warnings),))
                    if roots is not None:  # what a delta's module map is built on
                        db.execute("INSERT OR REPLACE INTO meta VALUES ('module_roots2', ?)", (json.dumps(roots),))
        finally:
            for alias in aliases.values():
                with contextlib.suppress(sqlite3.Error):
                    db.execute(f"DETACH DATABASE {alias}")
            if job.scratch:
                shutil.rmtree(job.scratch, ignore_errors=True)


def _write_layout(db: sqlite3.Connection, head: str, layout: Layout | None) -> None:
    """Keep the module layout of the paths (what the check's module map would derive from every path) with
    the commit it describes. An update that adds and removes no file keeps it when it described the commit the
    graph was at; a graph last written by a version that kept none has a head that no layout names."""
    if layout is not None:
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(LAYOUT_KEY, layout.to_json()), (LAYOUT_HEAD_KEY, head)])
        return
    stored = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('head', ?)", (LAYOUT_HEAD_KEY,)).fetchall())
    if stored.get("head") is not None and stored.get(LAYOUT_HEAD_KEY) == stored["head"]:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LAYOUT_HEAD_KEY, head))


#: Above this many modified files, an update lists the whole tree (reading row by row would cost more).
DELTA_MAX = 2000
#: A move of HEAD that changes at least this many indexed files saves the graph being left as a snapshot first.
SNAPSHOT_FROM = 100
#: Below this many files to re-resolve, forking resolution workers costs more than it saves.
PARALLEL_RESOLVE = 200
#: Runs of paths per resolution worker: handed out as workers free up, so none waits long for the last.
CHUNKS_PER_WORKER = 6

#: How each table's rows go in (`{}`: VALUES of a row, or a SELECT from a scratch table), in this order.
_INSERTS = {
    "files": "INSERT OR REPLACE INTO files(id, path, blob, module, is_test, iface, parsed, warnings) {}",
    "symbols": "INSERT INTO symbols(file_id, qualname, name, kind, line, end_line, signature, bases) {}",
    "sites": "INSERT INTO sites {}",
    "imports": "INSERT INTO imports {}",
    "edges": "INSERT OR REPLACE INTO file_edges {}",
}
_WIDTH = {"files": 8, "symbols": 8, "sites": 16, "imports": 8, "edges": 4}


@dataclass
class _Rows:
    """Rows for the graph's tables, in the order they are written."""

    files: list[tuple[object, ...]] = field(default_factory=list)
    symbols: list[tuple[object, ...]] = field(default_factory=list)
    sites: list[tuple[object, ...]] = field(default_factory=list)
    imports: list[tuple[object, ...]] = field(default_factory=list)
    edges: list[tuple[object, ...]] = field(default_factory=list)

    def save(self, conn: sqlite3.Connection, chunk: int) -> None:
        """Into a scratch database, as tables `<table>_<chunk>`."""
        conn.execute("BEGIN")
        for table in _INSERTS:
            width = _WIDTH[table]
            conn.execute(f"CREATE TABLE {table}_{chunk}({', '.join(f'c{i}' for i in range(width))})")
            conn.executemany(f"INSERT INTO {table}_{chunk} VALUES ({','.join('?' * width)})", getattr(self, table))
        conn.execute("COMMIT")


@dataclass
class _Job:
    """One resolution: what forked workers inherit (never pickled)."""

    indexer: Indexer
    new: dict[str, Entry]
    ids: dict[str, int]
    changed: set[str]
    modmap: ModuleMap
    digests: dict[str, dict[str, str]]
    paths: list[str]  # sorted
    stored: bool = False  # `new` and `ids` hold the changed files only: the others are read from the graph
    chunks: list[list[str]] = field(default_factory=list)
    scratch: str = ""
    _resolver: Resolver | None = None
    _blobs: dict[str, str | None] = field(default_factory=dict)

    def resolver(self) -> Resolver:
        """One per process: its memo serves every run the process resolves."""
        if self._resolver is None:
            blob_of, facts = self.blob_of, self.indexer.facts

            def load(path: str) -> FileFacts | None:
                blob = blob_of(path)
                return facts(blob) if blob is not None else None

            self._resolver = Resolver(self.modmap, load)
        return self._resolver

    def blob_of(self, path: str) -> str | None:
        e = self.new.get(path)
        if e is not None or not self.stored:
            return e.blob if e is not None else None
        if path not in self._blobs:
            row = self.indexer.store.graph.execute("SELECT blob, id FROM files WHERE path = ?", (path,)).fetchone()
            self._blobs[path] = row[0] if row else None
            if row:
                self.ids[path] = row[1]
        return self._blobs[path]

    def id_of(self, path: str) -> int | None:
        if path not in self.ids and self.stored:
            self.blob_of(path)
        return self.ids.get(path)


_JOB: _Job | None = None  # the job of forked resolution workers
_SCRATCH: sqlite3.Connection | None = None  # a worker's scratch database


def _resolve_worker_init(parent: int) -> None:
    _die_with_parent(parent)
    job = _JOB
    assert job is not None
    # The parent's SQLite connections are not to be used across fork: facts not decoded yet come from a store of our own.
    job.indexer.store = Store(job.indexer.paths.git_dir, job.indexer.paths.common_dir)
    job.indexer._warned = {}


def _resolve_chunk(index: int) -> tuple[str, int, dict[str, tuple[str, ...]]]:
    """In a worker: resolve run `index` of the job into this worker's scratch database."""
    global _SCRATCH
    job = _JOB
    assert job is not None
    path = os.path.join(job.scratch, f"{os.getpid()}.sqlite3")
    if _SCRATCH is None:
        _SCRATCH = sqlite3.connect(path, isolation_level=None)
        _SCRATCH.execute("PRAGMA synchronous=OFF")
    job.indexer._rows(job, job.chunks[index]).save(_SCRATCH, index)
    warned, job.indexer._warned = job.indexer._warned, {}
    return path, index, warned


def _scratch_dir(store_dir: str) -> str:
    """A fresh folder for the workers' scratch databases, inside the store; those of dead runs are removed."""
    base = os.path.join(store_dir, "scratch")
    ensure_dir(base)
    for name in os.listdir(base):
        pid = int(name) if name.isdigit() else 0
        if pid and not _alive(pid):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    path = os.path.join(base, str(os.getpid()))
    shutil.rmtree(path, ignore_errors=True)
    os.mkdir(path, 0o700)
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _chunks(paths: list[str], weights: list[int], n: int) -> list[list[str]]:
    """`paths` cut into at most `n` contiguous runs of about equal weight."""
    total = sum(weights) or 1
    out: list[list[str]] = [[]]
    acc = 0
    for path, w in zip(paths, weights):
        if acc >= total * len(out) / n and out[-1]:
            out.append([])
        out[-1].append(path)
        acc += w
    return out


# --- the module map of a delta -------------------------------------------------------------


class _StoredMap(ModuleMap):
    """The module map of the files in the graph, asked of the graph instead of built from every path: an update
    that adds and removes no file keeps the roots (in meta) and therefore every name. A file's module is one
    indexed query, memoised; what a name's files are, and which names are top-level or packages, is answered
    from the stored paths, read once (one query of `files`) on the first such question: with hundreds of import
    roots (ansible has 660), a query per root and question cost minutes. Answers as ModuleMap.build over the
    same paths would. Queries go through the indexer's store at the time of asking: a forked worker has a
    store of its own (the paths, read before the fork, are shared)."""

    def __init__(self, indexer: Indexer, roots: tuple[str, ...]):
        self._ix = indexer
        self._named_memo: dict[str, list[str]] = {}
        self._module_memo: dict[str, str | None] = {}
        self._top_memo: dict[str, bool] = {}
        self._prefix_memo: dict[str, bool] = {}
        self._roots_memo: dict[str, list[str]] = {}
        self._paths: frozenset[str] | None = None
        self._below: dict[str, int] = {}  # folder -> how many files are below it, at any depth
        super().__init__(paths=frozenset(), roots=roots, by_name=_Lazy(self._named), primary=_Lazy(self._module),
                         top_names=_Test(self._is_top), prefixes=_Test(self._is_prefix))

    def load(self) -> frozenset[str]:
        """Every stored path (and the folders' counts), read once."""
        if self._paths is None:
            paths = frozenset(str(row[0]) for row in self._rows("SELECT path FROM files", ()))
            below: dict[str, int] = {}
            for path in paths:
                folder = path
                while "/" in folder:
                    folder = folder.rsplit("/", 1)[0]
                    below[folder] = below.get(folder, 0) + 1
            self._paths, self._below = paths, below
        return self._paths

    def _rows(self, sql: str, args: Iterable[object]) -> list[tuple[object, ...]]:
        return list(self._ix.store.graph.execute(sql, tuple(args)))

    def _named(self, name: str) -> list[str] | None:
        if name not in self._named_memo:
            rel = name.replace(".", "/")
            if name.rsplit(".", 1)[-1] == "__init__":  # only a top-level __init__.py has such a name
                candidates = ["__init__.py", "__init__.pyi"] if name == "__init__" else []
            else:
                candidates = [f"{r}/{rel}{tail}" if r else rel + tail for r in self._roots_of(name.split(".", 1)[0]) for tail in _TAILS]
            paths = self.load()
            self._named_memo[name] = sorted(c for c in set(candidates) if c in paths)
        return self._named_memo[name] or None

    def _module(self, path: str) -> str | None:
        if path not in self._module_memo:
            found = self._rows("SELECT module FROM files WHERE path = ?", (path,))
            self._module_memo[path] = str(found[0][0]) if found else None
        return self._module_memo[path]

    def _under(self, folder: str, but: tuple[str, ...] = ()) -> bool:
        """Is there a file below `folder` (other than `but`)?"""
        paths = self.load()
        below = self._below.get(folder, 0)
        return below > 0 and below > sum(1 for b in set(but) if b in paths and b.startswith(folder + "/"))

    def _is_prefix(self, name: str) -> bool:
        """Is some module's name `name.<more>`? A file below the folder of `name` under some root, not its __init__."""
        if name not in self._prefix_memo:
            rel = name.replace(".", "/")
            folders = [f"{r}/{rel}" if r else rel for r in self._roots_of(name.split(".", 1)[0])]
            self._prefix_memo[name] = any(self._under(f, (f + "/__init__.py", f + "/__init__.pyi")) for f in folders)
        return self._prefix_memo[name]

    def _is_top(self, top: str) -> bool:
        """Is some module's name `top` or `top.<more>`?"""
        if top not in self._top_memo:
            if top == "__init__":
                self._top_memo[top] = bool(self._named(top))
            else:
                self._top_memo[top] = bool(self._roots_of(top))
        return self._top_memo[top]

    def _roots_of(self, top: str) -> list[str]:
        """The roots with a module `top` or a folder `top` holding files: the only roots a name under `top` can
        be found in (ansible has 400 roots; a name is under one or two)."""
        if top not in self._roots_memo:
            paths = self.load()
            self._roots_memo[top] = [r for r in self.roots if (b := f"{r}/{top}" if r else top) + ".py" in paths
                                     or b + ".pyi" in paths or self._under(b)]
        return self._roots_memo[top]


_TAILS = (".py", ".pyi", "/__init__.py", "/__init__.pyi")


class _Lazy(dict[str, Any]):
    """A dict whose values are computed on demand (None: no such key): what ModuleMap's code reads of by_name and primary."""

    def __init__(self, compute: Callable[[str], Any]):
        super().__init__()
        self._compute = compute

    def get(self, key: str, default: Any = None) -> Any:
        value = self._compute(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._compute(key) is not None

    def __getitem__(self, key: str) -> Any:
        value = self._compute(key)
        if value is None:
            raise KeyError(key)
        return value


class _Test(frozenset[str]):
    """A set known by its membership test only: what ModuleMap's code asks of top_names and prefixes."""

    _test: Callable[[str], bool]

    def __new__(cls, test: Callable[[str], bool]) -> _Test:  # noqa: PYI034 - a final private class
        made = super().__new__(cls)
        made._test = test
        return made

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._test(key)


def _mentions(text: str | None, refs: set[str]) -> bool:
    return bool(text) and not refs.isdisjoint(_WORD.findall(text or ""))


def _derived(facts: FileFacts, refs: set[str]) -> set[str]:
    """The module-level names a file derives from `refs`: a binding (`obj = make()`), a function returning one
    (`def get() -> K`), and so on (`b = obj.build()`), to a fixed point."""
    refs = set(refs)
    derived: set[str] = set()
    grew = True
    while grew:
        before = len(derived)
        refs |= derived
        derived |= {b.target for b in facts.bindings if not b.scope and "." not in b.target and _mentions(b.value, refs)}
        derived |= {d.qualname for d in facts.definitions if "." not in d.qualname and _mentions(d.returns, refs)}
        grew = len(derived) > before
    return derived


def _import_affected(module: str, name: str | None, status: str, names: set[str], prefixes: set[str], tops: AbstractSet[str]) -> bool:
    """Can modules `names` appearing or vanishing change what this import row binds? `prefixes` are the names
    and the packages above them; `tops` the top-level names that came or went."""
    if module.startswith("."):
        return status == "unresolved"  # a relative import not found: its base is unknown
    parts = module.split(".")
    if parts[0] in tops or not names.isdisjoint(".".join(parts[:i]) for i in range(1, len(parts) + 1)):
        return True  # the module itself, or a package above it, came or went
    if name is None or name == "*":
        return module in prefixes  # `import a` reaches `a.b.c`; `from a import *` may bind submodules
    return f"{module}.{name}" in prefixes  # `from a import b`: b is the new module, or a package above it


def _in_map(m: ModuleMap, path: str) -> bool:
    return isinstance(m, _StoredMap) or path in m.paths


def _names_in(m: ModuleMap, path: str) -> list[str]:
    """Every name `path` is importable under in `m`: as ModuleMap.build names it, from each root above it."""
    return module_names(path, set(m.roots))


def _decode(raw: str) -> FileFacts | None:
    try:
        return FileFacts.from_json(raw)
    except (ValueError, TypeError, IndexError):
        return None


_WORD = re.compile(r"\w+")
_CALLED = re.compile(r"(\w+)\(\)")  # a name whose result a chain goes on from: `get` in `d.get().close`
def _words(facts: FileFacts) -> set[str]:
    """Every name a file's uses mention: callees, references, bases, annotations, bound values."""
    texts = [c.callee for c in facts.calls] + [r.target for r in facts.references] + [b.value for b in facts.bindings]
    texts += [t for d in facts.definitions for t in (*d.bases, *d.decorators, d.returns or "")]
    return {w for t in texts for w in _WORD.findall(t)}


#: The tables of rows per file (besides `files`): what a rebuild empties and re-indexes.
GRAPH_TABLES = ("symbols", "sites", "imports", "file_edges")
#: Ids per `IN (...)`: well under SQLite's limit of bound parameters (999 before 3.32).
ID_BATCH = 500


def _delete_where_in(db: sqlite3.Connection, statements: list[str], ids: list[int]) -> None:
    """Run each `DELETE ... WHERE col IN ({})` over `ids` in batches: one indexed lookup per id, never a scan per id."""
    for i in range(0, len(ids), ID_BATCH):
        batch = ids[i : i + ID_BATCH]
        marks = ",".join("?" * len(batch))
        for statement in statements:
            db.execute(statement.format(marks), batch)


def _drop_indexes(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """Drop the graph's indexes (a rebuild writes every row: indexing once at the end is faster); return them to recreate."""
    indexes: list[tuple[str, str]] = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (?, ?, ?, ?)",
        GRAPH_TABLES,).fetchall()
    for name, _ in indexes:
        db.execute(f"DROP INDEX {name}")
    return indexes
