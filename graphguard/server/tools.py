"""The server's tools: each a name, a description an agent can act on, a JSON input schema, and the function
that answers it with the JSON document the CLI prints for the same question (`--format json`).

Pure of the protocol: `call(session, name, arguments)` returns the document or raises GraphguardError with a
one-line message (stdio.py turns that into an MCP error result). Arguments are checked here against the
schema the tool advertises, since a client may send anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from graphguard.answers.shape import CALLERS_LIMIT, IMPACT_LIMIT, Shape, shaped
from graphguard.errors import GraphguardError
from graphguard.freshness import with_freshness
from graphguard.retrieval.kinds import AUTO, CHOICES
from graphguard.retrieval.rank import PROFILES
from graphguard.server.session import Session

if TYPE_CHECKING:
    from graphguard.result import CheckResult

Document = dict[str, Any]
Arguments = Mapping[str, Any]

#: Caps on what a client may send, so that a runaway agent gets an error, not a stalled server.
MAX_TARGETS = 200
MAX_TEXT = 100_000
MAX_BUDGET = 1_000_000
MAX_LIMIT = 1_000
MAX_DEPTH = 5


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: Mapping[str, Any]
    required: tuple[str, ...]
    answer: Callable[[Session, Arguments], Document]
    #: Whether `limit` bounds the listed callers of the answer (callers, impact), not what the tool computes (context).
    limits_entries: bool = False

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": dict(self.properties), "required": list(self.required), "additionalProperties": False}


# --- arguments --------------------------------------------------------------------------------


def _string(args: Arguments, key: str, *, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise GraphguardError(f"'{key}' must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise GraphguardError(f"'{key}' is longer than {MAX_TEXT} characters")
    return value


def _int(args: Arguments, key: str, default: int, low: int, high: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GraphguardError(f"'{key}' must be an integer from {low} to {high}")
    return value


def _bool(args: Arguments, key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise GraphguardError(f"'{key}' must be true or false")
    return value


def _strings(args: Arguments, key: str, *, required: bool) -> list[str]:
    value = args.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise GraphguardError(f"'{key}' must be a list of non-empty strings")
    if required and not value:
        raise GraphguardError(f"'{key}' must name at least one entry")
    if len(value) > MAX_TARGETS:
        raise GraphguardError(f"'{key}' holds more than {MAX_TARGETS} entries")
    return value


def repo_path(path: str) -> str:
    """A path inside the repository, '/'-separated and relative to its root; anything else is refused."""
    p = path.replace("\\", "/")
    if p.startswith("/") or (len(p) > 1 and p[1] == ":"):
        raise GraphguardError(f"{path!r}: an absolute path; give it relative to the repository's root")
    parts = [s for s in p.split("/") if s not in ("", ".")]
    if ".." in parts:
        raise GraphguardError(f"{path!r}: '..' is not allowed; give the path relative to the repository's root")
    if parts and parts[0] == ".git":
        raise GraphguardError(f"{path!r}: inside .git, not the repository's files")
    if "\0" in p:
        raise GraphguardError(f"{path!r}: a NUL in a path")
    return "/".join(parts) or "."


def _targets(args: Arguments, key: str) -> list[str]:
    """Paths (checked: inside the repository) or dotted symbols (taken as they are)."""
    out = []
    for t in _strings(args, key, required=True):
        looks_like_path = "/" in t or "\\" in t or t.endswith((".py", ".pyi")) or t in (".", "..")
        out.append(repo_path(t) if looks_like_path else t)
    return out


def _unknown_arguments(tool: Tool, args: Arguments) -> None:
    extra = sorted(set(args) - set(tool.properties))
    if extra:
        raise GraphguardError(f"{tool.name}: unknown argument{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}; "
                              f"it takes {', '.join(tool.properties)}")
    missing = [k for k in tool.required if k not in args]
    if missing:
        raise GraphguardError(f"{tool.name}: missing argument {', '.join(map(repr, missing))}")


# --- the answers ------------------------------------------------------------------------------


def _timed(result: CheckResult, t0: float) -> Document:
    from graphguard.answers.check import check_document

    result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
    return check_document(result)


def _check_edit(session: Session, args: Arguments) -> Document:
    from graphguard.check import run_proposed

    files = args.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise GraphguardError("'files' must be an object mapping paths to their proposed full contents (strings)")
    deleted = _strings(args, "deleted", required=False)
    if not files and not deleted:
        raise GraphguardError("propose at least one file in 'files' or one path in 'deleted'")
    # The wire refuses a lone surrogate (wire.py); one from another caller is kept as the bytes it stands for,
    # so that the check's own validation reports the content as not UTF-8 rather than failing to encode it.
    # Paths as given: the check's own validation (graphguard.check.proposed) judges them.
    proposed = {k: v.encode("utf-8", "surrogatepass") for k, v in files.items()}
    t0 = time.perf_counter()
    with session.answering() as fresh:  # the one commit of the answer, as for every tool
        return _timed(run_proposed(session.repo, proposed, deleted, at=fresh.head), t0)


def _check(session: Session, args: Arguments) -> Document:
    from graphguard.check import run

    mode = args.get("mode", "worktree")
    if mode not in ("worktree", "staged"):
        raise GraphguardError("'mode' must be \"worktree\" or \"staged\"")
    t0 = time.perf_counter()
    with session.answering() as fresh:
        return _timed(run(session.repo, staged=mode == "staged", worktree=mode == "worktree", at=fresh.head), t0)


def _callers(session: Session, args: Arguments) -> Document:
    from graphguard.answers.callers import callers_answer

    symbol = _string(args, "symbol")
    with session.answering(stale_ok=True) as fresh:  # it only reads the graph: a stale one, said so, rather than a wait
        return replace(callers_answer(session.repo, symbol), head=fresh.head).to_json()


def _impact(session: Session, args: Arguments) -> Document:
    from graphguard.answers.impact import impact_answer

    symbol = _string(args, "symbol")
    depth = _int(args, "depth", 2, 1, MAX_DEPTH)
    with session.answering(stale_ok=True) as fresh:
        return replace(impact_answer(session.repo, symbol, depth=depth), head=fresh.head).to_json()


def _retrieval_options(args: Arguments) -> dict[str, Any]:
    profile = args.get("profile", AUTO)
    if profile not in CHOICES:
        raise GraphguardError(f"'profile' must be one of {', '.join(CHOICES)}")
    from graphguard.answers.context import retrieval_sizes

    # The CLI's rule: a budget alone lists as many files as it holds, neither gives 20 files in 8000 tokens.
    limit, budget = retrieval_sizes(_int(args, "limit", 20, 1, MAX_LIMIT) if "limit" in args else None,
                                    _int(args, "budget", 8000, 1, MAX_BUDGET) if "budget" in args else None)
    return {"budget": budget, "limit": limit, "depth": _int(args, "depth", 1, 0, 2), "profile": profile}


def _context(session: Session, args: Arguments) -> Document:
    from graphguard.answers.context import context_document

    task = _string(args, "task")
    options = _retrieval_options(args)
    with session.answering(indexes=True):
        return context_document(session.repo, task, **options)


def _related(session: Session, args: Arguments) -> Document:
    from graphguard.answers.context import related_document

    targets = _targets(args, "targets")
    options = _retrieval_options(args)
    with session.answering(indexes=True):
        return related_document(session.repo, targets, **options)


def _outline(session: Session, args: Arguments) -> Document:
    paths = [repo_path(p) for p in _strings(args, "paths", required=True)]
    from graphguard.answers.outline import outline_answer

    with session.answering(stale_ok=True) as fresh:
        return replace(outline_answer(session.repo, paths), head=fresh.head).to_json()


# --- the table --------------------------------------------------------------------------------

_COMPACT = {"type": "boolean", "default": False,
            "description": "answer with short keys, relative paths and no empty fields (fewer tokens; the key table is in graphguard's docs/contract.md)"}
_VERBOSE = {"type": "boolean", "default": False,
            "description": "the whole answer (every caller that still binds, every test): by default only what to act on"
                           " is listed (broken and undecidable callers, the nearest tests) and the rest is counted"}


def _limit(default: int, what: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": default,
            "description": f"at most this many {what} listed (the rest counted); verbose: true lists all"}


_SYMBOL = {"type": "string", "description": "dotted name as imported or as defined: pkg.mod.func, pkg.mod.Class.method"}
_RETRIEVAL = {
    "budget": {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET, "default": 8000,
               "description": "at most this many tokens of source in the answer (4 characters each), filled in rank"
                              " order; given without limit, the answer lists as many files as it holds"},
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 20,
              "description": "at most this many files, each with its best symbols nested"},
    "depth": {"type": "integer", "minimum": 0, "maximum": 2, "default": 1, "description": "graph hops from the seeds"},
    "profile": {"type": "string", "enum": list(CHOICES), "default": AUTO,
                "description": "ranking weights for the kind of task: auto: fitted when it beat default on this repository's"
                               " later commits, else default; fitted: learned from this repository's history; " + "; ".join(f"{p.name}: {p.description}" for p in PROFILES.values())},
}

TOOLS: tuple[Tool, ...] = (
    Tool(
        "check_edit",
        "Call BEFORE writing changes to Python files: checks the repository as if the given files held the proposed "
        "contents (on top of the working tree) and the listed files were deleted, without writing anything. Answers "
        "verdict 'pass' (safe to write) or 'block' and a one-line summary first, then every changed interface, every caller "
        "that would break (with the reason), callers whose binding cannot be decided, the count of those that still bind "
        "(verbose: true lists them) and the nearest tests to run. Send the full new content of each file.",
        {"files": {"type": "object", "additionalProperties": {"type": "string"},
                   "description": "path relative to the repository root -> the file's proposed full content"},
         "deleted": {"type": "array", "items": {"type": "string"}, "description": "paths proposed for deletion"},
         "verbose": _VERBOSE, "compact": _COMPACT},
        (),
        _check_edit,
    ),
    Tool(
        "check",
        "Call after editing files and before committing: checks the working tree (default) or the staged changes "
        "against HEAD, as the pre-commit hook will. Same answer as check_edit.",
        {"mode": {"type": "string", "enum": ["worktree", "staged"], "default": "worktree",
                  "description": "worktree: every uncommitted change; staged: what `git commit` would commit"},
         "verbose": _VERBOSE, "compact": _COMPACT},
        (),
        _check,
    ),
    Tool(
        "callers",
        "Call before changing a function's or class's signature, or to find how it is used: every call site and "
        "reference of a symbol, with file, lines, the enclosing definition, how sure the resolution is, and the call as written "
        "(the first `limit`, the rest counted; a one-line summary first).",
        {"symbol": _SYMBOL, "limit": _limit(CALLERS_LIMIT, "uses"), "verbose": _VERBOSE, "compact": _COMPACT},
        ("symbol",),
        _callers,
        limits_entries=True,
    ),
    Tool(
        "impact",
        "Call to size a change: the callers of a symbol, their callers to `depth` levels, and the tests that reach them "
        "(the nearest `limit` callers and 10 tests, the rest counted; a one-line summary first).",
        {"symbol": _SYMBOL, "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "default": 2,
                                      "description": "levels of callers to follow"},
         "limit": _limit(IMPACT_LIMIT, "callers, nearest first,"), "verbose": _VERBOSE, "compact": _COMPACT},
        ("symbol",),
        _impact,
        limits_entries=True,
    ),
    Tool(
        "context",
        "Call at the start of a task, before reading files: the files and definitions most relevant to a task "
        "described in words (an issue, a bug report), ranked, with their source within a token budget.",
        {"task": {"type": "string", "description": "the task in words"}, **_RETRIEVAL, "verbose": _VERBOSE, "compact": _COMPACT},
        ("task",),
        _context,
    ),
    Tool(
        "related",
        "Call when you know where to start: what is related to the given files or symbols (what they call, what calls "
        "them, their tests, files changed with them), ranked, with source within a token budget.",
        {"targets": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                     "description": "paths relative to the repository root, or dotted symbols"},
         **_RETRIEVAL, "verbose": _VERBOSE, "compact": _COMPACT},
        ("targets",),
        _related,
    ),
    Tool(
        "outline",
        "Call to scan files or packages before choosing what to read: per file its definitions with kind, name, "
        "line, signature and the first line of the docstring; no bodies.",
        {"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                   "description": "files or package folders, relative to the repository root"},
         "verbose": _VERBOSE, "compact": _COMPACT},
        ("paths",),
        _outline,
    ),
)

BY_NAME: dict[str, Tool] = {t.name: t for t in TOOLS}


def _shape(tool: Tool, args: Arguments) -> Shape:
    """How much of the answer to list: `verbose`, and `limit` where it bounds the listed entries (else the tool's own)."""
    limit = _int(args, "limit", 1, 1, MAX_LIMIT) if tool.limits_entries and "limit" in args else None
    return Shape(verbose=_bool(args, "verbose"), limit=limit)


def call(session: Session, name: str, arguments: Arguments | None) -> Document:
    """Answer tool `name`: the document (compacted when asked), or GraphguardError with one line."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise GraphguardError(f"no tool {name!r}; the tools are {', '.join(BY_NAME)}")
    args = arguments or {}
    _unknown_arguments(tool, args)
    compact = _bool(args, "compact")
    doc = shaped(with_freshness(tool.answer(session, args), session.answered()), _shape(tool, args))
    if compact:
        from graphguard.report.compact import compact as shorten

        return shorten(doc)
    return doc


def names(tools: Sequence[Tool] = TOOLS) -> list[str]:
    return [t.name for t in tools]
