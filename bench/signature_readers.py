"""The signature model's two readers compared over every Python file of a repository, and spans against whole modules.

    python bench/signature_readers.py DIR [--no-libcst] [--limit N]

DIR's files are read as text (never imported). For each file: does the ast reader give
the model the LibCST reader gives (the target is no difference), does reading spans give
what reading the whole module gives (for all definitions at once, and for each alone),
and how many span reads fell back to the whole module. Prints counts, the first
differences, both readers' total times and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import load_line

from graphguard.languages.python import signature
from graphguard.languages.python.sigread import ast_reader
from graphguard.languages.python.sigread.records import NotRead
from tests.signature_readers import readers_differ, spans_differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--no-libcst", action="store_true", help="spans only: skip the (slow) reader comparison")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    paths = sorted(os.path.join(d, f) for d, dirs, names in os.walk(args.dir) if ".git" not in d for f in names if f.endswith(".py"))
    if args.limit:
        paths = paths[:args.limit]
    counts = {"files": 0, "unreadable": 0, "reader differences": 0, "span differences": 0, "span fallbacks": 0}
    seconds = {"ast": 0.0, "cst": 0.0}
    shown = 0
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError:
            counts["unreadable"] += 1
            continue
        counts["files"] += 1
        if counts["files"] % 250 == 0:
            print(f"... {counts['files']} files", file=sys.stderr, flush=True)
        for reader, fn in (("ast", ast_reader.read), ("cst", None if args.no_libcst else signature.cst_read)):
            if fn is None:
                continue
            t = time.perf_counter()
            try:
                signature.read(source, reader=fn)
            except (signature.SignatureParseError, NotRead):  # ast's NotRead: LibCST would read it
                pass
            seconds[reader] += time.perf_counter() - t
        problems = []
        if not args.no_libcst and (d := readers_differ(source)) is not None:
            counts["reader differences"] += 1
            problems.append(f"readers: {d}")
        d, fallbacks = spans_differ(source)
        counts["span fallbacks"] += fallbacks
        if d is not None:
            counts["span differences"] += 1
            problems.append(f"spans: {d}")
        for p in problems:
            if shown < 20:
                print(f"{os.path.relpath(path, args.dir)}: {p}"[:600])
                shown += 1
    for name, n in counts.items():
        print(f"{name:<20} {n:>8}")
    print(f"read whole: ast {seconds['ast']:.1f} s, libcst {seconds['cst']:.1f} s")
    print(load_line())


if __name__ == "__main__":
    main()
