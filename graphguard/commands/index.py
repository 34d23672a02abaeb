"""`graphguard index` and `graphguard refresh`."""

from __future__ import annotations

import sys
import time

from graphguard import output
from graphguard.errors import GraphguardError
from graphguard.repo import Repo, ensure_current, freshness_of, open_repo, stored_head


def index(repo_path: str, *, fmt: str = "text", compact: bool = False) -> int:
    from graphguard.answers.records import IndexAnswer
    from graphguard.commands.printing import write_compact, write_json
    from graphguard.freshness import with_freshness

    repo = open_repo(repo_path)
    t0, before = time.perf_counter(), stored_head(repo)
    r = ensure_current(repo)
    fresh = freshness_of(before, r, t0)
    _text_index(repo, r.head)
    fitted = _fit_if_due(repo, r.head)
    doc = IndexAnswer(r.head, r.files, r.parsed, r.resolved, r.noop, r.elapsed_ms,
                      tuple({"path": p, "message": m} for p, m in r.warnings)).to_json()
    doc = with_freshness(doc, fresh)
    if compact:
        return write_compact(doc)
    if fmt == "json":
        write_json(doc)
    elif r.head is None:
        output.write("graphguard: no commit yet; the graph is empty")
    elif r.noop:
        output.write(f"graphguard: graph is up to date at {r.head[:12]}")
    else:
        output.write(
            f"graphguard: indexed {r.head[:12]}: {r.files} files, {r.parsed} parsed, {r.resolved} resolved"
            f" in {r.elapsed_ms} ms" + (f", {len(r.warnings)} warnings (graphguard stats)" if r.warnings else "")
        )
    if fitted is not None and fmt != "json":
        output.write(f"graphguard: retrieval profile from this repository's history: {fitted}")
    return 0


def _text_index(repo: Repo, head: str | None) -> None:
    """Bring retrieval's text index to a graph that was current already. A refresher that is still running
    (it built the graph this command waited for) brings it along itself: not waited for here, since `index`
    is done once the graph is built; and a cache kept busy by another process is no failure of `index`."""
    from graphguard.background import state
    from graphguard.errors import LockTimeout
    from graphguard.retrieval.maintain import catch_up

    if state.running(repo.store.dir):
        return
    try:
        catch_up(repo.store, repo.root, head)
    except LockTimeout:
        print("graphguard: the text index is being updated by another process; it follows there", file=sys.stderr)


def _fit_if_due(repo: Repo, head: str | None) -> str | None:
    """Fit the retrieval profile when none was fitted or enough commits arrived since (retrieval/fitting.py);
    the outcome in words, or None when nothing was due. A fit on a long history takes up to
    fitting.SECONDS: the detached refresher does it (as after the post-* hooks), so that `index` returns
    once the graph is built; GRAPHGUARD_REFRESH=foreground keeps it here. Never in a hook."""
    import os

    from graphguard.background import launcher
    from graphguard.config import load as load_config
    from graphguard.retrieval import fitting

    if head is None or not fitting.due(repo.store.graph):
        return None
    if not load_config(repo.root).retrieval_fit:
        return "not fitted (retrieval_fit = false in the configuration); the default profile stays"
    if fitting.long_enough(repo.store.graph) and launcher.mode(os.environ) is launcher.Mode.BACKGROUND:
        store_dir = repo.store.dir
        try:
            launcher.launch(store_dir, repo.root, "index", os.environ)
        except (OSError, GraphguardError) as e:
            return f"not fitted (the background refresher did not start: {e}); the default profile stays"
        return (f"being fitted in the background, up to {fitting.SECONDS:.0f} s of CPU (its log:"
                f" {os.path.join(store_dir, 'refresh.log')}); the default profile until then;"
                " retrieval_fit = false in [tool.graphguard] turns fitting off")
    try:
        fitted = fitting.refit(repo.store, repo.root, head, load_config(repo.root))
    except GraphguardError as e:  # the graph is built: a fit that could not run is said, not an error
        return f"not fitted ({e}); the default profile stays"
    return f"{'in use' if fitted.accepted else 'not used'}, {fitted.reason}"
