"""The facts of the changed files' new versions, for the overlay (check/overlay.build).

Parsed once each (or taken from the blob cache, or for an edit of comment lines only, the old
facts moved) and decoded only when a stage asks for them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from graphguard.check.sides import Sides
from graphguard.languages import for_path
from graphguard.model import FileFacts

if TYPE_CHECKING:
    from graphguard.caches import LRU
    from graphguard.store import Store


def comment_edits(store: Store, sides: Sides) -> dict[str, str]:
    """path -> new facts (JSON) of the changed files whose edit is only comment or blank lines
    (Language.comment_edit): their old facts with the lines below the edit moved (model.moved_lines).
    Such an edit makes no call, definition or import, and cannot make a file parse or stop parsing: the
    cost of a comment edit of an 80,000-call file follows the comment, not its parse and Python's
    syntax check (5 s, 400 MB), nor decoding its facts (1 s: they are decoded only when asked for)."""
    from graphguard.model import moved_lines

    out = {}
    for path, data in sides.new.data.items():
        old, old_sha = sides.old.data.get(path), sides.old.blobs.get(path)
        if old is None or old_sha is None or (lang := for_path(path)) is None or (edit := lang.comment_edit(old, data)) is None:
            continue
        raw = store.load_facts(old_sha)
        moved = moved_lines(raw, *edit) if raw is not None else None
        if moved is not None:
            out[path] = moved
    return out


def parse_new(store: Store, sides: Sides, cache_facts: bool, known: Mapping[str, str],
               parsed: LRU[str, FileFacts]) -> Facts:
    """Tree-sitter facts of the new versions (`known`: the JSON of those of a comment edit, decoded when
    asked for); they go to the blob cache: once the commit lands, bringing the graph to it costs no parse.
    Without the blob cache (a shadow check writes nothing), the facts of the last new versions parsed are
    kept in `parsed` (Caches.parsed): a long-lived process (the MCP server) asks about the same working-tree
    edits again and again."""
    from graphguard.index.facts import parse_blob

    new_facts = Facts()
    fresh_rows = []
    for path, data in sides.new.data.items():
        sha = sides.new.blobs[path]
        if not cache_facts and sha in parsed:
            new_facts.put(path, parsed[sha])
            continue
        raw = store.load_facts(sha)
        if path in known:
            new_facts.later(path, known[path])
            if raw is None and cache_facts:
                fresh_rows.append((sha, known[path]))
            continue
        if raw is None:
            raw = parse_blob(data)
            fresh_rows.append((sha, raw))
        new_facts.put(path, FileFacts.from_json(raw))
        if not cache_facts:
            parsed.put(sha, new_facts[path])
    if fresh_rows and cache_facts:
        store.save_facts(fresh_rows)
    return new_facts


class Facts(Mapping[str, FileFacts]):
    """path -> facts, those given as JSON (`later`) decoded when first asked for."""

    def __init__(self) -> None:
        self._order: dict[str, None] = {}
        self._decoded: dict[str, FileFacts] = {}
        self._raw: dict[str, str] = {}

    def put(self, path: str, facts: FileFacts) -> None:
        self._order[path] = None
        self._decoded[path] = facts

    def later(self, path: str, raw: str) -> None:
        self._order[path] = None
        self._raw[path] = raw

    def __getitem__(self, path: str) -> FileFacts:
        if path not in self._decoded and path in self._raw:
            self._decoded[path] = FileFacts.from_json(self._raw.pop(path))
        return self._decoded[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)
