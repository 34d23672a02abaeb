"""Compact answers (`--compact`, the MCP tools' `compact` argument): the same document in fewer tokens. Pure.

These rules, and their exact inverse (`expand`):

- every key is shortened by one fixed table, `KEYS`, whatever the schema and wherever the key sits
  (`path` -> `p`, `line` -> `l`, ...); a key the table does not know is kept as it is, and no short
  key is also a full key, so a reader can always tell which is which;
- a field is dropped when it holds its documented default (`DEFAULTS`: null, an empty list, object
  or string; for a few counters 0 or false; `kind` "call", `resolution` "exact", `change` "signature",
  `line` 1), or when it equals another field of its object (`SAME_AS`: `end_line` its `line`, a test's
  `name` its `path`), or, in a list, when it repeats the previous entry's (`DITTO`: the callers of one
  file follow each other), but only in an object whose keys the schema fixes (`SHAPES`): there
  `expand` puts the value back. Anywhere else nothing is dropped;
- a field another field gives back is written shorter under a key of its own (`ALTERNATES`: a test's
  pytest id without its file, an outline signature without its definition's name), only where that
  round-trips.

So `expand(compact(doc)) == doc` for every answer: nothing is lost, the test suite checks it on real
answers. Paths in answers are already relative to the repository's root; compact keeps values as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

#: Full key -> short key, for every key of every answer (docs/contract.md lists the same table).
KEYS: Mapping[str, str] = MappingProxyType({
    "schema": "$",
    "summary": "sm",
    "ok_omitted": "ok",
    "head": "h",
    "base": "b",
    "compared": "cm",
    "verdict": "v",
    "changes": "ch",
    "change": "cg",
    "symbol": "y",
    "path": "p",
    "line": "l",
    "end_line": "el",
    "breaking": "bk",
    "ignored": "ig",
    "before": "bf",
    "after": "af",
    "callers": "cs",
    "caller": "c",
    "status": "s",
    "reason": "r",
    "kind": "k",
    "resolution": "rs",
    "tests": "ts",
    "direct": "d",
    "name": "n",
    "distance": "ds",
    "tests_omitted": "to",
    "warnings": "w",
    "message": "m",
    "notes": "no",
    "stats": "st",
    "files_changed": "fc",
    "elapsed_ms": "ms",
    "command": "cd",
    "query": "q",
    "profile": "pf",
    "results": "re",
    "score": "sc",
    "via": "vi",
    "disclosure": "dc",
    "tokens": "tk",
    "truncated": "tr",
    "signals": "sg",
    "text": "t",
    "graph": "g",
    "cochange": "cc",
    "recency": "rc",
    "frequency": "fq",
    "test": "te",
    "seeds": "sd",
    "terms": "tm",
    "candidates": "ca",
    "stale_paths": "sp",
    "budget": "bu",
    "signature": "sig",
    "args": "a",
    "positional": "ps",
    "keywords": "kw",
    "star": "sr",
    "starstar": "ss",
    "files": "f",
    "test_files": "tf",
    "symbols": "sy",
    "edges": "e",
    "imports": "im",
    "total": "tt",
    "internal": "in",
    "external": "ex",
    "unresolved": "ur",
    "unresolved_list": "ul",
    "module": "mo",
    "calls": "cl",
    "resolved": "rv",
    "by_name": "bn",
    "name_matches_repo": "nm",
    "parsed": "pa",
    "noop": "np",
    "depth": "dp",
    "callee": "ce",
    "callers_omitted": "co",
    "definitions": "df",
    "definitions_omitted": "do",
    "files_omitted": "fo",
    "decorators": "dr",
    "docstring": "dg",
    "retrieval_profile": "rp",
    "in_use": "iu",
    "fitted": "fi",
    "weights": "wt",
    "half_life_days": "hl",
    "cutoff": "cu",
    "fit_commits": "fcm",
    "validation_commits": "vc",
    "validation_recall10": "vr",
    "accepted": "ac",
    "version": "ve",
    "seeded": "se",
    "default": "de",
    "suppressed": "su",
    "config_warnings": "cw",
    "languages": "lg",
    "language": "la",
    "by_category": "bc",
    "category": "cat",
    "count": "cn",
    "specifier": "spc",
    "target": "tg",
    "form": "fm",
    "branches": "br",
    "ref": "rf",
    "tip": "tp",
    "merge_base": "mb",
    "merged_tree": "mt",
    "conflicted": "cf",
    "freshness": "fr",
    "state": "sa",
    "refresh_ms": "rms",
    "no_resolved_callers": "nrc",
    "unresolved_imports": "ui",
    "note": "nt",
})
_LONG: Mapping[str, str] = MappingProxyType({short: full for full, short in KEYS.items()})

#: The value a field is dropped at (and restored to), by key. `bool` and `int` are told apart (False != 0 here).
DEFAULTS: Mapping[str, Any] = MappingProxyType({
    "base": None, "head": None, "changes": [], "breaking": [], "ignored": [],
    # No default for `before`/`after`: a null one (an added definition) is written, so an absent one (the agent's
    # answer leaves them out of a change every caller binds) expands to absent.
    "callers": [], "reason": "", "tests": [], "name": None, "tests_omitted": 0, "warnings": [], "notes": [],
    "signals": {}, "text": "", "truncated": False, "seeds": [], "terms": [], "budget": None, "args": None,
    "keywords": [], "star": False, "starstar": False, "unresolved_list": [], "callers_omitted": 0,
    "definitions": [], "definitions_omitted": 0, "files_omitted": 0, "decorators": [], "docstring": None,
    "signature": "", "module": "", "stale_paths": 0, "suppressed": None, "refresh_ms": 0, "symbols": [],
    # The values nearly every use has: a use is a call resolved exactly unless it says otherwise.
    "kind": "call", "resolution": "exact",
    # Most changes a check reports are of a signature; a whole test file (and a first import) is at line 1.
    "change": "signature", "line": 1,
})
#: Fields of a list's entries dropped when they repeat the previous entry's (and restored from it): the callers of
#: one file, of one function, with one reason follow each other. The first entry keeps the default rule.
DITTO = frozenset({"path", "caller", "callee", "status", "reason", "distance", "direct", "via", "disclosure", "kind"})
#: A field dropped when it equals another field of its object (and restored from it): a one-line call's end.
#: Where the object has that other field, this rule comes before the default: a test named by its file's path
#: drops `name`, and a test with no name keeps `"name": null`.
SAME_AS: Mapping[str, str] = MappingProxyType({"end_line": "line", "name": "path"})

#: Per schema, the objects whose keys are fixed, by their place (the keys leading there from the document's
#: root; a list adds nothing), each with its keys in order. Only there are defaults dropped and restored.
#: The freshness every answer ends with (graphguard.freshness): a current one is its head and state.
_FRESHNESS: dict[tuple[str, ...], tuple[str, ...]] = {("freshness",): ("head", "state", "refresh_ms", "reason")}
SHAPES: Mapping[str, Mapping[tuple[str, ...], tuple[str, ...]]] = MappingProxyType({
    "graphguard.check/1": {
        **_FRESHNESS,
        (): ("summary", "schema", "base", "head", "compared", "verdict", "changes", "warnings", "notes", "stats"),
        ("changes",): ("symbol", "path", "line", "change", "breaking", "ignored", "before", "after", "callers", "ok_omitted",
                       "tests", "tests_omitted"),
        ("changes", "callers"): ("path", "line", "end_line", "caller", "status", "reason", "kind", "resolution", "suppressed"),
        ("changes", "tests"): ("path", "line", "direct", "name", "distance"),
        ("warnings",): ("path", "message"),
    },
    "graphguard.context/1": {
        **_FRESHNESS,
        (): ("summary", "schema", "command", "query", "profile", "head", "results", "stats"),
        ("results",): ("path", "symbol", "line", "end_line", "score", "distance", "via", "disclosure", "tokens",
                       "truncated", "signals", "text", "symbols"),
        ("results", "symbols"): ("symbol", "line", "end_line", "disclosure", "tokens", "truncated", "text"),
        ("stats",): ("seeds", "terms", "candidates", "stale_paths", "tokens", "budget", "elapsed_ms"),
    },
    "graphguard.callers/1": {
        **_FRESHNESS,
        (): ("summary", "schema", "head", "symbol", "path", "line", "signature", "callers", "callers_omitted"),
        ("callers",): ("path", "line", "end_line", "caller", "kind", "resolution", "text", "args"),
        ("callers", "args"): ("positional", "keywords", "star", "starstar"),
    },
    "graphguard.impact/1": {
        **_FRESHNESS,
        (): ("summary", "schema", "head", "symbol", "path", "line", "signature", "depth", "callers", "callers_omitted", "tests",
             "tests_omitted", "notes"),
        ("callers",): ("path", "line", "end_line", "caller", "kind", "resolution", "text", "args", "distance", "callee"),
        ("callers", "args"): ("positional", "keywords", "star", "starstar"),
        ("tests",): ("path", "line", "direct", "name", "distance"),
    },
    "graphguard.outline/1": {
        **_FRESHNESS,
        (): ("summary", "schema", "head", "files", "files_omitted", "definitions_omitted", "notes", "warnings"),
        ("files",): ("path", "module", "docstring", "definitions"),
        ("files", "definitions"): ("kind", "name", "line", "end_line", "signature", "decorators", "docstring"),
        ("warnings",): ("path", "message"),
    },
    "graphguard.stats/1": {
        **_FRESHNESS,
        ("imports",): ("total", "internal", "external", "unresolved", "unresolved_list"),
    },
    "graphguard.imports/1": _FRESHNESS,
    "graphguard.index/1": {
        **_FRESHNESS,
        (): ("schema", "head", "files", "parsed", "resolved", "noop", "elapsed_ms", "warnings"),
        ("warnings",): ("path", "message"),
    },
})


_KEYWORDS = re.compile(r"(?:[a-z]+ )*")


def _declared(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _unnamed(signature: str, name: str) -> str | None:
    """`signature` without the name it declares after its keywords (`def (offset)`)."""
    at = _KEYWORDS.match(signature).end()  # type: ignore[union-attr]  # matches the empty string anywhere
    tail = _declared(name)
    return signature[:at] + signature[at + len(tail):] if tail and signature.startswith(tail, at) else None


def _named(cut: str, name: str) -> str:
    at = _KEYWORDS.match(cut).end()  # type: ignore[union-attr]
    return cut[:at] + _declared(name) + cut[at:]


def _in_file(name: str, path: str) -> str | None:
    """A test id without its file (`test_x` for `tests/t.py::test_x`)."""
    return name.removeprefix(path + "::") if name.startswith(path + "::") else None


@dataclass(frozen=True)
class Alternate:
    """A field written another way under its own short key, from another field of its object that gives it back:
    used only where that round-trips exactly (the key says which way it is written, so nothing is guessed)."""

    key: str  # the full key of the field
    short: str  # the key it is written under
    given: str  # the full key of the field that gives it back
    cut: Callable[[str, str], str | None]
    restore: Callable[[str, str], str]

    def write(self, obj: Mapping[str, Any]) -> str | None:
        value, given = obj.get(self.key), obj.get(self.given)
        if not isinstance(value, str) or not isinstance(given, str):
            return None
        cut = self.cut(value, given)
        return cut if cut is not None and self.restore(cut, given) == value else None


#: In the order `expand` restores them (a field given by another is restored after it).
ALTERNATES: tuple[Alternate, ...] = (
    # A test's pytest id written without its file, which is the entry's `path`.
    Alternate("name", "nf", "path", _in_file, lambda tail, path: f"{path}::{tail}"),
    # A definition's signature without the name it declares, which ends its `name`.
    Alternate("signature", "sn", "name", _unnamed, _named),
)
_ALTERNATE_OF = {a.key: a for a in ALTERNATES}
_ALTERNATE_SHORT = frozenset(a.short for a in ALTERNATES)


def dumps(doc: Mapping[str, Any]) -> str:
    """The compact answer as the CLI prints it: one line, no spaces."""
    import json

    return json.dumps(compact(doc), separators=(",", ":"), ensure_ascii=False)


def _is_default(key: str, value: Any) -> bool:
    if key not in DEFAULTS:
        return False
    default = DEFAULTS[key]
    return type(value) is type(default) and value == default


def compact(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The compact form of an answer (a graphguard.<x>/1 document)."""
    shapes = SHAPES.get(str(doc.get("schema")), {})
    return _compact_object(doc, (), shapes)


def _droppable(obj: Mapping[str, Any], key: str, value: Any, previous: Mapping[str, Any] | None) -> bool:
    if previous is not None and key in DITTO and key in previous:
        return _same(previous[key], value)  # after the first entry, a repeated value is dropped, a default is not
    other = SAME_AS.get(key)
    if other is not None and other in obj:
        return _same(obj[other], value)
    return _is_default(key, value)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _compact_object(obj: Mapping[str, Any], place: tuple[str, ...], shapes: Mapping[tuple[str, ...], tuple[str, ...]],
                    previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    fixed = shapes.get(place, ())
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if k in fixed and _droppable(obj, k, v, previous):
            continue
        alternate = _ALTERNATE_OF.get(k)
        cut = alternate.write(obj) if alternate is not None else None
        if alternate is not None and cut is not None:
            out[alternate.short] = cut
        else:
            out[KEYS.get(k, k)] = _compact_value(v, (*place, k), shapes)
    return out


def _compact_value(value: Any, place: tuple[str, ...], shapes: Mapping[tuple[str, ...], tuple[str, ...]]) -> Any:
    if isinstance(value, Mapping):
        return _compact_object(value, place, shapes)
    if isinstance(value, (list, tuple)):
        out = []
        previous: Mapping[str, Any] | None = None
        for v in value:
            out.append(_compact_object(v, place, shapes, previous) if isinstance(v, Mapping) else _compact_value(v, place, shapes))
            previous = v if isinstance(v, Mapping) else None
        return out
    return value


def expand(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The full answer of a compact one: `expand(compact(doc)) == doc`."""
    schema = doc.get(KEYS["schema"], doc.get("schema"))
    shapes = SHAPES.get(str(schema), {})
    return _expand_object(doc, (), shapes)


def _expand_object(obj: Mapping[str, Any], place: tuple[str, ...], shapes: Mapping[tuple[str, ...], tuple[str, ...]],
                   previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    full = {_LONG.get(k, k): v for k, v in obj.items() if k not in _ALTERNATE_SHORT}
    written = {a.key: (a, obj[a.short]) for a in ALTERNATES if a.short in obj}
    fixed = shapes.get(place, ())
    out: dict[str, Any] = {}
    for k in fixed:  # the schema's order, the dropped fields put back
        if k in full:
            out[k] = _expand_value(full.pop(k), (*place, k), shapes)
        elif k in written:
            _restore(out, full, k, *written.pop(k))
        elif previous is not None and k in DITTO and k in previous:
            out[k] = previous[k]
        elif k in SAME_AS and SAME_AS[k] in out:
            out[k] = out[SAME_AS[k]]
        elif k in DEFAULTS:
            default = DEFAULTS[k]
            out[k] = type(default)(default) if isinstance(default, (list, dict)) else default
    for k, v in full.items():
        out[k] = _expand_value(v, (*place, k), shapes)
    for k, (alternate, cut) in written.items():
        _restore(out, full, k, alternate, cut)
    return out


def _restore(out: dict[str, Any], full: Mapping[str, Any], key: str, alternate: Alternate, cut: Any) -> None:
    """An alternate's field from the field that gives it back (put back already, or as written)."""
    given = out.get(alternate.given, full.get(alternate.given))
    if isinstance(given, str) and isinstance(cut, str):
        out[key] = alternate.restore(cut, given)


def _expand_value(value: Any, place: tuple[str, ...], shapes: Mapping[tuple[str, ...], tuple[str, ...]]) -> Any:
    if isinstance(value, Mapping):
        return _expand_object(value, place, shapes)
    if isinstance(value, list):
        out = []
        previous: dict[str, Any] | None = None
        for v in value:
            item = _expand_object(v, place, shapes, previous) if isinstance(v, Mapping) else _expand_value(v, place, shapes)
            out.append(item)
            previous = item if isinstance(item, dict) else None
        return out
    return value
