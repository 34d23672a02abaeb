"""The records of a check, as the contract names them (docs/contract.md)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from graphguard import codes
from graphguard.codes import Code, CodeName
from graphguard.freshness import Freshness
from graphguard.model import Resolution, UseKind, WireEnum

#: Change codes that never break a caller on their own.
INFORMATIONAL = frozenset(c.name for c in codes.TABLE if c.informational)
#: Every change code sigdiff yields, by name.
CODES = tuple(c.name for c in codes.TABLE if c.kind is codes.CodeKind.SIGNATURE)


class ChangeKind(WireEnum):
    """What happened to a definition (`SymbolImpact.change`); also a code of its own ("removed", "moved:x")."""

    REMOVED = "removed"
    RENAMED = "renamed"
    MOVED = "moved"
    SIGNATURE = "signature"
    SYNTAX_ERROR = "syntax-error"  # the new version does not parse: its importers fail (blocks unless block_on drops it)
    NEW_CALLS = "new-calls"  # the interface did not change, but calls written in this change do not bind to it
    RESOLUTION = "resolution"  # a config of TS/JS module resolution changed: imports that reached a file now lead elsewhere


#: The change kind (and code) of a file whose new version does not parse.
SYNTAX_ERROR = Code(CodeName.SYNTAX_ERROR)


def block_on_values() -> frozenset[str]:
    """What `block_on` may name: a change kind or a code's name (`param-removed`, or `param-removed:at`)."""
    return frozenset(n.value for n in codes.BY_NAME)


class Status(enum.Enum):
    BROKEN = "broken"
    OK = "ok"
    UNKNOWN = "unknown"


class Suppression(WireEnum):
    """Why a call site that fails is not blamed (check/suppress): its status is `ok` then, and its reason says why."""

    IGNORED = "ignored"  # `# graphguard: ignore[...]`, `# type: ignore[call-arg]`, `# pyright: ignore` on a line of the site
    EXPECTED_TO_FAIL = "expected-to-fail"  # inside `with pytest.raises(TypeError)` and the like: the test wants it to fail


class Compared(WireEnum):
    """What a check's new side is (`CheckResult.compared`): its comparison target's kind (check/revisions.Target)."""

    STAGED = "staged"
    WORKTREE = "worktree"
    COMMITS = "commits"
    PROPOSED = "proposed"
    NOTHING = "nothing"  # no commit yet: a shadow check has no old side to compare with


class Verdict(WireEnum):
    BLOCK = "block"
    PASS = "pass"


@dataclass(frozen=True)
class CallerImpact:
    path: str
    line: int
    end_line: int
    caller: str
    status: Status
    reason: str
    kind: UseKind = UseKind.CALL
    resolution: Resolution = Resolution.EXACT
    #: What running the site raises, when the check knows: "TypeError" for a call that does not bind.
    raises: str | None = None
    suppressed: Suppression | None = None

    def __post_init__(self) -> None:
        # A record built from the wire strings (an older caller, a test) holds the enums all the same.
        object.__setattr__(self, "kind", UseKind(self.kind))
        object.__setattr__(self, "resolution", Resolution(self.resolution))
        if self.suppressed is not None:
            object.__setattr__(self, "suppressed", Suppression(self.suppressed))


@dataclass(frozen=True)
class TestHit:
    path: str
    line: int  # the test function's definition (1 for a whole file)
    direct: bool  # the test (or the file, at import) uses the changed definition itself: distance 1
    name: str | None = None  # pytest node id: "tests/test_x.py::TestClass::test_y", or "tests/test_x.py" for the whole file
    distance: int = 1  # call edges from the test to the changed definition (through helpers, fixtures, callers)


@dataclass(frozen=True)
class SymbolImpact:
    symbol: str
    path: str
    line: int
    change: ChangeKind
    breaking: tuple[Code, ...]
    before: str | None
    after: str | None
    callers: tuple[CallerImpact, ...] = ()
    tests: tuple[TestHit, ...] = ()
    tests_omitted: int = 0  # tests reached but left out of `tests` by the cap (nearest kept)
    ignored: tuple[str, ...] = ()  # codes accepted by an inline `# graphguard: ignore[...]` ("*": all)
    public: bool = False  # in a public-API package: callers outside the repository break too
    # Where a definition that is gone (`after` None) can be shown in the new version: `line` is the
    # old one. A line of `path` that exists now, or None when the file is gone too.
    line_now: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "change", ChangeKind(self.change))
        object.__setattr__(self, "breaking", tuple(Code.of(c) for c in self.breaking))

    @property
    def broken(self) -> list[CallerImpact]:
        return [c for c in self.callers if c.status is Status.BROKEN]

    @property
    def unknown(self) -> list[CallerImpact]:
        return [c for c in self.callers if c.status is Status.UNKNOWN]

    @property
    def suppressed(self) -> list[CallerImpact]:
        """Sites that fail and are not blamed (an inline ignore, an expected failure)."""
        return [c for c in self.callers if c.suppressed is not None]

    @property
    def breaking_codes(self) -> list[Code]:
        """Codes that can break a caller (not the informational ones)."""
        return [c for c in self.breaking if c.name not in INFORMATIONAL]

    @property
    def own_code(self) -> Code:
        """The change kind as a code of its own ("removed"): what is judged when no code of `breaking` can break."""
        return Code(CodeName(self.change.value))

    def accepted(self, code: Code) -> bool:
        return "*" in self.ignored or code.name in self.ignored or code in self.ignored

    @property
    def fully_accepted(self) -> bool:
        wanted = self.breaking_codes or [self.own_code]
        return bool(self.ignored) and all(self.accepted(c) for c in wanted)


@dataclass(frozen=True)
class FileWarning:
    path: str
    message: str


@dataclass
class CheckResult:
    base: str
    head: str  # a commit, "INDEX", "WORKTREE" or "PROPOSED"
    compared: Compared
    changes: list[SymbolImpact] = field(default_factory=list)
    warnings: list[FileWarning] = field(default_factory=list)
    files_changed: int = 0
    files_by_language: dict[str, int] = field(default_factory=dict)  # Language.name -> how many of them changed
    elapsed_ms: int = 0
    notes: list[str] = field(default_factory=list)
    submodules: list[str] = field(default_factory=list)  # submodules that moved, not checked (each also a warning)
    block_on: frozenset[str] = frozenset()  # change kinds or codes that block on their own
    fail_on_unknown: bool = False
    freshness: Freshness | None = None  # the graph the old side was read from (None: the caller adds it, the MCP server)

    def __post_init__(self) -> None:
        self.compared = Compared(self.compared)  # built from the wire string (a test): the member all the same

    def blocks(self, change: SymbolImpact) -> bool:
        if change.fully_accepted:
            return False
        if change.broken:
            return True
        if self.fail_on_unknown and change.unknown:
            return True
        if change.public and change.breaking_codes:
            return True  # its callers outside the repository break
        own = [change.own_code, *change.breaking]
        return any(code in self.block_on or code.name in self.block_on for code in own if not change.accepted(code))

    @property
    def verdict(self) -> Verdict:
        return Verdict.BLOCK if any(self.blocks(c) for c in self.changes) else Verdict.PASS


class BranchVerdict(WireEnum):
    """What merging one branch with HEAD would do (`graphguard conflicts`)."""

    BLOCK = "block"  # it would leave a caller broken that neither side leaves broken alone
    PASS = "pass"  # it would break nothing of its own (or there is nothing to merge)
    CONFLICT = "conflict"  # git cannot merge it without a person (textual conflicts): not checked


@dataclass
class BranchConflicts:
    """One branch against HEAD: the breaks only their merge has (`check.changes` holds those sites alone)."""

    ref: str
    tip: str
    merge_base: str
    check: CheckResult  # base: the merge base, head: the merged tree (no commit is made)
    conflicted: tuple[str, ...] = ()  # paths git could not merge

    @property
    def verdict(self) -> BranchVerdict:
        if self.conflicted:
            return BranchVerdict.CONFLICT
        return BranchVerdict.BLOCK if self.check.verdict is Verdict.BLOCK else BranchVerdict.PASS


@dataclass
class ConflictsResult:
    head: str
    branches: list[BranchConflicts] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # branches left out, and why
    elapsed_ms: int = 0

    @property
    def blocks(self) -> bool:
        return any(b.verdict is BranchVerdict.BLOCK for b in self.branches)
