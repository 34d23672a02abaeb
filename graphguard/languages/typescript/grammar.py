"""Which tree-sitter grammar reads a file, by its name, and the parsers, loaded on first use.

docs/typescript-grammar.md measured the PyPI grammars on 9,022 real files: typescript for `.ts .mts .cts`
(and `.d.ts`), tsx for `.tsx` and for `.jsx` (the javascript grammar fails on `class=` attributes in 25%
of real `.jsx` files), javascript for `.js .mjs .cjs` (it parses JSX too).
"""

from __future__ import annotations

import enum
import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query

#: Every suffix the package reads; `.d.ts` ends in `.ts`.
SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


class Dialect(enum.Enum):
    TYPESCRIPT = "typescript"
    TSX = "tsx"
    JAVASCRIPT = "javascript"

    @property
    def is_typescript(self) -> bool:
        return self is not Dialect.JAVASCRIPT


_BY_SUFFIX = {
    ".ts": Dialect.TYPESCRIPT, ".mts": Dialect.TYPESCRIPT, ".cts": Dialect.TYPESCRIPT,
    ".tsx": Dialect.TSX, ".jsx": Dialect.TSX,
    ".js": Dialect.JAVASCRIPT, ".mjs": Dialect.JAVASCRIPT, ".cjs": Dialect.JAVASCRIPT,
}


def dialect_of(path: str) -> Dialect | None:
    """The grammar that reads `path`; None for a file of neither language."""
    dot = path.rfind(".")
    return _BY_SUFFIX.get(path[dot:]) if dot >= 0 else None


def is_declaration(path: str) -> bool:
    """A `.d.ts` (`.d.mts`, `.d.cts`) file: types only, no code runs from it."""
    return path.endswith((".d.ts", ".d.mts", ".d.cts"))


def is_typescript_source(path: str) -> bool:
    """Whether the file's language is TypeScript (else JavaScript), as `stats` counts them."""
    dialect = dialect_of(path)
    return dialect is not None and dialect.is_typescript and not path.endswith(".jsx")


@functools.cache
def parser(dialect: Dialect) -> Parser:
    """One parser per dialect per process (tree-sitter parsers are reusable, not thread-safe)."""
    from tree_sitter import Language, Parser

    if dialect is Dialect.JAVASCRIPT:
        import tree_sitter_javascript

        return Parser(Language(tree_sitter_javascript.language()))
    import tree_sitter_typescript

    grammar = tree_sitter_typescript.language_tsx() if dialect is Dialect.TSX else tree_sitter_typescript.language_typescript()
    return Parser(Language(grammar))


@functools.cache
def _query(dialect: Dialect, patterns: tuple[tuple[str, str], ...]) -> tuple[Query, tuple[str, ...]]:
    """The patterns this dialect's grammar has nodes for, compiled as one query, and each kept pattern's key."""
    from tree_sitter import Query

    language = parser(dialect).language
    assert language is not None

    # Asked of the grammar, not by compiling each pattern (about 5 ms each: a hook's start would pay 0.2 s).
    def known(pattern: str) -> bool:
        nodes = (n for n in re.findall(r"\((\w+)", pattern) if n not in ("_", "ERROR"))
        fields = re.findall(r"(\w+):", pattern)
        return all(language.id_for_node_kind(n, True) for n in nodes) and all(language.field_id_for_name(f) for f in fields)

    # a node of TypeScript only (`interface_declaration`) is left out of the javascript grammar's query
    kept = [(key, pattern) for key, pattern in patterns if known(pattern)]
    return Query(language, "\n".join(p for _, p in kept)), tuple(k for k, _ in kept)


def captures(dialect: Dialect, patterns: tuple[tuple[str, str], ...], root: Node, *,
             max_start_depth: int) -> list[tuple[str, Node, dict[str, list[Node]]]]:
    """(key, the `node` capture, every capture) of each match of `patterns` under `root`, in document order; matches
    start at most `max_start_depth` levels below `root` (the cursor's work per node grows with the depth)."""
    from tree_sitter import QueryCursor

    query, keys = _query(dialect, patterns)
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(max_start_depth)
    return [(keys[index], caps["node"][0], caps) for index, caps in cursor.matches(root)]
