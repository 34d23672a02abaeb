"""TypeScript/JavaScript grammars: parse-error rate and throughput of each grammar source on real repositories.

Issue 21 picks where the TS/JS grammars come from. Candidates (whatever of them is installed):
  pypi  `tree-sitter-typescript` (typescript, tsx) + `tree-sitter-javascript` (javascript)
  pack  `tree-sitter-language-pack` (its typescript, tsx, javascript; 1.x fetches parsers over the network
        on first use, so there it is reported as unavailable when that fails)

    python bench/ts_grammars.py GITDIR [GITDIR...] [--max-files 5000] [--repeat 3] [--examples 5] [--no-import-times] [--constructs]
                               [--sources pypi,pack]

Install the candidates first: `pip install -e . tree-sitter-language-pack==0.13.0` (the last pack that
bundles its grammars; 192 MB installed). A source that is not installed is reported and left out.
Reads the blobs of each repository's HEAD (`git ls-tree -r` + `git cat-file --batch`), never a worktree.
Files by suffix: .ts .mts .cts -> typescript; .d.ts (.d.mts, .d.cts) -> typescript, counted apart;
.tsx -> tsx; .js .mjs .cjs and .jsx -> javascript, and tsx as well (React code often has JSX in .js files).
A file "has errors" when its tree holds any ERROR or MISSING node. MB/s is the median over --repeat passes of
the group's bytes over the time spent in `Parser.parse` alone, in CPU time (the thread's: a shared loaded machine
stretches wall time, shown beside it). Prints markdown tables: the candidates (versions,
installed size, import + Language load time), one row per repository, group and grammar, totals per grammar, and
the first error line of up to --examples files per row; "same" counts files whose tree (its S-expression) is
identical to the pypi grammar's, when both sources are there. --constructs adds a table of one-line examples of
newer syntax (satisfies, using, accessor, import attributes, ...) and which grammar parses each without an error.
"""

from __future__ import annotations

import argparse
import enum
import hashlib
import importlib.metadata as md
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter as ts


class Group(enum.Enum):
    TS = "ts"
    DTS = "d.ts"
    TSX = "tsx"
    JS = "js"
    JSX = "jsx"


#: Which grammars read each group: JS files are measured with tsx too (JSX in .js is common).
GRAMMARS_FOR = {
    Group.TS: ("typescript",),
    Group.DTS: ("typescript",),
    Group.TSX: ("tsx",),
    Group.JS: ("javascript", "tsx"),
    Group.JSX: ("javascript", "tsx"),
}


def group_of(path: str) -> Group | None:
    name = path.rsplit("/", 1)[-1]
    if name.endswith((".d.ts", ".d.mts", ".d.cts")):
        return Group.DTS
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    return {"ts": Group.TS, "mts": Group.TS, "cts": Group.TS, "tsx": Group.TSX, "js": Group.JS, "mjs": Group.JS, "cjs": Group.JS, "jsx": Group.JSX}.get(suffix)


@dataclass
class Source:
    name: str
    versions: str
    languages: dict[str, ts.Language] = field(default_factory=dict)
    unavailable: str = ""


def dist_version(dist: str) -> str:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return ""


def load_pypi() -> Source:
    versions = f"tree-sitter-typescript {dist_version('tree-sitter-typescript') or '-'}, tree-sitter-javascript {dist_version('tree-sitter-javascript') or '-'}"
    source = Source("pypi", versions)
    try:
        import tree_sitter_javascript
        import tree_sitter_typescript

        source.languages = {
            "typescript": ts.Language(tree_sitter_typescript.language_typescript()),
            "tsx": ts.Language(tree_sitter_typescript.language_tsx()),
            "javascript": ts.Language(tree_sitter_javascript.language()),
        }
    except (ImportError, ValueError) as exc:  # ValueError: a grammar ABI this tree-sitter cannot load
        source.unavailable = f"{type(exc).__name__}: {exc}"
    return source


def load_pack() -> Source:
    source = Source("pack", f"tree-sitter-language-pack {dist_version('tree-sitter-language-pack') or '-'}")
    try:
        import tree_sitter_language_pack as pack

        source.languages = {name: pack.get_language(name) for name in ("typescript", "tsx", "javascript")}
    except Exception as exc:  # noqa: BLE001 - 1.x raises its own DownloadError when it cannot fetch a parser
        source.unavailable = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    return source


@dataclass
class Blob:
    path: str
    group: Group
    data: bytes


def head_blobs(gitdir: Path, max_files: int) -> tuple[list[Blob], int]:
    """The HEAD blobs of the measured suffixes (an even stride sample past max_files), and how many there were."""
    listing = subprocess.run(["git", "-C", str(gitdir), "ls-tree", "-r", "-z", "HEAD"], capture_output=True, check=True).stdout
    entries: list[tuple[str, str, Group]] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path_b = record.split(b"\t", 1)
        mode, kind, oid = meta.decode().split()
        path = path_b.decode("utf-8", "surrogateescape")
        group = group_of(path)
        if kind == "blob" and mode != "120000" and group is not None:
            entries.append((path, oid, group))
    entries.sort()
    total = len(entries)
    if total > max_files:
        step = total / max_files
        entries = [entries[int(i * step)] for i in range(max_files)]
    return read_blobs(gitdir, entries), total


def read_blobs(gitdir: Path, entries: list[tuple[str, str, Group]]) -> list[Blob]:
    proc = subprocess.Popen(["git", "-C", str(gitdir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    # Written from a thread: past a pipe's worth of ids, git blocks on its full stdout while we block on stdin.
    request = "".join(f"{oid}\n" for _, oid, _ in entries).encode()
    writer = threading.Thread(target=lambda: (proc.stdin.write(request), proc.stdin.close()))  # type: ignore[union-attr]
    writer.start()
    blobs = []
    for path, _, group in entries:
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":  # "missing": the snapshot left out a large file
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        blobs.append(Blob(path, group, data))
    writer.join()
    proc.wait()
    return blobs


def error_nodes(root: ts.Node) -> Iterator[ts.Node]:
    """ERROR and MISSING nodes, visiting only subtrees that hold one."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            yield node
        stack.extend(child for child in reversed(node.children) if child.has_error)


@dataclass
class Row:
    repo: str
    source: str
    group: Group
    grammar: str
    files: int = 0
    bytes: int = 0
    error_files: int = 0
    error_nodes: int = 0
    same: int | None = None
    passes: list[tuple[float, float]] = field(default_factory=list)  # (CPU, wall) seconds in Parser.parse per pass
    examples: list[str] = field(default_factory=list)

    def seconds(self, which: int) -> float:
        return statistics.median(p[which] for p in self.passes) if self.passes else 0.0

    def mb_s(self, which: int) -> float:
        seconds = self.seconds(which)
        return self.bytes / seconds / 1e6 if seconds else 0.0


def first_error(data: bytes, nodes: list[ts.Node]) -> str:
    node = min(nodes, key=lambda n: (n.start_byte, not n.is_missing))
    line = data.split(b"\n")[node.start_point[0]].decode("utf-8", "replace").strip()
    what = f"MISSING {node.type}" if node.is_missing else "ERROR"
    return f"{node.start_point[0] + 1}: {what}: {line[:110]}"


def digest(tree: ts.Tree) -> bytes:
    return hashlib.blake2b(str(tree.root_node).encode(), digest_size=16).digest()


def measure_repo(repo: str, blobs: list[Blob], sources: list[Source], repeat: int, max_examples: int) -> list[Row]:
    rows: list[Row] = []
    reference: dict[tuple[str, str], bytes] = {}  # (path, grammar) -> pypi tree digest
    for source in sources:
        for group in Group:
            members = [b for b in blobs if b.group is group]
            for grammar in GRAMMARS_FOR[group]:
                if not members or grammar not in source.languages:
                    continue
                parser = ts.Parser(source.languages[grammar])
                row = Row(repo, source.name, group, grammar, files=len(members), bytes=sum(len(b.data) for b in members))
                compare = source.name != "pypi" and bool(reference)
                row.same = 0 if compare else None
                for blob in members:
                    tree = parser.parse(blob.data)
                    bad = list(error_nodes(tree.root_node)) if tree.root_node.has_error else []
                    if bad:
                        row.error_files += 1
                        row.error_nodes += len(bad)
                        if len(row.examples) < max_examples:
                            row.examples.append(f"{blob.path}:{first_error(blob.data, bad)}")
                    if source.name == "pypi":
                        reference[(blob.path, grammar)] = digest(tree)
                    elif compare and row.same is not None and reference.get((blob.path, grammar)) == digest(tree):
                        row.same += 1
                row.passes = [timed_pass(parser.parse, members) for _ in range(repeat)]
                rows.append(row)
    return rows


def timed_pass(parse: Callable[[bytes], ts.Tree], members: list[Blob]) -> tuple[float, float]:
    """CPU and wall seconds in parse: CPU time is what a loaded shared machine does not distort."""
    cpu = wall = 0.0
    for blob in members:
        c0, w0 = time.thread_time(), time.perf_counter()
        parse(blob.data)
        cpu += time.thread_time() - c0
        wall += time.perf_counter() - w0
    return cpu, wall


IMPORT_PROBES = {
    "tree-sitter-typescript": "import tree_sitter_typescript as m; ts.Language(m.language_typescript()); ts.Language(m.language_tsx())",
    "tree-sitter-javascript": "import tree_sitter_javascript as m; ts.Language(m.language())",
    "tree-sitter-language-pack": "import tree_sitter_language_pack as m; [m.get_language(n) for n in ('typescript', 'tsx', 'javascript')]",
}


def import_ms(statement: str, runs: int = 5) -> str:
    """Median ms to import a grammar package and load its languages, in a fresh interpreter that already has
    tree_sitter and importlib.resources (graphguard imports both before any grammar)."""
    code = f"import importlib.resources, time, tree_sitter as ts\nt = time.perf_counter()\n{statement}\nprint(time.perf_counter() - t)"
    samples = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if done.returncode != 0:
            return "fails: " + (done.stderr.strip().splitlines() or ["?"])[-1][:100]
        samples.append(float(done.stdout) * 1000)
    return f"{statistics.median(samples):.0f}"


def installed_mb(dist: str) -> str:
    try:
        files = md.files(dist) or []
    except md.PackageNotFoundError:
        return "-"
    return f"{sum(f.size or 0 for f in files if f.hash) / 1e6:.1f}"


def print_candidates(sources: list[Source], import_times: bool) -> None:
    print(f"tree-sitter {dist_version('tree-sitter')} (LANGUAGE_VERSION {ts.LANGUAGE_VERSION}, oldest {ts.MIN_COMPATIBLE_LANGUAGE_VERSION}), Python {sys.version.split()[0]}\n")
    print("| package | version | installed MB | import + load ms (median of 5) |")
    print("|---|---|---:|---|")
    for dist, statement in IMPORT_PROBES.items():
        version = dist_version(dist)
        if version:
            print(f"| {dist} | {version} | {installed_mb(dist)} | {import_ms(statement) if import_times else '-'} |")
    print("\n| source | versions | grammar ABI | status |")
    print("|---|---|---|---|")
    for s in sources:
        abi = ", ".join(f"{n} {lang.abi_version}" for n, lang in s.languages.items()) or "-"
        print(f"| {s.name} | {s.versions} | {abi} | {s.unavailable or 'loaded'} |")
    print()


def print_rows(rows: list[Row]) -> None:
    print("| repo | source | files | grammar | files | with errors | % | error nodes | MB | MB/s CPU | MB/s wall | same tree as pypi |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        same = "" if r.same is None else f"{r.same}/{r.files}"
        pct = 100 * r.error_files / r.files
        print(f"| {r.repo} | {r.source} | {r.group.value} | {r.grammar} | {r.files} | {r.error_files} | {pct:.1f} | {r.error_nodes} | {r.bytes / 1e6:.2f} | {r.mb_s(0):.1f} | {r.mb_s(1):.1f} | {same} |")
    print()


def print_totals(rows: list[Row]) -> None:
    print("| source | files | grammar | files | with errors | % | error nodes | MB | MB/s CPU | MB/s wall |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    keys = sorted({(r.source, r.group.value, r.grammar) for r in rows})
    for source, group, grammar in keys:
        part = [r for r in rows if (r.source, r.group.value, r.grammar) == (source, group, grammar)]
        files, errs, nodes, size = (sum(getattr(r, a) for r in part) for a in ("files", "error_files", "error_nodes", "bytes"))
        cpu, wall = (sum(r.seconds(i) for r in part) for i in (0, 1))
        rates = " | ".join(f"{size / t / 1e6 if t else 0:.1f}" for t in (cpu, wall))
        print(f"| {source} | {group} | {grammar} | {files} | {errs} | {100 * errs / files:.1f} | {nodes} | {size / 1e6:.2f} | {rates} |")
    print()


def print_examples(rows: list[Row]) -> None:
    seen: set[tuple[str, str, str, tuple[str, ...]]] = set()
    for r in rows:
        key = (r.repo, r.group.value, r.grammar, tuple(r.examples))
        if not r.examples or key in seen:  # the same failures under another source: said once
            continue
        seen.add(key)
        print(f"- {r.repo} {r.group.value} with {r.grammar} ({r.source}):")
        for example in r.examples:
            print(f"    - `{example}`")
    print()


#: Newer syntax (TypeScript 4.7-5.x, ES2022-2025) the issue worries about, one line each: (construct, source).
CONSTRUCTS = [
    ("satisfies (TS 4.9)", "const c = { a: 1 } satisfies Record<string, number>;"),
    ("as const satisfies", "export default { x: 1 } as const satisfies Cfg;"),
    ("using (TS 5.2)", "function f() { using res = open(); }"),
    ("await using", "async function f() { await using res = open(); }"),
    ("for (using x of ...)", "for (using x of xs) {}"),
    ("accessor field (TS 4.9)", "class C { accessor x = 1; }"),
    ("static accessor with type", "class C { static accessor y: number = 2; }"),
    ("decorated accessor", "class C { @observable accessor count = 0; }"),
    ("import attributes `with`", 'import data from "./d.json" with { type: "json" };'),
    ("import assertions `assert`", 'import data from "./d.json" assert { type: "json" };'),
    ("re-export with attributes", 'export { a } from "./d.json" with { type: "json" };'),
    ("dynamic import with options", 'const m = await import("./x.json", { with: { type: "json" } });'),
    ("export type * (TS 5.0)", 'export type * from "./types";'),
    ("export type * as ns", 'export type * as ns from "./types";'),
    ("import type default + inline type", 'import type Foo from "./foo"; import { type Bar } from "./bar";'),
    ("const type parameter (TS 5.0)", "function f<const T extends readonly unknown[]>(x: T): T { return x; }"),
    ("variance in/out (TS 4.7)", "interface P<in out T> { x: T }"),
    ("infer X extends (TS 4.7)", "type X<T> = T extends [infer H extends string, ...infer R] ? H : never;"),
    ("decorators (TS 5.0)", "@dec() class C { @m() method() {} @f prop = 1 }"),
    ("export @decorator class", "export @dec class C {}"),
    ("override", "class D extends B { override m(): void {} }"),
    ("generic arrow <T,> in tsx", "const f = <T,>(x: T) => x;"),
    ("class static block", "class C { static { init(); } }"),
    ("#x in obj", "class C { #x; static is(o) { return #x in o; } }"),
    ("regexp v flag", "const r = /[\\p{L}--\\p{N}]/v;"),
    ("import defer (TC39 stage 3)", 'import defer * as ns from "./x";'),
    ("import source (TC39 stage 3)", 'import source wasm from "./x.wasm";'),
    ("JSX", "const el = <Button onClick={() => f()} {...rest}>hi</Button>;"),
    ("hashbang", "#!/usr/bin/env node\nconsole.log(1);"),
]


def print_constructs(sources: list[Source]) -> None:
    columns = [(s.name, g, ts.Parser(lang)) for s in sources for g, lang in s.languages.items()]
    print("| construct | example | " + " | ".join(f"{n} {g}" for n, g, _ in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for construct, text in CONSTRUCTS:
        marks = ["ok" if not p.parse(text.encode()).root_node.has_error else "**error**" for _, _, p in columns]
        print(f"| {construct} | `{text.splitlines()[0]}` | " + " | ".join(marks) + " |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path, help="git directories (bare or not)")
    parser.add_argument("--max-files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3, help="timed passes per row; MB/s is their median")
    parser.add_argument("--examples", type=int, default=5)
    parser.add_argument("--no-import-times", action="store_true")
    parser.add_argument("--constructs", action="store_true", help="also parse one line of each newer construct")
    parser.add_argument("--sources", default="pypi,pack", help="grammar sources to measure, comma-separated (pypi, pack)")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()
    loaders = {"pypi": load_pypi, "pack": load_pack}
    wanted = args.sources.split(",")
    if unknown := [w for w in wanted if w not in loaders]:
        print(f"unknown grammar source {unknown[0]!r} (known: pypi, pack)", file=sys.stderr)
        return 2
    sources = [loaders[w]() for w in wanted]
    print_candidates(sources, not args.no_import_times)
    usable = [s for s in sources if s.languages]
    if not usable:
        print("no grammar source could be loaded", file=sys.stderr)
        return 1
    if args.constructs:
        print_constructs(usable)
    rows: list[Row] = []
    for gitdir in args.repos:
        try:
            blobs, total = head_blobs(gitdir, args.max_files)
        except (subprocess.CalledProcessError, FileNotFoundError):
            print(f"{gitdir}: not a git directory with a HEAD", file=sys.stderr)
            return 1
        name = repo_name(gitdir)
        commit = subprocess.run(["git", "-C", str(gitdir), "log", "-1", "--format=%h %cs", "HEAD"], capture_output=True, text=True).stdout.strip()
        print(f"{name} at {commit}: {len(blobs)} of {total} files read", file=sys.stderr)
        print(f"- {name} at {commit}: {len(blobs)} files read of {total} with these suffixes")
        rows += measure_repo(name, blobs, usable, args.repeat, args.examples)
    print()
    print_rows(rows)
    print_totals(rows)
    print_examples(rows)
    load_end = os.getloadavg()
    print(f"machine load (1-min average) at start {load_start[0]:.2f}, at end {load_end[0]:.2f}; {os.cpu_count()} cores; --repeat {args.repeat}")
    return 0


def repo_name(gitdir: Path) -> str:
    """owner/name for a fetched mirror (/work/.mirror/owner+name/repo), else the folder's name."""
    parts = gitdir.resolve().parts
    for part in reversed(parts):
        if "+" in part:
            return part.replace("+", "/", 1)
    return gitdir.resolve().name.removesuffix(".git")


if __name__ == "__main__":
    sys.exit(main())
