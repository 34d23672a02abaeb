"""The facts that flow between parsing, resolution and the store.

Facts of one file depend only on its blob: they hold no path and no module
name, so they can be cached by blob SHA and shared by every commit, branch
and worktree that has the same content. Lines are 1-based, columns 0-based
byte offsets, end positions inclusive for lines and exclusive for columns.

Per-fact records are NamedTuples rather than frozen dataclasses: a large
repository has hundreds of thousands of them, and a frozen dataclass pays one
`object.__setattr__` per field when it is created.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import NamedTuple

from graphguard.versions import FACTS_VERSION


class WireEnum(str, enum.Enum):
    """An enum whose values are the wire strings of the contract (JSON, SQLite rows).

    A member equals, and hashes as, its value: records built from a stored row or by an
    older caller with the plain string compare the same, and `str()`/f-strings give the value.
    """

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


def last_name(symbol: str) -> str:
    """A full symbol name's last name: `total` of `pkg.cart.Cart.total` and of `src/cart.ts#Cart.total`."""
    return symbol.rpartition("#")[2].rsplit(".", 1)[-1]


class DefKind(WireEnum):
    FUNCTION = "function"
    METHOD = "method"
    CLASS = "class"
    # TypeScript/JavaScript: what a file defines besides functions and classes (a name importers can use).
    INTERFACE = "interface"
    TYPE = "type"            # `type T = ...`
    ENUM = "enum"
    NAMESPACE = "namespace"  # `namespace N {}`, `module N {}`
    VARIABLE = "variable"    # a module-level `const`/`let`/`var` that holds no function
    # A method declared without code: a member of a named interface or type literal (`m(): T`, `m: () => T`). It runs
    # nothing, but it says another type has a method of that name: an untyped `x.m()` may be that one.
    MEMBER = "member"


class RefKind(enum.Enum):
    DECORATOR = "decorator"
    BASE = "base"
    VALUE = "value"          # passed or assigned as a value: a callback
    ATTRIBUTE = "attribute"  # `mod.attr` read without a call
    ANNOTATION = "annotation"  # used as a type (`x: mod.Cls`, `-> list[mod.Cls]`, `isinstance(x, Cls)`, `cast(Cls, x)`): calls nothing
    JSX = "jsx"              # `<Button />`: renders a component (calls it, with its props as one argument)


class ImportForm(WireEnum):
    """How a statement imports (TypeScript/JavaScript; Python's imports are all static). The wire strings are
    the `imports.form` column's."""

    STATIC = "static"                # import { a } from "x" / import a from "x" / import * as ns from "x"
    TYPE_ONLY = "type-only"          # import type { A } from "x" / import { type A } from "x"
    REQUIRE = "require"              # require("x"), const { a } = require("x")
    IMPORT_EQUALS = "import-equals"  # import x = require("x")
    DYNAMIC = "dynamic"              # import("x"); a specifier that is no literal is ""


class ExportKind(WireEnum):
    """How a TypeScript/JavaScript file gives a name to importers."""

    NAMED = "named"          # export function f / export { f } / export const c
    DEFAULT = "default"      # export default ...
    REEXPORT = "reexport"    # export { a as b } from "x"
    STAR = "star"            # export * from "x" (name "*")
    NAMESPACE = "namespace"  # export * as ns from "x" (local "*")
    EQUALS = "equals"        # export = x (name "export=")
    COMMONJS = "commonjs"    # module.exports = x (name "export="), module.exports.a / exports.a = ... (name "a")


class BindKind(enum.Enum):
    """How a name got a value we can type without running anything."""

    CALL = "call"              # x = Client()  /  self.s = make_session()
    ALIAS = "alias"            # Alias = Class  /  fn = other_fn
    PARTIAL = "partial"        # fn = functools.partial(other_fn, ...)
    ANNOTATION = "annotation"  # x: Client  /  def f(x: Client)  /  session: Session (class body)
    WITH = "with"              # with Client() as c
    VALUE = "value"            # HORIZONTAL = 1: a name that exists, of no type we follow


class ArmKind(enum.Enum):
    """Which part of a compound statement a block is: what runs before it decides whether it runs."""

    BRANCH = "branch"    # if / elif / else, match case: one arm of the statement runs
    TYPE_CHECKING = "type-checking"  # `if TYPE_CHECKING:`: what type checkers read, and so do we, over its else
    LOOP = "loop"        # for / while body: runs again and again, so its later assignments reach its earlier lines
    LOOP_ELSE = "loop-else"  # for / while else: runs after the body
    TRY = "try"          # try body: may stop anywhere, then a handler runs
    HANDLER = "handler"  # except clause, try's else: after (part of) the try body


class EdgeKind(enum.Enum):
    CALL = "call"
    IMPORT = "import"
    INHERIT = "inherit"
    REFERENCE = "reference"
    TEST_OF = "test-of"


class Resolution(WireEnum):
    """How a call site or reference found its target."""

    EXACT = "exact"        # followed names, imports, aliases, receiver types
    PARTIAL = "partial"    # through functools.partial: some arguments were bound earlier
    BY_NAME = "by-name"    # the only class hierarchy that defines this method name (decided at query time)
    EXTERNAL = "external"  # stdlib, third-party or builtins
    UNRESOLVED = "unresolved"
    TOO_DEEP = "too-deep"  # a limit stopped it: inheritance deeper than resolve.MAX_INHERITANCE
    TOO_LONG = "too-long"  # a limit stopped it: more than resolve.MAX_DEPTH names, imports, aliases
    ONE_OF = "one-of"      # one of several targets: the name holds a different class or function on different paths
    # Decided at query time for a method call on an untyped receiver (graph.by_name_resolution), never stored:
    BY_NAME_WEAK = "by-name-weak"  # overrides in the hierarchy, or builtin types, define the name too
    CANDIDATE = "candidate"        # several hierarchies define the name: not reported as a use

    @property
    def limited(self) -> bool:
        """A limit stopped the resolution: the site may or may not reach a given target."""
        return self in (Resolution.TOO_DEEP, Resolution.TOO_LONG)


class UseKind(WireEnum):
    """What a use of a name does with it (a site's kind in the graph)."""

    CALL = "call"
    IMPORT = "import"
    REFERENCE = "reference"
    INHERIT = "inherit"


class CallShape(NamedTuple):
    """A call as written, as far as argument binding cares (binding.bind)."""

    n_positional: int = 0  # positional arguments written at the call, without *args
    keywords: tuple[str, ...] = ()  # keyword names written, without **kwargs
    has_star: bool = False  # *args present
    has_starstar: bool = False  # **kwargs present

    @classmethod
    def from_row(cls, n_positional: int, keywords: str, has_star: object, has_starstar: object) -> CallShape:
        """From the sites table's columns (keywords comma-joined)."""
        return cls(n_positional, tuple(k for k in keywords.split(",") if k), bool(has_star), bool(has_starstar))


#: The shape of a use that is no call (an import, a reference).
NO_CALL = CallShape()


class Definition(NamedTuple):
    qualname: str  # module-relative: "total", "Cart.checkout", "f.<locals>.g"
    kind: DefKind
    line: int
    end_line: int
    signature: str  # the header as written, whitespace collapsed: "def total(items, tax_rate)"
    decorators: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()  # class bases as callee chains ("models.Model")
    returns: str | None = None  # return annotation text
    is_async: bool = False
    col: int = 0  # of `def` / `class` (after any decorators)


class Import(NamedTuple):
    module: str  # dotted, without the leading dots of a relative import ("" for `from . import x`)
    level: int  # leading dots
    name: str | None  # None for `import a.b`; "*" for a star import
    alias: str | None
    line: int
    end_line: int
    scope: str = ""  # enclosing definition ("" = module level)
    type_checking: bool = False  # TypeScript/JavaScript: a type-only import (`import type`)
    col: int = 0
    form: ImportForm = ImportForm.STATIC

    @property
    def bound_name(self) -> str:
        """The local name the statement binds."""
        if self.alias:
            return self.alias
        if self.name is not None:
            return self.name
        return self.module.split(".", 1)[0]


class CallSite(NamedTuple):
    # Callee as a chain of names: "total", "self.session.get", "client.get_session().close",
    # "super().save"; an unnameable receiver is "?": "?.join" for `"".join(...)`.
    callee: str
    scope: str
    line: int
    col: int
    end_line: int
    end_col: int
    n_positional: int = 0
    keywords: tuple[str, ...] = ()
    has_star: bool = False
    has_starstar: bool = False

    @property
    def name(self) -> str:
        return self.callee.rsplit(".", 1)[-1].removesuffix("()")

    @property
    def shape(self) -> CallShape:
        # Stored flat: a repository has hundreds of thousands of call sites.
        return CallShape(self.n_positional, self.keywords, self.has_star, self.has_starstar)


class Reference(NamedTuple):
    target: str  # a name chain: "timezone.now", "helper", "models.Model"
    kind: RefKind
    scope: str
    line: int
    col: int
    end_line: int
    end_col: int


class Binding(NamedTuple):
    scope: str  # definition whose body holds it ("" = module); class body for class-level annotations
    target: str  # "x", or "self.session" for instance attributes
    kind: BindKind
    value: str  # callee chain (CALL, WITH, PARTIAL's function), name chain (ALIAS) or annotation text
    line: int
    # Where the statement that binds starts (its value is read from here) and ends (the name holds the
    # value from here on); two bindings at one place are alternatives (`x = A if c else B`).
    col: int = 0
    end_line: int = 0
    end_col: int = 0


class Arm(NamedTuple):
    """A block of a compound statement: which assignments reach a line depends on the arms around both."""

    line: int
    col: int
    end_line: int
    end_col: int
    parent: int  # index of the innermost arm around this one, -1 for none
    stmt: int  # the statement it is an arm of: arms of one statement share this number
    kind: ArmKind
    exhaustive: bool = False  # its statement always runs one of its arms (an if with an else)


class Export(NamedTuple):
    """What a file gives other files to import (TypeScript/JavaScript; Python's are its module-level names)."""

    name: str  # the name importers use: "f", "default"; "*" for `export * from` (every name of `specifier`)
    local: str | None  # the local name it exports ("f"), the name imported from `specifier`; None: an anonymous default
    specifier: str | None  # `from "./x"` of a re-export, as written; None for the file's own names
    line: int
    kind: ExportKind = ExportKind.NAMED


class Region(NamedTuple):
    """A part of a file that did not parse (tree-sitter's ERROR or missing node): no use inside it is judged."""

    line: int
    col: int
    end_line: int
    end_col: int

    def holds(self, line: int, col: int) -> bool:
        return (self.line, self.col) <= (line, col) < (self.end_line, self.end_col)


class Global(NamedTuple):
    """`global name` in a function: what the function binds to `name` rebinds the module's name."""

    scope: str
    name: str


@dataclass(frozen=True)
class FileFacts:
    definitions: tuple[Definition, ...] = ()
    imports: tuple[Import, ...] = ()
    calls: tuple[CallSite, ...] = ()
    references: tuple[Reference, ...] = ()
    bindings: tuple[Binding, ...] = ()
    all_names: tuple[str, ...] | None = None
    warnings: tuple[str, ...] = ()
    parsed: bool = True  # False when the file was skipped (binary, too large): facts are empty
    arms: tuple[Arm, ...] = ()  # in order of their start
    globals: tuple[Global, ...] = ()
    exports: tuple[Export, ...] = ()  # TypeScript/JavaScript only
    errors: tuple[Region, ...] = ()  # TypeScript/JavaScript: the regions that did not parse (facts hold what did)

    # Compact JSON rows: the blob cache stores millions of these, so no key names.
    def to_json(self) -> str:
        return json.dumps(
            [
                FACTS_VERSION,
                [[d.qualname, d.kind.value, d.line, d.end_line, d.signature, d.decorators, d.bases, d.returns, d.is_async, d.col] for d in self.definitions],
                [[i.module, i.level, i.name, i.alias, i.line, i.end_line, i.scope, i.type_checking, i.col, i.form.value] for i in self.imports],
                [[c.callee, c.scope, c.line, c.col, c.end_line, c.end_col, c.n_positional, c.keywords, c.has_star, c.has_starstar] for c in self.calls],
                [[r.target, r.kind.value, r.scope, r.line, r.col, r.end_line, r.end_col] for r in self.references],
                [[b.scope, b.target, b.kind.value, b.value, b.line, b.col, b.end_line, b.end_col] for b in self.bindings],
                self.all_names,
                self.warnings,
                self.parsed,
                [[a.line, a.col, a.end_line, a.end_col, a.parent, a.stmt, a.kind.value, a.exhaustive] for a in self.arms],
                [[g.scope, g.name] for g in self.globals],
                [[e.name, e.local, e.specifier, e.line, e.kind.value] for e in self.exports],
                [list(r) for r in self.errors],
            ],
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> FileFacts:
        row = json.loads(text)
        if row[0] != FACTS_VERSION:
            raise ValueError(f"facts version {row[0]}, expected {FACTS_VERSION}")
        _, defs, imps, calls, refs, binds, all_names, warnings, parsed, arms, globals_, exports, errors = row
        return cls(
            definitions=tuple(
                Definition(q, DefKind(k), l, e, s, tuple(dec), tuple(b), r, a, c) for q, k, l, e, s, dec, b, r, a, c in defs
            ),
            imports=tuple(Import(m, lv, n, a, l, e, s, t, c, ImportForm(f)) for m, lv, n, a, l, e, s, t, c, f in imps),
            calls=tuple(CallSite(c[0], c[1], c[2], c[3], c[4], c[5], c[6], tuple(c[7]), c[8], c[9]) for c in calls),
            references=tuple(Reference(t, RefKind(k), s, l, c, el, ec) for t, k, s, l, c, el, ec in refs),
            bindings=tuple(Binding(s, t, BindKind(k), v, l, c, el, ec) for s, t, k, v, l, c, el, ec in binds),
            all_names=tuple(all_names) if all_names is not None else None,
            warnings=tuple(warnings),
            parsed=parsed,
            arms=tuple(Arm(l, c, el, ec, p, st, ArmKind(k), x) for l, c, el, ec, p, st, k, x in arms),
            globals=tuple(Global(sc, n) for sc, n in globals_),
            exports=tuple(Export(n, lo, sp, li, ExportKind(k)) for n, lo, sp, li, k in exports),
            errors=tuple(Region(*r) for r in errors),
        )


#: Where the JSON rows of FileFacts.to_json hold line numbers: (part of the row, indices in each record).
_LINES = ((1, (2, 3)), (2, (4, 5)), (3, (2, 4)), (4, (3, 5)), (5, (4, 6)), (9, (0, 2)), (11, (3,)), (12, (0, 2)))


def moved_lines(raw: str, first: int, last: int, delta: int) -> str | None:
    """Facts JSON (FileFacts.to_json) of a file whose lines `first`..`last` (none when last < first) were
    replaced by comment or blank lines, `delta` more: the lines below moved, on the rows, with no
    FileFacts built (80,000 calls: 0.05 s, against 1 s to decode and 0.5 s to encode again).

    None when the facts are partial or of another version, or when a definition or a block starts or
    ends next to the edit (a parse may let a block take in the comment lines that follow it)."""
    row = json.loads(raw)
    if row[0] != FACTS_VERSION or not row[8] or row[7]:
        return None
    spans = [(d[2], d[3]) for d in row[1]] + [(a[0], a[2]) for a in row[9]]
    if any(first - 1 <= end <= last or first <= line <= last + 1 for line, end in spans):
        return None
    if delta == 0:
        return raw
    for part, at in _LINES:
        for record in row[part]:
            for i in at:
                if record[i] > last:
                    record[i] += delta
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


@dataclass
class IndexResult:
    """What one bring-the-graph-up-to-date did (repo.ensure_current, Indexer.update)."""

    head: str | None
    files: int = 0
    parsed: int = 0
    resolved: int = 0
    noop: bool = False
    elapsed_ms: int = 0
    warnings: list[tuple[str, str]] = field(default_factory=list)
    waited: bool = False  # a background refresher brought the graph there while this process waited (noop here)
