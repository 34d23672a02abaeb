"""`outline`: per file its definitions (signature, decorators, docstring's first line), no bodies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphguard.answers.records import OutlineAnswer, graph_head
from graphguard.errors import GraphguardError
from graphguard.repo import Repo
from graphguard.store.reads import CodeGraph

if TYPE_CHECKING:
    from graphguard.caches import LRU

#: Files in one outline: a package of thousands of files is cut (and said so), the first in path order kept.
MAX_OUTLINE_FILES = 200
#: Definitions in one outline, over all its files.
MAX_OUTLINE_DEFINITIONS = 4000


def _relative(name: str) -> str | None:
    """A path as the graph stores it (relative to the root, `/`-separated, no `./`, no trailing `/`);
    None for one that cannot name a file of the repository (absolute, with `..`)."""
    path = name.replace("\\", "/").strip()
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    return "/".join(parts)


def outline_paths(repo: Repo, paths: Sequence[str]) -> tuple[list[str], int, list[dict[str, Any]]]:
    """The graph's files that `paths` name (files, or folders: every file under them), sorted and capped:
    (files, how many more the cap left out, warnings about names that name nothing)."""
    from graphguard.store.paths import StoredPaths

    stored = StoredPaths(repo.store.graph)
    found: set[str] = set()
    warnings: list[dict[str, Any]] = []
    for name in paths:
        path = _relative(name)
        if path is None:
            warnings.append({"path": name, "message": "not a path inside the repository (absolute, or with '..'); skipped"})
            continue
        hits = stored.all() if path == "" else sorted(stored.existing([path]) | set(stored.under([path], 1 << 30)))
        if not hits:
            warnings.append({"path": name, "message": "no file of the graph is or is under this path (only source files of"
                                                      " supported languages at the graph's commit are)"})
        found.update(hits)
    files = sorted(found)
    return files[:MAX_OUTLINE_FILES], max(0, len(files) - MAX_OUTLINE_FILES), warnings


def _extras(repo: Repo, blobs: dict[str, str]) -> dict[str, Any]:
    """Docstrings and decorators per file, parsed once per open Repo (kept in `repo.caches.extras`: by blob sha,
    content-addressed, so never stale, for a long-lived server), through the file's Language (Python's
    docstrings, TypeScript's JSDoc). A key is the blob, and for another language than Python `blob:language/kind`."""
    from graphguard import git
    from graphguard.languages import for_path
    from graphguard.languages.python import docstrings

    kept: LRU[str, docstrings.Extras] = repo.caches.extras
    keys: dict[str, str] = {}
    for path, sha in blobs.items():
        lang = for_path(path)
        keys[path] = sha if lang is None or not lang.by_path else f"{sha}:{lang.name}/{lang.facts_kind(path)}"
    found = {key: kept[key] for key in set(keys.values()) if key in kept}
    wanted: dict[str, list[str]] = {}
    for path, key in keys.items():
        if key not in found:
            wanted.setdefault(blobs[path], []).append(path)
    for sha, data in git.read_blobs(repo.root, sorted(wanted)):
        for path in wanted[sha]:
            lang = for_path(path)
            if keys[path] not in found:
                found[keys[path]] = lang.outline(data, lang.facts_kind(path)) if lang is not None else docstrings.extract(data)
                kept.put(keys[path], found[keys[path]])
    return {path: found.get(key, docstrings.NONE) for path, key in keys.items()}


def outline_answer(repo: Repo, paths: Sequence[str]) -> OutlineAnswer:
    """graphguard.outline/1: per file its definitions (signature, decorators, docstring's first line), no bodies."""
    if not paths:
        raise GraphguardError("name at least one file or folder")
    files, files_omitted, warnings = outline_paths(repo, paths)
    if not files and warnings and len(warnings) == len(paths):
        raise GraphguardError(f"{warnings[0]['path']!r}: {warnings[0]['message']}")
    graph = CodeGraph(repo.store.graph)
    rows = graph.file_rows(files)
    extras = _extras(repo, {p: rows[p][0] for p in files if p in rows})
    out: list[dict[str, Any]] = []
    budget = MAX_OUTLINE_DEFINITIONS
    definitions_omitted = 0
    for path in files:
        module = rows[path][1] if path in rows else ""
        defs = _definitions(graph, path, module, extras[path]) if path in extras else []
        if len(defs) > budget:
            definitions_omitted += len(defs) - budget
            defs = defs[:budget]
        budget -= len(defs)
        out.append({"path": path, "module": module, "docstring": extras[path].module_doc if path in extras else None,
                    "definitions": defs})
    notes = []
    if files_omitted:
        notes.append(f"{files_omitted} more files left out (at most {MAX_OUTLINE_FILES}): name sub-folders or files")
    if definitions_omitted:
        notes.append(f"{definitions_omitted} definitions left out (at most {MAX_OUTLINE_DEFINITIONS} in one outline)")
    return OutlineAnswer(graph_head(repo), tuple(out), files_omitted, definitions_omitted, tuple(notes), tuple(warnings))


def outline_document(repo: Repo, paths: Sequence[str]) -> dict[str, Any]:
    return outline_answer(repo, paths).to_json()


def _definitions(graph: CodeGraph, path: str, module: str, extras: Any) -> list[dict[str, Any]]:
    """A file's definitions in line order; functions nested in functions (`<locals>`) are an implementation's detail.
    A definition's dotted name is its file's module, a dot and its `name` (a file named by path: `path#name`),
    not repeated in every entry."""
    from graphguard.languages import for_path

    lang = for_path(path)
    prefix = module + ("#" if lang is not None and lang.by_path else ".") if module else ""
    out = []
    for qualname, kind, line, end_line, signature in graph.definitions_in(path):
        if "<locals>" in qualname:
            continue
        out.append({"kind": kind, "name": qualname.removeprefix(prefix), "line": line,
                    "end_line": end_line, "signature": signature,
                    "decorators": list(extras.decorators.get(line, ())), "docstring": extras.docs.get(line)})
    return out
