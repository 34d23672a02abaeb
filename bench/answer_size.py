"""The size of every MCP tool's answer on real repositories: default, verbose, minified, compact (issue 22 §2).

    python bench/answer_size.py [--work DIR] [--only django,ansible,pydantic]

Each repository is its sdist (pip download, bench/common.sdist_tree) made a one-commit git repository under
--work (default /tmp/answer-size: its working tree is edited for the `check` cases and restored after each),
indexed first. Each answer is what the MCP server returns: `graphguard.server.tools.call` over one
`Session`, as the stdio server calls it, measured as the server writes it (JSON without indentation):

- default: the answer an agent gets (`summary` first, what to act on listed, the rest counted);
- verbose: `verbose: true`, the CLI's `--format json` document whole with `summary` first;
- compact: `compact: true` of each, and the saving against the same answer minified (`1 - compact/min`);
  every compact answer is checked to expand exactly to its full one.

Cases per repository: check_edit adding an optional parameter to a function with many callers (passes), and a
required one (blocks); check of the working tree with the required parameter written; callers and impact of
that function; context for a task; related of its file; outline of its package. Prints a row per answer,
then per tool the medians over the repositories, the CPU time of the answers, the machine's load and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common import git, one_commit_repo, sdist_tree

from graphguard.repo import ensure_current
from graphguard.report.compact import expand
from graphguard.server.session import Session
from graphguard.server.tools import call


@dataclass(frozen=True)
class Target:
    """A repository and the function with many callers whose signature the check cases change."""

    name: str
    spec: str  # name==version of its sdist
    path: str
    old: str  # the text of the signature's end, as written
    optional: str  # the same with an optional parameter added
    required: str  # the same with a required one added
    symbol: str
    task: str
    package: str


TARGETS = (
    Target("django", "django==5.2.8", "django/utils/timezone.py", "def now():", "def now(tz=None):", "def now(tz):",
           "django.utils.timezone.now", "Make timezone.now accept a time zone to convert the current time to",
           "django/utils"),
    Target("ansible", "ansible_core==2.19.14", "lib/ansible/utils/display.py",
           '        obj: t.Any = None\n    ) -> None:\n        """Display a warning message."""',
           '        obj: t.Any = None,\n        stacklevel: int = 1,\n    ) -> None:\n        """Display a warning message."""',
           '        obj: t.Any = None,\n        stacklevel: int,\n    ) -> None:\n        """Display a warning message."""',
           "ansible.utils.display.Display.warning", "Display warnings with the caller's stack level",
           "lib/ansible/utils"),
    Target("pydantic", "pydantic==2.12.5", "pydantic/main.py",
           "        by_name: bool | None = None,\n    ) -> Self:\n        \"\"\"Validate a pydantic model instance.",
           "        by_name: bool | None = None,\n        coerce: bool = False,\n    ) -> Self:\n        \"\"\"Validate a pydantic model instance.",
           "        by_name: bool | None = None,\n        coerce: bool,\n    ) -> Self:\n        \"\"\"Validate a pydantic model instance.",
           "pydantic.main.BaseModel.model_validate", "Validate a model instance from attributes with a strict mode",
           "pydantic"),
)


def _bytes(doc: Any) -> int:
    return len(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode())


def _steady(doc: dict[str, Any]) -> dict[str, Any]:
    doc.get("stats", {}).pop("elapsed_ms", None)
    return doc


def _proposal(session: Session, t: Target, new: str) -> dict[str, Any]:
    with open(os.path.join(session.root, t.path), encoding="utf-8") as f:
        text = f.read()
    if text.count(t.old) != 1:
        raise SystemExit(f"{t.name}: {t.path} does not hold {t.old!r} once: another version?")
    return {"files": {t.path: text.replace(t.old, new)}}


def _worktree_check(session: Session, t: Target) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def answer(extra: dict[str, Any]) -> dict[str, Any]:
        full = os.path.join(session.root, t.path)
        text = _proposal(session, t, t.required)["files"][t.path]
        try:
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
            return call(session, "check", extra)
        finally:
            git(session.root, "checkout", "--", t.path)
    return answer


def cases(session: Session, t: Target) -> list[tuple[str, str, Callable[[dict[str, Any]], dict[str, Any]]]]:
    def tool(name: str, args: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        return lambda extra: call(session, name, {**args, **extra})

    return [
        ("check_edit", "optional param (pass)", tool("check_edit", _proposal(session, t, t.optional))),
        ("check_edit", "required param (block)", tool("check_edit", _proposal(session, t, t.required))),
        ("check", "worktree, required param", _worktree_check(session, t)),
        ("callers", t.symbol.rsplit(".", 1)[-1], tool("callers", {"symbol": t.symbol})),
        ("impact", t.symbol.rsplit(".", 1)[-1], tool("impact", {"symbol": t.symbol})),
        ("context", t.task[:30], tool("context", {"task": t.task})),
        ("related", t.path, tool("related", {"targets": [t.path]})),
        ("outline", t.package, tool("outline", {"paths": [t.package]})),
    ]


@dataclass(frozen=True)
class Row:
    repo: str
    tool: str
    case: str
    default: int
    verbose: int
    compact: int
    compact_verbose: int
    cpu_ms: float

    @property
    def saving(self) -> float:
        return 1 - self.compact / self.default

    @property
    def saving_verbose(self) -> float:
        return 1 - self.compact_verbose / self.verbose


def measure(t: Target, work: str) -> list[Row]:
    dest = os.path.join(work, t.name)
    if not os.path.isdir(os.path.join(dest, ".git")):
        one_commit_repo(sdist_tree(t.spec), dest)
    session = Session(dest)
    ensure_current(session.repo, progress=False)
    rows = []
    for tool, case, answer in cases(session, t):
        c0 = time.process_time()
        default = answer({})
        cpu_ms = (time.process_time() - c0) * 1000
        verbose = answer({"verbose": True})
        small, small_verbose = answer({"compact": True}), answer({"verbose": True, "compact": True})
        for full, short in ((default, small), (verbose, small_verbose)):
            if _steady(expand(short)) != _steady(dict(full)):
                raise SystemExit(f"{t.name} {tool} {case}: the compact answer does not expand to the full one")
        rows.append(Row(t.name, tool, case, _bytes(default), _bytes(verbose), _bytes(small), _bytes(small_verbose), cpu_ms))
        print(f"  {t.name} {tool} {case}: {rows[-1].default} B", flush=True)
    session.close()
    return rows


def _kb(n: float) -> str:
    return f"{n / 1000:.1f} KB" if n >= 1000 else f"{n:.0f} B"


def report(rows: list[Row]) -> None:
    print(f"\n{platform.node()} {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f},"
          f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}\n")
    print("| repo | tool | case | default | verbose | compact | saving | compact verbose | saving verbose | CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.repo} | {r.tool} | {r.case} | {_kb(r.default)} | {_kb(r.verbose)} | {_kb(r.compact)} | {r.saving:.0%} |"
              f" {_kb(r.compact_verbose)} | {r.saving_verbose:.0%} | {r.cpu_ms:.0f} ms |")
    print("\nmedians over the repositories, per tool (bytes as the server writes them; saving = 1 - compact/minified)\n")
    print("| tool | default | verbose | compact saving | compact saving, verbose | lowest saving |")
    print("|---|---|---|---|---|---|")
    for tool in dict.fromkeys(r.tool for r in rows):
        of = [r for r in rows if r.tool == tool]
        med = statistics.median
        print(f"| {tool} | {_kb(med(r.default for r in of))} | {_kb(med(r.verbose for r in of))} |"
              f" {med(r.saving for r in of):.0%} | {med(r.saving_verbose for r in of):.0%} |"
              f" {min(min(r.saving, r.saving_verbose) for r in of):.0%} |")
    print(f"\nload after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default="/tmp/answer-size", help="where the repositories are made (their work trees are edited)")
    parser.add_argument("--only", default="", help="comma-separated repository names (default: all)")
    args = parser.parse_args()
    only = {n for n in args.only.split(",") if n}
    os.makedirs(args.work, exist_ok=True)
    rows: list[Row] = []
    for t in TARGETS:
        if not only or t.name in only:
            print(f"{t.name}: {t.spec}", flush=True)
            rows += measure(t, args.work)
    report(rows)


if __name__ == "__main__":
    main()
