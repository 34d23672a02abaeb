"""One open repository that a long-lived process answers from, kept current with what git says.

Before each answer a probe stats the few files whose change can move the graph: HEAD, the ref it
names, packed-refs, the index, the configuration files, and the graph database itself. When none
moved (the common case: an agent asks many questions between two commits) the answer costs no git
process and no SQLite query beyond its own. When one moved, `repo.ensure_current` brings the graph
to HEAD: an incremental update, or a wait for the background refresher a post-* hook started (never
an answer from a graph it is halfway through; the tools that only read the graph answer from the previous
graph, marked stale, once the refresher has taken STALE_AFTER). Each answer then reads inside one SQLite read
transaction, so a writer in another process (a hook's refresher, a second server) committing
meanwhile cannot mix two graphs into one answer.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.errors import GraphguardError
from graphguard.freshness import Freshness, State, current
from graphguard.repo import Repo, checked_after, ensure_fresh, head_probe, open_repo, stamp
from graphguard.store.db import file_of, read_transaction
from graphguard.store.schema import head as graph_head

#: Times an answer is retried when a writer moved the graph between the refresh and the read.
RETRIES = 3
#: Seconds an answer that may come from a stale graph waits for a background refresher or the write lock.
STALE_AFTER = 1.0
#: The first entries of Session.probe: repo.head_probe's.
HEAD_STAMPS = 3


class Session:
    """The repository at `path`, opened once. `answering()` yields how fresh the graph is (the commit it describes)."""

    def __init__(self, path: str):
        self.repo: Repo = open_repo(os.path.abspath(path))
        self.config: Config = load_config(self.repo.root)
        self.head: str | None = None
        self._probe: tuple[object, ...] | None = None
        self._answer_probe: tuple[object, ...] = ()  # head_probe at the last refresh: did HEAD move during the answer
        self._answered: Freshness | None = None
        self._indexed: str | None = None
        # A repository using the reftable backend keeps refs where a stat cannot follow them: ask git each time.
        self._reftable = os.path.isdir(os.path.join(self.repo.paths.common_dir, "reftable"))

    @property
    def root(self) -> str:
        return self.repo.root

    # freshness

    def probe(self) -> tuple[object, ...]:
        """What must stay the same for the graph to stay current: a few stats and one small read (HEAD)."""
        paths = self.repo.paths
        return (
            *head_probe(paths),
            stamp(os.path.join(paths.git_dir, "index")),
            stamp(os.path.join(self.root, ".graphguard.toml")),
            stamp(os.path.join(self.root, "pyproject.toml")),
            stamp(self.repo.store.graph_path),
        )

    def refresh(self, *, force: bool = False, stale_ok: bool = False) -> Freshness:
        """Bring the graph to HEAD when the probe says something moved; how fresh that left it. `stale_ok`: after
        STALE_AFTER seconds of a background refresher's work (or of another process's write lock) answer from the
        graph as it stands, marked stale, and look again at the next answer."""
        probe = self.probe()
        self._answer_probe = probe[:HEAD_STAMPS]
        if not force and not self._reftable and probe == self._probe and self.head is not None:
            return current(self.head)
        if self._probe is not None and probe[-1] != self._probe[-1] and self._graph_replaced():
            self.repo.store.close()  # another process discarded and rebuilt the database: not the file we hold
            self._indexed = None
        self.config = load_config(self.root)
        waits = {"patience": STALE_AFTER, "lock_timeout": STALE_AFTER} if stale_ok else {}
        fresh = ensure_fresh(self.repo, stale_ok=stale_ok, progress=False, config=self.config, **waits)
        self.head = fresh.head
        # Probed before the update: a move during it is seen by the next probe. A stale graph is looked at again.
        self._probe = None if fresh.state is State.STALE else probe
        return fresh

    def _graph_replaced(self) -> bool:
        """Whether the open graph connection reads a file no longer at the graph's path."""
        conn = self.repo.store._graph
        if conn is None:
            return False
        try:
            held = file_of(conn)
        except sqlite3.Error:
            return True
        return not held or not os.path.exists(held) or not os.path.samefile(held, self.repo.store.graph_path)

    @contextlib.contextmanager
    def answering(self, *, indexes: bool = False, stale_ok: bool = False) -> Iterator[Freshness]:
        """The graph, current (or stale, when `stale_ok`: see refresh), held still for one answer: yields how fresh
        it is (`head`: the commit it describes). `indexes`: the retrieval's text index and history too (they are
        written, so before the read transaction begins). `answered()` then tells how fresh the answer was."""
        for _ in range(RETRIES):
            fresh = self.refresh(stale_ok=stale_ok)
            head = fresh.head
            if head is None:
                raise GraphguardError("the repository has no commit yet: nothing to answer from")
            if indexes and self._indexed != head:
                from graphguard.retrieval.engine import ensure_indexes

                ensure_indexes(self.repo.store, self.root, head)
                self._indexed = head
            with read_transaction(self.repo.store.graph):
                # The first read fixes the transaction's view of the database: it must be the graph of `head`.
                if graph_head(self.repo.store) == head:
                    self._answered = fresh
                    yield fresh
                    return
            self._probe = None  # a writer moved it between the refresh and the read: look again
        raise GraphguardError("the graph keeps changing under the server (another process is rewriting it); try again")

    def answered(self) -> Freshness | None:
        """How fresh the last answer was: as `answering` found it, stale when HEAD moved while it answered."""
        if self._answered is None:
            return None
        fresh, self._answered = self._answered, None
        return checked_after(self.repo, fresh, self._answer_probe)

    def close(self) -> None:
        self.repo.store.close()

