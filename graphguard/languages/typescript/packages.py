"""package.json as module resolution reads it: workspaces, `exports`/`imports` targets, `typesVersions`. Pure.

Workspace packages (root `package.json` `workspaces`, `pnpm-workspace.yaml` `packages`) are found by their
manifests, name -> folder, without node_modules. `exports`/`imports` targets are yielded in the order tsc tries
them: a matched condition whose target file is missing falls through to the next one, an array tries each element,
a `null` target stops the search.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from graphguard.languages.typescript import patterns
from graphguard.languages.typescript.tree import MANIFEST, PNPM_WORKSPACE, Files, folders

#: The compiler version `typesVersions` and `types@<range>` conditions are matched against.
TS_VERSION = (5, 9)
MAX_TARGET_DEPTH = 32


@dataclass(frozen=True)
class Bare:
    """An `imports` target that is itself a package specifier (`"#dep": "some-package"`)."""

    specifier: str


@dataclass(frozen=True)
class Blocked:
    """A `null` target: the subpath is explicitly not exported."""


Target = str | Bare | Blocked


def split_name(specifier: str) -> tuple[str, str]:
    """`@scope/pkg/sub/path` -> (`@scope/pkg`, `sub/path`); `pkg` -> (`pkg`, "")."""
    parts = specifier.split("/")
    n = 2 if specifier.startswith("@") and len(parts) > 1 else 1
    return "/".join(parts[:n]), "/".join(parts[n:])


class Packages:
    """The manifests of one commit."""

    def __init__(self, files: Files):
        self.files = files
        self._workspaces: dict[str, dict[str, str]] | None = None

    def manifest(self, folder: str) -> dict[str, Any] | None:
        return self.files.json(posixpath.join(folder, MANIFEST))

    def scope(self, folder: str) -> str | None:
        """The folder of the nearest package.json at or above `folder`."""
        for d in [folder, *folders(folder)] if folder else [""]:
            if self.manifest(d) is not None:
                return d
        return None

    def workspace(self, name: str, importer: str) -> str | None:
        """The folder of the workspace package so named, as node_modules would hold it for a file of `importer`'s
        folder: the packages of the workspace roots above it, the nearest root first (a template with a workspace of
        its own sees its own packages)."""
        if self._workspaces is None:
            self._workspaces = self._collect()
        for root in [importer, *folders(importer)] if importer else [""]:
            found = self._workspaces.get(root, {}).get(name)
            if found is not None:
                return found
        return None

    def _globs(self) -> dict[str, list[str]]:
        """Workspace root folder -> its package globs (relative to the repository root)."""
        out: dict[str, list[str]] = {}
        for manifest in self.files.named(MANIFEST):
            data = self.files.json(manifest) or {}
            ws = data.get("workspaces")
            listed = ws.get("packages") if isinstance(ws, dict) else ws
            base = posixpath.dirname(manifest)
            if isinstance(listed, list):
                out.setdefault(base, []).extend(_joined(base, g) for g in listed if isinstance(g, str))
        for yaml in self.files.named(PNPM_WORKSPACE):
            base = posixpath.dirname(yaml)
            out.setdefault(base, []).extend(_joined(base, g) for g in pnpm_packages(self.files.text(yaml) or ""))
        return out

    def _collect(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        manifests = [posixpath.dirname(m) for m in self.files.named(MANIFEST)]
        for root, globs in self._globs().items():
            keep = [g for g in globs if not g.startswith("!")]
            drop = [g[1:] for g in globs if g.startswith("!")]
            names = out.setdefault(root, {})
            for folder in manifests:
                if "node_modules" in folder.split("/"):
                    continue
                if not any(patterns.matches_folder(g, folder) for g in keep) or any(patterns.matches_folder(g, folder) for g in drop):
                    continue
                name = (self.manifest(folder) or {}).get("name")
                if isinstance(name, str) and name not in names:
                    names[name] = folder
        return out


def _joined(base: str, glob: str) -> str:
    neg = glob.startswith("!")
    body = glob[1:] if neg else glob
    return ("!" if neg else "") + patterns.normal(base, body.rstrip("/"))


def pnpm_packages(text: str) -> list[str]:
    """The `packages:` list of a pnpm-workspace.yaml (block or flow style; quotes stripped)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        bare = line.split(" #", 1)[0].rstrip()
        if not bare.strip() or bare.lstrip().startswith("#"):
            continue
        if not line[:1].isspace():
            inside = bare.startswith("packages:")
            flow = bare.partition(":")[2].strip()
            if inside and flow.startswith("["):
                out += [x.strip().strip("'\"") for x in flow.strip("[]").split(",") if x.strip()]
            continue
        item = bare.strip()
        if inside and item.startswith("- "):
            out.append(item[2:].strip().strip("'\""))
    return out


# --- exports and imports -------------------------------------------------------------------------------------------


def _version_ok(spec: str) -> bool:
    """A `typesVersions` key or `types@` range against TS_VERSION (`*`, `>=4.2`, `<5`, `>=3.1 <4`, `a || b`)."""
    for alternative in spec.split("||"):
        ok = True
        for part in alternative.split():
            m = re.fullmatch(r"(>=|<=|>|<|=)?v?(\d+)(?:\.(\d+))?(?:\.\d+)?(?:\.x)?", part)
            if part == "*":
                continue
            if m is None:
                ok = False
                break
            op, want = m.group(1) or "=", (int(m.group(2)), int(m.group(3) or 0))
            ok = ok and {">=": TS_VERSION >= want, "<=": TS_VERSION <= want, ">": TS_VERSION > want, "<": TS_VERSION < want,
                         "=": TS_VERSION[: 1 if m.group(3) is None else 2] == want[: 1 if m.group(3) is None else 2]}[op]
        if ok:
            return True
    return False


def types_versions(manifest: dict[str, Any]) -> dict[str, list[str]] | None:
    """The `paths` of the first `typesVersions` entry whose range matches the compiler."""
    table = manifest.get("typesVersions")
    if not isinstance(table, dict):
        return None
    for key, paths in table.items():
        if isinstance(paths, dict) and _version_ok(str(key)):
            return {k: v if isinstance(v, list) else [v] for k, v in paths.items() if isinstance(v, (list, str))}
    return None


def _pattern_order(key: str) -> tuple[int, int]:
    star = key.find("*")
    prefix = star + 1 if star >= 0 else len(key)
    return (-prefix, -len(key))


def _lookup(subpath: str, table: dict[str, Any]) -> tuple[Any, str, bool] | None:
    """The entry of `table` a subpath matches: (target, what `*` stands for, pattern), tsc's order of keys."""
    if not subpath.endswith("/") and "*" not in subpath and subpath in table:
        return table[subpath], "", False
    for key in sorted((k for k in table if k.count("*") == 1 or k.endswith("/")), key=_pattern_order):
        star = key.find("*")
        if star >= 0 and not key.endswith("*"):
            head, tail = key[:star], key[star + 1:]
            if subpath.startswith(head) and subpath.endswith(tail) and len(subpath) >= len(head) + len(tail):
                return table[key], subpath[len(head): len(subpath) - len(tail)], True
        elif star >= 0:
            if subpath.startswith(key[:-1]):
                return table[key], subpath[len(key) - 1:], True
        elif subpath.startswith(key):
            return table[key], subpath[len(key):], False
    return None


def _main_export(exports: Any) -> Any:
    """`exports` as the `.` entry when it is sugar for it (a string, an array, an object of conditions only)."""
    if isinstance(exports, (str, list)):
        return {".": exports}
    if isinstance(exports, dict) and not any(str(k).startswith(".") for k in exports):
        return {".": exports}
    return exports if isinstance(exports, dict) else {}


def export_targets(manifest: dict[str, Any], folder: str, subpath: str, conditions: Sequence[str]) -> Iterator[Target]:
    """The files `exports` maps `./subpath` (`.` for the package itself) to, in the order they are tried."""
    found = _lookup(subpath, _main_export(manifest.get("exports")))
    if found is not None:
        yield from _targets(found[0], folder, found[1], found[2], conditions, imports=False, depth=0)


def import_targets(manifest: dict[str, Any], folder: str, specifier: str, conditions: Sequence[str]) -> Iterator[Target]:
    """The targets of a `#name` specifier in the package's `imports`."""
    table = manifest.get("imports")
    found = _lookup(specifier, table) if isinstance(table, dict) else None
    if found is not None:
        yield from _targets(found[0], folder, found[1], found[2], conditions, imports=True, depth=0)


def _targets(target: Any, folder: str, star: str, pattern: bool, conditions: Sequence[str], *, imports: bool,
             depth: int) -> Iterator[Target]:
    if depth > MAX_TARGET_DEPTH:
        return
    if target is None:
        yield Blocked()
    elif isinstance(target, str):
        yield from _string_target(target, folder, star, pattern, imports=imports)
    elif isinstance(target, list):
        for element in target:
            yield from _targets(element, folder, star, pattern, conditions, imports=imports, depth=depth + 1)
    elif isinstance(target, dict):
        for condition, sub in target.items():
            if condition == "default" or condition in conditions or _versioned(condition, conditions):
                yield from _targets(sub, folder, star, pattern, conditions, imports=imports, depth=depth + 1)


def _versioned(condition: str, conditions: Sequence[str]) -> bool:
    name, at, spec = condition.partition("@")
    return bool(at) and name == "types" and "types" in conditions and _version_ok(spec)


def _string_target(target: str, folder: str, star: str, pattern: bool, *, imports: bool) -> Iterator[Target]:
    if not pattern and star and not target.endswith("/"):
        return
    if not target.startswith("./"):
        if imports and not target.startswith(("../", "/")):
            yield Bare(target.replace("*", star) if pattern else target + star)
        return
    inner = target[2:].split("/")
    if any(p in ("..", ".", "node_modules") for p in inner) or any(p in ("..", ".", "node_modules") for p in star.split("/")):
        return
    joined = target.replace("*", star) if pattern else target + star
    yield patterns.normal(folder, joined)
