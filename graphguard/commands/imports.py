"""`graphguard imports [PATH...]`: per import statement its specifier, kind, category and target."""

from __future__ import annotations

from collections.abc import Sequence

from graphguard import output
from graphguard.answers.imports import imports_answer
from graphguard.commands.printing import note_stale, write_compact, write_json
from graphguard.repo import fresh_answer, open_repo


def imports(repo_path: str, paths: Sequence[str], *, fmt: str = "text", compact: bool = False) -> int:
    repo = open_repo(repo_path)
    doc, fresh = fresh_answer(repo, lambda: imports_answer(repo, paths).to_json())
    if compact:
        return write_compact(doc)
    if fmt == "json":
        return write_json(doc)
    note_stale(fresh)
    lines = []
    for i in doc["imports"]:
        what = i["specifier"] + (f" {{{i['name']}}}" if i["name"] not in (None, "*") else "")
        how = "/".join(x for x in (i["kind"], i["category"]) if x)
        lines.append(f"{i['path']}:{i['line']}: {what}  {how}" + (f" -> {i['target']}" if i["target"] else ""))
    output.write("\n".join(lines) if lines else "# no imports")
    return 0
