"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning (and any other SARIF viewer).

One result per (changed symbol, status class), not one per caller:

    graphguard/broken-caller     error    the symbol has callers that no longer bind
    graphguard/unknown-caller    warning  the symbol has callers that cannot be decided statically
    graphguard/interface-change  note     the symbol changed and every caller binds (or it has none),
                                          or (error) the change blocks on its own: configuration, public API

Why: code scanning shows an alert in a pull request only when its primary location is inside
the diff, and a broken caller usually sits in a file the PR did not touch. So the primary
location of every result is the changed definition, and the call sites are `relatedLocations`
linked from the message (`[path:line](id)`). One alert per symbol then reads as "this change
breaks these N callers" on the line that caused it, where one alert per caller would pile N
identical alerts onto that line. The interface-change result is emitted when neither of the other
two is, or when the change blocks on its own. Levels follow the verdict: `error` exactly for what
blocks (so an accepted `graphguard: ignore` breakage is a warning).

`partialFingerprints["graphguardHash/v1"]` is a sha256 of rule id, file, symbol (and an ordinal
for the rare same-named pair), never of line numbers or callers: the alert stays the same alert
while lines shift and while its callers get fixed one by one, and closes when the last one is.
A definition that is gone (removed) is located at a line of its file that exists in the new
version (`line_now`: a viewer cannot mark a deleted line), or, when its file is gone too, at its
first broken or undecided site; its old place is `relatedLocations` id 0, linked from the message.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from typing import Any
from urllib.parse import quote

from graphguard import __version__
from graphguard.report import indented
from graphguard.result import CallerImpact, CheckResult, Status, SymbolImpact

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/graphguard/graphguard"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "graphguardHash/v1"
#: GitHub keeps at most 100 related locations per result; the message links the first few.
MAX_RELATED = 100
MAX_LINKED = 20

BROKEN, UNKNOWN, CHANGE = "graphguard/broken-caller", "graphguard/unknown-caller", "graphguard/interface-change"

RULES: list[dict[str, Any]] = [
    {
        "id": BROKEN,
        "name": "BrokenCaller",
        "shortDescription": {"text": "A changed interface leaves callers broken"},
        "fullDescription": {"text": "A function, method or class changed its interface (removed, renamed, moved, or a new "
                                    "signature) and call sites in the repository no longer bind to it."},
        "help": {
            "text": "The definition changed and the listed call sites no longer bind to the new signature (or name a "
                    "symbol that no longer exists). Update the callers in the same change, keep a compatible "
                    "signature (a default, a deprecated alias), or accept the change with "
                    "`# graphguard: ignore[code]` on the definition.",
            "markdown": "The definition changed and the linked call sites **no longer bind** to the new signature "
                        "(or name a symbol that no longer exists).\n\nFix it by one of:\n\n"
                        "- updating the callers in the same change;\n"
                        "- keeping the interface compatible (a default value, a deprecated alias);\n"
                        "- accepting the change with `# graphguard: ignore[code]` on the definition.",
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["interface", "correctness"], "precision": "high"},
    },
    {
        "id": UNKNOWN,
        "name": "UnknownCaller",
        "shortDescription": {"text": "A changed interface has callers that cannot be checked"},
        "fullDescription": {"text": "A function, method or class changed its interface and some call sites cannot be "
                                    "decided statically (*args / **kwargs forwarding, a receiver of unknown class)."},
        "help": {
            "text": "graphguard could not decide whether the listed call sites bind to the new signature. "
                    "Review them, or run the tests that reach them.",
            "markdown": "graphguard could not decide whether the linked call sites bind to the new signature "
                        "(`*args` / `**kwargs` forwarding, a receiver whose class is not known). "
                        "Review them, or run the tests that reach them.",
        },
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["interface"], "precision": "medium"},
    },
    {
        "id": CHANGE,
        "name": "InterfaceChange",
        "shortDescription": {"text": "An interface changed"},
        "fullDescription": {"text": "A function, method or class changed its interface. Callers in other repositories "
                                    "may not bind to it, and the configuration can make a kind of change block on its own."},
        "help": {
            "text": "The interface of this definition changed. Callers in the repository are reported by the "
                    "broken-caller and unknown-caller rules; callers in other repositories (users of a library) may "
                    "break too. An error here means the change blocks on its own: the configuration's block_on, or "
                    "a public-API package.",
            "markdown": "The interface of this definition changed. Callers in the repository are reported by the "
                        "`graphguard/broken-caller` and `graphguard/unknown-caller` rules; callers in other "
                        "repositories (users of a library) may break too.\n\nAn **error** here means the change "
                        "blocks on its own: the configuration's `block_on`, or a public-API package.",
        },
        "defaultConfiguration": {"level": "note"},
        "properties": {"tags": ["interface"], "precision": "high"},
    },
]
_RULE_INDEX = {r["id"]: i for i, r in enumerate(RULES)}


def _uri(path: str) -> str:
    # The name's own bytes, percent-encoded: exact even when they are not UTF-8.
    return quote(path.replace("\\", "/").encode("utf-8", "surrogateescape"), safe="/")


def _physical(path: str, line: int, end_line: int | None = None) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(1, line)}
    if end_line is not None and end_line > line:
        region["endLine"] = end_line
    return {"artifactLocation": {"uri": _uri(path), "uriBaseId": SRCROOT}, "region": region}


def _esc(text: str) -> str:
    """Plain text inside a message that has embedded links: brackets are escaped (SARIF §3.11.6)."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def fingerprint(rule: str, path: str, symbol: str, caller: str = "", ordinal: int = 0) -> str:
    key = "\0".join((rule, path, symbol, caller, str(ordinal)))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()  # a file name's own bytes


def _describe(change: SymbolImpact) -> str:
    codes = [c + (" (accepted)" if change.accepted(c) else "") for c in change.breaking]
    return f"{change.symbol} ({change.change.value}" + (f": {', '.join(codes)}" if codes else "") + ")"


def blocks_on_its_own(result: CheckResult, change: SymbolImpact) -> bool:
    """Whether the change blocks whatever its callers do (configuration, public API)."""
    return result.blocks(dataclasses.replace(change, callers=()))


def _caller_result(change: SymbolImpact, rule: str, callers: list[CallerImpact]) -> dict[str, Any]:
    related, links = [], []
    for i, k in enumerate(callers[:MAX_RELATED], start=1):
        related.append({"id": i, "physicalLocation": _physical(k.path, k.line, k.end_line),
                        "message": {"text": f"{k.caller}: {k.reason}" if k.caller else k.reason}})
        if i <= MAX_LINKED:
            links.append(f"[{_esc(f'{k.path}:{k.line}')}]({i}) in {_esc(k.caller)}: {_esc(k.reason)}")
    n = len(callers)
    verb = "leaves {} broken" if rule == BROKEN else "has {} that cannot be checked statically"
    text = f"{_esc(_describe(change))} {verb.format(f'{n} caller' + ('s' if n != 1 else ''))}: " + "; ".join(links)
    if n > len(links):
        text += f"; and {n - len(links)} more"
    # A reason in the compiler's words ends its own sentence (TypeScript's "Expected 2 arguments, but got 1.").
    return {"message": {"text": text + ("" if text.endswith(".") else ".")}, "relatedLocations": related}


def _change_result(change: SymbolImpact) -> dict[str, Any]:
    parts = [f"{_describe(change)} changed its interface."]
    if change.public:
        parts.append("Public API: callers outside the repository are affected.")
    if change.before:
        parts.append(f"Before: {' '.join(change.before.split())}.")
    if change.after:
        parts.append(f"After: {' '.join(change.after.split())}.")
    n, bad = len(change.callers), len(change.broken) + len(change.unknown)
    if bad:
        parts.append(f"{bad} of {n} callers in the repository need attention (see the other alerts on this line).")
    else:
        parts.append(f"All {n} caller{'s' * (n != 1)} in the repository bind." if n else "No callers in the repository.")
    return {"message": {"text": " ".join(parts)}}


def _where(change: SymbolImpact) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The primary physical location (a line of the new version), and the old place when it differs."""
    if change.after is not None:
        return _physical(change.path, change.line), None
    old = {"id": 0, "physicalLocation": _physical(change.path, change.line),
           "message": {"text": f"{change.symbol} was defined here before this change"}}
    if change.line_now is not None:
        return _physical(change.path, change.line_now), old
    sites = sorted((k for k in change.callers if k.status is not Status.OK), key=_caller_order)
    return (_physical(sites[0].path, sites[0].line, sites[0].end_line) if sites else None), old


def _caller_order(k: CallerImpact) -> tuple[str, int, str]:
    return (k.path, k.line, k.caller)


def to_dict(result: CheckResult) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], int] = {}
    for change in sorted(result.changes, key=lambda ch: (ch.path, ch.line, ch.symbol)):
        broken = sorted((k for k in change.callers if k.status is Status.BROKEN), key=_caller_order)
        unknown = sorted((k for k in change.callers if k.status is Status.UNKNOWN), key=_caller_order)
        blocks, own = result.blocks(change), blocks_on_its_own(result, change)
        found = [(BROKEN, _caller_result(change, BROKEN, broken))] if broken else []
        found += [(UNKNOWN, _caller_result(change, UNKNOWN, unknown))] if unknown else []
        if not found or own:
            found.insert(0, (CHANGE, _change_result(change)))
        for rule, body in found:
            # The level follows the verdict: error exactly for what blocks. Broken callers of a
            # change accepted by `graphguard: ignore` are warnings; unknown ones are errors under
            # fail_on_unknown; an interface change is an error when it blocks on its own.
            level = {BROKEN: "error" if blocks else "warning",
                     UNKNOWN: "error" if blocks and result.fail_on_unknown else "warning",
                     CHANGE: "error" if own else "note"}[rule]
            key = (rule, change.path, change.symbol)
            ordinal = seen[key] = seen.get(key, -1) + 1
            primary, old = _where(change)
            location: dict[str, Any] = {"physicalLocation": primary} if primary is not None else {}
            location["logicalLocations"] = [{"fullyQualifiedName": change.symbol}]
            related = ([old] if old is not None else []) + body.get("relatedLocations", [])
            message = body["message"]
            if old is not None:
                message = {"text": message["text"] + f" It was defined at [{_esc(f'{change.path}:{change.line}')}](0) before this change."}
            results.append({
                "ruleId": rule,
                "ruleIndex": _RULE_INDEX[rule],
                "level": level,
                "message": message,
                "locations": [location],
                **({"relatedLocations": related} if related else {}),
                "partialFingerprints": {FINGERPRINT: fingerprint(rule, change.path, change.symbol, ordinal=ordinal)},
                "properties": {"symbol": change.symbol, "change": change.change.value, "breaking": list(change.breaking),
                               "ignored": list(change.ignored)},
            })

    notifications = [
        {"level": "warning", "message": {"text": w.message},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(w.path), "uriBaseId": SRCROOT}}}]}
        for w in sorted(result.warnings, key=lambda w: (w.path, w.message))
    ] + [{"level": "note", "message": {"text": n}} for n in result.notes]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "graphguard", "informationUri": INFORMATION_URI, "version": __version__,
                                "semanticVersion": __version__, "rules": copy.deepcopy(RULES)}},
            "invocations": [invocation],
            "results": results,
            "properties": {"base": result.base, "head": result.head, "compared": result.compared.value,
                           "verdict": result.verdict.value, "filesChanged": result.files_changed},
        }],
    }


def render(result: CheckResult) -> str:
    return indented.dumps(to_dict(result))
