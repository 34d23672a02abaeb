"""The languages graphguard reads, and the `Language` a path is in.

A language package (languages/python/) gives the core one object with the methods of `Language`: the
indexer and the check ask it, not the package's modules, what a file's facts, module names, resolved
uses, interface and signature changes are. `for_path` picks it by the file's name. Adding a language is
adding a package with such an object and a row of `LANGUAGES` (docs/architecture.md, "Adding a language").
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from graphguard.languages.limits import MAX_BYTES
from graphguard.languages.python.language import PYTHON  # it imports its parsers inside its methods
from graphguard.languages.typescript.language import TYPESCRIPT  # the same

__all__ = ["LANGUAGES", "MAX_BYTES", "FileResolver", "Language", "Tree", "for_path", "symbol_name"]

if TYPE_CHECKING:
    # The records below are still Python's own; a second language shares them or the core learns its own.
    from graphguard.languages.python.binding import Binding
    from graphguard.languages.python.comments import CommentEdit
    from graphguard.languages.python.docstrings import Extras
    from graphguard.languages.python.notes import Notes
    from graphguard.languages.python.sigdiff import SymbolChange
    from graphguard.languages.python.signature import ModuleSignatures, Signature
    from graphguard.model import CallShape, FileFacts
    from graphguard.resolved import FileResolution


@dataclass(frozen=True)
class Tree:
    """One commit's files, as a language's resolver reads them."""

    paths: Collection[str]  # the indexed files of the language
    load: Callable[[str], FileFacts | None]  # a file's facts
    read: Callable[[str], bytes | None]  # a tracked file's bytes: the config files (tsconfig.json, package.json)
    modmap: Any = None  # Python's ModuleMap, when the caller has one (else built from `paths`)
    #: The commit's config files of module resolution (plan.is_config: tsconfig/jsconfig, package.json,
    #: pnpm-workspace.yaml); None when the caller cannot list them (the resolver then probes folders through `read`).
    configs: Collection[str] | None = None
    #: The commit's symlinks with the language's suffixes (not indexed themselves): resolution follows them to their
    #: target as tsc does (a link's blob, read through `read`, is its target).
    links: Collection[str] = ()
    #: The commit's other files (no language claims them: `.json`, `.css`, `.vue`, images): an import may name one.
    assets: Collection[str] = ()
    #: Reads these tracked files' bytes in one go, ahead of `read` asking for each (one `git cat-file` for a
    #: repository's hundreds of config files, not one process each); None: `read` alone.
    prefetch: Callable[[Collection[str]], None] | None = None


class FileResolver(Protocol):
    def resolve_file(self, path: str) -> FileResolution: ...


class Language(Protocol):
    """What the indexer and the check need from a language. Every method is pure; none raises on bad
    source (a file that does not parse has facts that say so) except `signatures` (SignatureParseError)."""

    name: str  # "python"
    noun: str  # what a report calls its files: "Python", "TypeScript/JavaScript" ("2 Python files changed")
    suffixes: tuple[str, ...]  # (".py", ".pyi"): it claims exactly the files so named (each suffix has one dot)
    #: A file's module name is its path and a symbol's full name `path#qualname` (TypeScript); else dotted (Python).
    by_path: bool

    def claims(self, path: str) -> bool: ...
    def facts_kind(self, path: str) -> str: ...  # what besides the bytes decides a file's facts ("" nothing; "tsx")
    def parse(self, data: bytes, kind: str = "") -> FileFacts: ...
    def counted_as(self, path: str) -> str: ...  # the language `stats` counts the file in ("typescript", "javascript")
    def resolver(self, tree: Tree) -> FileResolver: ...
    def resolve_file(self, resolver: Any, path: str) -> FileResolution: ...
    def interface(self, facts: FileFacts) -> dict[str, str]: ...
    def changed_names(self, old: dict[str, str], new: dict[str, str]) -> set[str]: ...
    def signatures(self, data: bytes, facts: FileFacts | None = None, wanted: Collection[str] | None = None, *,
                   kind: str = "") -> ModuleSignatures: ...
    def dependents(self, facts: FileFacts, qualnames: Collection[str]) -> set[str]: ...
    def diff(self, old: ModuleSignatures, new: ModuleSignatures, kept: Collection[str] = ()) -> list[SymbolChange]: ...
    #: (module, change) of every changed file, (module, signature) of what each gained: removals that another
    #: file gained unchanged become moves (other changes pass through, in order).
    def moves(self, removed: Sequence[tuple[str, SymbolChange]],
              added: Sequence[tuple[str, Signature]]) -> list[tuple[str, SymbolChange]]: ...
    def bind(self, call: CallShape, sig: Signature, *, implicit_first: bool = False) -> Binding: ...
    def test_names(self, data: bytes, lines: Collection[int], *, kind: str = "") -> list[str | None]: ...  # per line of a test file
    def notes(self, data: bytes) -> Notes: ...
    def comment_edit(self, old: bytes, new: bytes) -> CommentEdit | None: ...
    def text(self, data: bytes) -> tuple[str, str | None]: ...
    def utf8(self, data: bytes) -> tuple[bytes, str | None]: ...
    def outline(self, data: bytes, kind: str = "") -> Extras: ...



#: Every language, by name.
LANGUAGES: dict[str, Language] = {PYTHON.name: PYTHON, TYPESCRIPT.name: TYPESCRIPT}


#: suffix -> its language. for_path is asked of every tracked file (scan): a file of no language costs one endswith.
_BY_SUFFIX: dict[str, Language] = {suffix: lang for lang in LANGUAGES.values() for suffix in lang.suffixes}
_SUFFIXES = tuple(_BY_SUFFIX)


def for_path(path: str) -> Language | None:
    """The language of a file, by its suffix; None for a file no language reads (it is not indexed)."""
    if not path.endswith(_SUFFIXES):
        return None
    return _BY_SUFFIX.get("." + path.rpartition(".")[2])


def symbol_name(path: str, module: str, qualname: str) -> str:
    """A definition's full name: `pkg.mod.Class.method` (Python), `src/cart.ts#Cart.total` (by path)."""
    lang = for_path(path)
    return f"{module}#{qualname}" if lang is not None and lang.by_path else f"{module}.{qualname}"
