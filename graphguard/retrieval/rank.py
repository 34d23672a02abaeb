"""One composite score per candidate file, weighted by a profile the caller chooses. Pure.

Signals, each in [0, 1] (0: absent):

    text       BM25 of the file's best symbols against the task, relative to the best file
    graph      the expansion's weight: edge kinds and symbol counts along the best path, decayed per hop
    cochange   how often the file changed in the same commits as the seeds (history of HEAD only)
    recency    how recently the file changed
    frequency  how often the file changed
    test       a test of the seeds: one that imports a seed directly or is named after it (1), one that
               reaches a seed through a fixture or a helper (0.5)

The composite is a weighted reciprocal-rank fusion: each signal ranks the
candidates that have it, and a candidate scores the sum over signals of
weight / (K + its rank), scaled so that first place on every signal is 1.
The signals live on scales that do not compare across repositories or queries
(BM25 values, co-change shares, time decays), so ranks fuse better than values:
on the evaluation's four projects this lifted recall@10 of the seeded task by
4-15 % over the best weighted sum of values found by the same search
(bench/retrieval_eval.py; README "Retrieval for agents").

Profiles are chosen by the caller (`--profile`), never guessed from the task's
words. Nothing is cut: every candidate with a score is ranked (the caller's
limit decides how many are returned); the score cliff marks the candidates far
below the best one, which the budget shows as references only.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from graphguard.retrieval.kinds import SHIPPED, Direction, Via
from graphguard.retrieval.tokenize import STOPWORDS, split_identifier
from graphguard.retrieval.tokenize import stem as stem_word

SIGNALS = ("text", "graph", "cochange", "recency", "frequency", "test")

#: Reciprocal-rank constant: a signal's first candidate counts 1/(K+1), its tenth 1/(K+10).
K = 5


class Profile(NamedTuple):
    name: str
    weights: Mapping[str, float]  # sum to 1
    reverse: float = 1.0  # multiplies the graph signal of callers and tests before ranking
    forward: float = 1.0  # multiplies the graph signal of dependencies before ranking
    description: str = ""
    half_life: float = 730.0  # days over which a co-change counts half (history.HALF_LIFE_DAYS)
    #: path -> a factor below 1 for the hubs of this repository: files its history shows returned far more often
    #: than touched (fit.learn_damping); only a fitted profile has one.
    damping: Mapping[str, float] = MappingProxyType({})


def _w(**kw: float) -> Mapping[str, float]:
    total = sum(kw.values())
    return MappingProxyType({s: kw.get(s, 0.0) / total for s in SIGNALS})


PROFILES: Mapping[str, Profile] = MappingProxyType({
    "default": Profile("default", _w(text=1.0, graph=0.5, cochange=0.8, recency=0.4, frequency=0.3, test=0.1),
                       description="balanced; the weights measured best on real history"),
    "fix_bug": Profile("fix_bug", _w(text=1.0, graph=0.4, cochange=0.9, recency=0.5, frequency=0.3, test=0.3),
                       description="what the task names, what changed with it before, and its tests"),
    "implement_feature": Profile("implement_feature", _w(text=1.0, graph=0.8, cochange=0.5, recency=0.3, frequency=0.2, test=0.1),
                                 forward=1.25, description="the code to extend and what it builds on"),
    "code_review": Profile("code_review", _w(text=0.6, graph=0.8, cochange=0.6, recency=0.2, frequency=0.2, test=0.5),
                           reverse=1.25, forward=0.8, description="who depends on the change, and the tests that cover it"),
})

if tuple(PROFILES) != SHIPPED:
    raise ImportError("retrieval.kinds.SHIPPED must name rank.PROFILES, in order (the --profile choices)")

#: Profile names resolved from the repository's own history (retrieval/profiles.py): `fitted` is the profile
#: learned from it, `auto` the fitted one when it beat `default` on its validation commits, else `default`.
#: (Their names, AUTO, FITTED and CHOICES, are retrieval.kinds'.)

#: Candidates scoring below this share of the best one are past the cliff: listed, but disclosed by reference only.
CLIFF = 0.1


@dataclass
class Candidate:
    path: str
    signals: dict[str, float] = field(default_factory=dict)
    distance: int = 0
    via: Via = Via.TEXT
    direction: Direction = Direction.SEED
    is_seed: bool = False
    pinned: bool = False  # a seed the caller named: listed first whatever its score
    score: float = 0.0
    past_cliff: bool = False  # far below the best candidate: shown by reference only


def _value(c: Candidate, signal: str, profile: Profile) -> float:
    v = c.signals.get(signal, 0.0)
    if signal == "graph":
        v *= profile.reverse if c.direction is Direction.REVERSE else profile.forward if c.direction is Direction.FORWARD else 1.0
    return v


def fuse(candidates: Iterable[Candidate], profile: Profile, *, k: int = K) -> dict[str, float]:
    """path -> composite score in [0, 1]. Equal values share a rank (the best one)."""
    cands = list(candidates)
    score = dict.fromkeys((c.path for c in cands), 0.0)
    for signal, weight in profile.weights.items():
        if weight <= 0:
            continue
        having = sorted(((_value(c, signal, profile), c.path) for c in cands if _value(c, signal, profile) > 0),
                        key=lambda t: (-t[0], t[1]))
        place, previous = 0, None
        for i, (v, path) in enumerate(having):
            if v != previous:
                place, previous = i, v
            score[path] += weight / (k + place + 1)
    top = sum(w for w in profile.weights.values() if w > 0) / (k + 1)
    return {p: s / top for p, s in score.items()} if top > 0 else score


def rank(candidates: Mapping[str, Candidate], profile: Profile, *, cliff: float = CLIFF) -> list[Candidate]:
    """Pinned seeds first (score 1; among them, by the score they would have had), then the rest by score, path as
    the tie-break. Every candidate with a score is kept (an early cut lost relevant files the caller's limit had room
    for: about 12 results came back where the baselines rank 20); those below `cliff` times the best are marked past
    the cliff (seeds never are)."""
    among_all = fuse(candidates.values(), profile) if any(c.pinned for c in candidates.values()) else {}
    pinned = sorted((c for c in candidates.values() if c.pinned), key=lambda c: (-among_all[c.path], c.path))
    rest = [c for c in candidates.values() if not c.pinned]
    for c in pinned:
        c.score = 1.0
    for path, s in fuse(rest, profile).items():
        candidates[path].score = round(s * profile.damping.get(path, 1.0), 4)
    rest.sort(key=lambda c: (-c.score, not c.is_seed, c.path))
    best = rest[0].score if rest else 0.0
    kept = [c for c in rest if c.is_seed or c.score > 0]
    for c in kept:
        c.past_cliff = not c.is_seed and c.score < cliff * best
    return pinned + kept


def subject_of(test: str, tested: Mapping[str, int], ranked: Sequence[str]) -> str | None:
    """The file a test tests, among the ranked ones: the one it is named after (`test_http.py`, `http.py`), else the
    one of the files it uses (`tested`: path -> symbols used) whose symbols it uses most."""
    core = _stem(test).removeprefix("test_").removesuffix("_test").removeprefix("test")
    named = [p for p in ranked if p != test and core and _stem(p) == core]
    if named:
        return named[0]
    listed = set(ranked)
    among = [p for p in tested if p in listed]
    return max(among, key=lambda p: (tested[p], p)) if among else None


def tests_under_subjects(ranked: list[Candidate], subject: Mapping[str, str]) -> list[Candidate]:
    """Each test right under the file it tests (`subject`) when it ranked above that file: a test passes for the
    code it tests, and an agent reads the code first. Pinned ones stay where they are; a moved test's score is
    lowered to its subject's, so the scores still descend."""
    position = {c.path: i for i, c in enumerate(ranked)}
    held: dict[str, list[Candidate]] = {}
    out: list[Candidate] = []
    for c in ranked:
        s = subject.get(c.path)
        if s is not None and not c.pinned and position.get(s, -1) > position[c.path]:
            held.setdefault(s, []).append(c)
            continue
        out.append(c)
        for t in held.pop(c.path, []):
            t.score = min(t.score, c.score)
            out.append(t)
    return out


# --- signals from raw scores ------------------------------------------------------------------


def file_text_scores(hits: Iterable[tuple[str, float]], *, also: float = 0.3) -> dict[str, float]:
    """Per file: its best symbol's BM25 plus `also` times its next two, relative to the best file (so in [0, 1])."""
    per: dict[str, list[float]] = {}
    for path, s in hits:
        per.setdefault(path, []).append(s)
    raw = {}
    for path, scores in per.items():
        scores.sort(reverse=True)
        raw[path] = scores[0] + also * sum(scores[1:3])
    top = max(raw.values(), default=0.0)
    return {p: v / top for p, v in raw.items()} if top > 0 else {}


#: A file holding a symbol named by the task (strength 1: two words, no other file has the name) scores this much
#: above the best text match before the scores are made relative again.
NAMED_OVER_BEST = 1.05


def with_named(text_scores: Mapping[str, float], named: Mapping[str, float]) -> dict[str, float]:
    """Text scores where a file holding a symbol named by the task's words scores NAMED_OVER_BEST times its
    strength (or its own score if higher), relative to the best again (so in [0, 1])."""
    if not named:
        return dict(text_scores)
    out = dict(text_scores)
    for path, s in named.items():
        out[path] = max(out.get(path, 0.0), NAMED_OVER_BEST * s)
    top = max(out.values())
    return {p: v / top for p, v in out.items()}


def text_seeds(text_scores: Mapping[str, float], *, share: float, most: int) -> dict[str, float]:
    """The best files of a text task, as seeds weighted by their text score."""
    best = sorted(text_scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return {p: v for p, v in best[:most] if v >= share}


def top(scores: Mapping[str, float], n: int) -> dict[str, float]:
    """The `n` best, relative to the best (in [0, 1])."""
    best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    hi = best[0][1] if best else 0.0
    return {p: v / hi for p, v in best} if hi > 0 else {}


def _stem(path: str) -> str:
    base = path.rpartition("/")[2]
    if base in ("__init__.py", "__init__.pyi"):
        base = posixpath.basename(posixpath.dirname(path)) or base
    return base.removesuffix(".pyi").removesuffix(".py").lstrip("_")


def seed_stems(seeds: Sequence[str]) -> set[str]:
    """The module names a test named after a seed holds (a test file's path without one cannot be named after it)."""
    stems = {_stem(s) for s in seeds if not s.rpartition("/")[2].startswith("test")}
    stems.discard("")
    return stems


def tests_named_after(seeds: Sequence[str], tests: Iterable[str]) -> dict[str, float]:
    """Tests named after a seed module: `test_http.py` (1.0), `test_http_parser.py` or `http_test.py` (0.7)."""
    stems = seed_stems(seeds)
    if not stems:
        return {}
    out: dict[str, float] = {}
    for t in tests:
        base = t.rpartition("/")[2]
        if not any(stem in base for stem in stems):
            continue  # the common case, decided without splitting anything
        core = _stem(t).removeprefix("test_").removesuffix("_test").removeprefix("test")
        for stem in stems:
            if core == stem:
                out[t] = 1.0
            elif len(stem) >= 4 and stem in core.split("_") and out.get(t, 0.0) < 0.7:
                out[t] = 0.7
    return out


# --- symbols named by the task's words ----------------------------------------------------------

#: Task words combined into compound names: the first this many distinct words.
NAME_WORDS = 12


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def compound_names(words: Sequence[str], *, most: int = NAME_WORDS) -> list[str]:
    """The joined index tokens of the names two or three of the task's words make, in either order for two
    (`DeviceSerializer` for "the serializer of devices") and in the task's order for three; a word before another
    may be singular (`devices` + `serializer` -> `deviceserializer`). `words` are lowercase and unstemmed."""
    ws = list(dict.fromkeys(words))[:most]
    out: dict[str, None] = {}
    for i, a in enumerate(ws):
        for j, b in enumerate(ws):
            if i == j:
                continue
            for a1 in {a, _singular(a)}:
                out.setdefault(stem_word(a1 + b), None)
                if i < j:
                    for c in ws[j + 1 :]:
                        for b1 in {b, _singular(b)}:
                            out.setdefault(stem_word(a1 + b1 + c), None)
    return list(out)


#: A name the task writes as an identifier (`ModuleType`, `parse_cookie`) counts this much more than one put
#: together from its words.
WRITTEN = 1.5


def name_strength(words: int, files: int, written: bool) -> float:
    """How strongly a symbol named by the task's words (rank.named_by) points at its file: more words, more; a name
    several files share, less; a name the task writes out as an identifier, more."""
    return (1 + 0.1 * (words - 2)) * (WRITTEN if written else 1.0) / math.sqrt(max(1, files))


def name_prefixes(name: str) -> list[str]:
    """The shorter CamelCase names a class name starts with: `ModuleTypeSerializer` -> `Module`, `ModuleType`."""
    starts = [m.start() for m in _CAMEL_WORD.finditer(name)]
    return [name[:i] for i in starts[1:]]


_CAMEL_WORD = re.compile(r"[A-Z][a-z0-9]+")


def named_by(qualname: str, task_stems: set[str]) -> int:
    """How many words the symbol's own name has when every one of them is a word of the task (0 otherwise, and for
    a name of one word: one shared word says little)."""
    words = [stem_word(w) for w in split_identifier(qualname.rpartition(".")[2]) if w not in STOPWORDS and not w.isdigit()]
    return len(words) if len(words) >= 2 and all(w in task_stems for w in words) else 0
