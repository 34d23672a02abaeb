"""Which tree-sitter grammar reads a file, by its name, and the parsers, loaded on first use.

docs/typescript-grammar.md measured the PyPI grammars on 9,022 real files: typescript for `.ts .mts .cts`
(and `.d.ts`), tsx for `.tsx` and for `.jsx` (the javascript grammar fails on `class=` attributes in 25%
of real `.jsx` files), javascript for `.js .mjs .cjs` (it parses JSX too).
"""

from __future__ import annotations

import enum
import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Parser

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
