"""The second compiler's word on imports: tsgo's (TypeScript 7) `--traceResolution` against tsc 5's API answers.

tsgo has no JavaScript API, so its resolutions are read from the trace of `tsc -p CONFIG --listFilesOnly
--traceResolution --singleThreaded --allowJs` (program creation only, no type check; one thread so that each
"Resolving module" line is followed by its own outcome).
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

START = re.compile(r"^======== Resolving module '(.+)' from '(.+)'\. ========$")
DONE = re.compile(r"^======== Module name '(.+)' was (successfully resolved to '(.+?)'(?: with Package ID '.+')?|not resolved)"
                  r"\. ========$")


def parse_trace(text: str, repo: str) -> dict[tuple[str, str], str | None]:
    """(file, specifier) -> the repository file it resolved to, or None (external or unresolved)."""
    out: dict[tuple[str, str], str | None] = {}
    current: tuple[str, str] | None = None
    for line in text.splitlines():
        if m := START.match(line):
            current = (os.path.relpath(m.group(2), repo), m.group(1))
        elif (m := DONE.match(line)) and current and m.group(1) == current[1]:
            target = os.path.realpath(m.group(3)) if m.group(3) else None
            inside = target is not None and not os.path.relpath(target, repo).startswith("..") and "/node_modules/" not in target
            out[current] = os.path.relpath(target, repo) if inside and target else None
            current = None
    return out


def tsgo_imports(tsc: str, repo: str, projects: list[list[str]]) -> dict[tuple[str, str], str | None]:
    """Every project's trace; where two projects resolve the same file's specifier, the first (nearest) wins."""
    found: dict[tuple[str, str], str | None] = {}
    for project in projects:
        done = subprocess.run([tsc, *project, "--listFilesOnly", "--traceResolution", "--singleThreaded", "--allowJs"],
                              cwd=repo, capture_output=True, text=True)
        for key, target in parse_trace(done.stdout, repo).items():
            found.setdefault(key, target)
    return found


def agreement(tsc5: list[dict[str, Any]], tsgo: dict[tuple[str, str], str | None]) -> dict[str, Any]:
    """On the (file, specifier) pairs both compilers resolved: how often they pick the same file."""
    same, differ, examples = 0, 0, []
    for i in tsc5:
        key = (i["path"], i["specifier"])
        if key not in tsgo:
            continue
        if tsgo[key] == i["target"]:
            same += 1
        else:
            differ += 1
            if len(examples) < 5:
                examples.append(f"{key[0]}: {key[1]!r} tsc5={i['target']} tsgo={tsgo[key]}")
    return {"compared": same + differ, "same": same, "differ": differ, "examples": examples,
            "tsc5_only": sum(1 for i in tsc5 if (i["path"], i["specifier"]) not in tsgo)}
