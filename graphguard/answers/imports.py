"""`imports`: per import statement its specifier, where it led (internal, external, unresolved), the rule that
decided it (`category`: relative, paths, workspace, package, builtin, missing, ...) and its target file: what to
look at when `callers` finds fewer callers than expected."""

from __future__ import annotations

from collections.abc import Collection

from graphguard.answers.records import Entry, ImportsAnswer, graph_head
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph


def imports_answer(repo: Repo, paths: Collection[str] = ()) -> ImportsAnswer:
    """graphguard.imports/1 for the files `paths` (files, or folders: every indexed file below; none: every file)."""
    graph = CodeGraph(repo.store.graph)
    wanted = None
    if paths:
        stored = graph.paths()
        folders = tuple(p.rstrip("/") + "/" for p in paths)
        wanted = {p for p in stored if p in paths or p.startswith(folders)} if "." not in paths else None
    return ImportsAnswer(graph_head(repo), tuple(_entry(*row) for row in graph.import_rows(wanted)))


def _entry(path: str, line: int, module: str, name: str | None, status: str, target: str | None, form: str | None,
           category: str | None) -> Entry:
    return {"path": path, "line": line, "specifier": module, "name": name, "kind": status, "category": category,
            "target": target, "form": form}
