"""`graphguard stats`: what the graph holds and how much of it resolved."""

from __future__ import annotations

from typing import Any

from graphguard import output
from graphguard.answers.stats import stats_answer
from graphguard.commands.printing import note_stale, write_compact, write_json
from graphguard.config import load as load_config
from graphguard.freshness import with_freshness
from graphguard.repo import checked_after, ensure_current, ensure_fresh, head_probe, open_repo, rebuild_if_damaged
from graphguard.store.reads import CodeGraph


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _profile_line(doc: dict[str, Any]) -> str:
    fitted = doc["fitted"]
    line = f"retrieval profile {doc['in_use']}"
    if fitted is None:
        return line + " (none fitted yet: graphguard index fits one)"
    val = fitted["validation_recall10"]
    if val:
        pairs = ", ".join(f"{t} {v['fitted']:.3f} vs {v['default']:.3f}" for t, v in sorted(val.items()))
        line += f"; fitted on {fitted['fit_commits']} commits, validation recall@10 on {fitted['validation_commits']}: {pairs}"
    return line + f" ({fitted['reason']})"


def stats(repo_path: str, *, fmt: str = "text", compact: bool = False) -> int:
    repo = open_repo(repo_path)
    probe = head_probe(repo.paths)
    fresh = ensure_fresh(repo, stale_ok=True)
    # The one query that reads every page: the place to find damage a query would not notice.
    if rebuild_if_damaged(repo, thorough=True):
        ensure_current(repo, verify=False)
    graph = CodeGraph(repo.store.graph)
    s = with_freshness(stats_answer(repo).to_json(), checked_after(repo, fresh, probe))
    head = s["head"]
    if compact:
        return write_compact(s)
    if fmt == "json":
        return write_json(s)
    note_stale(fresh)
    imp, calls = s["imports"], s["calls"]
    assert isinstance(imp, dict) and isinstance(calls, dict)
    lines = [
        f"head      {head[:12] or '(no commit)'}",
        f"files     {s['files']} ({s['test_files']} tests)",
        f"symbols   {s['symbols']}",
        f"edges     {s['edges']}",
        (f"imports   {imp['total']}: {imp['internal']} internal, {imp['external']} external, {imp['unresolved']} unresolved"
         f" ({_pct(imp['internal'] + imp['external'], imp['total'])} resolved or classified)"),
        (f"calls     {calls['total']}: {calls['resolved']} resolved to a definition, {calls['by_name']} by unique method name,"
         f" {calls['external']} external, {calls['unresolved']} unresolved"),
        (f"          in-repo calls resolved: {_pct(calls['resolved'], calls['name_matches_repo'])}"
         f" ({calls['resolved']} of {calls['name_matches_repo']} calls whose name is defined in the repository;"
         f" {_pct(calls['resolved'] + calls['by_name'], calls['name_matches_repo'])} with by-name)"),
        f"warnings  {s['warnings']}",
        _profile_line(s["retrieval_profile"]),
    ]
    for u in imp["unresolved_list"][:50]:
        lines.append(f"  unresolved import {u['path']}:{u['line']} {u['module']}")
    if len(imp["unresolved_list"]) > 50:
        lines.append(f"  ... {len(imp['unresolved_list']) - 50} more (--format json lists all)")
    lines += _test_data_hint(graph, load_config(repo.root).test_data)
    for w in s["config_warnings"]:
        lines.append(f"  warning {w['path']}: {w['message']}")
    for path, message in graph.warnings()[:20]:
        lines.append(f"  warning {path}: {message}")
    output.write("\n".join(lines))
    return 0


def _test_data_hint(graph: CodeGraph, test_data: tuple[str, ...]) -> list[str]:
    """Files in folders of test data (modules.is_test_data; the configuration's `test_data`): said, with how to leave
    them out of the graph, or make them import roots."""
    from graphguard.languages.python.modules import is_test_data

    folders: dict[str, int] = {}
    for path in graph.paths():
        if is_test_data(path, test_data):
            parts = path.split("/")
            top = next(i for i in range(1, len(parts)) if is_test_data("/".join(parts[:i]), test_data))
            folders["/".join(parts[:top])] = folders.get("/".join(parts[:top]), 0) + 1
    if not folders:
        return []
    named = ", ".join(f"{f}/ ({n})" for f, n in sorted(folders.items(), key=lambda kv: -kv[1])[:5])
    globs = ", ".join(f'"{f}/**"' for f in sorted(folders)[:3])
    return [(f"  hint {sum(folders.values())} files in folders of test data: {named}; indexed under their dotted paths"
             f" only, never as top-level modules (a case named collections.py is not the stdlib's);"
             f" exclude = [{globs}] in [tool.graphguard] leaves them out of the graph; test_data = [] makes no folder test data")]
