"""Size of compact answers against full ones, on real answers of a real repository (Django 5.2.8 by default).

    python bench/compact_size.py REPO

REPO is a git repository holding Django 5.2.8 (a COPY: the script edits its working tree for the
check answers, and restores the file after each). It is indexed first. Each answer is built in this
process by graphguard.answers (what `--format json` prints and the MCP tools return), then measured as
the CLI prints it (`--format json`: indented), minified (the same document without whitespace) and
compact (`--compact`). Tokens are approximated: bytes / 4 (the byte columns), and a count of runs of
letters or digits, of each other non-space character, and of each line break with the indentation after
it (a BPE tokenizer splits JSON keys, paths and names about there, and takes an indentation run as one
token; it splits long words further, so the count is low). No tokenizer library is assumed. Prints a table, the median
saving, the machine's load and the date.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from common import git

from graphguard.answers import callers, check, context, impact, outline, stats
from graphguard.repo import Repo, ensure_current, open_repo
from graphguard.report import indented
from graphguard.report.compact import compact, expand

#: (file, the `def` line as written, the new one): required parameters added, so every call breaks.
SIGNATURE_CHANGES = [
    ("django/urls/base.py", "def reverse(\n    viewname,", "def reverse(\n    viewname,\n    request_ctx,"),
    ("django/utils/timezone.py", "def now():", "def now(tz):"),
]
CALLERS = ["django.urls.base.reverse", "django.core.management.call_command", "django.utils.timezone.now",
           "django.utils.text.slugify"]
IMPACT = ["django.utils.text.slugify", "django.utils.timezone.now"]
TASKS = ["Make slugify keep unicode letters when allow_unicode is set",
         "QuerySet.bulk_create should set primary keys on PostgreSQL when ignore_conflicts is used",
         "The admin changelist search should escape the lookup separator in search fields"]
RELATED = [["django/utils/timezone.py"], ["django.db.models.query.QuerySet.bulk_create"]]
OUTLINES = [["django/utils/timezone.py"], ["django/db/models"], ["django/contrib/auth"]]

_TOKEN = re.compile(r"[A-Za-z0-9]+|\n *|[^\sA-Za-z0-9]")


def tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def check_answer(repo: Repo, path: str, old: str, new: str) -> dict[str, Any]:
    from graphguard.check import run

    full = os.path.join(repo.root, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if old not in text:
        raise SystemExit(f"{path} has no {old!r}: is this Django 5.2.8?")
    try:
        with open(full, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))
        return check.check_document(run(repo, worktree=True))
    finally:
        git(repo.root, "checkout", "--", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", help="a COPY of Django 5.2.8 as a git repository (its working tree is edited)")
    args = parser.parse_args()
    repo = open_repo(args.repo)
    t = time.perf_counter()
    ensure_current(repo, progress=False)
    print(f"graph current in {time.perf_counter() - t:.1f} s")

    cases: list[tuple[str, Callable[[], dict[str, Any]]]] = []
    for path, old, new in SIGNATURE_CHANGES:
        cases.append((f"check: required param added to {path}", lambda p=path, o=old, n=new: check_answer(repo, p, o, n)))
    cases += [(f"callers {s}", lambda s=s: callers.callers_document(repo, s)) for s in CALLERS]
    cases += [(f"impact {s} (depth 2)", lambda s=s: impact.impact_document(repo, s)) for s in IMPACT]
    cases += [(f"context {t[:40]!r}", lambda t=t: context.context_document(repo, t)) for t in TASKS]
    cases += [(f"related {' '.join(r)}", lambda r=r: context.related_document(repo, r)) for r in RELATED]
    cases += [(f"outline {' '.join(o)}", lambda o=o: outline.outline_document(repo, o)) for o in OUTLINES]
    cases.append(("stats", lambda: stats.stats_document(repo)))

    rows = []
    for name, build in cases:
        doc = build()
        small = compact(doc)
        assert expand(small) == doc, f"{name}: the compact answer does not expand to the full one"
        pretty = indented.dumps(doc)
        minified = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        short = json.dumps(small, separators=(",", ":"), ensure_ascii=False)
        rows.append((name, len(pretty.encode()), len(minified.encode()), len(short.encode()),
                     tokens(pretty), tokens(minified), tokens(short)))

    print(f"\n{platform.node()} {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f},"
          f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {platform.python_version()}\n")
    head = ("answer", "full B", "min B", "compact B", "saving", "vs min", "tok full", "tok compact", "tok saving")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    savings, vs_min, tok_savings, tok_vs_min = [], [], [], []
    for name, pretty_b, min_b, short_b, pretty_t, min_t, short_t in rows:
        s, m, ts = 1 - short_b / pretty_b, 1 - short_b / min_b, 1 - short_t / pretty_t
        savings.append(s)
        vs_min.append(m)
        tok_savings.append(ts)
        tok_vs_min.append(1 - short_t / min_t)
        print(f"| {name} | {pretty_b} | {min_b} | {short_b} | {s:.0%} | {m:.0%} | {pretty_t} | {short_t} | {ts:.0%} |")
    print(f"\nmedian saving, bytes: {statistics.median(savings):.0%} against the CLI's JSON (indented),"
          f" {statistics.median(vs_min):.0%} against the same JSON minified")
    print(f"median saving, tokens (runs counted as above; bytes/4 gives the byte figures):"
          f" {statistics.median(tok_savings):.0%} against the CLI's JSON, {statistics.median(tok_vs_min):.0%} against minified")


if __name__ == "__main__":
    main()
