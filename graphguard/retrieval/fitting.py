"""Fitting a profile to a repository: past commits replayed as queries (I/O), then retrieval/fit (pure).

For each of the last `most` commits of HEAD (no merges) that touched 1..history.MAX_COMMIT_FILES Python files
the graph still has: the TEXT case (its message -> those files) and the SEEDED case (its most-changed non-test
file -> the others), each a query through the engine with history cut at the commit's time
(Retriever(before=...)): co-change, recency and frequency use only commits strictly older. The graph and the
text index are today's (rebuilding them at every commit would cost an index per commit): the words a commit
added are in the index its query searches. That bias is the same for the fitted profile and the default, which
are compared on the same cases.

Commits are replayed in an order spread over time (a time budget that runs out leaves a sample of the whole
span, not its newest end); the oldest two thirds (or those before `until`) fit, the rest validate.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from graphguard import __version__, git
from graphguard.config import Config
from graphguard.errors import GraphguardError
from graphguard.languages import for_path
from graphguard.retrieval import fit, history, kinds, profiles, rank

if TYPE_CHECKING:
    from graphguard.retrieval import engine, records

# engine and records (the whole retrieval pipeline) are imported where commits are replayed: `index` asks `due`
# on every run, and a no-op index paid about 20 ms for them.

#: Commits replayed at most, and the time a fit may take by default: REPLAY_SHARE of it replaying commits, the
#: rest searching (measured on netbox under a load of 10 on 2 cores: 180 commits replayed in 20 s).
MOST_COMMITS = 300
SECONDS = 30.0
REPLAY_SHARE = 2 / 3
#: The background refresher refits when the touch log holds this many commits more than at the last fit.
REFIT_AFTER = 50


class PastCommit(NamedTuple):
    sha: str
    time: int
    message: str
    changed: dict[str, int]  # Python path -> lines added + deleted


def parse_log(out: bytes) -> list[PastCommit]:
    """`git log --numstat -z --format=%x01%H %ct%n%B%x02`: header, message up to \\x02, then NUL-ended
    `added\\tdeleted\\tpath` records (binary files have `-`)."""
    commits = []
    for rec in out.split(b"\x01"):
        if not rec:
            continue
        head, _, rest = rec.partition(b"\n")
        sha, _, when = head.decode("ascii", "replace").partition(" ")
        message, _, stats = rest.partition(b"\x02")
        changed: dict[str, int] = {}
        for item in stats.split(b"\0"):
            parts = item.strip(b"\n").split(b"\t", 2)
            if len(parts) != 3:
                continue
            path = parts[2].decode("utf-8", "surrogateescape")
            if for_path(path) is not None and git.is_utf8_name(path):
                lines = sum(int(x) for x in parts[:2] if x.isdigit())
                changed[path] = changed.get(path, 0) + lines
        try:
            commits.append(PastCommit(sha, int(when), message.decode("utf-8", "replace").strip(), changed))
        except ValueError:
            continue
    return commits


def past_commits(root: str, head: str, most: int) -> list[PastCommit]:
    """The newest commits of `head` (no merges) touching Python files: up to 3 * `most` read, newest first.
    Without the blobs to count lines in (a partial clone), every file counts 0 lines: the seed is then the
    last non-test file in path order."""
    args = ("-c", "core.quotePath=false", "log", "--no-merges", "--no-renames", "-z", f"-n{3 * most}",
            "--format=%x01%H %ct%n%B%x02", head, "--")
    try:
        out = git.run(root, *args[:5], "--numstat", *args[5:])
    except GraphguardError:
        names = git.run(root, *args[:5], "--name-only", *args[5:])
        # --name-only gives bare paths: made into numstat records of 0 lines for the one parser.
        out = b"\x01".join(_as_numstat(rec) for rec in names.split(b"\x01"))
    return [c for c in parse_log(out) if c.changed]


def _as_numstat(rec: bytes) -> bytes:
    head, sep, paths = rec.partition(b"\x02")
    return head + sep + b"\0".join(b"0\t0\t" + p.strip(b"\n") for p in paths.split(b"\0") if p.strip(b"\n"))


def spread(n: int) -> list[int]:
    """0..n-1 in an order that samples the whole range early (bit-reversed): a cut-short prefix spans it all."""
    bits = max(1, (n - 1).bit_length())
    return sorted(range(n), key=lambda i: (int(format(i, f"0{bits}b")[::-1], 2), i))


def _case(retriever: engine.Retriever, task: fit.Task, c: PastCommit, request: records.Request,
          truth: frozenset[str]) -> fit.Case | None:
    g = retriever.gather(request, rank.PROFILES["default"])
    if not g.seeds:
        return None
    cands = [x for x in g.candidates.values() if not x.pinned]
    for x in cands:
        x.signals.pop("cochange", None)
    co = retriever.cochange_by_half_life(g.touches, g.starts, g.now, fit.HALF_LIVES)
    return fit.Case(task, c.sha, c.time, truth, cands, co)


def cases_from(db: sqlite3.Connection, root: str, head: str, config: Config, commits: Sequence[PastCommit], *,
               seconds: float, clock: Callable[[], float] = time.monotonic) -> list[fit.Case]:
    """The TEXT and SEEDED cases of these commits, in `spread` order, until `seconds` have passed."""
    from graphguard.retrieval import engine, records

    deadline = clock() + seconds
    out: list[fit.Case] = []
    probe = engine.Retriever(db, root, head, config)
    for i in spread(len(commits)):
        if clock() > deadline:
            break
        c = commits[i]
        probe.files.load(c.changed)
        truth = frozenset(p for p in c.changed if p in probe.files)
        if not truth or len(c.changed) > history.MAX_COMMIT_FILES:
            continue
        retriever = engine.Retriever(db, root, head, config, before=c.time)
        retriever.files = probe.files  # the rows of today's graph: shared, read once
        if c.message:
            case = _case(retriever, fit.Task.TEXT, c, records.Request(text=c.message), truth)
            if case is not None:
                out.append(case)
        sources = [p for p in truth if not probe.files.is_test(p)]
        if len(truth) >= 2 and sources:
            seed = max(sources, key=lambda p: (c.changed[p], p))
            case = _case(retriever, fit.Task.SEEDED, c, records.Request(seeds=(seed,)), truth - {seed})
            if case is not None:
                out.append(case)
    return out


def _recall(scores: dict[str, fit.Scores]) -> dict[str, float]:
    return {t: s.recall10 for t, s in scores.items() if t != "all"}


def fit_at(db: sqlite3.Connection, root: str, head: str, config: Config, *, until: str | None = None,
           most: int = MOST_COMMITS, seconds: float = SECONDS, log: Callable[[str], None] = lambda _: None,
           prepare: Callable[[], None] = lambda: None) -> fit.FittedProfile:
    """Fit a profile on the history of `head` (the caller brought history and the text index to `head`). `until`:
    fit on commits strictly before that commit's time and validate on the later ones (default: the oldest two
    thirds of the replayed commits fit). `prepare` runs once the history is known to be long enough (to bring
    the indexes to `head`). Not stored: `refit` stores."""
    t0 = time.monotonic()
    until_time = None
    if until is not None:
        sha = git.resolve_commit(root, until)
        row = git.run(root, "log", "-1", "--format=%ct", sha).decode().strip()
        until_time = int(row)
    commits = past_commits(root, head, most)
    commits = [c for c in commits if 0 < len(c.changed) <= history.MAX_COMMIT_FILES][:most]
    commits.sort(key=lambda c: (c.time, c.sha))
    default = rank.PROFILES["default"]
    empty = fit.FittedProfile(dict(default.weights), default.half_life, "", 0, 0, 0.0, {}, False, "", __version__, head,
                              _log_size(db), 0.0)
    if len(commits) < fit.MIN_FIT_COMMITS + fit.MIN_VALIDATION_COMMITS:
        reason = f"history too short: {len(commits)} commits touching Python files"
        log(f"fit: {reason}; the default profile stays")
        return _replace(empty, reason=reason, elapsed_s=round(time.monotonic() - t0, 2))
    prepare()
    cases = cases_from(db, root, head, config, commits, seconds=seconds * REPLAY_SHARE)
    fitting, validating, cut = fit.split(cases, until_time=until_time)
    t1 = time.monotonic()
    found, share = fit.fit_weights(fitting, default, seconds=max(0.0, seconds - (time.monotonic() - t0)))
    # The hubs, learned on the fitting commits under the fitted weights, validated with them.
    damping = fit.learn_damping(fitting, rank.Profile(kinds.FITTED, found.weights, half_life=found.half_life))
    fitted_profile = rank.Profile(kinds.FITTED, found.weights, half_life=found.half_life, damping=damping)
    on_val = _recall(fit.evaluate(validating, fitted_profile))
    undamped = _recall(fit.evaluate(validating, fitted_profile._replace(damping={})))
    on_val_default = _recall(fit.evaluate(validating, default))
    validation = {t: fit.TaskRecall(on_val[t], on_val_default[t]) for t in on_val}
    n_fit, n_val = fit.commits_of(fitting), fit.commits_of(validating)
    accepted, reason = fit.decide(n_fit, n_val, validation)
    cutoff = min((c for c in validating), key=lambda c: (c.time, c.commit)).commit if validating else ""
    result = fit.FittedProfile(dict(found.weights), found.half_life, cutoff, n_fit, n_val, found.scores.recall10,
                               validation, accepted, reason, __version__, head, _log_size(db),
                               round(time.monotonic() - t0, 2), found.trials, damping)
    log(f"fit: {len(cases)} cases from {n_fit} fitting + {n_val} validation commits (cut {cut}), replay"
        f" {t1 - t0:.1f} s, search {time.monotonic() - t1:.1f} s ({found.trials} trials, {share:.0%} of the way from the"
        f" default); {len(damping)} hubs damped (validation recall@10 without the damping:"
        f" {', '.join(f'{t} {v:.3f}' for t, v in sorted(undamped.items()))}); {reason};"
        f" {'fitted' if accepted else 'default'} profile in use")
    return result


def _replace(fp: fit.FittedProfile, **kw: object) -> fit.FittedProfile:
    import dataclasses

    return dataclasses.replace(fp, **kw)  # type: ignore[arg-type]


def _log_size(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT count(*) FROM history_commits").fetchone()
    return int(row[0] or 0)


def long_enough(db: sqlite3.Connection) -> bool:
    """Whether the history may hold enough commits to fit on: a fit then takes seconds (else it ends at once,
    keeping the default)."""
    return _log_size(db) >= fit.MIN_FIT_COMMITS + fit.MIN_VALIDATION_COMMITS


def due(db: sqlite3.Connection) -> bool:
    """Whether the background refresher should refit: never fitted (or the row is damaged), or REFIT_AFTER
    commits arrived since."""
    last = profiles.load(db)
    return last is None or _log_size(db) - last.history_commits >= REFIT_AFTER


def refit(store: object, root: str, head: str, config: Config, *, seconds: float = SECONDS,
          log: Callable[[str], None] = lambda _: None) -> fit.FittedProfile:
    """Bring history and the text index to `head`, fit, and store the result (under the write lock)."""
    from graphguard.retrieval import engine

    db: sqlite3.Connection = store.graph  # type: ignore[attr-defined]
    fitted = fit_at(db, root, head, config, seconds=seconds, log=log,
                    prepare=lambda: engine.ensure_indexes(store, root, head))
    try:
        with store.write_lock(30.0):  # type: ignore[attr-defined]
            profiles.save(db, fitted)
    except GraphguardError as e:
        log(f"fit: not stored ({e})")
    return fitted
