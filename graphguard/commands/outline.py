"""`graphguard outline PATH...`: the definitions of files or package folders, with signatures and docstrings, no bodies."""

from __future__ import annotations

from collections.abc import Sequence

from graphguard import output
from graphguard.answers.outline import outline_answer
from graphguard.commands.printing import note_stale, write_compact, write_json
from graphguard.repo import fresh_answer, open_repo


def outline(repo_path: str, paths: Sequence[str], *, fmt: str = "text", compact: bool = False) -> int:
    repo = open_repo(repo_path)
    doc, fresh = fresh_answer(repo, lambda: outline_answer(repo, paths).to_json())
    for w in doc["warnings"]:
        output.warn(f"{w['path']}: {w['message']}")
    if compact:
        return write_compact(doc)
    if fmt == "json":
        return write_json(doc)
    note_stale(fresh)
    from graphguard.report.printable import one_line

    lines: list[str] = []
    for f in doc["files"]:
        about = f"  {f['docstring']}" if f["docstring"] else ""
        lines.append(f"{f['path']}  ({f['module']}){about}")
        for d in f["definitions"]:
            indent = "  " * (1 + d["name"].count("."))
            decorators = "".join(f"@{x} " for x in d["decorators"])
            doc_line = f"  # {d['docstring']}" if d["docstring"] else ""
            lines.append(f"{indent}{d['line']}: {decorators}{d['signature']}{doc_line}")
    lines += [f"# {n}" for n in doc["notes"]]
    output.write("\n".join(one_line(x) for x in lines) if lines else "# no definitions")
    return 0
