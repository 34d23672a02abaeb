"""Retrieval end to end: seeds -> expansion -> history -> ranking -> symbols -> budget.

The steps in between are pure (expand, rank, budget, tokenize); this module
does their I/O: it reads the store, brings the text index and the history up
to the graph's HEAD, and reads source text from git blobs at HEAD, which is
also the stale-index guard: a path HEAD does not have is dropped and counted.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.config import Config
from graphguard.errors import GraphguardError
from graphguard.retrieval import budget as budgeting
from graphguard.retrieval import expand as expanding
from graphguard.retrieval import graphdata, history, profiles, rank, source, textindex
from graphguard.retrieval.tokenize import STOPWORDS, query_terms, split_identifier

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
#: Symbols shown per file (its best ones); a file's later symbols score a bit below its first.
PER_FILE = 2
#: Tests named after each seed: at most this many, the nearest first.
NAMED_TESTS = 50
SECOND_SYMBOL = 0.9
DEFAULT_BUDGET = 8000
#: The distance of a candidate no walk reached (a text match is at 0, a co-changed file at 1).
UNREACHED = 1 << 30
DEFAULT_LIMIT = 20
#: A symbol named by the task's words scores this times the best text hit, times its strength (rank.name_strength).
NAME_BOOST = 1.0
#: The classes named after a class the task names weigh this share of it, and the class it is named after this.
FAMILY = 0.6
NAMED_AFTER = 0.9
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*")


class Request(NamedTuple):
    text: str | None = None  # context: the task
    seeds: tuple[str, ...] = ()  # related: paths or dotted symbols
    limit: int = DEFAULT_LIMIT
    budget: int | None = DEFAULT_BUDGET
    depth: int = 1
    profile: str = "auto"


class ContextItem(NamedTuple):
    path: str
    symbol: str
    line: int
    end_line: int
    score: float
    distance: int
    via: str  # seed | text | call | import | caller | test | history
    disclosure: budgeting.Disclosure
    tokens: int
    text: str
    signals: Mapping[str, float] = {}  # shared by every instance: never mutated
    truncated: bool = False


@dataclass
class ContextResult:
    command: str  # context | related
    query: str | list[str]
    profile: str
    head: str
    items: list[ContextItem] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    candidates: int = 0
    stale: int = 0  # returned paths the index had but HEAD does not: dropped
    budget: int | None = None
    elapsed_ms: int = 0

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)


# --- keeping the text index and the history current ---------------------------------------


def ensure_indexes(store: object, root: str, head: str | None, *, lock_timeout: float = 30.0) -> None:
    """Bring the co-change history and the text index to the graph's HEAD: two meta reads, since the indexer
    builds them with the graph (see maintain); the work is done here only when something left them behind."""
    from graphguard.retrieval.maintain import catch_up

    catch_up(store, root, head, by="query", lock_timeout=lock_timeout)  # type: ignore[arg-type]


# --- the query ------------------------------------------------------------------------------


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


class Retriever:
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

    # the pipeline

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
        result.candidates = len(g.candidates)
        assert g.expansion is not None
        self._fill(result, ranked, request, g.hits, g.expansion, g.focus)
        result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
        return result

    def gather(self, request: Request, profile: rank.Profile) -> Gathered:
        """The candidates of a request with their signals (history cut at `self.before`), before ranking."""
        focus: dict[str, list[str]] = {}
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
                c = cands[path] = rank.Candidate(path, distance=UNREACHED, via="text", direction="text")
            return c

        for path, v in sorted(text_scores.items(), key=lambda kv: -kv[1])[:TEXT_FILES]:
            c = cand(path)
            c.signals["text"] = v
            c.distance = 0
        for path, r in expansion.reached.items():
            c = cand(path)
            c.signals["graph"] = r.weight
            if r.distance < c.distance or (r.distance == c.distance and c.via == "text" and r.distance > 0):
                c.distance = r.distance
                c.via = r.via if r.distance > 0 else ("seed" if path in pinned else "text")
                c.direction = r.direction
        for path, v in co.items():
            c = cand(path)
            c.signals["cochange"] = v
            if c.distance == UNREACHED:
                c.distance, c.via, c.direction = 1, "history", "history"
        for path in seeds:
            c = cand(path)
            c.is_seed = True
            c.pinned = path in pinned
        # Tests: direct importers of a seed, tests named after a seed, tests further away.
        test_names = self._tests_named_after(list(seeds))
        for path, v in test_names.items():
            c = cand(path)
            c.signals["test"] = max(c.signals.get("test", 0.0), v)
            if c.distance == UNREACHED:
                c.distance, c.via, c.direction = 1, "test", "reverse"
        for path, r in expansion.reached.items():
            if self.files.is_test(path) and r.distance > 0:
                c = cands[path]
                c.signals["test"] = max(c.signals.get("test", 0.0), 1.0 if r.direct_test else 0.5)
        for path in list(cands):
            if self.config.is_generated(path) and path not in pinned:
                del cands[path]  # walked through, never returned
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

    def _with_named_symbols(self, text: str, terms: Sequence[str],
                            hits: list[textindex.Hit]) -> tuple[list[textindex.Hit], dict[str, float]]:
        """The text hits with the symbols whose names are made of the task's words (`DeviceSerializer` for "add a
        field to the Device REST API serializer") first, and the files holding them with the strength of the best
        such name (rank.with_named): BM25 scores the words one by one, and a class named by two of them ranks below
        a file that repeats one of them often. A name several files share (`get_value`) says less, and weighs less."""
        words = [w for w in split_identifier(" ".join(_IDENT.findall(text)).replace(" ", "_"))
                 if w not in STOPWORDS and not w.isdigit()]
        rows = graphdata.name_matches(self.db, rank.compound_names(words))
        if not rows:
            return hits, {}
        stems = set(terms)
        named = [(r, n) for r in rows if (n := rank.named_by(r[1], stems))]
        self.files.load(r[0] for r, _ in named)
        named = [(r, n) for r, n in named if r[0] in self.files]
        if not named:
            return hits, {}
        top = max((h.score for h in hits), default=1.0)
        by_name: dict[str, set[str]] = {}
        for r, _ in named:
            by_name.setdefault(r[1].rpartition(".")[2].lower(), set()).add(r[0])
        written = {w.lower() for w in _IDENT.findall(text)}  # identifiers as the task writes them
        best = {(h.path, h.qualname): h for h in hits}
        strength: dict[str, float] = {}
        for (path, qualname, kind, line, end), n in named:
            name = qualname.rpartition(".")[2]
            s = rank.name_strength(n, len(by_name[name.lower()]), name.lower() in written)
            strength[path] = max(strength.get(path, 0.0), s)
            prev = best.get((path, qualname))
            if prev is None or prev.score < top * NAME_BOOST * s:
                best[(path, qualname)] = textindex.Hit(path, qualname, kind, line, end, top * NAME_BOOST * s)
            if kind == "class":
                # Its family: the classes named after it (`ModuleTypeSerializer`, `ModuleTypeFilterSet`, ... of the
                # model `ModuleType`) and the class it is named after (`Device` of `DeviceSerializer`): in a
                # Django-style application a change to a model goes through them.
                family = [(FAMILY, r) for r in graphdata.classes_named_after(self.db, self.files, name)]
                family += [(NAMED_AFTER, r) for r in graphdata.classes_named(self.db, self.files, rank.name_prefixes(name))]
                for share, (fpath, fq, fkind, fline, fend) in family:
                    fs = share * s
                    strength[fpath] = max(strength.get(fpath, 0.0), fs)
                    if (fpath, fq) not in best:
                        best[(fpath, fq)] = textindex.Hit(fpath, fq, fkind, fline, fend, top * NAME_BOOST * fs)
        return sorted(best.values(), key=lambda h: (-h.score, h.path, h.line)), strength

    def _tests_named_after(self, seeds: list[str]) -> dict[str, float]:
        """Tests named after a seed, the nearest first: those in the seed's folder, then its parent's, and so on up
        to the whole repository, until NAMED_TESTS are found. A monorepo has a `test_models.py` in every package:
        all of them would cost what the repository holds, and the far ones say nothing about this seed."""
        found: dict[str, float] = {}

        def take(seed: str, tests: list[str], near: dict[str, float]) -> None:
            for path, v in rank.tests_named_after([seed], tests).items():
                if len(near) < NAMED_TESTS or path in near:
                    near[path] = v

        everywhere: list[tuple[str, dict[str, float]]] = []  # seeds whose folders hold too few
        for seed in seeds:
            stems = rank.seed_stems([seed])
            if not stems:
                continue
            near: dict[str, float] = {}
            folder = seed.rpartition("/")[0]
            # Folders two levels deep or more: a top-level folder is about the whole repository (`mono/`,
            # `src/`), which the one scan below reads for every seed at once.
            while "/" in folder and len(near) < NAMED_TESTS:
                # A range of the index of paths. A generous limit: a candidate may fail rank's exact test.
                take(seed, self.files.tests_containing(stems, under=folder, most=4 * NAMED_TESTS), near)
                folder = folder.rpartition("/")[0]
            if len(near) < NAMED_TESTS:
                everywhere.append((seed, near))
            for path, v in near.items():
                found[path] = max(found.get(path, 0.0), v)
        if everywhere:  # one scan of the whole index for all of them
            stems = rank.seed_stems([seed for seed, _ in everywhere])
            tests = self.files.tests_containing(stems, most=4 * NAMED_TESTS * len(everywhere))
            for seed, near in everywhere:
                take(seed, tests, near)
                for path, v in near.items():
                    found[path] = max(found.get(path, 0.0), v)
        return found

    # symbols, source text, budget

    def _fill(self, result: ContextResult, ranked: list[rank.Candidate], request: Request, hits: list[textindex.Hit],
              expansion: expanding.Expansion, focus: Mapping[str, Sequence[str]]) -> None:
        limit = request.limit
        # Every file gives at least one result: `limit` files fill the limit, a few more stand in for stale ones.
        wanted = ranked[: limit + 3]
        contents, missing = source.at_head(self.root, [c.path for c in wanted])
        result.stale = len(missing)
        stale = set(missing)
        hits_by_path: dict[str, list[textindex.Hit]] = {}
        for h in hits:
            hits_by_path.setdefault(h.path, []).append(h)
        edge_symbols: dict[str, tuple[str, ...]] = {p: r.symbols for p, r in expansion.reached.items()}
        picks: list[tuple[rank.Candidate, str, float, bool]] = []
        for c in wanted:
            if c.path in stale:
                continue
            named = focus.get(c.path, ()) if c.pinned else ()
            names = self._symbols_for(c, hits_by_path.get(c.path, []), edge_symbols.get(c.path, ()), named)
            for k, q in enumerate(names[: 1 if c.pinned and not named else max(PER_FILE, len(named))]):
                # The seed of a file is its first symbol (all of them when the caller named them).
                picks.append((c, q, c.score * (SECOND_SYMBOL ** k), c.is_seed and (k == 0 or q in named)))
        picks.sort(key=lambda t: (not t[0].pinned, -t[2], t[0].path, t[1]))
        sym_rows = graphdata.symbols_named(self.db, self.files, [q for _, q, _, _ in picks])
        items: list[budgeting.Item] = []
        meta: dict[str, tuple[rank.Candidate, str, float, int, int]] = {}
        texts: dict[str, tuple[str, list[str]]] = {}
        for c, q, s, is_seed in picks[: limit * 3]:
            if c.path not in texts:
                blob = contents[c.path][1].decode("utf-8", "replace")
                texts[c.path] = (blob, blob.split("\n"))
            blob, lines = texts[c.path]
            row = sym_rows.get(q)
            if row is None or row.path != c.path:  # the module itself
                q = self.files.module(c.path)
                outline = [r for r in graphdata.symbols_in(self.db, self.files, c.path) if r.kind in ("function", "class")]
                full = blob.rstrip("\n")
                sig = module_outline(lines, q, outline)
                line, end = 1, max(1, len(lines))
            else:
                line, end = row.line, row.end_line
                full = "\n".join(lines[line - 1 : end])
                sig = signature_text(lines, row.line, row.end_line, row.signature)
            key = f"{c.path}\0{q}"
            if key in meta:
                continue
            meta[key] = (c, q, s, line, end)
            ref = f"{c.path}:{line}  {q}"
            if c.past_cliff:  # listed, but far below the best: a reference is all it is worth
                full = sig = ""  # the budget skips empty renderings
            items.append(budgeting.Item(key, f"{c.path}:{line}", budgeting.clamp_lines(full), budgeting.clamp_lines(sig),
                                        ref, is_seed=is_seed))
        for ch in budgeting.select(_seeds_within_half(items, request.budget), request.budget, limit):
            c, q, s, line, end = meta[ch.key]
            result.items.append(ContextItem(
                c.path, q, line, end, round(s, 4), 0 if c.distance == UNREACHED else c.distance, c.via,
                ch.disclosure, ch.tokens, ch.text, {k: round(v, 3) for k, v in sorted(c.signals.items())},
                ch.truncated,
            ))

    def _symbols_for(self, c: rank.Candidate, hits: list[textindex.Hit], edge: Sequence[str], named: Sequence[str]) -> list[str]:
        if named:
            return list(named)
        names: list[str] = []
        module = self.files.module(c.path)
        for h in hits:
            if h.qualname not in names and h.qualname != module:
                names.append(h.qualname)
        for q in edge:
            if q not in names and q != module and q.startswith(module + "."):
                names.append(q)
        if c.pinned or not names:
            return [module, *names]
        return names


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


def _seeds_within_half(items: list[budgeting.Item], total: int | None) -> list[budgeting.Item]:
    """Seeds are full, but together they take at most half the budget: shared out so that small seeds stay whole
    and each larger one gets an equal part of what is left, cut to it (the cut is said in-band)."""
    if total is None:
        return items
    seeds = sorted((i for i, it in enumerate(items) if it.is_seed), key=lambda i: budgeting.count_tokens(items[i].full))
    room = total // 2
    share: dict[int, int] = {}
    for n, i in enumerate(seeds):
        share[i] = min(budgeting.count_tokens(items[i].full), room // (len(seeds) - n))
        room -= share[i]
    out = []
    for i, it in enumerate(items):
        if i in share and budgeting.count_tokens(it.full) > share[i]:
            it = it._replace(full=budgeting.truncate(it.full, max(share[i], 16), it.location))
        out.append(it)
    return out


_DOC_START = re.compile(r"""^\s*[rRbBuU]{0,2}(\"\"\"|'''|"|')""")


def docstring_first_line(lines: Sequence[str], start: int) -> str | None:
    """The first line of text of a docstring beginning on line index `start` (0-based) or just after it."""
    for i in range(start, min(start + 3, len(lines))):
        if not lines[i].strip():
            continue
        m = _DOC_START.match(lines[i])
        if not m:
            return None
        quote = m.group(1)
        inner = lines[i][m.end():].split(quote, 1)[0].strip()
        if inner:
            return inner
        for j in range(i + 1, min(i + 4, len(lines))):
            text = lines[j].strip()
            if text:
                return text.split(quote, 1)[0].strip() or None
        return None
    return None


def signature_text(lines: Sequence[str], line: int, end_line: int, signature: str) -> str:
    """The definition's header as written (up to the line ending in ':') and its docstring's first line."""
    header_end = line - 1
    for i in range(line - 1, min(end_line, line + 20, len(lines))):
        header_end = i
        if lines[i].rstrip().endswith(":"):
            break
    header = "\n".join(lines[line - 1 : header_end + 1]) if line - 1 < len(lines) else signature
    doc = docstring_first_line(lines, header_end + 1)
    if doc:
        indent = re.match(r"\s*", lines[header_end + 1] if header_end + 1 < len(lines) else "").group(0) or "    "  # type: ignore[union-attr]
        header += f'\n{indent}"""{doc}"""'
    return header


#: Top-level definitions listed in a module's outline.
OUTLINE = 40


def module_outline(lines: Sequence[str], module: str, defs: Sequence[graphdata.Symbol]) -> str:
    """A module in brief: its docstring's first line, then the headers of its top-level definitions."""
    out = []
    doc = docstring_first_line(lines, 0)
    if doc:
        out.append(f'"""{doc}"""')
    top = [d for d in defs if d.qualname.rpartition(".")[0] == module]
    for d in top[:OUTLINE]:
        out.append(f"{d.signature}  # line {d.line}")
    if len(top) > OUTLINE:
        out.append(f"... {len(top) - OUTLINE} more")
    return "\n".join(out)
