"""`TYPESCRIPT`: TypeScript and JavaScript as one `languages.Language` (one resolver reads both: a `.js` file
imports `.ts` ones and the reverse); `stats` counts them apart (`counted_as`).

Importing this module imports no parser: each method imports what it calls.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from graphguard.languages.typescript.grammar import SUFFIXES, Dialect, dialect_of, is_declaration, is_typescript_source

if TYPE_CHECKING:
    from graphguard.languages import Tree
    from graphguard.languages.python.binding import Binding
    from graphguard.languages.python.comments import CommentEdit
    from graphguard.languages.python.docstrings import Extras
    from graphguard.languages.python.notes import Notes
    from graphguard.languages.python.sigdiff import SymbolChange
    from graphguard.languages.python.signature import ModuleSignatures, Signature
    from graphguard.languages.typescript.resolver import Resolver
    from graphguard.model import CallShape, FileFacts
    from graphguard.resolved import FileResolution

#: `facts_kind` of a `.d.ts` file: the typescript grammar, declarations only.
DECLARATION = "declaration"


def _dialect(kind: str) -> Dialect:
    return Dialect.TYPESCRIPT if kind == DECLARATION else Dialect(kind)


class TypeScript:
    name: str = "typescript"
    noun: str = "TypeScript/JavaScript"
    suffixes: tuple[str, ...] = SUFFIXES
    by_path: bool = True

    def claims(self, path: str) -> bool:
        return path.endswith(SUFFIXES)

    def facts_kind(self, path: str) -> str:
        """The grammar a file is read with (a blob's facts differ by it: `<T>x` is a cast in .ts, JSX in .tsx)."""
        if is_declaration(path):
            return DECLARATION
        dialect = dialect_of(path)
        return dialect.value if dialect is not None else Dialect.TYPESCRIPT.value

    def counted_as(self, path: str) -> str:
        return "typescript" if is_typescript_source(path) else "javascript"

    def parse(self, data: bytes, kind: str = "") -> FileFacts:
        from graphguard.languages.typescript.parse import parse

        return parse(data, _dialect(kind or Dialect.TYPESCRIPT.value), declaration=kind == DECLARATION)

    def resolver(self, tree: Tree) -> Resolver:
        from graphguard.languages.typescript.resolution import ModuleResolver
        from graphguard.languages.typescript.resolver import Resolver

        return Resolver(tree.paths, tree.load, tree.read, ModuleResolver(tree.paths, tree.read, tree.configs,
                                                                                        tree.links, tree.assets, tree.prefetch))

    def resolve_file(self, resolver: Any, path: str) -> FileResolution:
        result: FileResolution = resolver.resolve_file(path)
        return result

    def interface(self, facts: FileFacts) -> dict[str, str]:
        from graphguard.languages.typescript import resolver

        return resolver.interface_digests(facts)

    def changed_names(self, old: dict[str, str], new: dict[str, str]) -> set[str]:
        from graphguard.languages.typescript import resolver

        return resolver.changed_names(old, new)

    def signatures(self, data: bytes, facts: FileFacts | None = None, wanted: Collection[str] | None = None, *,
                   kind: str = "") -> ModuleSignatures:
        from graphguard.languages.typescript import signature

        return signature.signatures(data, _dialect(kind or Dialect.TYPESCRIPT.value), wanted)

    def dependents(self, facts: FileFacts, qualnames: Collection[str]) -> set[str]:
        return set(qualnames)

    def diff(self, old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[SymbolChange]:
        from graphguard.languages.typescript import sigdiff

        return sigdiff.compare(old, new, kept)

    def moves(self, removed: Sequence[tuple[str, SymbolChange]],
              added: Sequence[tuple[str, Signature]]) -> list[tuple[str, SymbolChange]]:
        """Removals another file gained with the same name and shape; the module keys are paths."""
        from graphguard.languages.typescript import sigdiff

        return sigdiff.find_moves(removed, added)

    def bind(self, call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Binding:
        from graphguard.languages.typescript import binding

        return binding.bind(call, sig)

    def test_names(self, data: bytes, lines: Collection[int], *, kind: str = "") -> list[str | None]:
        """The `it`/`test` names around the lines of a test file (vitest and jest run tests by name)."""
        from graphguard.languages.typescript import testnames

        return testnames.test_names(data, _dialect(kind or Dialect.TYPESCRIPT.value), lines)

    def notes(self, data: bytes) -> Notes:
        """`// graphguard: ignore[...]` on a site, `// @ts-expect-error` / `// @ts-ignore` on the line before it."""
        from graphguard.languages.typescript import notes

        return notes.notes(data)

    def comment_edit(self, old: bytes, new: bytes) -> CommentEdit | None:
        return None

    def text(self, data: bytes) -> tuple[str, str | None]:
        try:
            return data.decode("utf-8-sig"), None
        except UnicodeDecodeError:
            return data.decode("utf-8", "replace"), "not valid UTF-8; undecodable bytes replaced"

    def utf8(self, data: bytes) -> tuple[bytes, str | None]:
        text, warning = self.text(data)
        return (data if warning is None and not data.startswith(b"\xef\xbb\xbf") else text.encode()), warning

    def outline(self, data: bytes, kind: str = "") -> Extras:
        from graphguard.languages.typescript import outline

        return outline.extract(data, _dialect(kind or Dialect.TYPESCRIPT.value))


TYPESCRIPT = TypeScript()
