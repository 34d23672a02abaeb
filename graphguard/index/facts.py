"""Facts by blob: parsed (in forked workers when there are many) or read from the blob cache, decoded once."""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from graphguard import git
from graphguard.index import progress
from graphguard.index.plan import Entry, blob_of_key, facts_key
from graphguard.index.workers import _can_fork, _die_with_parent
from graphguard.languages import LANGUAGES
from graphguard.model import FileFacts

if TYPE_CHECKING:
    from graphguard.index.progress import Phases
    from graphguard.store import Store

#: The facts of a file whose blob git could not give (a missing object, a shallow or damaged clone).
UNREADABLE = FileFacts(warnings=("git could not read the file's contents; not parsed",), parsed=False)
#: Below this many unseen blobs a process pool costs more than it saves.
PARALLEL_THRESHOLD = 64
CHUNK = 48


def parse_blob(data: bytes, key: str = "") -> str:
    """The facts JSON of a blob cached under `key` (facts_key; a bare blob sha or "" is Python)."""
    _, colon, tail = key.partition(":")
    if colon:
        name, _, kind = tail.partition("/")
        return LANGUAGES[name].parse(data, kind).to_json()
    from graphguard.languages.python import parse as python

    try:
        facts = python.parse(data)
    except RecursionError:
        facts = python.skipped("too deeply nested to parse")
    return facts.to_json()


def _parse(key: str, data: bytes) -> str:
    # Python's key is the bare blob: parse_blob(data), as it has always been called (a test counts those calls).
    return parse_blob(data, key) if ":" in key else parse_blob(data)


def _parse_chunk(chunk: list[tuple[str, bytes]]) -> list[tuple[str, str]]:
    gc.disable()  # millions of short-lived nodes; the cyclic collector only slows this down
    return [(key, _parse(key, data)) for key, data in chunk]



def _parse_stream(blobs: list[tuple[str, bytes]]) -> Iterator[list[tuple[str, str]]]:
    """(sha, facts JSON) of the blobs, a chunk at a time as workers finish them (in this process when there
    are few). Workers die with this process and never hold the write lock (store.Lock); if one dies (the OOM
    killer), the chunks it left are parsed here, after a warning."""
    total = len(blobs)
    workers = min(os.cpu_count() or 1, 8)
    if total < PARALLEL_THRESHOLD or workers < 2 or not _can_fork():
        for i in range(0, total, CHUNK):
            yield [(key, _parse(key, data)) for key, data in blobs[i : i + CHUNK]]
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
            yield [(key, _parse(key, data)) for key, data in left[i : i + CHUNK]]


def parse_blobs(blobs: list[tuple[str, bytes]], progress: Callable[[int, int], None] | None = None) -> list[tuple[str, str]]:
    """(sha, facts JSON) for each blob: in worker processes when there are many (see _parse_stream)."""
    out: list[tuple[str, str]] = []
    for chunk in _parse_stream(blobs):
        out.extend(chunk)
        if progress:
            progress(len(out), len(blobs))
    return out



def _keyed(blobs: Iterable[tuple[str, bytes]], keys: list[str]) -> list[tuple[str, bytes]]:
    """(key, bytes) for each key, from (sha, bytes): a blob read once serves every key of it."""
    data = dict(blobs)
    return [(k, data[blob_of_key(k)]) for k in keys if blob_of_key(k) in data]


def _decode(raw: str) -> FileFacts | None:
    try:
        return FileFacts.from_json(raw)
    except (ValueError, TypeError, IndexError):
        return None



class Facts:
    """The facts half of `Indexer` (a mixin: the root, store and phases are the indexer's)."""

    if TYPE_CHECKING:
        root: str
        store: Store
        phases: Phases
        _facts: dict[str, FileFacts]
        _raw: dict[str, str]
        _warned: dict[str, tuple[str, ...]]
        _unsaved: list[tuple[str, str]]

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

    def _reparse(self, key: str) -> str | None:
        parsed = parse_blobs(_keyed(git.read_blobs(self.root, [blob_of_key(key)]), [key]))
        self.store.save_facts(parsed)
        return parsed[0][1] if parsed else None

    def ensure_facts(self, entries: Iterable[Entry], *, decode: bool = False, defer_save: bool = False) -> int:
        """Parse every blob of `entries` the cache does not hold; return how many were parsed. With `decode`,
        their facts are decoded as the workers hand them over (while the others still parse) rather than
        when resolution first asks. With `defer_save`, they go to the blob cache at `save_facts()`: while
        resolution workers run, when there are any."""
        wanted = {facts_key(e.path, e.blob) for e in entries}
        missing = sorted(wanted - self.store.known_blobs(wanted))
        if not missing:
            return 0
        blobs = _keyed(git.read_blobs(self.root, sorted({blob_of_key(k) for k in missing})), missing)
        parsed: list[tuple[str, str]] = []
        label = "parsing" if len(blobs) >= progress.SHOW_FROM else ""
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

