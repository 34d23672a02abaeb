"""tsconfig.json/jsconfig.json as module resolution reads them: pure over `tree.Files`.

A file is governed by the nearest config (tsconfig.json before jsconfig.json, folder by folder up to the root) that
includes it, itself or through its `references` (a solution-style root lists its projects there); a file no config
includes takes the nearest config (lenient: an editor would too), else the defaults. `extends` (a relative path, a
workspace package's config, or an array merged in order) is followed; options that name paths are read relative to
the config that declares them, `${configDir}` relative to the config that governs.
"""

from __future__ import annotations

import enum
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphguard.languages.typescript import patterns
from graphguard.languages.typescript.tree import PROJECT_NAMES, Files, folders

#: `extends` chains longer than this are cut (a cycle is cut by the configs seen).
MAX_EXTENDS = 16
CONFIG_DIR = "${configDir}"
_DEFAULT_EXCLUDE = ("node_modules", "bower_components", "jspm_packages")
_TS_SOURCES = (".ts", ".tsx", ".mts", ".cts")
_JS_SOURCES = (".js", ".jsx", ".mjs", ".cjs")


class Mode(enum.Enum):
    """`moduleResolution`, as tsc derives it when a config does not say (from `module`, then `target`)."""

    NODE10 = "node10"
    NODE16 = "node16"  # node16 and nodenext
    BUNDLER = "bundler"
    CLASSIC = "classic"


@dataclass(frozen=True)
class Located:
    """A path-valued option and the folder of the config that declared it."""

    value: str
    base: str

    def resolve(self, governing: str) -> str:
        if self.value.startswith(CONFIG_DIR):
            return patterns.normal(governing, "." + self.value[len(CONFIG_DIR):])
        return patterns.normal(self.base, self.value)


@dataclass(frozen=True)
class Project:
    """The options of one config, its `extends` merged, its paths relative to the repository root."""

    path: str  # the config file ("" for the defaults)
    mode: Mode
    base_url: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> targets relative to the root (`*` kept)
    root_dirs: tuple[str, ...]
    module_suffixes: tuple[str, ...]
    conditions: tuple[str, ...]
    exports: bool
    imports: bool
    allow_js: bool
    files: tuple[str, ...] | None
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    references: tuple[str, ...]
    out_dir: str | None
    root_dir: str | None

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)

    def includes(self, path: str) -> bool:
        if not path.endswith(_TS_SOURCES) and not (self.allow_js and path.endswith(_JS_SOURCES)):
            return False
        if self.files is not None and path in self.files:
            return True
        return any(patterns.matches(p, path) for p in self.include) and not any(patterns.matches(p, path) for p in self.exclude)


DEFAULTS = Project("", Mode.NODE10, None, (), (), ("",), (), False, False, True, None, ("**/*",), _DEFAULT_EXCLUDE, (), None,
                   None)


def derive_mode(options: dict[str, Any]) -> Mode:
    """tsc's getEmitModuleResolutionKind: `moduleResolution`, else from `module`, else from `target`."""
    named = str(options.get("moduleResolution") or "").lower()
    if named in ("node", "node10"):
        return Mode.NODE10
    if named in ("node16", "nodenext"):
        return Mode.NODE16
    if named in ("bundler", "classic"):
        return Mode(named)
    module = str(options.get("module") or "").lower()
    if not module:
        target = str(options.get("target") or "es5").lower()
        module = "commonjs" if target in ("es3", "es5") else "es2015"
    if module == "commonjs":
        return Mode.NODE10
    if module in ("node16", "node18", "node20", "nodenext"):
        return Mode.NODE16
    return Mode.BUNDLER if module == "preserve" else Mode.CLASSIC


class Projects:
    """Every config of a commit, loaded when first asked; `governing(path)` per source file."""

    def __init__(self, files: Files, package_config: Callable[[str, str], str | None]):
        self.files = files
        self._package_config = package_config  # `extends: "@org/tsconfig/base.json"` -> the config's path
        self._projects: dict[str, Project | None] = {}
        self._governing: dict[str, Project] = {}
        self._declared: tuple[str, ...] | None = None

    def governing(self, path: str) -> Project:
        found = self._governing.get(path)
        if found is None:
            found = self._governing[path] = self._find(path)
        return found

    def _find(self, path: str) -> Project:
        nearest: Project | None = None
        for d in folders(path):
            for name in PROJECT_NAMES:
                project = self.load(posixpath.join(d, name))
                if project is None:
                    continue
                owner = self._owner(project, path, set())
                if owner is not None:
                    return owner
                nearest = nearest or project
        return nearest or DEFAULTS

    def _owner(self, project: Project, path: str, seen: set[str]) -> Project | None:
        if project.path in seen or len(seen) > 64:
            return None
        seen.add(project.path)
        if project.includes(path):
            return project
        for ref in project.references:
            child = self.load(ref, listed=False)
            owner = self._owner(child, path, seen) if child is not None else None
            if owner is not None:
                return owner
        return None

    def declared_conditions(self) -> tuple[str, ...]:
        """The `customConditions` of every tsconfig/jsconfig of the commit, in path order."""
        if self._declared is None:
            found: dict[str, None] = {}
            for path in sorted(c for c in self.files.configs if c.rpartition("/")[2].startswith(("tsconfig", "jsconfig"))):
                project = self.load(path)
                found.update(dict.fromkeys(project.conditions if project is not None else ()))
            self._declared = tuple(found)
        return self._declared

    def load(self, path: str, *, listed: bool = True) -> Project | None:
        """The config at `path` (`listed=False`: also one not named like a config, as `references` may name it)."""
        if path not in self._projects:
            self._projects[path] = None  # a cycle through references reads as no project
            self._projects[path] = self._build(path, listed)
        return self._projects[path]

    def _build(self, path: str, listed: bool) -> Project | None:
        raw = self.files.json(path, listed=listed)
        if raw is None:
            return None
        merged = self._merged(path, raw, 0, set())
        options: dict[str, Any] = merged["compilerOptions"]
        here = posixpath.dirname(path)
        base_url, out_dir = _located(options, "baseUrl", here), _located(options, "outDir", here)
        mode = derive_mode(options)
        exports_on = mode in (Mode.NODE16, Mode.BUNDLER)
        files, include, exclude = _membership(merged, here, out_dir)
        return Project(
            path, mode, base_url, _paths(options, here, base_url),
            tuple(r.resolve(here) for r in options.get("rootDirs", ()) if isinstance(r, Located)),
            _strings(options.get("moduleSuffixes")) or ("",), _strings(options.get("customConditions")),
            bool(options.get("resolvePackageJsonExports", exports_on)), bool(options.get("resolvePackageJsonImports", exports_on)),
            bool(options.get("allowJs", path.endswith("jsconfig.json"))), files, include, exclude,
            tuple(self._reference(here, r) for r in merged.get("references", ())), out_dir, _located(options, "rootDir", here))

    def _reference(self, here: str, ref: str) -> str:
        target = patterns.normal(here, ref)
        return target if target.endswith(".json") else posixpath.join(target, "tsconfig.json")

    def _merged(self, path: str, raw: dict[str, Any], depth: int, seen: set[str]) -> dict[str, Any]:
        """The config's own settings over those of its `extends` (in order); path-valued ones `Located`."""
        seen.add(path)
        here = posixpath.dirname(path)
        out: dict[str, Any] = {"compilerOptions": {}}
        bases = raw.get("extends")
        for base in ([bases] if isinstance(bases, str) else bases if isinstance(bases, list) else []):
            target = self._extends(here, base) if isinstance(base, str) else None
            base_raw = self.files.json(target, listed=False) if target is not None and target not in seen and depth < MAX_EXTENDS else None
            if target is not None and base_raw is not None:
                inherited = self._merged(target, base_raw, depth + 1, seen)
                out["compilerOptions"].update(inherited["compilerOptions"])
                out.update({k: v for k, v in inherited.items() if k in ("files", "include", "exclude")})
        options = raw.get("compilerOptions")
        for key, value in (options.items() if isinstance(options, dict) else ()):
            if key in ("baseUrl", "outDir", "rootDir") and isinstance(value, str):
                out["compilerOptions"][key] = Located(value, here)
            elif key == "rootDirs" and isinstance(value, list):
                out["compilerOptions"][key] = [Located(v, here) for v in value if isinstance(v, str)]
            elif key == "paths" and isinstance(value, dict):
                out["compilerOptions"]["__paths"] = (value, here)
            else:
                out["compilerOptions"][key] = value
        for key in ("files", "include", "exclude"):
            if isinstance(raw.get(key), list):
                out[key] = [Located(v, here) for v in raw[key] if isinstance(v, str)]
        refs = raw.get("references")
        out["references"] = [r["path"] for r in refs if isinstance(r, dict) and isinstance(r.get("path"), str)] if isinstance(
            refs, list) else []
        return out

    def _extends(self, here: str, base: str) -> str | None:
        if base.startswith(CONFIG_DIR):
            base = "." + base[len(CONFIG_DIR):]
        if base.startswith(("./", "../", "/")) or base in (".", ".."):
            target = patterns.normal(here, base.lstrip("/") if base.startswith("/") else base)
            if not target.endswith(".json") and self.files.json(target, listed=False) is None:
                target += ".json"
            return target
        return self._package_config(here, base)


def _located(options: dict[str, Any], key: str, here: str) -> str | None:
    value = options.get(key)
    return value.resolve(here) if isinstance(value, Located) else None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _paths(options: dict[str, Any], here: str, base_url: str | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`paths`, each target relative to the root: against `baseUrl`, else the config that declared `paths`."""
    if not isinstance(options.get("__paths"), tuple):
        return ()
    table, declared = options["__paths"]
    base = base_url if base_url is not None else declared
    return tuple((k, tuple(Located(t, base).resolve(here) for t in v if isinstance(t, str)))
                 for k, v in table.items() if isinstance(v, list))


def _membership(merged: dict[str, Any], here: str,
                out_dir: str | None) -> tuple[tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]]:
    """`files`, `include` (default: everything below the config, none when `files` is given) and `exclude`
    (default: node_modules and its kin, and outDir), relative to the root."""
    files, include, exclude = merged.get("files"), merged.get("include"), merged.get("exclude")
    listed = tuple(f.resolve(here) for f in files) if files is not None else None
    if include is not None:
        included = tuple(i.resolve(here) for i in include)
    else:
        included = () if files is not None else (patterns.normal(here, "**/*"),)
    if exclude is not None:
        excluded = tuple(e.resolve(here) for e in exclude)
    else:
        excluded = tuple(patterns.normal(here, e) for e in _DEFAULT_EXCLUDE) + ((out_dir,) if out_dir else ())
    return listed, included, excluded
