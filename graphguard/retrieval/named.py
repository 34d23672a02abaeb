"""What names say: the symbols whose names are made of a task's words (and the classes named after them), and
the tests named after a seed, the nearest first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphguard.retrieval import graphdata, rank, textindex
from graphguard.retrieval.tokenize import STOPWORDS, split_identifier, written_files, written_names

if TYPE_CHECKING:
    import sqlite3

#: Tests named after each seed: at most this many, the nearest first.
NAMED_TESTS = 50
#: A symbol named by the task's words scores this times the best text hit, times its strength (rank.name_strength).
NAME_BOOST = 1.0
#: The classes named after a class the task names weigh this share of it, and the class it is named after this.
FAMILY = 0.6
NAMED_AFTER = 0.9
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: A name the task writes that more files than this define says nothing about where to look (`get_queryset`).
NAMED_FILES = 3
#: Files the names a task writes can put first, at most.
NAMED_FIRST = 6


class Naming:
    """The names half of `Retriever`'s gathering (a mixin: the database and the files are the retriever's)."""

    if TYPE_CHECKING:
        db: sqlite3.Connection
        files: graphdata.Files

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

    def _written_definitions(self, text: str, *, about_tests: bool) -> dict[str, list[str]]:
        """The files a task names by writing a definition's name as code (`lenient_issubclass`, `Display.warning`,
        `DeviceSerializer`) or a file's name (`main.py`), each with the definitions named in it (none: the file
        itself), in the task's order: they go first. A name defined in more than NAMED_FILES files is left to the
        text signal, and a test's definition counts only when the task is about tests or nothing else has it."""
        out: dict[str, list[str]] = {}
        for name in written_files(text):
            paths = graphdata.files_ending(self.db, self.files, name)
            if 0 < len(paths) <= NAMED_FILES:
                for p in paths:
                    out.setdefault(p, [])
        names = written_names(text)
        rows = graphdata.definitions_called(self.db, self.files, [n.rpartition(".")[2] for n in names])
        for name in names:
            found = [r for r in rows if r.qualname == name or r.qualname.endswith(("." + name, "#" + name))]
            if not found and "." in name and (path := self.files.path_of_module(name)) is not None:
                out.setdefault(path, [])
                continue
            code = [r for r in found if not self.files.is_test(r.path)]
            found = found if about_tests or not code else code
            if not 0 < len({r.path for r in found}) <= NAMED_FILES:
                continue
            for r in found:
                qualnames = out.setdefault(r.path, [])
                if r.qualname not in qualnames:
                    qualnames.append(r.qualname)
        return dict(list(out.items())[:NAMED_FIRST])

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
