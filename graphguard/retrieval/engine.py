"""Retrieval end to end: seeds -> expansion -> history -> ranking -> symbols -> budget.

The steps in between are pure (expand, rank, budget, tokenize); the retriever
does their I/O: it reads the store, brings the text index and the history up
to the graph's HEAD, and reads source text from git blobs at HEAD, which is
also the stale-index guard: a path HEAD does not have is dropped and counted.
`Retriever` runs the pipeline; its stages are mixins: `Gathering` (candidates,
over `Naming` in named) and `Filling` (fill). The records are in records.
"""

from __future__ import annotations

import sqlite3
import time

from graphguard.config import Config
from graphguard.retrieval import graphdata, history, profiles, rank
from graphguard.retrieval.candidates import Gathering
from graphguard.retrieval.fill import Filling
from graphguard.retrieval.records import MAX_FILES, ContextResult, Request
from graphguard.retrieval.tokenize import about_tests

# --- keeping the text index and the history current ---------------------------------------


def ensure_indexes(store: object, root: str, head: str | None, *, lock_timeout: float = 30.0) -> None:
    """Bring the co-change history and the text index to the graph's HEAD: two meta reads, since the indexer
    builds them with the graph (see maintain); the work is done here only when something left them behind."""
    from graphguard.retrieval.maintain import catch_up

    catch_up(store, root, head, by="query", lock_timeout=lock_timeout)  # type: ignore[arg-type]


# --- the query ------------------------------------------------------------------------------


class Retriever(Gathering, Filling):
    def __init__(self, db: sqlite3.Connection, root: str, head: str, config: Config, *,
                 before: int = history.NO_CUTOFF):
        """`before`: history (co-change, recency, frequency) counts only commits strictly older than this time;
        fitting replays past commits as queries with it (the graph and the text index stay those of `head`)."""
        self.before = before
        self.db = db
        self.root = root
        self.head = head
        self.config = config
        self.files = graphdata.Files(db)

    # the pipeline

    def _tests_under_subjects(self, ranked: list[rank.Candidate], request: Request) -> list[rank.Candidate]:
        """The ranking with each test of those that can be returned under the file it tests (rank.tests_under_subjects)."""
        window = ranked[: 3 * (request.limit or MAX_FILES)]
        tests = [c.path for c in window if self.files.is_test(c.path)]
        if not tests:
            return ranked
        tested = graphdata.tested_files(self.db, self.files, tests)
        paths = [c.path for c in ranked if not self.files.is_test(c.path)]
        subject = {t: s for t in tests if (s := rank.subject_of(t, tested.get(t, {}), paths)) is not None}
        return rank.tests_under_subjects(ranked, subject)

    def run(self, request: Request, command: str) -> ContextResult:
        t0 = time.perf_counter()
        profile = profiles.resolve(self.db, request.profile)
        result = ContextResult(command, request.text if request.text is not None else list(request.seeds), profile.name,
                               self.head, budget=request.budget)
        g = self.gather(request, profile)
        result.terms = g.terms
        result.seeds = sorted(g.seeds, key=lambda p: (-g.seeds[p], p))
        if not g.seeds:
            result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
            return result
        ranked = rank.rank(g.candidates, profile)
        # Unless the task is about tests: its words say so, or the caller gave a test as a seed.
        on_tests = about_tests(request.text) if request.text is not None else any(map(self.files.is_test, g.seeds))
        if not on_tests:
            ranked = self._tests_under_subjects(ranked, request)
        result.candidates = len(g.candidates)
        assert g.expansion is not None
        self._fill(result, ranked, request, g.hits, g.expansion, g.focus)
        result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
        return result
