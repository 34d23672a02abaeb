"""The candidates of a request, with their signals, before ranking: seeds (the files of the task's words, or
the paths and symbols given), the expansion over the graph's edges, co-change, tests, recency and frequency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from graphguard.errors import GraphguardError
from graphguard.retrieval import expand as expanding
from graphguard.retrieval import graphdata, history, rank, textindex
from graphguard.retrieval.kinds import Direction, Via
from graphguard.retrieval.named import Naming
from graphguard.retrieval.records import UNREACHED, Request
from graphguard.retrieval.tokenize import about_tests, query_terms

if TYPE_CHECKING:
    import sqlite3

    from graphguard.config import Config

#: Files whose text score reaches this share of the best one are the seeds of a text task (at most MAX_TEXT_SEEDS),
#: shown in full.
SEED_SHARE = 0.6
MAX_TEXT_SEEDS = 3
#: The expansion of a text task starts from more files: from the symbols that matched in each of them.
EXPAND_SHARE = 0.3
MAX_EXPAND_FILES = 8
FOCUS_SYMBOLS = 3
#: Text hits read from the index, and files among them kept as candidates.
TEXT_HITS = 400
TEXT_FILES = 60
#: Co-changed files kept as candidates.
COCHANGE_FILES = 50


class Gathered(NamedTuple):
    candidates: dict[str, rank.Candidate]
    seeds: dict[str, float]
    starts: dict[str, float]
    terms: list[str]
    hits: list[textindex.Hit]
    expansion: expanding.Expansion | None  # None when there are no seeds
    focus: dict[str, list[str]]
    touches: list[history.Touch]  # the co-change evidence (fitting recomputes co-change for other half-lives)
    now: int


class Gathering(Naming):
    """The gathering half of `Retriever` (a mixin: the database, the configuration, the files and the history's
    cut are the retriever's)."""

    if TYPE_CHECKING:
        db: sqlite3.Connection
        config: Config
        files: graphdata.Files
        before: int

    # seeds

    def resolve_seeds(self, names: Sequence[str]) -> tuple[dict[str, float], dict[str, list[str]]]:
        """Paths and dotted names -> (seed files, focus: file -> the symbols named in it)."""
        files: dict[str, float] = {}
        focus: dict[str, list[str]] = {}
        unknown = []
        for name in names:
            path = name.replace("\\", "/").removeprefix("./")
            if path in self.files:
                files[path] = 1.0
                continue
            sym = graphdata.symbols_named(self.db, self.files, [name]).get(name)
            if sym is not None:
                files[sym.path] = 1.0
                focus.setdefault(sym.path, []).append(sym.qualname)
                continue
            module_path = self.files.path_of_module(name)
            if module_path is not None:
                files[module_path] = 1.0
                continue
            unknown.append(name)
        if unknown:
            raise GraphguardError(
                f"not a Python file or a symbol of the graph: {', '.join(unknown)}"
                " (give a path relative to the repository root, or a dotted name like pkg.mod.func)"
            )
        return files, focus

    # the candidates

    def gather(self, request: Request, profile: rank.Profile) -> Gathered:
        """The candidates of a request with their signals (history cut at `self.before`), before ranking."""
        focus: dict[str, list[str]] = {}
        written: dict[str, list[str]] = {}
        hits: list[textindex.Hit] = []
        text_scores: dict[str, float] = {}
        terms: list[str] = []
        if request.text is not None:
            terms = query_terms(request.text)
            hits = textindex.search(self.db, textindex.useful_terms(self.db, terms), limit=TEXT_HITS)
            self.files.load(h.path for h in hits)
            hits = [h for h in hits if h.path in self.files]
            hits, named = self._with_named_symbols(request.text, terms, hits)
            text_scores = rank.with_named(rank.file_text_scores((h.path, h.score) for h in hits), named)
            seeds = rank.text_seeds(text_scores, share=SEED_SHARE, most=MAX_TEXT_SEEDS)
            starts = rank.text_seeds(text_scores, share=EXPAND_SHARE, most=MAX_EXPAND_FILES)
            focus = text_focus(hits, starts, {p: self.files.module(p) for p in starts})
            pinned: set[str] = set()
            # The files the task names as code go first, seeds of the walk from the definitions it names.
            written = self._written_definitions(request.text, about_tests=about_tests(request.text))
            for path, qualnames in written.items():
                seeds[path] = starts[path] = 1.0
                if qualnames:
                    focus[path] = qualnames
                else:
                    focus.pop(path, None)
        else:
            seeds, focus = self.resolve_seeds(request.seeds)
            starts = seeds
            pinned = set(seeds)
        if not seeds:
            return Gathered({}, seeds, starts, terms, hits, None, focus, [], 0)

        expansion = expanding.expand(
            starts,
            lambda paths: graphdata.edges_of(self.db, self.files, paths, focus),
            lambda paths: graphdata.degree_of(self.db, self.files, paths),
            self.files.is_test,
            depth=request.depth,
        )
        now = history.head_time(self.db, before=self.before)
        touches = history.seed_touches(self.db, list(starts), before=self.before)
        co = self.cochange(touches, starts, now, profile.half_life)
        cands: dict[str, rank.Candidate] = {}

        def cand(path: str) -> rank.Candidate:
            c = cands.get(path)
            if c is None:
                c = cands[path] = rank.Candidate(path, distance=UNREACHED, via=Via.TEXT, direction=Direction.TEXT)
            return c

        for path, v in sorted(text_scores.items(), key=lambda kv: -kv[1])[:TEXT_FILES]:
            c = cand(path)
            c.signals["text"] = v
            c.distance = 0
        for path, r in expansion.reached.items():
            c = cand(path)
            c.signals["graph"] = r.weight
            if r.distance < c.distance or (r.distance == c.distance and c.via is Via.TEXT and r.distance > 0):
                c.distance = r.distance
                c.via = r.via if r.distance > 0 else (Via.SEED if path in pinned else Via.TEXT)
                c.direction = r.direction
        for path, v in co.items():
            c = cand(path)
            c.signals["cochange"] = v
            if c.distance == UNREACHED:
                c.distance, c.via, c.direction = 1, Via.HISTORY, Direction.HISTORY
        for path in seeds:
            c = cand(path)
            c.is_seed = True
            c.pinned = path in pinned or path in written
            if path in written:
                c.distance = 0
        # Tests: direct importers of a seed, tests named after a seed, tests further away.
        test_names = self._tests_named_after(list(seeds))
        for path, v in test_names.items():
            c = cand(path)
            c.signals["test"] = max(c.signals.get("test", 0.0), v)
            if c.distance == UNREACHED:
                c.distance, c.via, c.direction = 1, Via.TEST, Direction.REVERSE
        for path, r in expansion.reached.items():
            if self.files.is_test(path) and r.distance > 0:
                c = cands[path]
                c.signals["test"] = max(c.signals.get("test", 0.0), 1.0 if r.direct_test else 0.5)
        # Fixtures nothing imports match a task's words by the dozen (a folder of plugins for integration tests);
        # one that changed with the seeds before is kept: black's test cases under tests/data change with the code.
        data = [p for p in cands if self.config.is_test_data(p) and p not in pinned and "cochange" not in cands[p].signals]
        unimported = set(data) - graphdata.imported(self.db, self.files, data)
        for path in list(cands):
            if (self.config.is_generated(path) or path in unimported) and path not in pinned:
                del cands[path]  # walked through, never returned: generated code, fixtures nothing imports
        activity = history.activity_rows(self.db, list(cands), before=self.before)
        recency, frequency = history.activity(activity, now)
        for path, c in cands.items():
            if path in recency:
                c.signals["recency"] = recency[path]
                c.signals["frequency"] = frequency[path]
        return Gathered(cands, seeds, starts, terms, hits, expansion, focus, touches, now)

    def cochange(self, touches: Sequence[history.Touch], starts: Mapping[str, float], now: int,
                 half_life: float) -> dict[str, float]:
        """The files of the graph that changed with the starts, at most COCHANGE_FILES, relative to the best."""
        return self.cochange_by_half_life(touches, starts, now, (half_life,))[half_life]

    def cochange_by_half_life(self, touches: Sequence[history.Touch], starts: Mapping[str, float], now: int,
                              half_lives: Sequence[float]) -> dict[float, dict[str, float]]:
        out = {}
        for h, co in history.cochange_by_half_life(touches, dict(starts), now, half_lives).items():
            self.files.load(co)
            out[h] = rank.top({p: v for p, v in co.items() if p in self.files}, COCHANGE_FILES)
        return out


def text_focus(hits: Sequence[textindex.Hit], starts: Mapping[str, float], modules: Mapping[str, str]) -> dict[str, list[str]]:
    """For each file the expansion of a text task starts from, the symbols that matched best in it; none (the
    whole file) when the module's own top-level code is among them."""
    out: dict[str, list[str]] = {}
    whole: set[str] = set()
    for h in hits:
        if h.path not in starts or h.path in whole:
            continue
        names = out.setdefault(h.path, [])
        if len(names) >= FOCUS_SYMBOLS:
            continue
        if h.qualname == modules.get(h.path):
            whole.add(h.path)
            continue
        names.append(h.qualname)
    return {p: q for p, q in out.items() if p not in whole and q}
