"""Weights fitted to a repository's own history: the pure search, the replay without leakage, storage, use."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest

from graphguard.config import Config
from graphguard.errors import GraphguardError
from graphguard.repo import Repo, ensure_current, open_repo
from graphguard.retrieval import fit, fitting, history, profiles, rank
from graphguard.retrieval.engine import Retriever, ensure_indexes
from graphguard.retrieval.records import Request
from tests.helpers import GitRepo, Result, refresher_processes, run_cli

DAY = 86400
T0 = 1_700_000_000


# --- the pure search ----------------------------------------------------------------------------------


def _case(task: fit.Task, truth: set[str], signals: dict[str, dict[str, float]], commit: str = "c", t: int = 0) -> fit.Case:
    cands: dict[str, rank.Candidate] = {}
    for signal, values in signals.items():
        if signal == "cochange":
            continue
        for path, v in values.items():
            cands.setdefault(path, rank.Candidate(path)).signals[signal] = v
    co = signals.get("cochange", {})
    return fit.Case(task, commit, t, frozenset(truth), list(cands.values()), {h: co for h in fit.HALF_LIVES})


def _recency_wins(n: int) -> list[fit.Case]:
    """Cases where only recency names the truth; text, graph and co-change name 30 decoys ahead of it."""
    cases = []
    for i in range(n):
        decoys = {f"d{i}_{k:02}.py": 1.0 - k / 100 for k in range(30)}
        cases.append(_case(fit.Task.SEEDED, {f"t{i}.py"}, {
            "text": decoys, "graph": decoys, "cochange": decoys, "recency": {f"t{i}.py": 1.0},
        }, commit=f"c{i}", t=i))
    return cases


def test_the_search_raises_the_weight_of_the_signal_that_finds_the_truth() -> None:
    cases = _recency_wins(20)
    default = rank.PROFILES["default"]
    before = fit.evaluate(cases, default)["all"]
    found = fit.search(cases, default)
    assert found.scores.recall10 == 1.0 > before.recall10
    assert found.weights["recency"] > default.weights["recency"]
    assert sum(found.weights.values()) == pytest.approx(1.0, abs=1e-3)
    assert fit.search(cases, default) == found  # deterministic
    shrunk, share = fit.fit_weights(cases, default)  # the least shift that finds every truth
    assert 0 < share <= 1.0 and shrunk.scores.recall10 == 1.0


def test_the_shift_from_the_default_shrinks_when_the_newer_cases_disagree() -> None:
    default = rank.PROFILES["default"]
    old = _recency_wins(12)
    # The newer third: the truth is what text, graph and co-change rank first; recency names a decoy.
    new = [_case(fit.Task.SEEDED, {f"n{i}.py"}, {"text": {f"n{i}.py": 1.0}, "graph": {f"n{i}.py": 1.0},
                                                "cochange": {f"n{i}.py": 1.0},
                                                "recency": {f"r{i}_{k}.py": 1.0 - k / 100 for k in range(20)}},
                 commit=f"n{i}", t=100 + i) for i in range(6)]
    _, share = fit.fit_weights(old + new, default)
    assert share < 1.0


def test_the_search_stops_at_its_time_bound() -> None:
    ticks = iter(range(1000))
    found = fit.search(_recency_wins(5), rank.PROFILES["default"], seconds=0.5, clock=lambda: float(next(ticks)))
    assert found.trials <= 2


def test_evaluate_reports_each_task_and_their_mean() -> None:
    text = _case(fit.Task.TEXT, {"a.py", "z.py"}, {"text": {"a.py": 1.0, "b.py": 0.5}})
    seeded = _case(fit.Task.SEEDED, {"b.py"}, {"text": {"a.py": 1.0, "b.py": 0.5}})
    scores = fit.evaluate([text, seeded], rank.PROFILES["default"])
    assert scores["text"].recall10 == 0.5 and scores["seeded"].recall10 == 1.0
    assert scores["seeded"].mrr == 0.5
    assert scores["all"].recall10 == 0.75


def test_split_keeps_fitting_commits_strictly_before_the_cutoff() -> None:
    cases = [_case(fit.Task.TEXT, {"a.py"}, {"text": {"a.py": 1.0}}, commit=f"c{i}", t=i) for i in range(9)]
    fitting_cases, validating, cut = fit.split(cases)
    assert cut == 6 and max(c.time for c in fitting_cases) < cut <= min(c.time for c in validating)
    early, late, cut = fit.split(cases, until_time=3)
    assert [c.time for c in early] == [0, 1, 2] and len(late) == 6


@pytest.mark.parametrize(("n_fit", "n_val", "fitted", "accepted"), [
    (100, 50, 0.8, True),
    (100, 50, 0.7, False),  # no better than the default
    (10, 50, 0.9, False),  # too few fitting commits
    (100, 5, 0.9, False),  # too few validation commits
])
def test_the_fitted_profile_is_used_only_when_history_is_long_and_it_beat_the_default(
        n_fit: int, n_val: int, fitted: float, accepted: bool) -> None:
    ok, reason = fit.decide(n_fit, n_val, {"text": fit.TaskRecall(fitted, 0.7), "seeded": fit.TaskRecall(fitted, 0.7)})
    assert ok is accepted and reason


def _stored(accepted: bool = True) -> fit.FittedProfile:
    return fit.FittedProfile({"text": 0.2, "graph": 0.1, "cochange": 0.6, "recency": 0.05, "frequency": 0.05, "test": 0.0},
                             365.0, "abc", 120, 60, 0.7, {"text": fit.TaskRecall(0.7, 0.6)}, accepted, "why", "0", "def", 200)


def test_a_fitted_profile_round_trips_and_damage_is_an_error() -> None:
    fp = _stored()
    assert fit.FittedProfile.from_json(fp.to_json()) == fp
    assert fp.profile().half_life == 365.0 and fp.profile().name == "fitted"
    for bad in ("", "{", "[]", json.dumps({**json.loads(fp.to_json()), "weights": {"text": -1}}),
                json.dumps({k: v for k, v in json.loads(fp.to_json()).items() if k != "cutoff"})):
        with pytest.raises(ValueError):
            fit.FittedProfile.from_json(bad)


# --- replaying history without leakage -----------------------------------------------------------------


def _commit_on(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, day: int, msg: str, files: dict[str, str]) -> str:
    stamp = f"@{T0 + day * DAY} +0000"
    monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)
    monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
    return repo.commit(msg, files)


@pytest.fixture
def leaky(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Repo, str, int]]:
    """seed.py changes with before.py up to commit C; with later.py, many times, only after C."""
    repo = make_repo()
    _commit_on(repo, monkeypatch, 0, "add later", {"later.py": "L = 0\n"})
    _commit_on(repo, monkeypatch, 0, "add other", {"other.py": "O = 0\n"})
    _commit_on(repo, monkeypatch, 0, "start", {"seed.py": "S = 0\n", "before.py": "B = 0\n"})
    _commit_on(repo, monkeypatch, 1, "seed with before", {"seed.py": "S = 1\n", "before.py": "B = 1\n"})
    c = _commit_on(repo, monkeypatch, 2, "seed with other", {"seed.py": "S = 2\nS2 = 2\n", "other.py": "O = 2\n"})
    for day in range(3, 9):
        _commit_on(repo, monkeypatch, day, f"seed with later {day}", {"seed.py": f"S = {day}\n", "later.py": f"L = {day}\n"})
    r = open_repo(str(repo.root))
    head = ensure_current(r).head
    assert head is not None
    ensure_indexes(r.store, r.root, head)
    yield r, c, T0 + 2 * DAY
    r.store.close()


def test_a_query_replayed_at_a_commit_sees_no_co_change_from_it_or_after_it(leaky: tuple[Repo, str, int]) -> None:
    r, c, when = leaky
    head = fitting.git.head(r.root)
    assert head is not None
    request = Request(seeds=("seed.py",))
    today = Retriever(r.store.graph, r.root, head, Config()).gather(request, rank.PROFILES["default"])
    at_c = Retriever(r.store.graph, r.root, head, Config(), before=when).gather(request, rank.PROFILES["default"])
    # With the whole log, later.py is what seed.py changes with most: leakage would change the answer.
    assert max(today.candidates.values(), key=lambda x: x.signals.get("cochange", 0)).path == "later.py"
    assert "cochange" not in at_c.candidates.get("later.py", rank.Candidate("")).signals
    assert at_c.candidates["before.py"].signals["cochange"] > 0
    assert "cochange" not in at_c.candidates.get("other.py", rank.Candidate("")).signals  # C's own pair: not yet
    assert at_c.now == T0 + DAY
    assert all(t.time < when for t in at_c.touches)
    # Recency and frequency are cut there too: later.py has changed once (the first commit), as seed.py then.
    rows = history.activity_rows(r.store.graph, ["later.py", "seed.py"], before=when)
    assert rows["later.py"] == (1, T0) and rows["seed.py"] == (2, T0 + DAY)


def test_the_cases_of_past_commits_use_history_before_each(leaky: tuple[Repo, str, int]) -> None:
    r, c, when = leaky
    head = fitting.git.head(r.root)
    assert head is not None
    commits = fitting.past_commits(r.root, head, 50)
    assert commits[0].message == "seed with later 8" and len(commits) == 11  # newest first
    at_c = next(x for x in commits if x.sha == c)
    assert at_c.changed == {"seed.py": 3, "other.py": 2} and at_c.time == when
    cases = fitting.cases_from(r.store.graph, r.root, head, Config(), [at_c], seconds=60)
    seeded = next(x for x in cases if x.task is fit.Task.SEEDED)
    assert seeded.truth == {"other.py"}  # seed.py, the most-changed file, is the seed
    for co in seeded.cochange.values():
        assert "later.py" not in co and "other.py" not in co and co["before.py"] == 1.0
    text = next(x for x in cases if x.task is fit.Task.TEXT)
    assert text.truth == {"seed.py", "other.py"}


def test_past_commits_parse_messages_and_line_counts() -> None:
    out = (b"\x01aaa 100\nfix: the parser\n\nbody\n\x02\n3\t1\tpkg/a.py\x005\t0\tREADME.md\x00-\t-\tpkg/b.py\x00"
           b"\x01bbb 90\nstart\n\x02\n")
    got = fitting.parse_log(out)
    assert got == [fitting.PastCommit("aaa", 100, "fix: the parser\n\nbody", {"pkg/a.py": 4, "pkg/b.py": 0}),
                   fitting.PastCommit("bbb", 90, "start", {})]
    names = fitting._as_numstat(b"aaa 100\nfix\n\x02\npkg/a.py\x00README.md\x00")
    assert fitting.parse_log(b"\x01" + names) == [fitting.PastCommit("aaa", 100, "fix", {"pkg/a.py": 0})]
    assert sorted(fitting.spread(5)) == list(range(5)) and fitting.spread(5)[:2] == [0, 4]


# --- storage and use -----------------------------------------------------------------------------------


def test_a_short_history_keeps_the_default_and_stats_says_so(make_repo: Callable[..., GitRepo],
                                                             graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    assert graphguard(repo, "index").code == 0
    doc = graphguard(repo, "stats", "--format", "json").json["retrieval_profile"]
    assert doc["in_use"] == "default" and doc["fitted"]["accepted"] is False
    assert "too short" in doc["fitted"]["reason"]
    assert "retrieval profile" in graphguard(repo, "stats").out
    r = graphguard(repo, "context", "f", "--format", "json")
    assert r.code == 0 and r.json["profile"] == "default"


def test_a_stored_profile_is_used_by_default_and_default_stays_on_request(make_repo: Callable[..., GitRepo],
                                                                          graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    r = open_repo(str(repo.root))
    ensure_current(r)
    profiles.save(r.store.graph, _stored())
    r.store.close()
    assert graphguard(repo, "context", "f", "--format", "json").json["profile"] == "fitted"
    assert graphguard(repo, "context", "f", "--profile", "default", "--format", "json").json["profile"] == "default"
    doc = graphguard(repo, "stats", "--format", "json").json["retrieval_profile"]
    assert doc["in_use"] == "fitted" and doc["fitted"]["validation_recall10"]["text"] == {"fitted": 0.7, "default": 0.6}
    assert "fitted" in graphguard(repo, "stats").out


def test_a_damaged_profile_row_is_ignored_and_refitted(make_repo: Callable[..., GitRepo],
                                                      graphguard: Callable[..., Result]) -> None:
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    r = open_repo(str(repo.root))
    ensure_current(r)
    with r.store.graph:
        r.store.graph.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (profiles.META_KEY, "{not json"))
    db = r.store.graph
    assert profiles.load(db) is None and fitting.due(db)
    assert profiles.resolve(db, "auto") == rank.PROFILES["default"]
    with pytest.raises(GraphguardError, match="no fitted profile"):
        profiles.resolve(db, "fitted")
    r.store.close()
    assert graphguard(repo, "context", "f").code == 0
    assert graphguard(repo, "stats", "--format", "json").json["retrieval_profile"]["in_use"] == "default"
    assert graphguard(repo, "index").code == 0  # due: fitted again, the row is whole
    r = open_repo(str(repo.root))
    assert profiles.load(r.store.graph) is not None
    r.store.close()


def test_a_refit_waits_for_enough_new_commits(make_repo: Callable[..., GitRepo]) -> None:
    repo = make_repo({"a.py": "A = 1\n"})
    r = open_repo(str(repo.root))
    ensure_current(r)
    db = r.store.graph
    profiles.save(db, replace(_stored(), history_commits=1))
    assert not fitting.due(db)
    profiles.save(db, replace(_stored(), history_commits=1 - fitting.REFIT_AFTER))
    assert fitting.due(db)
    r.store.close()


def test_the_background_refresher_fits_when_due_and_logs_it(make_repo: Callable[..., GitRepo],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from graphguard.commands import refresh

    repo = make_repo({"a.py": "A = 1\n"})
    r = open_repo(str(repo.root))
    ensure_current(r)
    assert profiles.load(r.store.graph) is None
    refresh._refit_if_due(r)
    fitted = profiles.load(r.store.graph)
    assert fitted is not None and not fitted.accepted and fitted.head == repo.head
    assert "fit: history too short" in capsys.readouterr().out
    refresh._refit_if_due(r)  # not due again until REFIT_AFTER more commits
    assert capsys.readouterr().out == ""
    r.store.close()


def _long_history(make_repo: Callable[..., GitRepo]) -> GitRepo:
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n"})
    for i in range(fit.MIN_FIT_COMMITS + fit.MIN_VALIDATION_COMMITS + 5):
        repo.commit(f"tune step {i} of the parser", {f"pkg/m{i % 6}.py": f"from pkg.a import f\n\nX = f() + {i}\n"})
    return repo


def _fitted(repo: GitRepo) -> object:
    r = run_cli(repo, "stats", "--format", "json")
    assert r.code == 0, r.err
    return r.json["retrieval_profile"]["fitted"]


@pytest.mark.slow
def test_index_leaves_a_long_fit_to_the_background_and_returns(make_repo: Callable[..., GitRepo]) -> None:
    repo = _long_history(make_repo)
    r = run_cli(repo, "index")
    assert r.code == 0, r.err
    assert "fitted in the background" in r.out
    # The 30 s of CPU it may take, and the key that turns it off, are said where it starts.
    assert f"up to {fitting.SECONDS:.0f} s of CPU" in r.out and "retrieval_fit = false" in r.out
    deadline = time.monotonic() + 120
    while refresher_processes(repo) and time.monotonic() < deadline:  # the fit runs after the refresh lock is let go
        time.sleep(0.05)
    assert not refresher_processes(repo)
    assert _fitted(repo) is not None
    assert "fitted" not in run_cli(repo, "index").out  # not due again until enough new commits


@pytest.mark.slow
def test_in_the_foreground_index_fits_by_itself(make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _long_history(make_repo)
    monkeypatch.setenv("GRAPHGUARD_REFRESH", "foreground")
    r = run_cli(repo, "index")
    assert r.code == 0, r.err
    assert "retrieval profile from this repository's history" in r.out and "background" not in r.out
    assert _fitted(repo) is not None


@pytest.mark.slow
def test_retrieval_fit_false_keeps_the_default_profile_and_starts_no_fit(make_repo: Callable[..., GitRepo],
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from graphguard.commands import refresh

    repo = _long_history(make_repo)
    repo.commit("no fitting here", {".graphguard.toml": "retrieval_fit = false\n"})
    r = run_cli(repo, "index")
    assert r.code == 0, r.err
    assert "not fitted (retrieval_fit = false in the configuration); the default profile stays" in r.out
    assert not refresher_processes(repo)
    assert _fitted(repo) is None
    # Nor does the background refresher after a hook.
    opened = open_repo(str(repo.root))
    capsys.readouterr()
    refresh._refit_if_due(opened)
    assert "fit: off (retrieval_fit = false)" in capsys.readouterr().out
    assert profiles.load(opened.store.graph) is None
    opened.store.close()


def test_hubs_returned_far_more_often_than_touched_are_damped_and_fall_below_the_answer() -> None:
    # hub.py tops every text ranking and no commit touches it; t{i}.py is each commit's file, second on text.
    cases = [_case(fit.Task.TEXT, {f"t{i}.py", "core.py"}, {
        "text": {"hub.py": 1.0, f"t{i}.py": 0.9, "core.py": 0.8, **{f"d{i}_{k}.py": 0.5 - k / 100 for k in range(12)}},
    }, commit=f"c{i}", t=i) for i in range(12)]
    default = rank.PROFILES["default"]
    damping = fit.learn_damping(cases, default)
    assert damping["hub.py"] < 0.5
    assert "core.py" not in damping  # touched every time it was returned
    assert not any(p.startswith("t") for p in damping)  # returned once each: too little evidence
    damped = default._replace(damping=damping)
    assert fit.evaluate(cases, damped)["all"].mrr > fit.evaluate(cases, default)["all"].mrr
    fresh = _case(fit.Task.TEXT, {"t.py"}, {"text": {"hub.py": 1.0, "t.py": 0.9}})
    ranked = rank.rank({c.path: c for c in fresh.candidates}, damped)
    assert [c.path for c in ranked] == ["t.py", "hub.py"]
    stored = replace(_stored(), damping=damping)
    assert fit.FittedProfile.from_json(stored.to_json()).profile().damping["hub.py"] == damping["hub.py"]
