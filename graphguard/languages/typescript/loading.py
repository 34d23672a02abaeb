"""tsc's loaders, ported: a candidate path -> the file it names, by extension substitution, `package.json` fields,
directory `index` files, `paths`-style tables and `exports`/`imports` targets. Pure over `tree.Files`.

Each function mirrors the moduleNameResolver function named in its docstring, so that the same candidate gives the
same file; `State` holds what tsc keeps in its resolution state (extensions, ESM mode, conditions).
"""

from __future__ import annotations

import enum
import functools
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphguard.languages.typescript import patterns
from graphguard.languages.typescript.packages import Bare, Blocked, Packages, Target, types_versions
from graphguard.languages.typescript.tree import Files


class Ext(enum.Flag):
    TS = enum.auto()
    DECL = enum.auto()
    JS = enum.auto()


ALL = Ext.TS | Ext.DECL | Ext.JS
TYPED = Ext.TS | Ext.DECL
#: removeFileExtension's order (a declaration before its `.ts`).
_REMOVABLE = (".d.ts", ".d.mts", ".d.cts", ".mjs", ".mts", ".cjs", ".cts", ".ts", ".js", ".tsx", ".jsx", ".json")
_MJS = ((Ext.TS, ".mts"), (Ext.DECL, ".d.mts"), (Ext.JS, ".mjs"))
_CJS = ((Ext.TS, ".cts"), (Ext.DECL, ".d.cts"), (Ext.JS, ".cjs"))
_JSX = ((Ext.TS, ".tsx"), (Ext.TS, ".ts"), (Ext.DECL, ".d.ts"), (Ext.JS, ".jsx"), (Ext.JS, ".js"))
_PLAIN = ((Ext.TS, ".ts"), (Ext.TS, ".tsx"), (Ext.DECL, ".d.ts"), (Ext.JS, ".js"), (Ext.JS, ".jsx"))
#: tryAddingExtensions: what a specifier's extension may stand for, in the order tsc tries them.
SUBSTITUTES: dict[str, tuple[tuple[Ext, str], ...]] = {
    ".mjs": _MJS, ".mts": _MJS, ".d.mts": _MJS, ".cjs": _CJS, ".cts": _CJS, ".d.cts": _CJS, ".tsx": _JSX, ".jsx": _JSX,
    ".ts": _PLAIN, ".d.ts": _PLAIN, ".js": _PLAIN, "": _PLAIN, ".json": ((Ext.DECL, ".d.json.ts"),)}
_TS_IMPLEMENTATION = (".ts", ".tsx", ".mts", ".cts")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")


@dataclass(frozen=True)
class State:
    exts: Ext
    esm: bool  # ESM mode: no implicit extension, no directory index
    conditions: tuple[str, ...]
    exports: bool
    imports: bool
    suffixes: tuple[str, ...] = ("",)
    map_outputs: bool = False  # lenient pass: a missing build output is read as its source (outDir -> rootDir)
    assets: bool = False  # lenient pass: a file no language reads, named exactly (`./App.vue`, `./data.json`)


def remove_extension(path: str) -> tuple[str, str]:
    for ext in _REMOVABLE:
        if path.endswith(ext):
            return path[: -len(ext)], ext
    return path, ""


class Loader:
    """The loaders over one commit's files (stateless but for the files and manifests)."""

    def __init__(self, files: Files, packages: Packages, outputs: Callable[[str], str | None]):
        self.files = files
        self.packages = packages
        self._outputs = outputs  # a build output's path -> its source's path without extension (or None)

    def file(self, st: State, candidate: str) -> str | None:
        """loadModuleFromFile: `./a.js` -> a.ts ...; `./a` -> a.ts ... (not in ESM mode)."""
        if st.assets and candidate in self.files.assets:
            return candidate
        found = self.no_implicit(st, candidate)
        if found is None and not st.esm:
            found = self.add_extension(st, candidate, "")
        return found if found is not None or not st.map_outputs else self.source(st, candidate)

    def source(self, st: State, output: str) -> str | None:
        """The lenient pass: a build output named by a config's outDir, read as its source under rootDir."""
        stem = self._outputs(output)
        return self.add_extension(st, stem, "") if stem is not None else None

    def no_implicit(self, st: State, candidate: str) -> str | None:
        """loadModuleFromFileNoImplicitExtensions: replace the extension the specifier has."""
        if "." not in candidate.rpartition("/")[2]:
            return None
        stem, ext = remove_extension(candidate)
        if not ext:
            stem = candidate[: candidate.rfind(".")]
            ext = candidate[len(stem):]
        return self.add_extension(st, stem, ext)

    def add_extension(self, st: State, stem: str, ext: str) -> str | None:
        """tryAddingExtensions (with `moduleSuffixes`)."""
        for new in _extensions(ext, st.exts):
            for suffix in st.suffixes:
                if self.files.is_file(stem + suffix + new):
                    return stem + suffix + new
        return None

    def relative(self, st: State, candidate: str, *, manifest: bool = True) -> str | None:
        """nodeLoadModuleByRelativeName: the file, else (not in ESM mode) the folder."""
        found = self.file(st, candidate) if not candidate.endswith("/") else None
        if found is None and not st.esm:
            folder = candidate.rstrip("/")
            found = self.directory(st, folder, self.packages.manifest(folder) if manifest else None)
        return found

    def directory(self, st: State, folder: str, manifest: Mapping[str, Any] | None,
                  versions: Mapping[str, Sequence[str]] | None = None) -> str | None:
        """loadNodeModuleFromDirectoryWorker: `types`/`typings`, else `main`, then `index`."""
        field = None
        if manifest is not None:
            versions = versions if versions is not None else types_versions(dict(manifest))
            for key in (("typings", "types") if st.exts & Ext.DECL else ()) + ("main",):
                if isinstance(manifest.get(key), str):
                    field = patterns.normal(folder, str(manifest[key]))
                    break
        index = posixpath.join(folder, "index")

        def load(cand: str) -> str | None:
            return self.package_field(st, cand, module=manifest is not None and manifest.get("type") == "module")

        if versions and (field is None or field == folder or field.startswith(folder + "/")):
            name = posixpath.relpath(field or index, folder or ".")
            found = self.paths(name, folder, versions, load)
            if found is not None:
                return found
        found = load(field) if field is not None else None
        return found if found is not None else self.file(st, index)

    def package_field(self, st: State, candidate: str, *, module: bool) -> str | None:
        """The loader of a package.json field: the file as named, else as a relative specifier (no manifest)."""
        found = self.from_field(st, candidate)
        if found is not None:
            return found
        exts = TYPED if st.exts == Ext.DECL else st.exts
        return self.relative(replace(st, exts=exts, esm=st.esm and module), candidate, manifest=False)

    def from_field(self, st: State, candidate: str) -> str | None:
        """loadFileNameFromPackageJsonField (and, in the lenient pass, the source of a build output)."""
        if (st.exts & Ext.TS and candidate.endswith(_TS_IMPLEMENTATION)) or (st.exts & Ext.DECL and candidate.endswith(_DECLARATIONS)):
            found = candidate if self.files.is_file(candidate) else None
        else:
            found = self.no_implicit(st, candidate)
        return found if found is not None or not st.map_outputs else self.source(st, candidate)

    def paths(self, name: str, base: str, table: Mapping[str, Sequence[str]], load: Callable[[str], str | None]) -> str | None:
        """tryLoadModuleUsingPaths: the exact key, else the pattern with the longest prefix; each target in order."""
        matched = match_key(table, name)
        if matched is None:
            return None
        key, star = matched
        for target in table[key]:
            path = patterns.normal(base, target.replace("*", star, 1) if "*" in key else target)
            if remove_extension(path)[1] and self.files.is_file(path):
                return path
            found = load(path)
            if found is not None:
                return found
        return None

    def targets(self, st: State, found: Iterable[Target], bare: Callable[[str], str | None]) -> str | None:
        """The first `exports`/`imports` target that names a file (a `null` one stops the search)."""
        for target in found:
            if isinstance(target, Blocked):
                return None
            hit = bare(target.specifier) if isinstance(target, Bare) else self.from_field(st, target)
            if hit is not None:
                return hit
        return None


@functools.lru_cache(maxsize=1024)
def _extensions(ext: str, exts: Ext) -> tuple[str, ...]:
    """The extensions tried for a specifier's extension, those of the pass's kinds only."""
    order = SUBSTITUTES.get(ext)
    if order is None:  # `./styles.css` may have `styles.d.css.ts`
        order = ((Ext.DECL, f".d{ext}.ts"),) if not ext.startswith(".d.") else ()
    return tuple(new for flag, new in order if exts & flag)


def match_key(table: Iterable[str], name: str) -> tuple[str, str] | None:
    """matchPatternOrExact: (the key, what its `*` matched)."""
    keys = list(table)
    if name in keys:
        return name, ""
    best: tuple[str, str] | None = None
    best_len = -1
    for key in keys:
        if key.count("*") != 1:
            continue
        head, _, tail = key.partition("*")
        if len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail) and len(head) > best_len:
            best, best_len = (key, name[len(head): len(name) - len(tail)]), len(head)
    return best


def first(found: Iterator[str | None]) -> str | None:
    return next((f for f in found if f is not None), None)
