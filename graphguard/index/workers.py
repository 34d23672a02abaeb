"""Work in forked processes: workers that die with the indexer, and the resolution of many files in them."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Protocol

from graphguard import git
from graphguard.files import ensure_dir
from graphguard.index import progress
from graphguard.index.plan import Entry, facts_key, is_config
from graphguard.index.progress import Phases
from graphguard.languages import FileResolver, Language, Tree, for_path
from graphguard.languages.python.modules import ModuleMap
from graphguard.languages.python.resolver import Resolver
from graphguard.model import FileFacts
from graphguard.resolved import FileResolution
from graphguard.store import Store
from graphguard.store.db import open_scratch
from graphguard.store.rows import blob_and_id, every_path
from graphguard.store.writes import _Rows

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


#: Below this many files to re-resolve, forking resolution workers costs more than it saves.
PARALLEL_RESOLVE = 200
#: Runs of paths per resolution worker: handed out as workers free up, so none waits long for the last.
CHUNKS_PER_WORKER = 6


@dataclass
class _Job:
    """One resolution: what forked workers inherit (never pickled)."""

    indexer: Resolving
    new: dict[str, Entry]
    ids: dict[str, int]
    changed: set[str]
    modmap: ModuleMap
    digests: dict[str, dict[str, str]]
    paths: list[str]  # sorted
    stored: bool = False  # `new` and `ids` hold the changed files only: the others are read from the graph
    chunks: list[list[str]] = field(default_factory=list)
    scratch: str = ""
    head: str = ""  # the commit: the config files a language's resolver reads are its blobs
    _resolver: Resolver | None = None
    _blobs: dict[str, str | None] = field(default_factory=dict)
    _others: dict[str, FileResolver] = field(default_factory=dict)  # language -> its resolver (not Python's)
    _read: dict[str, bytes | None] = field(default_factory=dict)
    _configs: list[str] | None = None
    _links: list[str] = field(default_factory=list)
    _assets: list[str] = field(default_factory=list)

    def resolver(self) -> Resolver:
        """One per process: its memo serves every run the process resolves."""
        if self._resolver is None:
            self._resolver = Resolver(self.modmap, self._load)
        return self._resolver

    def _load(self, path: str) -> FileFacts | None:
        blob = self.blob_of(path)
        return self.indexer.facts(facts_key(path, blob)) if blob is not None else None

    def resolve_file(self, path: str) -> FileResolution:
        """A file's rows, by its language's resolver (one per language per process)."""
        lang = for_path(path)
        if lang is None or not lang.by_path:
            return self.resolver().resolve_file(path)
        resolver = self._others.get(lang.name)
        if resolver is None:
            resolver = self._others[lang.name] = lang.resolver(Tree(self.paths_of(lang), self._load, self.read,
                                                                    configs=self.configs(), links=self._links,
                                                                    assets=self._assets, prefetch=self.prefetch))
        return lang.resolve_file(resolver, path)

    def paths_of(self, lang: Language) -> list[str]:
        """The indexed files of a language at the job's commit."""
        if self.stored:
            stored = set(every_path(self.indexer.store.graph))
            return sorted(p for p in stored | set(self.new) if lang.claims(p))
        return sorted(p for p in self.new if lang.claims(p))

    def configs(self) -> list[str] | None:
        """The config files of module resolution at the job's commit, its symlinks and other files (one ls-tree, before any
        fork)."""
        if self._configs is None and self.head:
            entries = git.ls_tree(self.indexer.paths.root, self.head)
            wanted = [e for e in entries if is_config(e.path) or (e.mode == git.MODE_SYMLINK and for_path(e.path) is not None)]
            self._configs = [e.path for e in wanted if is_config(e.path)]
            self._links = [e.path for e in wanted if e.mode == git.MODE_SYMLINK]
            self._assets = [e.path for e in entries if e.mode not in (git.MODE_SYMLINK, git.MODE_SUBMODULE) and for_path(e.path) is None]
            data = dict(git.read_blobs(self.indexer.paths.root, {e.sha for e in wanted}))  # one cat-file for them all
            self._read.update((e.path, data.get(e.sha)) for e in wanted)
        return self._configs

    def prefetch(self, paths: Collection[str]) -> None:
        """Indexed files a language's resolver reads as text (a repository's vite.config.ts files): one cat-file for
        them all, by their blobs at the job's commit (the config files were read with the listing)."""
        wanted = {p: sha for p in paths if p not in self._read and (sha := self.blob_of(p)) is not None}
        data = dict(git.read_blobs(self.indexer.paths.root, set(wanted.values())))
        self._read.update((p, data[sha]) for p, sha in wanted.items() if sha in data)

    def read(self, path: str) -> bytes | None:
        """A tracked file's bytes at the job's commit (a language's config files: few, read once each)."""
        if path not in self._read:
            self._read[path] = git.read_at(self.indexer.paths.root, self.head, path) if self.head else None
        return self._read[path]

    def blob_of(self, path: str) -> str | None:
        e = self.new.get(path)
        if e is not None or not self.stored:
            return e.blob if e is not None else None
        if path not in self._blobs:
            row = blob_and_id(self.indexer.store.graph, path)
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
        _SCRATCH = open_scratch(path)
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




class Resolving(Protocol):
    """What resolution asks of the indexer (in a worker too: its store is replaced after the fork)."""

    paths: git.RepoPaths
    store: Store
    phases: Phases
    _facts: dict[str, FileFacts]
    _warned: dict[str, tuple[str, ...]]

    def facts(self, sha: str) -> FileFacts | None: ...

    def save_facts(self) -> None: ...

    def _rows(self, job: _Job, paths: list[str], tick: Callable[[int], None] | None = None) -> _Rows: ...


def resolve(ix: Resolving, job: _Job) -> list[_Rows | tuple[str, int]]:
    """The rows of every file of `job`, per chunk in order: rows in memory, or (scratch database, chunk)
    where a worker left them."""
    paths = job.paths
    label = "resolving" if len(paths) >= progress.SHOW_FROM else ""
    workers = min(os.cpu_count() or 1, 8)
    with ix.phases("resolve", label, len(paths)) as tick:
        if len(paths) < PARALLEL_RESOLVE or workers < 2 or not _can_fork():
            rows = ix._rows(job, paths, tick)
            return [rows]
        return _resolve_in_workers(ix, job, workers, tick)


def _resolve_in_workers(ix: Resolving, job: _Job, workers: int, tick: Callable[[int], None]) -> list[_Rows | tuple[str, int]]:
    """Fork workers that share this process's facts (copy-on-write) and resolve contiguous runs of the
    sorted paths; each writes its rows to a scratch database of its own, which `_write` copies from in
    the runs' order, so the graph is row for row the one a serial run writes. Workers die with this
    process, never hold the write lock and never touch the graph; if one dies, every run is redone here."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _JOB
    if any((lang := for_path(p)) is not None and lang.by_path for p in job.paths):
        job.configs()  # listed once here, inherited by every worker
    job.chunks = _chunks(job.paths, [_weight(ix, job.blob_of(p)) for p in job.paths], workers * CHUNKS_PER_WORKER)
    job.scratch = _scratch_dir(ix.store.dir)
    out: list[_Rows | tuple[str, int]] = []
    done = 0
    _JOB = job
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_resolve_worker_init, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(_resolve_chunk, i) for i in range(len(job.chunks))]
        ix.save_facts()  # the workers exist (forked at the first submit): this process is free meanwhile
        for i, future in enumerate(futures):
            scratch, index, warned = future.result()
            assert index == i
            ix._warned.update(warned)
            out.append((scratch, index))
            done += len(job.chunks[i])
            tick(done)
    except BrokenProcessPool:
        print("graphguard: warning: a resolution worker died (killed, or out of memory?); resolving in this process",
              file=sys.stderr)
        shutil.rmtree(job.scratch, ignore_errors=True)
        job.scratch = ""
        out = [ix._rows(job, job.paths, tick)]
    except BaseException:  # a worker's full disk, say: its scratch database is not left to fill it
        pool.shutdown(cancel_futures=True)
        shutil.rmtree(job.scratch, ignore_errors=True)
        job.scratch = ""
        raise
    finally:
        pool.shutdown(cancel_futures=True)
        _JOB = None
    return out


def _weight(ix: Resolving, sha: str | None) -> int:
    """What resolving a file costs, roughly: its uses of names (decoded facts), else an average file's."""
    f = ix._facts.get(sha) if sha is not None else None
    return 20 + len(f.calls) + len(f.references) + len(f.imports) if f is not None else 200

