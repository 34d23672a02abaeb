"""Seeded mutations of exported functions, methods and constructors, and how each side judges them.

The compiler's truth: the new diagnostics (codes in CALLER_CODES) in files other than the mutated one, with
the pristine file's diagnostics subtracted. graphguard's answer: `check --staged --format json`'s broken
callers outside the mutated file. A compiler site counts as found when a broken caller of the same file spans
its line.
"""

from __future__ import annotations

import enum
import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ts_oracle_setup import Oracle, git, graphguard

#: The compiler's errors at a caller: arity (2554, 2555), a missing export (2305, 2724, 2459, 2614), a missing
#: member (2339, 2551). 2459 ("declares 'x' locally, but it is not exported") and 2614 are what tsc says for
#: an export that was removed while the name is still declared; the issue's list lacks them.
CALLER_CODES = frozenset({2554, 2555, 2305, 2724, 2459, 2614, 2339, 2551})
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs")


class Kind(enum.Enum):
    REQUIRED_ADDED = "required-added"
    PARAM_REMOVED = "param-removed"
    OPTIONAL_TO_REQUIRED = "optional-to-required"
    REST_REMOVED = "rest-removed"
    EXPORT_REMOVED = "export-removed"
    EXPORT_RENAMED = "export-renamed"
    # controls: nothing a caller can see
    OPTIONAL_ADDED = "optional-added"
    BODY_EDIT = "body-edit"

    @property
    def control(self) -> bool:
        return self in (Kind.OPTIONAL_ADDED, Kind.BODY_EDIT)


@dataclass(frozen=True)
class Mutation:
    kind: Kind
    path: str
    symbol: str  # the candidate's name (function, Class.method, Class for a constructor)
    target: str  # function | method | constructor
    text: str  # the whole mutated file


def edit(text: str, start: int, end: int, insert: str) -> str:
    """Replace [start, end) given in UTF-16 code units, the compiler's offsets (Python's str counts code points)."""
    data = text.encode("utf-16-le")
    return (data[: 2 * start] + insert.encode("utf-16-le") + data[2 * end:]).decode("utf-16-le")


def _param_removed(c: dict[str, Any]) -> tuple[int, int] | None:
    params = c["params"]
    if not params or params[-1]["property"]:
        return None
    if len(params) > 1:
        return params[-2]["end"], params[-1]["end"]  # a trailing comma stays after the one before: still valid
    return params[-1]["start"], c["params_end"]  # the only one, with its trailing comma if written (`(a,)`)


def mutations_of(c: dict[str, Any], text: str) -> Iterator[tuple[Kind, str]]:
    """Every mutation this candidate allows, with the mutated file's text."""
    params = c["params"]
    js = c["path"].endswith(JS_SUFFIXES)
    sep = ", " if params else ""
    # After the last parameter, not after the list: `(a,)` has a trailing comma that the list's end includes,
    # and `(a,, b)` would not parse (tsc recovers and reports the callers; a parser that does not, blames none).
    end = params[-1]["end"] if params else c["params_end"]
    plain = all(p["question"] is None and p["init"] is None and not p["rest"] for p in params)
    if plain:
        yield Kind.REQUIRED_ADDED, edit(text, end, end, sep + ("ggAdded" if js else "ggAdded: number"))
    if not any(p["rest"] for p in params):
        yield Kind.OPTIONAL_ADDED, edit(text, end, end, sep + "ggOptional = 0")
    removed = _param_removed(c)
    if removed:
        kind = Kind.REST_REMOVED if params[-1]["rest"] else Kind.PARAM_REMOVED
        yield kind, edit(text, *removed, "")
    optional = [p for p in params if (p["question"] is not None or p["init"]) and not p["rest"]]
    if optional:
        p = optional[-1]
        start, stop = (p["question"], p["question"] + 1) if p["question"] is not None else p["init"]
        yield Kind.OPTIONAL_TO_REQUIRED, edit(text, start, stop, "")
    if c.get("export"):
        yield Kind.EXPORT_REMOVED, edit(text, c["export"][0], c["export"][1] + 1, "")
        name_start, name_end = c["name_span"]
        yield Kind.EXPORT_RENAMED, edit(text, name_start, name_end, c["name"] + "Renamed")
    if c["body"] is not None:
        yield Kind.BODY_EDIT, edit(text, c["body"], c["body"], " void 0;")


def use_pattern(c: dict[str, Any], kind: Kind) -> re.Pattern[str]:
    """What a use elsewhere looks like in text (the selection only; the compiler is the judge)."""
    last = c["name"].rsplit(".", 1)[-1]
    if c["kind"] == "constructor":
        return re.compile(rf"\b(new|extends)\s+{re.escape(c['name'])}\b")
    if kind in (Kind.EXPORT_REMOVED, Kind.EXPORT_RENAMED):
        return re.compile(rf"\b{re.escape(last)}\b")
    if c["kind"] == "method" or "." in c["name"]:
        return re.compile(rf"\.{re.escape(last)}\s*(<[^()]*>)?\(")
    return re.compile(rf"\b{re.escape(last)}\s*(<[^()]*>)?\(")


def reverse_imports(imports: list[dict[str, Any]]) -> dict[str, set[str]]:
    """target file -> the files that import it (the compiler's own resolution)."""
    reverse: dict[str, set[str]] = {}
    for i in imports:
        if i["target"] and i["target"] != i["path"]:
            reverse.setdefault(i["target"], set()).add(i["path"])
    return reverse


def importers_closure(reverse: dict[str, set[str]], path: str) -> list[str]:
    """Every file that imports `path`, directly or through re-exports."""
    seen, todo = {path}, [path]
    while todo:
        for importer in reverse.get(todo.pop(), ()):
            if importer not in seen:
                seen.add(importer)
                todo.append(importer)
    return sorted(seen - {path})


def select(candidates: list[dict[str, Any]], imports: list[dict[str, Any]], repo: str, per_kind: int,
           seed: int, js_per_kind: int = 0) -> list[tuple[Mutation, list[str]]]:
    """Up to `per_kind` mutations of each kind (seeded), each of a definition some other file seems to use;
    then up to `js_per_kind` more of each kind of a TypeScript definition a JavaScript file seems to use (the
    callers plain tsc does not check), where the repository has such."""
    chosen = _select(candidates, imports, repo, per_kind, seed, js_only=False)
    if js_per_kind:
        taken = {(m.path, m.symbol) for m, _ in chosen}
        rest = [c for c in candidates if (c["path"], c["name"]) not in taken and not c["path"].endswith(JS_SUFFIXES)]
        chosen += _select(rest, imports, repo, js_per_kind, seed, js_only=True)
    return chosen


def _select(candidates: list[dict[str, Any]], imports: list[dict[str, Any]], repo: str, per_kind: int,
            seed: int, js_only: bool) -> list[tuple[Mutation, list[str]]]:
    rng = random.Random(seed)
    reverse = reverse_imports(imports)
    order = sorted(candidates, key=lambda c: (c["path"], c["line"], c["name"]))
    rng.shuffle(order)
    texts: dict[str, str] = {}
    chosen: list[tuple[Mutation, list[str]]] = []
    taken: Counter[Kind] = Counter()
    for c in order:
        closure = importers_closure(reverse, c["path"])
        if not closure:
            continue
        text = texts.setdefault(c["path"], open(os.path.join(repo, c["path"]), encoding="utf-8", newline="").read())
        for kind, new in mutations_of(c, text):
            if taken[kind] >= per_kind:
                continue
            pattern = use_pattern(c, kind)
            users = [f for f in closure if (not js_only or f.endswith(JS_SUFFIXES)) and pattern.search(_read(repo, f))]
            if users:
                chosen.append((Mutation(kind, c["path"], c["name"], c["kind"], new), mentioning(repo, closure, c)))
                taken[kind] += 1
                break  # one mutation per definition: the sample spreads over definitions
    return chosen


def mentioning(repo: str, closure: list[str], c: dict[str, Any]) -> list[str]:
    """The files of the closure that name the definition (its last name, as a word): the only ones whose caller
    diagnostics a change of it can alter (a barrel's `export *` names nothing and reports nothing), so the only
    ones the compiler is asked to check. This keeps a type-heavy library's check to minutes."""
    word = re.compile(rf"\b{re.escape(c['name'].rsplit('.', 1)[-1])}\b")
    return [f for f in closure if word.search(_read(repo, f))]


def _read(repo: str, path: str, _cache: dict[str, str] = {}) -> str:  # noqa: B006 - a per-run text cache
    key = os.path.join(repo, path)
    if key not in _cache:
        with open(key, encoding="utf-8", errors="replace") as f:
            _cache[key] = f.read()
    return _cache[key]


@dataclass
class Outcome:
    mutation: Mutation
    tsc: list[tuple[str, int, int]]  # (path, line, code): new caller errors in other files
    broken: list[tuple[str, int, int]]  # (path, line, end_line) of graphguard's broken callers elsewhere
    unknown: int
    blocked: bool
    check_s: float
    outside: set[tuple[str, int, int]] = field(default_factory=set)  # graphguard sites in files no program checks
    #: graphguard sites resolved exactly (by their imports) in files whose imports tsc does not resolve to the mutated
    #: file (an example importing a workspace package whose `exports` name unbuilt outputs: tsc sees an external
    #: package there, graphguard the package's sources): the compiler cannot check them against this definition.
    unreached: set[tuple[str, int, int]] = field(default_factory=set)
    found: set[tuple[str, int, int]] = field(default_factory=set)  # tsc sites graphguard spans
    confirmed: set[tuple[str, int, int]] = field(default_factory=set)  # graphguard sites tsc confirms


def counted(mutation: Mutation, code: int, message: str) -> bool:
    """A missing member (2339, 2551) is a caller's error only when the member is the mutated name (`ns.f` of a
    removed export, `x.m` of a method); another member is the compiler's cascade (a type guard that no longer
    narrows leaves `error.response` unknown), not a call site."""
    if code in (2339, 2551):
        return message.startswith(f"Property '{mutation.symbol.rsplit('.', 1)[-1]}' ")
    return code in CALLER_CODES


def compiler_sites(oracle: Oracle, mutation: Mutation, closure: list[str],
                   baseline: dict[str, Counter[tuple[str, int, int, str]]]) -> list[tuple[str, int, int]]:
    missing = [f for f in closure if f not in baseline]
    if missing:
        for f in missing:
            baseline[f] = Counter()
        for d in oracle.ask(op="diag", files=missing, overrides={})["diagnostics"]:
            baseline[d["path"]][(d["path"], d["statement"], d["code"], d["message"])] += 1
    after: Counter[tuple[str, int, int, str]] = Counter()
    for d in oracle.ask(op="diag", files=closure, overrides={mutation.path: mutation.text})["diagnostics"]:
        if counted(mutation, d["code"], d["message"]):
            after[(d["path"], d["statement"], d["code"], d["message"])] += 1
    new = after - sum((baseline[f] for f in closure), Counter())
    return sorted({(p, line, code) for p, line, code, _ in new.elements() if p != mutation.path})


def graphguard_sites(repo: str, mutation: Mutation) -> tuple[list[tuple[str, int, int]], set[tuple[str, int, int]], int, bool, float]:
    full = os.path.join(repo, mutation.path)
    with open(full, "w", encoding="utf-8", newline="") as f:
        f.write(mutation.text)
    try:
        git(repo, "add", "--", mutation.path)
        run = graphguard(repo, "check", "--staged", "--format", "json")
    finally:
        git(repo, "checkout", "HEAD", "--", mutation.path)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"graphguard check exited {run.returncode} on {mutation.kind.value} {mutation.path}")
    report = json.loads(run.stdout)
    broken, exact, unknown = [], set(), 0
    for change in report["changes"]:
        for caller in change["callers"]:
            if caller["path"] == mutation.path:
                continue
            if caller["status"] == "broken":
                site = (caller["path"], caller["line"], caller.get("end_line") or caller["line"])
                broken.append(site)
                if caller.get("resolution") in ("exact", "partial"):
                    exact.add(site)
            elif caller["status"] == "unknown":
                unknown += 1
    return sorted(set(broken)), exact, unknown, report["verdict"] == "block", run.wall


def judge(oracle: Oracle, repo: str, mutation: Mutation, closure: list[str],
          baseline: dict[str, Counter[tuple[str, int, int, str]]], governed: set[str]) -> Outcome:
    """Match the two sides: a site by line span; for a removed or renamed export, by file, since tsc reports
    the import alone (the name is then an error type and its uses are silent) while each use is broken."""
    tsc = compiler_sites(oracle, mutation, closure, baseline)
    broken, exact, unknown, blocked, wall = graphguard_sites(repo, mutation)
    out = Outcome(mutation, tsc, broken, unknown, blocked, wall)
    out.outside = {site for site in broken if site[0] not in governed}
    reached = set(closure)
    out.unreached = {site for site in broken if site in exact and site[0] not in reached and site not in out.outside}
    by_file = mutation.kind in (Kind.EXPORT_REMOVED, Kind.EXPORT_RENAMED)
    for path, line, code in tsc:
        for site in broken:
            if site[0] == path and (by_file or site[1] <= line <= site[2]):
                out.found.add((path, line, code))
                out.confirmed.add(site)
    return out
