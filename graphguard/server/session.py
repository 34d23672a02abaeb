"""One open repository that a long-lived process answers from, kept current with what git says.

Before each answer a probe stats the few files whose change can move the graph: HEAD, the ref it
names, packed-refs, the index, the configuration files, and the graph database itself. When none
moved (the common case: an agent asks many questions between two commits) the answer costs no git
process and no SQLite query beyond its own. When one moved, `repo.ensure_current` brings the graph
to HEAD: an incremental update, or a wait for the background refresher a post-* hook started (never
an answer from a graph it is halfway through). Each answer then reads inside one SQLite read
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
from graphguard.repo import Repo, ensure_current, open_repo
from graphguard.store.db import file_of, read_transaction
from graphguard.store.schema import head as graph_head

#: A stat's identity: (inode, size, mtime in ns); None for a missing file.
Stamp = tuple[int, int, int] | None
#: Times an answer is retried when a writer moved the graph between the refresh and the read.
RETRIES = 3


def _stamp(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _ref_of(head_text: str) -> str | None:
    """The ref a symbolic HEAD names (`ref: refs/heads/main`), None for a detached HEAD."""
    if head_text.startswith("ref:"):
        return head_text[4:].strip()
    return None


class Session:
    """The repository at `path`, opened once. `answering()` yields the commit the graph describes, current."""

    def __init__(self, path: str):
        self.repo: Repo = open_repo(os.path.abspath(path))
        self.config: Config = load_config(self.repo.root)
        self.head: str | None = None
        self._probe: tuple[object, ...] | None = None
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
        head_path = os.path.join(paths.git_dir, "HEAD")
        try:
            with open(head_path, "rb") as f:
                head_text = f.read(512).decode("utf-8", "replace")
        except OSError:
            head_text = ""
        ref = _ref_of(head_text)
        # Worktrees: HEAD and the index are the worktree's own, branches are shared (the common dir).
        ref_stamp = _stamp(os.path.join(paths.common_dir, ref)) if ref else None
        if ref and ref.startswith(("refs/bisect", "refs/worktree")):
            ref_stamp = _stamp(os.path.join(paths.git_dir, ref))
        return (
            head_text, ref_stamp,
            _stamp(os.path.join(paths.common_dir, "packed-refs")),
            _stamp(os.path.join(paths.git_dir, "index")),
            _stamp(os.path.join(self.root, ".graphguard.toml")),
            _stamp(os.path.join(self.root, "pyproject.toml")),
            _stamp(self.repo.store.graph_path),
        )

    def refresh(self, *, force: bool = False) -> str | None:
        """Bring the graph to HEAD when the probe says something moved; the commit the graph describes."""
        probe = self.probe()
        if not force and not self._reftable and probe == self._probe and self.head is not None:
            return self.head
        if self._probe is not None and probe[-1] != self._probe[-1] and self._graph_replaced():
            self.repo.store.close()  # another process discarded and rebuilt the database: not the file we hold
            self._indexed = None
        self.config = load_config(self.root)
        result = ensure_current(self.repo, progress=False, config=self.config)
        self.head = result.head
        # Probed before the update: a move during it is seen by the next probe.
        self._probe = probe
        return self.head

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
    def answering(self, *, indexes: bool = False) -> Iterator[str]:
        """The graph, current, held still for one answer: yields the commit it describes. `indexes`: the
        retrieval's text index and history too (they are written, so before the read transaction begins)."""
        for _ in range(RETRIES):
            head = self.refresh()
            if head is None:
                raise GraphguardError("the repository has no commit yet: nothing to answer from")
            if indexes and self._indexed != head:
                from graphguard.retrieval.engine import ensure_indexes

                ensure_indexes(self.repo.store, self.root, head)
                self._indexed = head
            with read_transaction(self.repo.store.graph):
                # The first read fixes the transaction's view of the database: it must be the graph of `head`.
                if graph_head(self.repo.store) == head:
                    yield head
                    return
            self._probe = None  # a writer moved it between the refresh and the read: look again
        raise GraphguardError("the graph keeps changing under the server (another process is rewriting it); try again")

    def close(self) -> None:
        self.repo.store.close()

