"""Fusion weights learned from a repository's own history. Pure.

A training case is one past commit replayed as a query (retrieval/fitting.py builds them): its candidates with
the signals the engine computed for them, history cut at the commit, and the truth, the Python files the commit
touched. Two tasks per commit: TEXT (the commit message) and SEEDED (its most-changed non-test file -> the others).

The search is coordinate ascent from the shipped default over the six weights (each multiplied by a few
factors, or set to 0), for each of a few co-change half-lives, maximising mean recall@10 (recall@20, then the
mean reciprocal rank, break ties). The fusion is reciprocal-rank (rank.fuse): a signal's contribution to a
candidate does not depend on the weights, so it is computed once per case and a trial is a weighted sum and a
partial sort: a few hundred cases take milliseconds per trial.
"""

from __future__ import annotations

import enum
import heapq
import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from graphguard.retrieval import kinds, rank

#: Co-change half-lives tried, in days.
HALF_LIVES = (180.0, 365.0, 730.0, 1460.0)
#: Each weight is tried at these multiples of its current value (and at 0, and at a small value when it is 0).
FACTORS = (0.0, 0.33, 0.5, 0.7, 1.4, 2.0, 3.0)
ROUNDS = 3
AT = (10, 20)
_NONE: Mapping[str, float] = MappingProxyType({})


class Task(enum.Enum):
    TEXT = "text"
    SEEDED = "seeded"


@dataclass(frozen=True)
class Case:
    task: Task
    commit: str
    time: int
    truth: frozenset[str]
    #: Ranked candidates (pinned seeds left out), signals as the engine computed them, co-change left out.
    candidates: Sequence[rank.Candidate]
    #: half-life -> path -> co-change signal (the engine's top files, relative to the best).
    cochange: Mapping[float, Mapping[str, float]] = field(default_factory=dict)


class Scores(NamedTuple):
    recall10: float
    recall20: float
    mrr: float
    cases: int


def _contributions(values: Mapping[str, float], k: int = rank.K) -> dict[str, float]:
    """path -> (K+1)/(K+rank): rank.fuse's share of one signal, scaled so first place is 1."""
    out: dict[str, float] = {}
    place, previous = 0, None
    for i, (v, path) in enumerate(sorted(((v, p) for p, v in values.items() if v > 0), key=lambda t: (-t[0], t[1]))):
        if v != previous:
            place, previous = i, v
        out[path] = (k + 1) / (k + place + 1)
    return out


class _Prepared(NamedTuple):
    task: Task
    truth: frozenset[str]
    paths: tuple[str, ...]
    seeds: frozenset[str]
    #: per signal other than co-change: one contribution per path (aligned with paths)
    fixed: Mapping[str, tuple[float, ...]]
    #: half-life -> one co-change contribution per path
    cochange: Mapping[float, tuple[float, ...]]


def _prepare(case: Case, profile: rank.Profile) -> _Prepared:
    paths = sorted({c.path for c in case.candidates} | {p for co in case.cochange.values() for p in co})
    by_path = {c.path: c for c in case.candidates}
    fixed = {}
    for s in rank.SIGNALS:
        if s == "cochange":
            continue
        contrib = _contributions({c.path: rank._value(c, s, profile) for c in case.candidates})
        fixed[s] = tuple(contrib.get(p, 0.0) for p in paths)
    co = {}
    for h, values in case.cochange.items():
        contrib = _contributions(values)
        co[h] = tuple(contrib.get(p, 0.0) for p in paths)
    seeds = frozenset(p for p, c in by_path.items() if c.is_seed)
    return _Prepared(case.task, case.truth, tuple(paths), seeds, fixed, co)


def _score_case(p: _Prepared, weights: Mapping[str, float], half_life: float, cliff: float,
                damping: Mapping[str, float] = _NONE) -> tuple[float, float, float]:
    if not p.truth:
        return 0.0, 0.0, 0.0
    top = _top(p, weights, half_life, cliff, damping)
    hit10 = sum(1 for x in top[:10] if x in p.truth)
    hit20 = sum(1 for x in top[:20] if x in p.truth)
    first = next((i for i, x in enumerate(top) if x in p.truth), None)
    n = len(p.truth)
    return hit10 / n, hit20 / n, (1.0 / (first + 1) if first is not None else 0.0)


def _top(p: _Prepared, weights: Mapping[str, float], half_life: float, cliff: float,
         damping: Mapping[str, float] = _NONE) -> list[str]:
    """The case's first max(AT) files under these weights (and hub damping), in rank.rank's order."""
    total = sum(w for w in weights.values() if w > 0)
    if total <= 0:
        return []
    cols = [(weights[s] / total, p.fixed[s]) for s in p.fixed if weights.get(s, 0.0) > 0]
    co = p.cochange.get(half_life)
    if co is not None and weights.get("cochange", 0.0) > 0:
        cols.append((weights["cochange"] / total, co))
    scores = [0.0] * len(p.paths)
    for w, col in cols:
        for i, v in enumerate(col):
            if v:
                scores[i] += w * v
    if damping:
        scores = [v * damping.get(path, 1.0) for v, path in zip(scores, p.paths)]
    best = max(scores, default=0.0)
    # rank.rank's order: by score, seeds before others at equal score, then by path. The cliff (0 by default: ranking
    # no longer cuts at rank.CLIFF, which only marks disclosure) is kept for measuring a cut ranking.
    kept = [(-round(s, 4), p.paths[i] not in p.seeds, p.paths[i]) for i, s in enumerate(scores)
            if p.paths[i] in p.seeds or (s > 0 and s >= cliff * best)]
    return [t[2] for t in heapq.nsmallest(max(AT), kept)]


def _evaluate(prepared: Sequence[_Prepared], weights: Mapping[str, float], half_life: float, cliff: float,
              damping: Mapping[str, float] = _NONE) -> Scores:
    """Mean over the tasks present of each task's mean: a task with more cases does not outweigh the other."""
    per: dict[Task, list[tuple[float, float, float]]] = {}
    for p in prepared:
        per.setdefault(p.task, []).append(_score_case(p, weights, half_life, cliff, damping))
    if not per:
        return Scores(0.0, 0.0, 0.0, 0)
    means = [tuple(sum(x[i] for x in rows) / len(rows) for i in range(3)) for rows in per.values()]
    r10, r20, mrr = (round(sum(m[i] for m in means) / len(means), 4) for i in range(3))
    return Scores(r10, r20, mrr, len(prepared))


def evaluate(cases: Sequence[Case], profile: rank.Profile, *, cliff: float = 0.0) -> dict[str, Scores]:
    """Per task and over both ("all"): the profile's recall@10, recall@20 and MRR on these cases."""
    prepared = [_prepare(c, profile) for c in cases]
    out = {t.value: _evaluate([p for p in prepared if p.task is t], profile.weights, profile.half_life, cliff,
                              profile.damping)
           for t in Task if any(p.task is t for p in prepared)}
    out["all"] = _evaluate(prepared, profile.weights, profile.half_life, cliff, profile.damping)
    return out


# --- hub damping: files returned far more often than touched -------------------------------------------------

#: A file is damped only when the replays returned it in their top 10 at least this often.
DAMP_RETURNED = 4
#: Its touched-per-returned rate is shrunk toward the repository's by this many returns' worth of evidence.
DAMP_SHRINK = 4.0
#: The strongest damping: a hub still ranks, below files of a fifth of its score.
DAMP_FLOOR = 0.2


def learn_damping(cases: Sequence[Case], profile: rank.Profile) -> dict[str, float]:
    """path -> factor < 1: how often the replayed commits touched a file relative to how often `profile` returned it
    in their top 10, over the same rate for the whole repository (shrunk toward it by DAMP_SHRINK returns), for
    the files returned at least DAMP_RETURNED times. The hubs (a `_generate_schema.py`, a `linegen.py` in every top
    10) are the files returned often and touched rarely; a file touched as often as returned is left alone."""
    returned: Counter[str] = Counter()
    touched: Counter[str] = Counter()
    for c in cases:
        p = _prepare(c, profile)
        returned.update(_top(p, profile.weights, profile.half_life, 0.0)[:10])
        touched.update(c.truth)
    total_returned = sum(returned.values())
    if not total_returned:
        return {}
    base = sum(touched[x] for x in returned) / total_returned
    if base <= 0:
        return {}
    out = {}
    for path, n in returned.items():
        if n < DAMP_RETURNED:
            continue
        rate = (touched[path] + DAMP_SHRINK * base) / (n + DAMP_SHRINK)
        if rate < base:
            out[path] = round(max(DAMP_FLOOR, rate / base), 3)
    return out


class Search(NamedTuple):
    weights: Mapping[str, float]
    half_life: float
    scores: Scores
    trials: int


def search(cases: Sequence[Case], start: rank.Profile, *, cliff: float = 0.0, seconds: float = 20.0,
           clock: Callable[[], float] = time.monotonic) -> Search:
    """Coordinate ascent from `start`: the weights and half-life with the best (recall@10, recall@20, MRR) on the
    cases. Stops after ROUNDS rounds, or when a round changes nothing, or at `seconds`."""
    deadline = clock() + seconds
    prepared = [_prepare(c, start) for c in cases]
    best_w = dict(start.weights)
    best_h = start.half_life if start.half_life in HALF_LIVES else HALF_LIVES[-2]
    best = _evaluate(prepared, best_w, best_h, cliff)
    trials = 1

    def better(s: Scores) -> bool:
        return (s.recall10, s.recall20, s.mrr) > (best.recall10, best.recall20, best.mrr)

    for _ in range(ROUNDS):
        moved = False
        for h in HALF_LIVES:
            if h == best_h or clock() > deadline:
                continue
            s = _evaluate(prepared, best_w, h, cliff)
            trials += 1
            if better(s):
                best, best_h, moved = s, h, True
        for signal in rank.SIGNALS:
            base = best_w[signal]
            tries = [base * f for f in FACTORS] if base > 0 else [0.05, 0.1, 0.2]
            for v in tries:
                if clock() > deadline:
                    break
                w = {**best_w, signal: v}
                if sum(w.values()) <= 0:
                    continue
                s = _evaluate(prepared, w, best_h, cliff)
                trials += 1
                if better(s):
                    best, best_w, moved = s, w, True
        if not moved or clock() > deadline:
            break
    total = sum(best_w.values())
    return Search({s: round(best_w[s] / total, 4) for s in rank.SIGNALS}, best_h, best, trials)


#: Shares of the searched weights tried against the start's (the rest): the search overfits a few hundred cases.
BLENDS = (0.0, 0.25, 0.5, 0.75, 1.0)


def blend(start: Mapping[str, float], found: Mapping[str, float], share: float) -> dict[str, float]:
    total_s, total_f = sum(start.values()), sum(found.values())
    return {s: round((1 - share) * start.get(s, 0.0) / total_s + share * found.get(s, 0.0) / total_f, 4) for s in rank.SIGNALS}


def fit_weights(cases: Sequence[Case], start: rank.Profile, *, cliff: float = 0.0, seconds: float = 20.0,
                clock: Callable[[], float] = time.monotonic) -> tuple[Search, float]:
    """The search, shrunk toward `start` by as much as an inner hold-out asks: search the older two thirds of the
    cases, choose the blend with `start` that does best on the newer third (the least shift on a tie), then
    search all the cases and blend the result by that share. (search result, share)."""
    inner_fit, inner_check, _ = split(cases)
    share = 1.0
    if inner_fit and inner_check:
        inner = search(inner_fit, start, cliff=cliff, seconds=seconds / 2, clock=clock)
        prepared = [_prepare(c, start) for c in inner_check]
        best: tuple[float, float, float] | None = None
        for b in BLENDS:
            s = _evaluate(prepared, blend(start.weights, inner.weights, b), inner.half_life if b >= 0.5 else start.half_life, cliff)
            if best is None or (s.recall10, s.recall20, s.mrr) > best:
                best, share = (s.recall10, s.recall20, s.mrr), b
    found = search(cases, start, cliff=cliff, seconds=seconds / 2, clock=clock)
    half_life = found.half_life if share >= 0.5 else start.half_life
    weights = blend(start.weights, found.weights, share)
    return Search(weights, half_life, _evaluate([_prepare(c, start) for c in cases], weights, half_life, cliff),
                  found.trials), share


# --- the fitted profile: what is stored, and the decision to use it -------------------------------------------

#: A fitted profile is used by default only with at least this many fitting and validation commits.
MIN_FIT_COMMITS = 40
MIN_VALIDATION_COMMITS = 15


@dataclass(frozen=True)
class TaskRecall:
    fitted: float
    default: float


@dataclass(frozen=True)
class FittedProfile:
    weights: Mapping[str, float]
    half_life: float
    cutoff: str  # the first validation commit: fitting used only commits before it
    fit_commits: int
    validation_commits: int
    fit_recall: float  # mean recall@10 (text and seeded) on the fitting commits
    validation: Mapping[str, TaskRecall]  # task -> recall@10 on the validation commits, fitted and default
    accepted: bool  # used by `--profile auto` (the default)
    reason: str
    version: str
    head: str  # the commit fitted at
    history_commits: int  # commits of the touch log when fitted (a refit waits for REFIT_AFTER more)
    elapsed_s: float = 0.0
    trials: int = 0
    damping: Mapping[str, float] = field(default_factory=dict)  # learn_damping's hubs (a row before it has none)

    def profile(self) -> rank.Profile:
        return rank.Profile(kinds.FITTED, dict(self.weights), description=f"learned from this repository's history"
                            f" up to {self.cutoff[:12]}", half_life=self.half_life,
                            damping=MappingProxyType(dict(self.damping)))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> FittedProfile:
        """Raises ValueError for anything but a stored profile (damage: the caller ignores it and refits)."""
        try:
            d = json.loads(text)
            d["validation"] = {k: TaskRecall(**v) for k, v in d["validation"].items()}
            weights = {s: float(d["weights"].get(s, 0.0)) for s in rank.SIGNALS}
            if sum(weights.values()) <= 0 or any(v < 0 for v in weights.values()):
                raise ValueError("weights")
            d["weights"] = weights
            d["damping"] = {str(k): min(1.0, max(0.0, float(v))) for k, v in d.get("damping", {}).items()}
            fp = cls(**d)
            float(fp.half_life), int(fp.history_commits)
            if fp.half_life <= 0:
                raise ValueError("half_life")
            return fp
        except (TypeError, KeyError, AttributeError, json.JSONDecodeError) as e:
            raise ValueError(str(e)) from e

    def document(self) -> dict[str, Any]:
        """The stats answer's view (docs/contract.md)."""
        return {
            "weights": dict(self.weights), "half_life_days": self.half_life, "cutoff": self.cutoff,
            "fit_commits": self.fit_commits, "validation_commits": self.validation_commits,
            "validation_recall10": {t: {"fitted": r.fitted, "default": r.default} for t, r in self.validation.items()},
            "accepted": self.accepted, "reason": self.reason, "head": self.head, "version": self.version,
        }


def decide(fit_commits: int, validation_commits: int, validation: Mapping[str, TaskRecall]) -> tuple[bool, str]:
    """Use the fitted profile by default only on enough history and when it beat the default where it was not fitted."""
    if fit_commits < MIN_FIT_COMMITS or validation_commits < MIN_VALIDATION_COMMITS:
        return False, (f"history too short: {fit_commits} fitting and {validation_commits} validation commits"
                       f" (at least {MIN_FIT_COMMITS} and {MIN_VALIDATION_COMMITS})")
    fitted = sum(r.fitted for r in validation.values()) / max(1, len(validation))
    default = sum(r.default for r in validation.values()) / max(1, len(validation))
    if fitted <= default:
        return False, f"no better than the default on the validation commits ({fitted:.3f} vs {default:.3f})"
    return True, f"validation recall@10 {fitted:.3f} vs the default's {default:.3f}"


def split(cases: Sequence[Case], *, until_time: int | None = None, share: float = 2 / 3) -> tuple[list[Case], list[Case], int]:
    """(fitting cases, validation cases, the cut-off time): by commit time; the cut-off is `until_time` or the time
    of the commit `share` of the way through. Fitting cases come strictly before it, validation ones at or after."""
    times = sorted({c.time for c in cases})
    if not times:
        return [], [], 0
    cut = until_time if until_time is not None else times[min(len(times) - 1, int(len(times) * share))]
    return [c for c in cases if c.time < cut], [c for c in cases if c.time >= cut], cut


def commits_of(cases: Sequence[Case]) -> int:
    return len({c.commit for c in cases})
