"""The commit's files as module resolution sees them: the TS/JS sources, the config files, their parsed JSON.

Pure over `read` (a tracked file's bytes). `configs` lists the tsconfig/jsconfig/package.json/pnpm-workspace.yaml
paths of the commit; when a caller cannot list them (None), each folder of a source is probed through `read`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection
from typing import Any

from graphguard.languages.typescript import jsonc

#: The names a folder's config files have (tsc looks for these two, in this order).
PROJECT_NAMES = ("tsconfig.json", "jsconfig.json")
MANIFEST = "package.json"
PNPM_WORKSPACE = "pnpm-workspace.yaml"


def folders(path: str) -> list[str]:
    """A file's folders from its own up to the root ("")."""
    out = []
    d = posixpath.dirname(path)
    while True:
        out.append(d)
        if not d:
            return out
        d = posixpath.dirname(d)


class Files:
    """One commit's sources and config files, each config parsed once."""

    def __init__(self, sources: Collection[str], read: Callable[[str], bytes | None], configs: Collection[str] | None,
                 links: Collection[str] = (), assets: Collection[str] = (),
                 prefetch: Callable[[Collection[str]], None] | None = None):
        self.sources = frozenset(sources)
        self.links = frozenset(links)
        self.assets = frozenset(assets)  # files no language reads (`.json`, `.css`, `.vue`): an import may name one
        self._real: dict[str, str | None] = {}
        self._read = read
        self._json: dict[str, dict[str, Any] | None] = {}
        self._text: dict[str, str | None] = {}
        if configs is None:  # probe: every folder of a source may hold a config
            dirs = {d for p in self.sources for d in folders(p)}
            configs = [posixpath.join(d, n) for d in sorted(dirs) for n in (*PROJECT_NAMES, MANIFEST, PNPM_WORKSPACE)]
            configs = [c for c in configs if self.raw(c) is not None]
        self.configs = frozenset(configs)
        self._prefetch = prefetch
        self.prefetch(sorted(self.configs | self.links))

    def prefetch(self, paths: Collection[str]) -> None:
        """Read these files' bytes in one go, where the caller can (Tree.prefetch); `raw` then asks for each."""
        if self._prefetch is not None and paths:
            self._prefetch(paths)

    def is_file(self, path: str) -> bool:
        return path in self.sources or (path in self.links and self.real(path) in self.sources)

    def real(self, path: str) -> str | None:
        """A path with its symlinks followed (tsc reports a link's target); None for a link out of the repository."""
        if path not in self.links:
            return path
        if path not in self._real:
            self._real[path] = None  # a cycle of links leads nowhere
            data = self._read(path)
            text = data.decode("utf-8", "surrogateescape") if data is not None else ""
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), text)) if text and not text.startswith("/") else ""
            self._real[path] = self.real(target) if target and not target.startswith("..") else None
        return self._real[path]

    def raw(self, path: str) -> bytes | None:
        return self._read(path)

    def json(self, path: str, *, listed: bool = True) -> dict[str, Any] | None:
        """A config or manifest as an object; None when the commit has no such file or it does not parse. Only the
        listed config files are read (a manifest is asked for in every folder); `listed=False` reads any `.json`
        file (what an `extends` names: `configs/base.json`)."""
        if path not in self._json:
            wanted = path in self.configs or (not listed and path.endswith(".json"))
            self._json[path] = jsonc.loads_object(self._read(path)) if wanted else None
        return self._json[path]

    def text(self, path: str) -> str | None:
        if path not in self._text:
            data = self._read(path) if path in self.configs else None
            self._text[path] = data.decode("utf-8", "replace") if data is not None else None
        return self._text[path]

    def named(self, name: str) -> list[str]:
        """The config files of one name (`package.json`), sorted."""
        return sorted(c for c in self.configs if c.rpartition("/")[2] == name)
