"""The result's items: the symbols each ranked file shows, their source text read at HEAD (a path HEAD does not
have is dropped and counted: the stale-index guard), disclosed within the token budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from graphguard.retrieval import budget as budgeting
from graphguard.retrieval import expand as expanding
from graphguard.retrieval import graphdata, rank, source, textindex
from graphguard.retrieval.outlines import module_outline, signature_text
from graphguard.retrieval.records import UNREACHED, ContextItem, ContextResult, Request

if TYPE_CHECKING:
    import sqlite3

#: Symbols shown per file (its best ones); a file's later symbols score a bit below its first.
PER_FILE = 2
SECOND_SYMBOL = 0.9


class Filling:
    """The items half of `Retriever` (a mixin: the database, the root and the files are the retriever's)."""

    if TYPE_CHECKING:
        db: sqlite3.Connection
        root: str
        files: graphdata.Files

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
