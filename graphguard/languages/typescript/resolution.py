"""Module resolution as TypeScript specifies it (handbook "Modules - Reference", tsc's moduleNameResolver), ported
to Python over the commit's blobs: no Node, no node_modules. Pure.

`ModuleResolver.resolve(importer, specifier, kind)` runs tsc's algorithm in the mode the governing config sets
(node10, node16/nodenext, bundler; classic as node10), then, only where that finds nothing, more lenient passes: ESM's
rule against extensionless specifiers and directory indexes dropped, `exports` read in any mode, a missing build
output read as its source (outDir -> rootDir), the `customConditions` any config of the repository declares, a
file no language reads named exactly (`./App.vue`, `./data.json`: internal, no symbols). A file is never guessed by suffix or basename: every target is a
path the algorithm names. Workspace packages stand where tsc would find them in node_modules.
"""

from __future__ import annotations

import enum
import posixpath
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace
from typing import Any

from graphguard.languages.typescript import packages as pkg
from graphguard.languages.typescript.loading import ALL, TYPED, Ext, Loader, State, match_key, remove_extension
from graphguard.languages.typescript.tree import Files
from graphguard.languages.typescript.tsconfig import Mode, Project, Projects
from graphguard.model import WireEnum
from graphguard.resolved import ImportStatus


class ImportKind(enum.Enum):
    STATIC = "static"
    TYPE_ONLY = "type-only"
    REQUIRE = "require"
    IMPORT_EQUALS = "import-equals"
    DYNAMIC = "dynamic"


class Category(WireEnum):
    RELATIVE = "relative"
    PATHS = "paths"
    BASE_URL = "base-url"
    ROOT_DIRS = "root-dirs"
    WORKSPACE = "workspace"
    EXPORTS = "exports"
    IMPORTS = "imports"
    SELF = "self"
    PACKAGE = "package"
    BUILTIN = "builtin"
    BUNDLER_ALIAS = "bundler-alias"
    MISSING = "missing"
    DYNAMIC = "dynamic"


@dataclass(frozen=True)
class Resolved:
    status: ImportStatus
    category: Category
    target: str | None


_BUILTINS = frozenset(["assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto", "dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2", "https", "inspector", "module", "net", "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream", "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi", "worker_threads", "zlib"])
_REQUIRES = (ImportKind.REQUIRE, ImportKind.IMPORT_EQUALS)
#: Bundler configs whose `alias` entries name specifiers tsc does not know.
_BUNDLER_CONFIG = re.compile(r"(vite|vitest|webpack|rollup|babel|next|nuxt|astro|svelte)\.config\.[cm]?[jt]s|\.babelrc(\.js)?")


def _is_bundler_config(path: str) -> bool:
    """Matched on the file's name alone: a search of the whole path costs more than the rest of a one-file check's
    look at the repository's 4,000 paths."""
    return _BUNDLER_CONFIG.fullmatch(path.rpartition("/")[2]) is not None
_ALIAS_KEY = re.compile(r"""['"]?([@~#$\w][\w@~#$./-]*)['"]?\s*:|find\s*:\s*['"]([^'"]+)['"]""")


def _relative(specifier: str) -> bool:
    return specifier in (".", "..") or specifier.startswith(("./", "../", "/"))


@dataclass(frozen=True)
class _Hit:
    path: str
    category: Category


class ModuleResolver:
    """One commit's TS/JS files and config files; memoised per governing config, folder and specifier."""

    def __init__(self, paths: Collection[str], read: Callable[[str], bytes | None], configs: Collection[str] | None = None,
                 links: Collection[str] = (), assets: Collection[str] = (),
                 prefetch: Callable[[Collection[str]], None] | None = None):
        self.files = Files(paths, read, configs, links, assets, prefetch)
        self.packages = pkg.Packages(self.files)
        self.projects = Projects(self.files, self._package_config)
        self.loader = Loader(self.files, self.packages, self._source_of)
        self._memo: dict[tuple[str, str, str, str, ImportKind], Resolved] = {}
        self._aliases: tuple[str, ...] | None = None
        self._sources: dict[str, str | None] = {}
        self._passes: dict[tuple[str, bool, ImportKind], list[tuple[State, tuple[Ext, ...]]]] = {}

    def resolve(self, importer: str, specifier: str, kind: ImportKind = ImportKind.STATIC) -> Resolved:
        if kind is ImportKind.DYNAMIC and not specifier:
            return Resolved(ImportStatus.UNRESOLVED, Category.DYNAMIC, None)
        project = self.projects.governing(importer)
        key = (project.path, posixpath.dirname(importer), importer.rpartition(".")[2], specifier, kind)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._resolve(project, importer, specifier, kind)
        return found

    def _resolve(self, project: Project, importer: str, specifier: str, kind: ImportKind) -> Resolved:
        if specifier.startswith("node:"):
            return Resolved(ImportStatus.EXTERNAL, Category.BUILTIN, None)
        key = (project.path, self._esm_file(importer), kind)
        states = self._passes.get(key)
        if states is None:
            states = self._passes[key] = list(self._states(project, key[1], kind))
        for st, passes in states:
            for exts in passes:
                hit = self._attempt(replace(st, exts=exts), project, importer, specifier)
                if hit is not None:
                    return Resolved(ImportStatus.INTERNAL, hit.category, self.files.real(hit.path) or hit.path)
        return self._unresolved(project, importer, specifier)

    # the passes: tsc's, then the lenient ones

    def _states(self, project: Project, esm_file: bool, kind: ImportKind) -> Iterator[tuple[State, tuple[Ext, ...]]]:
        require = kind in _REQUIRES or (project.mode is Mode.NODE16 and not esm_file and kind is not ImportKind.DYNAMIC)
        conditions = ("require" if require else "import", "types") + (("node",) if project.mode is Mode.NODE16 else ())
        strict = State(ALL, project.mode is Mode.NODE16 and not require, conditions + project.conditions, project.exports,
                       project.imports, project.module_suffixes)
        passes = (TYPED, Ext.JS) if project.mode in (Mode.NODE10, Mode.CLASSIC) else (ALL,)
        yield strict, passes
        lenient = replace(strict, esm=False, exports=True, imports=True)
        if lenient != strict:
            yield lenient, passes
        yield replace(lenient, exports=False), (TYPED, Ext.JS)
        # last: build outputs read as sources, and the conditions any config of the repository declares (a package's
        # `"@org/source": "./src/index.ts"` serves the files whose own config does not name it)
        declared = tuple(c for c in self.projects.declared_conditions() if c not in lenient.conditions)
        yield replace(lenient, map_outputs=True, assets=True, conditions=lenient.conditions + declared), (ALL,)

    def _esm_file(self, path: str) -> bool:
        if path.endswith((".mts", ".mjs")):
            return True
        if path.endswith((".cts", ".cjs")):
            return False
        scope = self.packages.scope(posixpath.dirname(path))
        return scope is not None and (self.packages.manifest(scope) or {}).get("type") == "module"

    def _attempt(self, st: State, project: Project, importer: str, specifier: str) -> _Hit | None:
        """nodeModuleNameResolverWorker's tryResolve."""
        here = posixpath.dirname(importer)
        rel = _relative(specifier) and not specifier.startswith("/")
        if project.paths and not rel:
            found = self.loader.paths(specifier, "", dict(project.paths), lambda c: self.loader.relative(st, c))
            if found is not None:
                return _Hit(found, Category.PATHS)
        if rel:
            return self._relative_spec(st, project, here, specifier)
        if specifier.startswith("/"):
            found = self.loader.relative(st, posixpath.normpath(specifier.lstrip("/")) or "")
            return _Hit(found, Category.RELATIVE) if found is not None else None
        if project.base_url is not None:
            found = self.loader.relative(st, posixpath.normpath(posixpath.join(project.base_url, specifier)))
            if found is not None:
                return _Hit(found, Category.BASE_URL)
        return self._bare(st, project, here, specifier)

    def _relative_spec(self, st: State, project: Project, here: str, specifier: str) -> _Hit | None:
        """A relative specifier; `rootDirs` merge folders (tryLoadModuleUsingRootDirs)."""
        candidate = posixpath.normpath(posixpath.join(here, specifier))
        candidate = "" if candidate == "." else candidate
        if candidate.startswith(".."):
            return None
        found = self.loader.relative(st, candidate + ("/" if specifier.endswith("/") else ""))
        if found is not None:
            return _Hit(found, Category.RELATIVE)
        roots = [r for r in project.root_dirs if candidate == r or candidate.startswith(r + "/") or r == ""]
        if not roots:
            return None
        matched = max(roots, key=len)
        rest = candidate[len(matched):].lstrip("/")
        for root in project.root_dirs:
            if root != matched:
                found = self.loader.relative(st, posixpath.join(root, rest) if root else rest)
                if found is not None:
                    return _Hit(found, Category.ROOT_DIRS)
        return None

    def _bare(self, st: State, project: Project, here: str, specifier: str) -> _Hit | None:
        if specifier.startswith("#"):
            return self._imports(st, project, here, specifier) if st.imports else None
        if st.exports:
            own = self._self_name(st, project, here, specifier)
            if own is not None:
                return own
        if ":" in specifier:
            return None
        name, rest = pkg.split_name(specifier)
        folder = self.packages.workspace(name, here)
        found = self._package(st, folder, rest) if folder is not None else None
        return found

    def _imports(self, st: State, project: Project, here: str, specifier: str) -> _Hit | None:
        """loadModuleFromImports: the nearest package.json's `imports`."""
        scope = self.packages.scope(here)
        manifest = self.packages.manifest(scope) if scope is not None else None
        if scope is None or manifest is None:
            return None

        def bare(spec: str) -> str | None:
            hit = self._attempt(st, project, posixpath.join(scope, "package.json"), spec)
            return hit.path if hit is not None else None

        found = self.loader.targets(st, pkg.import_targets(manifest, scope, specifier, st.conditions), bare)
        return _Hit(found, Category.IMPORTS) if found is not None else None

    def _self_name(self, st: State, project: Project, here: str, specifier: str) -> _Hit | None:
        """loadModuleFromSelfNameReference: a package importing itself by its name (through its `exports`)."""
        scope = self.packages.scope(here)
        manifest = self.packages.manifest(scope) if scope is not None else None
        if scope is None or manifest is None or "exports" not in manifest or not isinstance(manifest.get("name"), str):
            return None
        name = str(manifest["name"])
        if specifier != name and not specifier.startswith(name + "/"):
            return None
        subpath = "." + specifier[len(name):]
        passes = (st.exts,) if project.allow_js else (st.exts & TYPED, st.exts & ~TYPED)
        for exts in (e for e in passes if e):
            s = replace(st, exts=exts)
            found = self.loader.targets(s, pkg.export_targets(manifest, scope, subpath, s.conditions), lambda _: None)
            if found is not None:
                return _Hit(found, Category.SELF)
        return None

    def _package(self, st: State, folder: str, rest: str) -> _Hit | None:
        """loadModuleFromSpecificNodeModulesDirectory over a workspace package's folder (`exports` when it has them
        and the mode reads them, else its files, `typesVersions`, `types`/`main` and `index`)."""
        candidate = posixpath.join(folder, rest) if rest else folder
        manifest = self.packages.manifest(folder)
        nested = self.packages.manifest(candidate) if rest else None
        if manifest is not None and "exports" in manifest and st.exports:
            subpath = "./" + rest if rest else "."
            exported = self.loader.targets(st, pkg.export_targets(manifest, folder, subpath, st.conditions), lambda _: None)
            return _Hit(exported, Category.EXPORTS) if exported is not None else None
        found = self._package_files(st, folder, rest, candidate, manifest, nested)
        return _Hit(found, Category.WORKSPACE) if found is not None else None

    def _package_files(self, st: State, folder: str, rest: str, candidate: str, manifest: dict[str, Any] | None,
                       nested: dict[str, Any] | None) -> str | None:
        if nested is not None:  # `pkg/sub` with a package.json of its own
            return self.loader.file(st, candidate) or self.loader.directory(st, candidate, nested)

        def load(cand: str) -> str | None:
            found = self.loader.file(st, cand) if rest or not st.esm else None
            return found if found is not None else self.loader.directory(st, cand, manifest)

        versions = pkg.types_versions(manifest) if rest and manifest is not None else None
        if versions:
            found = self.loader.paths(rest, folder, versions, load)
            if found is not None:
                return found
        return load(candidate)

    # what an unresolved specifier is

    def _unresolved(self, project: Project, importer: str, specifier: str) -> Resolved:
        missing = Resolved(ImportStatus.UNRESOLVED, Category.MISSING, None)
        if specifier.startswith("#"):
            bare = self._imported_package(importer, specifier)
            return self._unresolved(project, importer, bare) if bare is not None else missing
        if _relative(specifier):
            return missing
        table = dict(project.paths)
        matched = match_key(table, specifier)
        # an alias of the repository's files (not `*`, not one into node_modules: `"react": ["./node_modules/@types/react"]`)
        if matched is not None and matched[0] != "*" and not all("node_modules" in t.split("/") for t in table[matched[0]]):
            return missing
        name, _ = pkg.split_name(specifier)
        if self.packages.workspace(name, posixpath.dirname(importer)) is not None:
            return missing
        scope = self.packages.scope(posixpath.dirname(importer))
        if scope is not None and (self.packages.manifest(scope) or {}).get("name") == name:
            return missing
        if any(specifier == a or specifier.startswith(a.rstrip("/") + "/") for a in self.aliases()):
            return Resolved(ImportStatus.UNRESOLVED, Category.BUNDLER_ALIAS, None)
        if name in _BUILTINS:
            return Resolved(ImportStatus.EXTERNAL, Category.BUILTIN, None)
        return Resolved(ImportStatus.EXTERNAL, Category.PACKAGE, None)

    def _imported_package(self, importer: str, specifier: str) -> str | None:
        """The package an `imports` entry maps a `#name` to (`"#dep": "some-package"`), if that is its first target."""
        scope = self.packages.scope(posixpath.dirname(importer))
        manifest = self.packages.manifest(scope) if scope is not None else None
        if scope is None or manifest is None:
            return None
        conditions = ("import", "require", "types", "node")
        first = next(iter(pkg.import_targets(manifest, scope, specifier, conditions)), None)
        return first.specifier if isinstance(first, pkg.Bare) and not first.specifier.startswith("#") else None

    def aliases(self) -> tuple[str, ...]:
        """The `alias` keys vite/webpack/babel configs define (read as text, never run)."""
        if self._aliases is None:
            keys: set[str] = set()
            bundler = sorted(p for p in self.files.sources | self.files.configs if _is_bundler_config(p))
            self.files.prefetch(bundler)  # a monorepo has a vite.config.ts per example: one read for them all
            for path in bundler:
                data = self.files.raw(path) or b""
                text = data.decode("utf-8", "replace")
                for block in re.finditer(r"alias(?:es)?\s*[:=]\s*[\[{]", text):
                    body = text[block.end(): block.end() + 4000]
                    depth, end = 1, 0
                    for end, ch in enumerate(body):
                        depth += ch in "[{"
                        depth -= ch in "]}"
                        if depth == 0:
                            break
                    keys.update(m.group(1) or m.group(2) for m in _ALIAS_KEY.finditer(body[:end]))
            self._aliases = tuple(sorted(k for k in keys if k and k not in ("find", "replacement", "alias")))
        return self._aliases

    # configs of packages, outputs of builds

    def _package_config(self, here: str, specifier: str) -> str | None:
        """`extends: "@org/tsconfig/base.json"` in a config of folder `here`: the config file of a workspace package."""
        name, rest = pkg.split_name(specifier)
        folder = self.packages.workspace(name, here)
        if folder is None:
            return None
        if rest:
            target = posixpath.join(folder, rest)
            return target if target.endswith(".json") or self.files.json(target, listed=False) is not None else target + ".json"
        field = (self.packages.manifest(folder) or {}).get("tsconfig")
        return posixpath.join(folder, str(field)) if isinstance(field, str) else posixpath.join(folder, "tsconfig.json")

    def _source_of(self, output: str) -> str | None:
        """A build output (`packages/a/dist/x.d.ts`) as its source without extension (`packages/a/src/x`), by the
        outDir and rootDir of the nearest config."""
        if output not in self._sources:
            self._sources[output] = self._mapped(output)
        return self._sources[output]

    def _mapped(self, output: str) -> str | None:
        stem, _ = remove_extension(output)
        for folder in _folders_up(posixpath.dirname(output)):
            project = self.projects.load(posixpath.join(folder, "tsconfig.json"))
            if project is None or project.out_dir is None:
                continue
            out = project.out_dir
            if not stem.startswith(out + "/"):
                return None
            root = project.root_dir if project.root_dir is not None else _single_folder(project) or project.folder
            return posixpath.join(root, stem[len(out) + 1:]) if root else stem[len(out) + 1:]
        return None


def _single_folder(project: Project) -> str | None:
    """The one folder a config includes (`include: ["src"]`), tsc's common source folder in that case."""
    folders = {p.split("*", 1)[0].rstrip("/") for p in project.include}
    return folders.pop() if len(folders) == 1 and project.files is None else None


def _folders_up(folder: str) -> Iterator[str]:
    while True:
        yield folder
        if not folder:
            return
        folder = posixpath.dirname(folder)
