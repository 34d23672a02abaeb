"""Seeded JavaScript callers of TypeScript exports: the callers plain `tsc` never checks (issue 21's JS target).

None of the six repositories has a JavaScript file that the compiler resolves to a TypeScript definition, so the
bench writes one per mutated TypeScript function or class: beside the definition, importing it by its `.js`
specifier and calling it the way the mutation's kind is noticed by a caller (every parameter passed; only the
required ones for optional-to-required; two rest arguments for rest-removed), with arguments typed `any` so that
only the arity and the import can fail:

    import { parseAmount } from "./money.js";
    const any = /** @type {any} */ (null);
    export const seeded = () => parseAmount(any, any);

The seeds are committed on top of the clone's HEAD (graphguard reads the commit's blobs, as it reads a user's), the
compiler adds each to the program governing its definition (checkJs on, as every program of the bench), and both
sides judge each mutation on the seed alone. Afterwards the commit is dropped (`reset --hard`) and the graph is
brought back to HEAD.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from ts_oracle_breaks import JS_SUFFIXES, Kind, Mutation, Outcome, judge
from ts_oracle_setup import Oracle, git, graphguard

#: The `.js` specifier TypeScript maps to each source suffix.
_SPECIFIED = {".ts": ".js", ".tsx": ".js", ".mts": ".mjs", ".cts": ".cjs"}


@dataclass(frozen=True)
class Seed:
    mutation: Mutation
    path: str  # the seeded JavaScript file
    text: str


def arguments(kind: Kind, params: list[dict[str, Any]]) -> int:
    """How many arguments a caller passes that notices this kind of change (none notices a control)."""
    plain = [p for p in params if not p["rest"]]
    if kind is Kind.OPTIONAL_TO_REQUIRED:
        return sum(1 for p in plain if p["question"] is None and not p["init"])
    return len(plain) + (2 if kind is Kind.REST_REMOVED else 0)


def seeds(chosen: list[tuple[Mutation, list[str]]], candidates: list[dict[str, Any]], texts: dict[str, str]) -> list[Seed]:
    """One seed per mutated TypeScript function or constructor exported by name (not a method: without a type
    checker, JavaScript has no way to name its receiver's class that both sides read)."""
    by_key = {(c["path"], c["name"]): c for c in candidates}
    out = []
    for i, (m, _) in enumerate(chosen):
        suffix = os.path.splitext(m.path)[1]
        c = by_key.get((m.path, m.symbol))
        if c is None or m.path.endswith(JS_SUFFIXES) or suffix not in _SPECIFIED or m.target not in ("function", "constructor"):
            continue
        name = m.symbol
        if "." in name or re.search(rf"\bexport\s+default\s+(?:abstract\s+)?(?:async\s+)?(?:function|class)\b\s*{re.escape(name)}\b",
                                    texts[m.path]):
            continue
        stem = os.path.splitext(os.path.basename(m.path))[0]
        args = ", ".join(["any"] * arguments(m.kind, c["params"]))
        call = f"new {name}({args})" if m.target == "constructor" else f"{name}({args})"
        text = (f'// graphguard\'s oracle: a JavaScript caller of a TypeScript export (bench/ts_oracle_seeds.py)\n'
                f'import {{ {name} }} from "./{stem}{_SPECIFIED[suffix]}";\n'
                f"const any = /** @type {{any}} */ (null);\n"
                f"export const seeded = () => {call};\n")
        out.append(Seed(m, os.path.join(os.path.dirname(m.path), f"gg-seed-{i}.js"), text))
    return out


def run(oracle: Oracle, repo: str, planted: list[Seed], governed: set[str]) -> list[Outcome]:
    """Each mutation judged on its seed alone; the seeds' commit dropped afterwards."""
    if not planted:
        return []
    head = git(repo, "rev-parse", "HEAD")
    try:
        for s in planted:
            with open(os.path.join(repo, s.path), "w", encoding="utf-8") as f:
                f.write(s.text)
        git(repo, "add", "-f", "--", *[s.path for s in planted])  # -f: a repository may ignore `*.js` where it builds
        git(repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "--no-verify", "-m", "seeded JS callers")
        seeded = set(oracle.ask(op="seed", files=[s.path for s in planted], like=[s.mutation.path for s in planted])["seeded"])
        graphguard(repo, "index")
        baseline: dict[str, Any] = {}
        outcomes = []
        for s in planted:
            if s.path not in seeded:
                continue
            o = judge(oracle, repo, s.mutation, [s.path], baseline, governed | seeded)
            o.tsc = [t for t in o.tsc if t[0] == s.path]
            o.broken = [b for b in o.broken if b[0] == s.path]
            o.found = {t for t in o.found if t[0] == s.path}
            o.confirmed = {b for b in o.confirmed if b[0] == s.path}
            outcomes.append(o)
        return outcomes
    finally:
        git(repo, "reset", "-q", "--hard", head)
        for s in planted:  # a seed the commit did not take is left untracked: gone too
            if os.path.exists(os.path.join(repo, s.path)):
                os.remove(os.path.join(repo, s.path))
        graphguard(repo, "index")


def score(outcomes: list[Outcome]) -> dict[str, Any]:
    """Recall of the compiler's (checkJs) errors in the seeds; precision of graphguard's broken seeds."""
    tsc = sum(len(o.tsc) for o in outcomes if not o.mutation.kind.control)
    found = sum(len(o.found) for o in outcomes if not o.mutation.kind.control)
    ours = sum(len(o.broken) for o in outcomes)
    confirmed = sum(len(o.confirmed) for o in outcomes if not o.mutation.kind.control)
    return {"seeds": len(outcomes), "controls": sum(o.mutation.kind.control for o in outcomes), "tsc_sites": tsc, "found": found,
            "recall": found / tsc if tsc else None, "gg_sites": ours, "confirmed": confirmed,
            "precision": confirmed / ours if ours else None,
            "missed": [f"{o.mutation.kind.value} {o.mutation.path}#{o.mutation.symbol}" for o in outcomes if len(o.found) < len(o.tsc)][:5]}
