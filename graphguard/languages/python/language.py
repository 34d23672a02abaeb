"""`PYTHON`: the Python package as a `languages.Language`, each method a call of the module that does it.

Importing this module imports no parser: the hook and `refresh --help` start without tree_sitter and
libcst, so the modules that load them are imported inside the methods that need them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from graphguard.languages.python.modules import DEFAULT_TEST_DATA, Layout, ModuleMap, is_python, names_of

if TYPE_CHECKING:
    from graphguard.languages import Tree
    from graphguard.languages.python.binding import Binding
    from graphguard.languages.python.comments import CommentEdit
    from graphguard.languages.python.docstrings import Extras
    from graphguard.languages.python.notes import Notes
    from graphguard.languages.python.probed import PathProbe
    from graphguard.languages.python.resolver import InfoCache, Resolver
    from graphguard.languages.python.sigdiff import SymbolChange
    from graphguard.languages.python.signature import ModuleSignatures, Signature
    from graphguard.model import CallShape, FileFacts
    from graphguard.resolved import FileResolution


class Python:
    name: str = "python"
    noun: str = "Python"
    suffixes: tuple[str, ...] = (".py", ".pyi")
    by_path: bool = False

    def claims(self, path: str) -> bool:
        return is_python(path)

    def facts_kind(self, path: str) -> str:
        return ""

    def counted_as(self, path: str) -> str:
        return self.name

    def parse(self, data: bytes, kind: str = "") -> FileFacts:
        from graphguard.languages.python import parse

        try:
            return parse.parse(data)
        except RecursionError:
            return parse.skipped("too deeply nested to parse")

    def module_map(self, paths: Iterable[str], test_data: tuple[str, ...] | None = None) -> ModuleMap:
        return ModuleMap.build(paths, DEFAULT_TEST_DATA if test_data is None else test_data)

    def layout(self, paths: Iterable[str], test_data: tuple[str, ...] | None = None) -> Layout:
        return Layout.of(paths, DEFAULT_TEST_DATA if test_data is None else test_data)

    def probed_map(self, layout: Layout, probe: PathProbe) -> ModuleMap:
        from graphguard.languages.python.probed import ProbedModuleMap

        return ProbedModuleMap(layout, probe)

    def module_names(self, path: str, roots: AbstractSet[str]) -> list[str]:
        return names_of(path, roots)

    def resolver(self, tree: Tree, infos: InfoCache | None = None) -> Resolver:
        from graphguard.languages.python.resolver import Resolver

        return Resolver(tree.modmap if tree.modmap is not None else ModuleMap.build(tree.paths), tree.load, infos)

    def resolve_file(self, resolver: Resolver, path: str) -> FileResolution:
        return resolver.resolve_file(path)

    def interface(self, facts: FileFacts) -> dict[str, str]:
        from graphguard.languages.python import digests

        return digests.interface_digests(facts)

    def changed_names(self, old: dict[str, str], new: dict[str, str]) -> set[str]:
        from graphguard.languages.python import digests

        return digests.changed_names(old, new)

    def signatures(self, data: bytes, facts: FileFacts | None = None, wanted: Collection[str] | None = None, *,
                   kind: str = "") -> ModuleSignatures:
        """The whole module's signatures, or (given its facts) only those of `wanted`; raises SignatureParseError."""
        from graphguard.languages.python import signature, spans

        if facts is None or wanted is None:
            return signature.extract(data)
        return spans.extract_spans(data, facts, wanted)

    def dependents(self, facts: FileFacts, qualnames: Collection[str]) -> set[str]:
        from graphguard.languages.python import spans

        return spans.dependents(facts, qualnames)

    def diff(self, old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[SymbolChange]:
        from graphguard.languages.python import sigdiff

        return sigdiff.compare(old, new, kept)

    def moves(self, removed: Sequence[tuple[str, SymbolChange]],
              added: Sequence[tuple[str, Signature]]) -> list[tuple[str, SymbolChange]]:
        from graphguard.languages.python import sigdiff

        return sigdiff.find_moves(removed, added)

    def bind(self, call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Binding:
        from graphguard.languages.python import binding

        return binding.bind(call, sig, implicit_first=implicit_first)

    def test_names(self, data: bytes, lines: Collection[int], *, kind: str = "") -> list[str | None]:
        """None each: Python's tests are functions, named by the graph (pytest node ids)."""
        return [None for _ in lines]

    def notes(self, data: bytes) -> Notes:
        from graphguard.languages.python import notes

        return notes.notes(data)

    def comment_edit(self, old: bytes, new: bytes) -> CommentEdit | None:
        from graphguard.languages.python import comments

        return comments.comment_edit(old, new)

    def text(self, data: bytes) -> tuple[str, str | None]:
        from graphguard.languages.python import encoding

        return encoding.to_text(data)

    def utf8(self, data: bytes) -> tuple[bytes, str | None]:
        from graphguard.languages.python import encoding

        return encoding.to_utf8(data)

    def outline(self, data: bytes, kind: str = "") -> Extras:
        from graphguard.languages.python import docstrings

        return docstrings.extract(data)


PYTHON = Python()
