"""The result's items: the symbols each ranked file shows, their source text read at HEAD (a path HEAD does not
have is dropped and counted: the stale-index guard), disclosed within the token budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from graphguard.retrieval import budget as budgeting
from graphguard.retrieval import expand as expanding
from graphguard.retrieval import graphdata, rank, source, textindex
from graphguard.retrieval.outlines import module_outline, signature_text
from graphguard.retrieval.records import MAX_FILES, UNREACHED, ContextItem, ContextResult, ContextSymbol, Request

if TYPE_CHECKING:
    import sqlite3

#: Symbols shown per file (its best ones, nested in its result).
PER_FILE = 2


class Filling:
    """The items half of `Retriever` (a mixin: the database, the root and the files are the retriever's)."""

    if TYPE_CHECKING:
        db: sqlite3.Connection
        root: str
        files: graphdata.Files

    def _fill(self, result: ContextResult, ranked: list[rank.Candidate], request: Request, hits: list[textindex.Hit],
              expansion: expanding.Expansion, focus: Mapping[str, Sequence[str]]) -> None:
        """One item per file in rank order (`limit` files, or as many as the budget holds), each with its best
        symbols: the first is the item, the next are nested in it."""
        limit = request.limit
        # `limit` files fill the limit, a few more stand in for stale ones.
        wanted = ranked[: (limit if limit is not None else MAX_FILES) + 3]
        contents, missing = source.at_head(self.root, [c.path for c in wanted])
        result.stale = len(missing)
        stale = set(missing)
        hits_by_path: dict[str, list[textindex.Hit]] = {}
        for h in hits:
            hits_by_path.setdefault(h.path, []).append(h)
        edge_symbols: dict[str, tuple[str, ...]] = {p: r.symbols for p, r in expansion.reached.items()}
        picks: list[tuple[rank.Candidate, list[tuple[str, bool]]]] = []
        for c in wanted:
            if c.path in stale:
                continue
            named = focus.get(c.path, ()) if c.pinned else ()
            names = self._symbols_for(c, hits_by_path.get(c.path, []), edge_symbols.get(c.path, ()), named)
            shown = names[: 1 if c.pinned and not named else max(PER_FILE, len(named))]
            # The seed of a file is its first symbol (all of them when the caller named them).
            picks.append((c, [(q, c.is_seed and (k == 0 or q in named)) for k, q in enumerate(shown)]))
        sym_rows = graphdata.symbols_named(self.db, self.files, [q for _, qs in picks for q, _ in qs])
        groups: list[list[budgeting.Item]] = []
        meta: dict[str, tuple[str, int, int]] = {}
        for c, qs in picks:
            blob = contents[c.path][1].decode("utf-8", "replace")
            lines = blob.split("\n")
            group: list[budgeting.Item] = []
            for q, is_seed in qs:
                item, shown_as = self._item(c, q, is_seed, sym_rows.get(q), blob, lines)
                if item.key not in meta:
                    meta[item.key] = shown_as
                    group.append(item)
            groups.append(group)
        by_file = {c.path: c for c, _ in picks}
        for choices in budgeting.select(_seeds_within_half(groups, request.budget), request.budget, limit):
            first, *more = choices
            q, line, end = meta[first.key]
            c = by_file[first.key.partition("\0")[0]]
            nested = tuple(ContextSymbol(*meta[ch.key], ch.disclosure, ch.tokens, ch.text, ch.truncated) for ch in more)
            result.items.append(ContextItem(
                c.path, q, line, end, round(c.score, 4), 0 if c.distance == UNREACHED else c.distance, c.via,
                first.disclosure, first.tokens, first.text, {k: round(v, 3) for k, v in sorted(c.signals.items())},
                first.truncated, nested,
            ))

    def _item(self, c: rank.Candidate, q: str, is_seed: bool, row: graphdata.Symbol | None, blob: str,
              lines: list[str]) -> tuple[budgeting.Item, tuple[str, int, int]]:
        """A symbol of a ranked file with its three renderings, and (qualname, line, end_line) as the answer names
        it: the module itself when the symbol is not one of the file's definitions."""
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
        if c.past_cliff:  # listed, but far below the best: a reference is all it is worth
            full = sig = ""  # the budget skips empty renderings
        item = budgeting.Item(f"{c.path}\0{q}", f"{c.path}:{line}", budgeting.clamp_lines(full),
                              budgeting.clamp_lines(sig), f"{c.path}:{line}  {q}", is_seed=is_seed)
        return item, (q, line, end)

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


def _seeds_within_half(groups: list[list[budgeting.Item]], total: int | None) -> list[list[budgeting.Item]]:
    """Seeds are full, but together they take at most half the budget: shared out so that small seeds stay whole
    and each larger one gets an equal part of what is left, cut to it (the cut is said in-band)."""
    if total is None:
        return groups
    seeds = sorted(((g, i) for g, group in enumerate(groups) for i, it in enumerate(group) if it.is_seed),
                   key=lambda gi: budgeting.count_tokens(groups[gi[0]][gi[1]].full))
    room = total // 2
    out = [list(group) for group in groups]
    for n, (g, i) in enumerate(seeds):
        it = groups[g][i]
        share = min(budgeting.count_tokens(it.full), room // (len(seeds) - n))
        room -= share
        if budgeting.count_tokens(it.full) > share:
            out[g][i] = it._replace(full=budgeting.truncate(it.full, max(share, 16), it.location))
    return out
