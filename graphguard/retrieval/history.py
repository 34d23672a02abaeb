"""What git history says about files: which change together, how recently and how often each changed.

The store keeps a touch log, one row per (Python file, commit), for the
commits reachable from the graph's HEAD (`history_commits`, `history_paths`,
`history_touches`), and in meta the commit it describes (`history_head`).
`update` moves it to a new HEAD with one `git log --left-right old...new`:
commits only the new HEAD reaches are added, commits only the old one reached
are removed (after a checkout of an older commit, a reset, a rebase). So the
counts always describe exactly the history of HEAD: at a parent commit they
use nothing that came later. Pair counts are read at query time from the log's
indexes for the seeds' commits only; nothing is recomputed from git.

The queries take a cut-off time, `before`: only commits strictly older count.
Fitting replays old commits as queries (retrieval/fitting.py), and a query at
commit C must not learn from C or anything after it.

Pure: `parse_log`, `cochange`, `activity`. I/O: `update`, `seed_touches`, `activity_rows`, `head_time`.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from graphguard import git
from graphguard.errors import GraphguardError
from graphguard.languages import for_path
from graphguard.store.db import chunked, marks, transaction
from graphguard.store.schema import MetaKey, meta, set_meta

#: Commits touching more Python files than this are sweeping changes (reformatting, renames): no co-change.
MAX_COMMIT_FILES = 30
#: Co-change counts halve over this many days (recent pairs say more about today's coupling).
HALF_LIFE_DAYS = 365.0 * 2


class Commit(NamedTuple):
    sha: str
    time: int
    side: str  # ">" reached by the new head only, "<" by the old one only ("" without --left-right)
    paths: tuple[str, ...]


def parse_log(out: bytes) -> list[Commit]:
    """`git log -z --name-only --format=%x01%m%H %ct`: records start with \\x01, then `<side><sha> <time>\\0\\n`,
    then NUL-separated paths."""
    commits = []
    for rec in out.split(b"\x01"):
        if not rec:
            continue
        header, _, rest = rec.partition(b"\0")
        head = header.decode()
        side = head[0] if head[:1] in ("<", ">", "-") else ""
        sha, _, time = head[len(side):].partition(" ")
        paths = tuple(p.decode("utf-8", "surrogateescape") for p in rest.lstrip(b"\n").split(b"\0") if p.strip(b"\n"))
        commits.append(Commit(sha, int(time or 0), side, paths))
    return commits


def _log(root: str, *revs: str) -> list[Commit]:
    out = git.run(root, "-c", "core.quotePath=false", "log", "--no-merges", "--no-renames", "--name-only", "-z",
                  "--left-right", "--format=%x01%m%H %ct", *revs, "--")
    return parse_log(out)


def is_current(db: sqlite3.Connection, head: str) -> bool:
    return meta(db, MetaKey.HISTORY_HEAD) == head


def update(db: sqlite3.Connection, root: str, head: str | None) -> int:
    """Move the touch log to `head`; return how many commits were added or removed. The caller holds the write
    lock; this opens its own transaction unless one is open."""
    if head is None:
        return 0
    last = meta(db, MetaKey.HISTORY_HEAD) or None
    if last == head:
        return 0
    rebuild = last is None
    if not rebuild:
        try:
            commits = _log(root, f"{last}...{head}")
        except GraphguardError:  # the old head is gone (gc after a rewrite, a re-clone): start over
            rebuild = True
    if rebuild:
        commits = [Commit(c.sha, c.time, ">", c.paths) for c in _log(root, head)]
    with transaction(db, join=True):
        if rebuild:
            for table in ("history_touches", "history_commits", "history_paths"):
                db.execute(f"DELETE FROM {table}")
        _apply(db, commits)
        set_meta(db, MetaKey.HISTORY_HEAD, head)
    return len(commits)


def _apply(db: sqlite3.Connection, commits: Sequence[Commit]) -> None:
    gone = [c.sha for c in commits if c.side == "<"]
    for chunk in chunked(gone):
        db.execute(f"DELETE FROM history_touches WHERE commit_id IN (SELECT id FROM history_commits WHERE sha IN ({marks(chunk)}))", chunk)
        db.execute(f"DELETE FROM history_commits WHERE sha IN ({marks(chunk)})", chunk)
    path_ids = _path_ids(db, {p for c in commits if c.side != "<" for p in c.paths if for_path(p) is not None and git.is_utf8_name(p)})
    touches = []
    for c in commits:
        if c.side == "<":
            continue
        paths = sorted({p for p in c.paths if for_path(p) is not None and git.is_utf8_name(p)})  # as the indexer: others are not stored
        if not paths:
            continue
        cid = db.execute("INSERT OR IGNORE INTO history_commits(sha, time, n_files) VALUES (?, ?, ?)",
                         (c.sha, c.time, len(paths))).lastrowid
        if not cid:
            continue
        for p in paths:
            pid = path_ids.get(p)
            if pid is None:
                pid = path_ids[p] = int(db.execute("INSERT INTO history_paths(path) VALUES (?)", (p,)).lastrowid or 0)
            touches.append((pid, cid))
    db.executemany("INSERT OR IGNORE INTO history_touches VALUES (?, ?)", touches)


def _path_ids(db: sqlite3.Connection, paths: Iterable[str]) -> dict[str, int]:
    """Ids of these paths that the log holds already (only these: the table holds every path HEAD's history does)."""
    out: dict[str, int] = {}
    for chunk in chunked(sorted(paths)):
        out.update(db.execute(f"SELECT path, id FROM history_paths WHERE path IN ({marks(chunk)})", chunk))
    return out


# --- queries ------------------------------------------------------------------------------


class Touch(NamedTuple):
    seed: str
    other: str
    commit: int
    time: int
    n_files: int


#: `before` in the queries below: no cut-off (every commit of the log counts).
NO_CUTOFF = 1 << 62


def seed_touches(db: sqlite3.Connection, seeds: Sequence[str], *, before: int = NO_CUTOFF) -> list[Touch]:
    """Every (seed, other file) pair of the commits that touched a seed, sweeping commits left out; only commits
    whose time is strictly before `before` (a query replayed at an old commit sees nothing of its future)."""
    if not seeds:
        return []
    rows = db.execute(
        "SELECT p1.path, p2.path, c.id, c.time, c.n_files FROM history_paths p1"
        " JOIN history_touches t1 ON t1.path_id = p1.id JOIN history_commits c ON c.id = t1.commit_id"
        " JOIN history_touches t2 ON t2.commit_id = c.id JOIN history_paths p2 ON p2.id = t2.path_id"
        f" WHERE p1.path IN ({marks(seeds)}) AND c.n_files <= ? AND c.time < ?",
        (*seeds, MAX_COMMIT_FILES, before),
    )
    return [Touch(*r) for r in rows]


def activity_rows(db: sqlite3.Connection, paths: Sequence[str], *, before: int = NO_CUTOFF) -> dict[str, tuple[int, int]]:
    """path -> (commits before `before` that touched it, time of the last one)."""
    out: dict[str, tuple[int, int]] = {}
    for chunk in chunked(paths):
        for path, n, last in db.execute(
            "SELECT p.path, count(*), max(c.time) FROM history_paths p JOIN history_touches t ON t.path_id = p.id"
            f" JOIN history_commits c ON c.id = t.commit_id WHERE p.path IN ({marks(chunk)})"
            " AND c.time < ? GROUP BY p.path",
            (*chunk, before),
        ):
            out[path] = (n, last)
    return out


def head_time(db: sqlite3.Connection, *, before: int = NO_CUTOFF) -> int:
    row = db.execute("SELECT max(time) FROM history_commits WHERE time < ?", (before,)).fetchone()
    return int(row[0] or 0)


# --- pure scoring ----------------------------------------------------------------------------


def cochange(touches: Iterable[Touch], seed_weights: dict[str, float], now: int, half_life: float = HALF_LIFE_DAYS) -> dict[str, float]:
    """Files changed together with the seeds: for each seed, the share of its commits that also touched the
    file, each commit weighted down by its size and its age; summed over seeds by their weights."""
    return cochange_by_half_life(touches, seed_weights, now, (half_life,))[half_life]


def cochange_by_half_life(touches: Iterable[Touch], seed_weights: dict[str, float], now: int,
                          half_lives: Sequence[float]) -> dict[float, dict[str, float]]:
    """`cochange` for several half-lives in one pass over the touches (fitting tries a few)."""
    hs = list(dict.fromkeys(half_lives))
    per_seed: dict[str, dict[str, list[float]]] = {}
    seed_total: dict[str, list[float]] = {}
    seen_commit: set[tuple[str, int]] = set()
    for t in touches:
        age_days = max(0.0, (now - t.time) / 86400.0)
        size = math.log2(1 + max(1, t.n_files))
        ws = [0.5 ** (age_days / h) / size for h in hs]
        if (t.seed, t.commit) not in seen_commit:
            seen_commit.add((t.seed, t.commit))
            totals = seed_total.setdefault(t.seed, [0.0] * len(hs))
            for i, w in enumerate(ws):
                totals[i] += w
        if t.other == t.seed:
            continue
        acc = per_seed.setdefault(t.seed, {}).setdefault(t.other, [0.0] * len(hs))
        for i, w in enumerate(ws):
            acc[i] += w
    out: dict[float, dict[str, float]] = {h: {} for h in hs}
    for seed, others in per_seed.items():
        sw = seed_weights.get(seed, 1.0)
        for i, h in enumerate(hs):
            total = seed_total.get(seed, [0.0] * len(hs))[i]
            if total <= 0:
                continue
            # Shrink toward 0 when the seed has few commits: one shared commit is weak evidence.
            damp = total / (total + 1.0)
            into = out[h]
            for other, w in others.items():
                into[other] = into.get(other, 0.0) + sw * damp * w[i] / total
    return out


def activity(rows: dict[str, tuple[int, int]], now: int) -> tuple[dict[str, float], dict[str, float]]:
    """(recency, frequency) in [0, 1]: recency halves every 90 days since the last change, counted in whole days
    (the fusion ranks values, so seconds apart would order files as a quarter apart does); frequency is the
    log of the number of commits relative to the busiest file among those asked about."""
    recency: dict[str, float] = {}
    frequency: dict[str, float] = {}
    top = max((n for n, _ in rows.values()), default=0)
    for path, (n, last) in rows.items():
        recency[path] = 0.5 ** ((max(0, now - last) // 86400) / 90.0)
        frequency[path] = math.log1p(n) / math.log1p(top) if top else 0.0
    return recency, frequency
