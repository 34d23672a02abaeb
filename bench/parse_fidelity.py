"""Parser fidelity: graphguard's syntax-error warnings against `ast.parse` on real corpora.

For every `.py` file of Django 5.2.8, sqlalchemy (its sdist) and the standard library of the
Python running this script, graphguard's parser (languages/python.py, what the indexer stores)
must report a syntax error exactly when `ast.parse` fails: a false one makes a valid file's
facts "partial" (callers missed), a missed one lets a broken file through as if it were read.

    python bench/parse_fidelity.py [--django DIR] [--sqlalchemy DIR] [--no-stdlib] [--list]

Downloads go to bench/.cache (`pip download --no-deps --no-binary :all: sqlalchemy`).
Prints one table row per corpus: files, ast failures, graphguard syntax warnings, false (gg
warns, ast parses), missed (ast fails, gg silent), graphguard's parse time (total and median
per file), how many files it asked Python's parser about (a doubt: a tree-sitter error, a Python 2
statement, an encoding problem), and the machine's load. Exit status 1 when any corpus has a false or
missed file.
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphguard.languages.python import parse as python

CACHE = Path(__file__).resolve().parent / ".cache"
DJANGO = Path("/tmp/dj/django-5.2.8")


@dataclass
class Row:
    name: str
    files: int = 0
    ast_failures: int = 0
    gg_warnings: int = 0
    false: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    python_checks: int = 0  # files on which graphguard asked Python's parser (a doubt)


def ast_fails(source: bytes) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences and the like are warnings, not errors
        try:
            ast.parse(source)
        except (SyntaxError, ValueError):  # ValueError: a NUL byte
            return True
        except (RecursionError, MemoryError):
            return True
    return False


def gg_syntax_warning(source: bytes) -> tuple[bool, float]:
    t0 = time.perf_counter()
    facts = python.parse(source)
    elapsed = time.perf_counter() - t0
    return any("syntax error" in w for w in facts.warnings), elapsed


#: Not the standard library, though under its folder: installed packages.
SKIP_DIRS = {"site-packages", "dist-packages"}


def run_corpus(name: str, root: Path) -> Row:
    row = Row(name)
    ask_python = python._python_error_line

    def counted(source: bytes) -> int | None:
        row.python_checks += 1
        return ask_python(source)

    python._python_error_line = counted  # type: ignore[assignment]
    for path in sorted(root.rglob("*.py")):
        if not path.is_file() or not SKIP_DIRS.isdisjoint(path.relative_to(root).parts):
            continue
        source = path.read_bytes()
        row.files += 1
        failed = ast_fails(source)
        warned, elapsed = gg_syntax_warning(source)
        row.times.append(elapsed)
        row.ast_failures += failed
        row.gg_warnings += warned
        rel = str(path.relative_to(root))
        if warned and not failed:
            row.false.append(rel)
        elif failed and not warned:
            row.missed.append(rel)
    python._python_error_line = ask_python  # type: ignore[assignment]
    return row


def sqlalchemy_dir() -> Path:
    CACHE.mkdir(exist_ok=True)
    tarballs = sorted(CACHE.glob("sqlalchemy-*.tar.gz"))
    if not tarballs:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "sqlalchemy", "-d", str(CACHE)], check=True)
        tarballs = sorted(CACHE.glob("sqlalchemy-*.tar.gz"))
    tarball = tarballs[-1]
    target = CACHE / tarball.name.removesuffix(".tar.gz")
    if not target.is_dir():
        with tarfile.open(tarball) as tar:
            tar.extractall(CACHE, filter="data")
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--django", type=Path, default=DJANGO)
    ap.add_argument("--sqlalchemy", type=Path, default=None)
    ap.add_argument("--no-stdlib", action="store_true")
    ap.add_argument("--list", action="store_true", help="list every false and missed file")
    args = ap.parse_args()
    corpora: list[tuple[str, Path]] = []
    if args.django.is_dir():
        corpora.append((args.django.name, args.django))
    else:
        print(f"(no Django at {args.django}: skipped)")
    sa = args.sqlalchemy or sqlalchemy_dir()
    corpora.append((sa.name, sa))
    if not args.no_stdlib:
        corpora.append((f"stdlib {sys.version.split()[0]}", Path(sysconfig.get_paths()["stdlib"])))
    python.parse(b"x = 1\n")  # load the grammar outside the timings
    rows = [run_corpus(name, root) for name, root in corpora]
    load = os.getloadavg()
    print(f"parse fidelity: graphguard syntax warnings vs ast.parse (Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    header = f"{'corpus':<28} {'files':>6} {'ast fail':>8} {'gg warn':>8} {'false':>6} {'missed':>6} {'total s':>8} {'median ms':>9} {'max ms':>8} {'py checks':>9}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r.name:<28} {r.files:>6} {r.ast_failures:>8} {r.gg_warnings:>8} {len(r.false):>6} {len(r.missed):>6} "
              f"{sum(r.times):>8.1f} {1000 * statistics.median(r.times):>9.2f} {1000 * max(r.times):>8.0f} {r.python_checks:>9}")
    bad = False
    for r in rows:
        for label, paths in (("false", r.false), ("missed", r.missed)):
            bad = bad or bool(paths)
            shown = paths if args.list else paths[:10]
            for p in shown:
                print(f"  {label:<6} {r.name}: {p}")
            if len(paths) > len(shown):
                print(f"  ... {len(paths) - len(shown)} more {label} in {r.name} (--list)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
