"""Quality of `graphguard check` on real code, against pyright as an independent oracle.

    python bench/mutation_bench.py [--projects attrs,jinja2,django,netbox] [--mutations N] [--seed S] [--modes ...]

For each project (an sdist from PyPI, or netbox from its public history at a release
tag, cloned from the mirror; unpacked into bench/.cache and made a git repository of
one commit) the script:

1. indexes it with graphguard and runs pyright once on the whole project: the
   baseline diagnostics (cached in bench/.cache, keyed by the tree, pyright's
   version and its configuration);
2. lists the functions, methods and classes of the project (`ast`), shuffles them
   with the seed and keeps those with at least one exact call site according to
   `graphguard callers` (dunders are skipped; a class's constructor is its own
   `__init__`);
3. deals out mutations round-robin over the kinds below, one symbol each, as text
   edits of the definition that keep every line where it was (the parameter list
   is rewritten inside its parentheses and padded with the newlines it had; a
   removed definition leaves blank lines);
4. per mutation: runs graphguard in every mode a user meets (MODES): `check
   --worktree` (written, not staged), `check --staged` (the hook), then, once the
   mutation is committed without hooks, `check --base` with the graph at the old
   commit (the base checked out), with the graph at the new commit (the mutation
   checked out), and in a cold `git clone` with no graph (CI); runs pyright and
   `ty check` on the mutated file plus every file that mentions the changed name
   as a word (a grep superset, so the oracle does not depend on graphguard's
   graph), keeps their NEW call-related diagnostics, compares them with
   graphguard's call sites by (path, line range), and drops the commit.

One table per mode. Each row also scores `ty check` (Astral's ty, installed into a
venv under bench/.cache, never a dependency of graphguard) run the way a user would
put it in a hook: its errors after the mutation minus a baseline of the errors on
the whole project before it (a multiset diff by file, line, rule and message).
A new ty error with a call-related rule (TY_RULES: arity, missing or unknown
keyword, unresolved attribute, import or name) is one broken site; ty's sites are
deduplicated by (path, line) and matched with the oracle as graphguard's are: a ty
site and an oracle diagnostic match when they are in the same file and one's
line lies in the other's line range (ty reports the call or the argument; pyright
may report another line of a multi-line call). ty's precision counts its sites
that the oracle confirms (the same confirmations as graphguard's: a pyright
diagnostic there, a flagged annotation, a flagged import after a removal or a
rename); ty sites inside the mutated definition that are uses of a removed
parameter are dropped, as pyright's are.

Oracle: diagnostics present after the mutation and not before (a multiset diff by
file, line, rule and message) with rule reportCallIssue (arity, missing or unknown
keyword), reportAttributeAccessIssue (a removed method or module attribute, an
import of a name that is gone) or reportUndefinedVariable (a removed name used in
its own module). Not counted: reportArgumentType (a shifted argument of the wrong
type binds in Python), override-compatibility rules (no call site), names in
annotations (not asked of graphguard, since with `from __future__ import
annotations` they do not run; but a graphguard site that pyright flags in an
annotation counts as confirmed), and, inside the mutated definition, the body's
uses of a parameter that the mutation removed or renamed. After a removal or a
rename pyright flags the failed import, not the uses of what it imported: a
graphguard site in a file whose import of the name (or whose package's re-export
of it) pyright flags counts as confirmed.

pyright cannot see calls whose receiver has no known type (an unannotated
parameter, an attribute set from an untyped value). A site graphguard calls broken
that pyright does not flag is probed: the symbol is renamed and pyright runs again
on that file; if pyright flags the site then, it sees the call (a real
disagreement), otherwise pyright is blind there. Precision is given both against
pyright alone and among the sites pyright can see.
"""

from __future__ import annotations

import argparse
import ast
import collections
import glob
import hashlib
import io
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
import tokenize
from dataclasses import dataclass, field

from common import children_cpu, sdist_tree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(HERE, ".cache")
GG = [sys.executable, "-m", "graphguard"]
PYRIGHT_VERSION = "1.1.414"
# Runtime dependencies of the projects, so that pyright sees their types too.
ORACLE_DEPS = ["markupsafe==3.0.4", "asgiref==3.13.0", "sqlparse==0.6.1",
               "django==5.2.8"]  # netbox's framework: without it a class based on TestCase or Model has an unknown base,
#                                  and pyright and ty accept any attribute of it (netbox's other dependencies are left out)
ORACLE_RULES = {"reportCallIssue", "reportAttributeAccessIssue", "reportUndefinedVariable"}
GIT_ID = ["-c", "user.email=bench@example.invalid", "-c", "user.name=bench"]


@dataclass(frozen=True)
class Project:
    spec: str
    include: tuple[str, ...]  # what pyright checks (and where symbols are drawn from)
    extra_paths: tuple[str, ...]  # import roots for pyright (src layout, Django's tests/)
    drop_stubs: bool = False  # .pyi beside the .py: pyright would check callers against the stubs
    max_files: int = 400  # skip symbols whose name is mentioned in more files (bounds a pyright run)
    git_tag: str = ""  # a release of the project's public history (the mirror below) instead of an sdist


PROJECTS = {
    "attrs": Project("attrs==26.1.0", ("src", "tests"), ("src",), drop_stubs=True),
    "jinja2": Project("jinja2==3.1.6", ("src", "tests"), ("src",)),
    "django": Project("django==5.2.8", ("django", "tests"), ("tests",), max_files=40),
    "netbox": Project("netbox", ("netbox",), ("netbox",), max_files=40, git_tag="v4.4.9"),
}
MIRRORS = {"netbox": "/work/.mirror/netbox-community+netbox/repo"}  # bare mirrors of public repositories
TY_VERSION = "0.0.104"
# ty rules that are a call that no longer binds or a name that is gone (not: invalid-argument-type, as for pyright).
TY_RULES = {"missing-argument", "unknown-argument", "too-many-positional-arguments", "parameter-already-assigned",
            "positional-only-parameter-as-kwarg", "unresolved-attribute", "possibly-missing-attribute", "unresolved-import",
            "import-not-found", "unresolved-reference", "call-non-callable", "no-matching-overload", "possibly-unresolved-reference"}
MODES = ["worktree", "staged", "base:graph-old", "base:graph-new", "cold-clone"]

BREAKING = ["remove", "rename", "add-required", "remove-param", "rename-kw-param", "keyword-only", "remove-default"]
CONTROLS = ["add-optional", "body-edit"]
KINDS = BREAKING + CONTROLS


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: list[str], cwd: str | None = None, check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} ... failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


# --- setup: sdists, pyright, the oracle's environment ----------------------------------------


def fetch(name: str, project: Project) -> str:
    """A fresh git repository (one commit) of the project's sdist, with a pyright configuration."""
    if project.git_tag:
        pkg, version = name, project.git_tag
        src = os.path.join(CACHE, f"{pkg}-{version}")
        if not os.path.isdir(src):
            export_python(MIRRORS[name], version, src)
    else:
        pkg, version = project.spec.split("==")
        src = os.path.join(CACHE, f"{pkg}-{version}")
    if not os.path.isdir(src):
        sdist_tree(project.spec, CACHE)
    repo = os.path.join(CACHE, f"mut-{name}")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(src, repo)
    if project.drop_stubs:
        for pyi in glob.glob(os.path.join(repo, "**", "*.pyi"), recursive=True):
            if os.path.exists(pyi[:-1]) or os.path.exists(os.path.join(pyi[:-4], "__init__.py")) or pyi.endswith("__init__.pyi"):
                os.remove(pyi)
    with open(os.path.join(repo, "pyrightconfig.json"), "w") as f:
        json.dump(pyright_config(project), f, indent=1)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*GIT_ID, "commit", "-qm", "import"]):
        run(["git", *args], cwd=repo)
    return repo


def export_python(git_dir: str, rev: str, dest: str) -> None:
    """The Python files of `rev` in a (bare, possibly partial) mirror, written under `dest`.

    Only .py files: the mirror may lack its largest blobs (netbox's contrib/openapi.json and
    the 20 MB data module extras/data/un_locode.py); a missing one is left out and said.
    """
    tree = run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", rev]).stdout.split("\0")
    wanted = [(e.split("\t", 1)[0].split()[2], e.split("\t", 1)[1]) for e in tree if e.endswith(".py") and " blob " in e]
    proc = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], input="".join(f"{sha}\n" for sha, _ in wanted).encode(),
                          capture_output=True, check=True)
    out, at, missing = proc.stdout, 0, []
    for sha, path in wanted:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split()
        if header[-1] == b"missing":
            missing.append(path)
            at = header_end + 1
            continue
        size = int(header[2])
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(out[header_end + 1:header_end + 1 + size])
        at = header_end + 1 + size + 1
    if missing:
        log(f"{os.path.basename(dest)}: {len(missing)} file(s) missing from the mirror, left out: {', '.join(missing)}")


def pyright_config(project: Project) -> dict[str, object]:
    return {"include": list(project.include), "extraPaths": list(project.extra_paths),
            "typeCheckingMode": "standard", "pythonVersion": "3.11", "reportMissingModuleSource": False}


def ensure_tools() -> tuple[str, str, str]:
    """(pyright executable, python of the oracle's environment, ty executable), installed into bench/.cache once."""
    node = os.path.join(CACHE, "node")
    pyright = os.path.join(node, "node_modules", ".bin", "pyright")
    if not os.path.exists(pyright):
        os.makedirs(node, exist_ok=True)
        log(f"installing pyright {PYRIGHT_VERSION} (npm) ...")
        run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", node, f"pyright@{PYRIGHT_VERSION}"])
    env = os.path.join(CACHE, "oracle-env")
    python = os.path.join(env, "bin", "python")
    ready = os.path.join(env, ".ready")
    if not os.path.exists(ready) or open(ready).read() != json.dumps(ORACLE_DEPS):
        log("making the oracle's Python environment (runtime dependencies of the projects) ...")
        shutil.rmtree(env, ignore_errors=True)
        run([sys.executable, "-m", "venv", env])
        run([python, "-m", "pip", "install", "-q", *ORACLE_DEPS])
        with open(ready, "w") as f:
            f.write(json.dumps(ORACLE_DEPS))
    ty_env = os.path.join(CACHE, "ty-env")
    ty = os.path.join(ty_env, "bin", "ty")
    if not os.path.exists(ty) or TY_VERSION not in run([ty, "--version"], check=False).stdout:
        log(f"installing ty {TY_VERSION} (PyPI) into {ty_env} ...")
        run([sys.executable, "-m", "venv", ty_env])
        run([os.path.join(ty_env, "bin", "python"), "-m", "pip", "install", "-q", f"ty=={TY_VERSION}"])
    return pyright, python, ty


# --- pyright ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Diag:
    path: str
    line: int  # 1-based
    col: int
    end_line: int
    rule: str
    message: str

    def key(self) -> tuple[str, int, str, str]:
        return (self.path, self.line, self.rule, self.message)


class Pyright:
    def __init__(self, exe: str, python: str, repo: str, threads: int) -> None:
        self.exe, self.python, self.repo, self.threads = exe, python, repo, threads

    def run(self, files: list[str] | None = None) -> tuple[list[Diag], float]:
        args = [self.exe, "--outputjson", "--pythonpath", self.python]
        if self.threads > 1:
            args += ["--threads", str(self.threads)]
        t = time.perf_counter()
        proc = run([*args, *(files or [])], cwd=self.repo, check=False, timeout=1800)
        elapsed = time.perf_counter() - t
        try:
            data = json.loads(proc.stdout)
        except json.JSONDecodeError:
            raise SystemExit(f"pyright failed ({proc.returncode}): {proc.stdout[-1000:]} {proc.stderr[-1000:]}") from None
        out = []
        for d in data.get("generalDiagnostics", []):
            if d.get("severity") != "error":
                continue
            r = d["range"]
            out.append(Diag(os.path.relpath(d["file"], self.repo), r["start"]["line"] + 1, r["start"]["character"],
                            r["end"]["line"] + 1, d.get("rule") or "", d["message"]))
        return out, elapsed

    def version(self) -> str:
        return run([self.exe, "--version"]).stdout.strip()


def baseline(pyright: Pyright, project: Project, name: str) -> tuple[dict[str, collections.Counter[tuple[str, int, str, str]]], float, bool]:
    """Per-file multisets of the diagnostics at HEAD, the whole-project run time, and whether it was cached."""
    tree = run(["git", "rev-parse", "HEAD^{tree}"], cwd=pyright.repo).stdout.strip()
    key = hashlib.sha256(json.dumps([tree, pyright.version(), pyright_config(project), ORACLE_DEPS]).encode()).hexdigest()[:16]
    path = os.path.join(CACHE, f"pyright-baseline-{name}-{key}.json")
    cached = os.path.exists(path)
    if cached:
        with open(path) as f:
            saved = json.load(f)
        diags, elapsed = [Diag(*d) for d in saved["diagnostics"]], saved["elapsed"]
    else:
        log(f"{name}: pyright on the whole project (the baseline; cached afterwards) ...")
        diags, elapsed = pyright.run()
        with open(path, "w") as f:
            json.dump({"elapsed": elapsed, "diagnostics": [list(d.__dict__.values()) for d in diags]}, f)
    per_file: dict[str, collections.Counter[tuple[str, int, str, str]]] = collections.defaultdict(collections.Counter)
    for d in diags:
        per_file[d.path][d.key()] += 1
    return per_file, elapsed, cached


class Ty:
    """`ty check` on the project, as a user's hook would run it (gitlab JSON output, errors only)."""

    def __init__(self, exe: str, python: str, repo: str, project: Project) -> None:
        self.exe, self.python, self.repo, self.project = exe, python, repo, project

    def run(self, files: list[str] | None = None) -> tuple[list[Diag], float]:
        args = [self.exe, "check", "--output-format", "gitlab", "--exit-zero", "--no-progress", "--python", self.python,
                "--python-version", "3.11"]
        for extra in self.project.extra_paths:
            args += ["--extra-search-path", extra]
        t = time.perf_counter()
        proc = run([*args, *(files or self.project.include)], cwd=self.repo, check=False, timeout=1800)
        elapsed = time.perf_counter() - t
        try:
            data = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError:
            raise SystemExit(f"ty failed ({proc.returncode}): {proc.stdout[-1000:]} {proc.stderr[-1000:]}") from None
        out = []
        for d in data:
            if d.get("severity") not in ("major", "critical", "blocker"):
                continue  # warnings and infos: not what a hook blocks on
            pos = d["location"]["positions"]
            message = d["description"].split(": ", 1)[-1]
            out.append(Diag(os.path.normpath(d["location"]["path"]), pos["begin"]["line"], pos["begin"]["column"],
                            pos["end"]["line"], d["check_name"], message))
        return out, elapsed


def ty_baseline(ty: Ty, name: str) -> dict[str, collections.Counter[tuple[str, int, str, str]]]:
    """Per-file multisets of ty's errors at HEAD (cached like pyright's baseline)."""
    tree = run(["git", "rev-parse", "HEAD^{tree}"], cwd=ty.repo).stdout.strip()
    key = hashlib.sha256(json.dumps([tree, TY_VERSION, ty.project.include, ty.project.extra_paths, ORACLE_DEPS]).encode()).hexdigest()[:16]
    path = os.path.join(CACHE, f"ty-baseline-{name}-{key}.json")
    if os.path.exists(path):
        with open(path) as f:
            diags = [Diag(*d) for d in json.load(f)]
    else:
        log(f"{name}: ty on the whole project (its baseline) ...")
        diags, _ = ty.run()
        with open(path, "w") as f:
            json.dump([list(d.__dict__.values()) for d in diags], f)
    per_file: dict[str, collections.Counter[tuple[str, int, str, str]]] = collections.defaultdict(collections.Counter)
    for d in diags:
        per_file[d.path][d.key()] += 1
    return per_file


def new_only(after: list[Diag], base: dict[str, collections.Counter[tuple[str, int, str, str]]]) -> list[Diag]:
    """Diagnostics of `after` that the baseline does not hold (a multiset difference per file)."""
    by_file: dict[str, list[Diag]] = collections.defaultdict(list)
    for d in after:
        by_file[d.path].append(d)
    new = []
    for path, diags in by_file.items():
        before = collections.Counter(base.get(path, {}))
        for d in diags:
            if before[d.key()] > 0:
                before[d.key()] -= 1
            else:
                new.append(d)
    return new


# --- the project's symbols -------------------------------------------------------------------


@dataclass
class Symbol:
    path: str
    module: str
    qualname: str  # module-relative: func, Class, Class.method
    kind: str  # function | method | class
    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    parent_body: list[ast.stmt]
    fn: ast.FunctionDef | ast.AsyncFunctionDef | None  # what signature mutations edit (a class: its __init__)

    @property
    def full(self) -> str:
        return f"{self.module}.{self.qualname}"


_SKIP_DECORATORS = {"property", "cached_property", "overload", "setter", "getter", "deleter", "abstractproperty"}


def _decorator_names(node: ast.AST) -> set[str]:
    names = set()
    for d in getattr(node, "decorator_list", []):
        d = d.func if isinstance(d, ast.Call) else d
        names.add(d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", ""))
    return names


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def symbols_of(repo: str, files: list[str], modules: dict[str, str]) -> tuple[list[Symbol], dict[str, ast.Module]]:
    out: list[Symbol] = []
    trees: dict[str, ast.Module] = {}
    for path in files:
        if not path.endswith(".py") or path not in modules:
            continue
        try:
            with open(os.path.join(repo, path), encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        trees[path] = tree
        module = modules[path]

        def defined_once(body: list[ast.stmt]) -> set[str]:
            counts = collections.Counter(n.name for n in ast.walk(ast.Module(body=body, type_ignores=[]))
                                         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
            return {n for n, c in counts.items() if c == 1}

        once = defined_once(tree.body)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in once and not _is_dunder(node.name):
                if not _decorator_names(node) & _SKIP_DECORATORS:
                    out.append(Symbol(path, module, node.name, "function", node.name, node, tree.body, node))
            elif isinstance(node, ast.ClassDef) and node.name in once:
                members = defined_once(node.body)
                init = next((m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
                out.append(Symbol(path, module, node.name, "class", node.name, node, tree.body,
                                  init if init is not None and "__init__" in members and not _decorator_names(init) else None))
                for m in node.body:
                    if (isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in members
                            and not _is_dunder(m.name) and not _decorator_names(m) & _SKIP_DECORATORS):
                        out.append(Symbol(path, module, f"{node.name}.{m.name}", "method", m.name, m, node.body, m))
    return out, trees


# --- mutations as text edits that keep every line in place ---------------------------------------


@dataclass
class P:
    kind: str  # posonly | pos | vararg | kwonly | kwarg
    name: str
    text: str  # as written: name, annotation, default
    has_default: bool


class Source:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self._tokens: list[tokenize.TokenInfo] | None = None

    def offset(self, lineno: int, byte_col: int) -> int:
        """Absolute character offset of an ast position (1-based line, UTF-8 byte column)."""
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def segment(self, node: ast.AST) -> str:
        return self.text[self.offset(node.lineno, node.col_offset):self.offset(node.end_lineno, node.end_col_offset)]  # type: ignore[attr-defined]

    def tokens(self) -> list[tokenize.TokenInfo]:
        if self._tokens is None:
            self._tokens = list(tokenize.generate_tokens(io.StringIO(self.text).readline))
        return self._tokens

    def char(self, row: int, col: int) -> int:
        return self.starts[row - 1] + col

    def paren_span(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
        """Offsets just inside the parentheses of `fn`'s parameter list."""
        start = self.offset(fn.lineno, fn.col_offset)
        toks = [t for t in self.tokens() if self.char(*t.start) >= start]
        i = next(i for i, t in enumerate(toks) if t.type == tokenize.NAME and t.string == fn.name)
        assert toks[i + 1].string == "("
        depth = 0
        for t in toks[i + 1:]:
            if t.type == tokenize.OP and t.string in "([{":
                depth += 1
            elif t.type == tokenize.OP and t.string in ")]}":
                depth -= 1
                if depth == 0:
                    return self.char(*toks[i + 1].end), self.char(*t.start)
        raise ValueError("unbalanced parameter list")

    def name_span(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)
        t = next(t for t in self.tokens() if self.char(*t.start) >= start and t.type == tokenize.NAME and t.string == node.name)
        return self.char(*t.start), self.char(*t.end)


def params(src: Source, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[P]:
    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    out = []
    for i, (arg, default) in enumerate(zip(pos, defaults)):
        text = src.segment(arg) + (f"={src.segment(default)}" if default is not None else "")
        out.append(P("posonly" if i < len(a.posonlyargs) else "pos", arg.arg, text, default is not None))
    if a.vararg:
        out.append(P("vararg", a.vararg.arg, "*" + src.segment(a.vararg), False))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append(P("kwonly", arg.arg, src.segment(arg) + (f"={src.segment(default)}" if default is not None else ""), default is not None))
    if a.kwarg:
        out.append(P("kwarg", a.kwarg.arg, "**" + src.segment(a.kwarg), False))
    return out


def render(ps: list[P]) -> str:
    parts: list[str] = []
    kinds = [p.kind for p in ps]
    for i, p in enumerate(ps):
        if p.kind == "kwonly" and "vararg" not in kinds and (i == 0 or ps[i - 1].kind not in ("kwonly",)):
            parts.append("*")
        parts.append(p.text)
        if p.kind == "posonly" and (i + 1 == len(ps) or ps[i + 1].kind != "posonly"):
            parts.append("/")
    return ", ".join(parts)


def implicit_first(sym: Symbol) -> bool:
    fn = sym.fn
    if fn is None or sym.kind == "function":
        return False
    return "staticmethod" not in _decorator_names(fn)


@dataclass
class Mutation:
    kind: str
    symbol: Symbol
    new_text: str
    detail: str  # what was done, for the report
    names: tuple[str, ...]  # names whose mentions make a file "possibly affected" (the grep superset)
    span: tuple[int, int]  # lines of the mutated definition
    gone_params: tuple[str, ...] = ()  # parameters removed or renamed: their uses in the body are not call sites


def _with_params(src: Source, sym: Symbol, new_ps: list[P]) -> str | None:
    assert sym.fn is not None
    lo, hi = src.paren_span(sym.fn)
    old = src.text[lo:hi]
    first = [] if not implicit_first(sym) else params(src, sym.fn)[:1]
    body = render(first + new_ps)
    pad = old.count("\n") - body.count("\n")
    if pad < 0:
        return None
    return src.text[:lo] + body + "\n" * pad + src.text[hi:]


def mutate(kind: str, sym: Symbol, src: Source, rng: random.Random, keyword_uses: collections.Counter[str]) -> Mutation | None:
    """The mutation `kind` of `sym`, or None when it does not apply."""
    node = sym.node
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    span = (start, node.end_lineno or node.lineno)
    names = (sym.name,)
    if kind == "remove":
        lines = list(src.lines)
        for i in range(start - 1, span[1]):
            lines[i] = "\n" if lines[i].endswith("\n") else ""
        if not [s for s in sym.parent_body if s is not node]:
            indent = re.match(r"[ \t]*", src.lines[node.lineno - 1]).group(0)  # type: ignore[union-attr]
            lines[start - 1] = f"{indent}pass\n"
        return Mutation(kind, sym, "".join(lines), f"removed {sym.qualname}", names, span)
    if kind == "rename":
        lo, hi = src.name_span(node)
        return Mutation(kind, sym, src.text[:lo] + sym.name + "_gg" + src.text[hi:], f"renamed to {sym.name}_gg", names, span)
    if sym.fn is None:
        return None
    fn = sym.fn
    fspan = (min([d.lineno for d in fn.decorator_list] + [fn.lineno]), fn.end_lineno or fn.lineno)
    if any("# type:" in src.lines[i] for i in range(fn.lineno - 1, fn.body[0].lineno - 1)):
        return None  # type comments in the signature would be lost
    ps = params(src, fn)
    if implicit_first(sym):
        if not ps or ps[0].kind not in ("posonly", "pos"):
            return None
        ps = ps[1:]
    kinds = [p.kind for p in ps]
    explicit = [p for p in ps if p.kind in ("pos", "kwonly")]
    if kind == "body-edit":
        first = next((st for st in fn.body if not isinstance(st, _COMPOUND)), None)
        if first is None:
            return None
        at = src.offset(first.lineno, first.col_offset)
        if first.lineno == fn.lineno or src.text[src.starts[first.lineno - 1]:at].strip():
            return None  # the body shares a line with something else
        return Mutation(kind, sym, src.text[:at] + "_gg_edit = 0; " + src.text[at:], "body edit", names, fspan)
    new: list[P] | None = None
    gone: tuple[str, ...] = ()
    if kind in ("add-required", "add-optional"):
        name = "gg_new" if kind == "add-required" else "gg_opt"
        if name in {p.name for p in ps}:
            return None
        plain = kind == "add-required" and all(k == "pos" for k in kinds) and not any(p.has_default for p in ps)
        added = P("pos" if plain else "kwonly", name, name if kind == "add-required" else f"{name}=None", kind == "add-optional")
        at = len(ps) - (1 if ps and ps[-1].kind == "kwarg" else 0)
        new = ps[:at] + [added] + ps[at:]
        detail = f"added {'required' if kind == 'add-required' else 'optional'} {'keyword-only ' if added.kind == 'kwonly' else ''}parameter {added.text}"
    elif kind == "remove-param":
        if not explicit:
            return None
        p = rng.choice(explicit)
        new, gone, detail = [q for q in ps if q is not p], (p.name,), f"removed parameter {p.name}"
    elif kind == "rename-kw-param":
        passed = [p for p in explicit if keyword_uses.get(p.name)]
        if not passed:
            return None
        p = rng.choice(passed)
        new = [P(q.kind, q.name + "_gg", q.name + "_gg" + q.text[len(q.name):], q.has_default) if q is p else q for q in ps]
        gone, detail = (p.name,), f"renamed parameter {p.name} -> {p.name}_gg (passed by keyword {keyword_uses[p.name]}x)"
    elif kind == "keyword-only":
        if "vararg" in kinds or "posonly" in kinds or "pos" not in kinds:
            return None
        new, detail = [P("kwonly", p.name, p.text, p.has_default) if p.kind == "pos" else p for p in ps], "made the parameters keyword-only"
    elif kind == "remove-default":
        pos = [p for p in ps if p.kind in ("posonly", "pos")]
        first_default = next((p for p in pos if p.has_default), None)
        choices = ([first_default] if first_default and first_default.kind == "pos" else []) + [p for p in ps if p.kind == "kwonly" and p.has_default]
        if not choices:
            return None
        p = rng.choice(choices)
        bare = P(p.kind, p.name, _strip_default(p), False)
        new, detail = [bare if q is p else q for q in ps], f"removed the default of {p.name}"
    else:
        raise ValueError(kind)
    text = _with_params(src, sym, new)
    if text is None:
        return None
    return Mutation(kind, sym, text, detail, names, fspan, gone)


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.Match, getattr(ast, "TryStar", ast.Try))


def _strip_default(p: P) -> str:
    """`x: int = 3` -> `x: int` (the default is the part after the last top-level `=`)."""
    tree = ast.parse(f"def f({'*, ' if p.kind == 'kwonly' else ''}{p.text}): pass").body[0]
    assert isinstance(tree, ast.FunctionDef)
    arg = (tree.args.kwonlyargs or tree.args.args)[0]
    return ast.get_source_segment(f"def f({'*, ' if p.kind == 'kwonly' else ''}{p.text}): pass", arg) or p.name


# --- graphguard -------------------------------------------------------------------------------


def gg_callers(repo: str, symbol: str) -> list[dict[str, object]] | None:
    proc = run([*GG, "callers", symbol, "--format", "json"], cwd=repo, check=False)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)["callers"]


@dataclass
class Site:
    path: str
    line: int
    end_line: int
    status: str
    reason: str
    kind: str
    symbol: str
    resolution: str


def gg_check(repo: str, *flags: str) -> tuple[dict, float, float]:
    """The report, the wall time and the CPU time of one `graphguard check FLAGS` process."""
    cpu, t = children_cpu(), time.perf_counter()
    proc = run([*GG, "check", *flags, "--format", "json"], cwd=repo, check=False)
    elapsed, cpu = time.perf_counter() - t, children_cpu() - cpu
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"graphguard check failed ({proc.returncode}): {proc.stderr[-1500:]}")
    return json.loads(proc.stdout), elapsed, cpu


_SEVERITY = {"broken": 2, "unknown": 1, "ok": 0}


def sites_of(report: dict) -> list[Site]:
    best: dict[tuple[str, int, int], Site] = {}
    for ch in report.get("changes", []):
        for c in ch.get("callers", []):
            key = (c["path"], c["line"], c["end_line"])
            s = Site(c["path"], c["line"], c["end_line"], c["status"], c.get("reason", ""), c.get("kind", ""), ch["symbol"],
                     c.get("resolution", ""))
            if key not in best or _SEVERITY[s.status] > _SEVERITY[best[key].status]:
                best[key] = s
    return list(best.values())


# --- one mutation -----------------------------------------------------------------------------


@dataclass
class Outcome:
    project: str
    mutation: Mutation
    check_ms: float
    check_reported_ms: int
    check_cpu_ms: float
    pyright_s: float
    files: int
    verdict: str
    gg: list[Site]
    oracle: list[Diag]
    annotations: list[Diag]
    both: int = 0
    recalled: int = 0
    confirmed_import: int = 0
    gg_only_blind: list[Site] = field(default_factory=list)
    gg_only_seen: list[Site] = field(default_factory=list)  # pyright resolves the call to this definition
    gg_only_elsewhere: list[Site] = field(default_factory=list)  # pyright resolves it to another one of that name
    oracle_only: list[tuple[Diag, str]] = field(default_factory=list)  # (diagnostic, graphguard's status there)
    oracle_unknown: int = 0
    mode: str = "staged"
    ty: list[Diag] = field(default_factory=list)  # ty's new call-related errors, one per (path, line)
    ty_s: float = 0.0
    ty_recalled: int = 0
    ty_both: int = 0
    ty_only: list[Diag] = field(default_factory=list)  # ty sites the oracle does not confirm


def annotation_lines(tree: ast.Module) -> list[tuple[int, int, int, int]]:
    """(line, col, end_line, end_col) of every annotation in a module."""
    spans = []
    for n in ast.walk(tree):
        anns = []
        if isinstance(n, ast.arg) and n.annotation is not None:
            anns.append(n.annotation)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            anns.append(n.returns)
        elif isinstance(n, ast.AnnAssign):
            anns.append(n.annotation)
        for a in anns:
            spans.append((a.lineno, a.col_offset, a.end_lineno or a.lineno, a.end_col_offset or 0))
    return spans


def in_annotation(d: Diag, spans: list[tuple[int, int, int, int]]) -> bool:
    return any((l, c) <= (d.line, d.col) <= (el, ec) for l, c, el, ec in spans)


class Bench:
    def __init__(self, name: str, project: Project, repo: str, pyright: Pyright,
                 base: dict[str, collections.Counter[tuple[str, int, str, str]]], ty: Ty,
                 ty_base: dict[str, collections.Counter[tuple[str, int, str, str]]], modes: list[str]) -> None:
        self.name, self.project, self.repo, self.pyright, self.base = name, project, repo, pyright, base
        self.ty, self.ty_base, self.modes = ty, ty_base, modes
        self.probes: dict[tuple[tuple[str, ...], tuple[tuple[str, int], ...]], list[Diag]] = {}  # the same probe for every mode
        self.files = [p for p in run(["git", "ls-files", "*.py"], cwd=repo).stdout.split()
                      if p.split("/", 1)[0] in project.include]
        self.by_name: dict[str, list[Symbol]] = {}  # filled once the symbols are listed
        self.words: dict[str, set[str]] = collections.defaultdict(set)  # word -> files that mention it
        self.texts: dict[str, str] = {}
        for path in self.files:
            with open(os.path.join(repo, path), encoding="utf-8", errors="replace") as f:
                text = f.read()
            self.texts[path] = text
            for w in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)):
                self.words[w].add(path)

    def called_by_text(self, name: str) -> bool:
        """A cheap filter before asking graphguard: `name(` occurs somewhere besides `def name(`."""
        call = re.compile(rf"(?<!\w)(?<!def )(?<!class ){re.escape(name)}\s*\(")
        return any(call.search(self.texts[p]) for p in self.words.get(name, ()))

    def new_diagnostics(self, files: list[str]) -> tuple[list[Diag], float]:
        after, elapsed = self.pyright.run(files)
        return new_only(after, self.base), elapsed

    def affected(self, m: Mutation) -> list[str]:
        files = {m.symbol.path}
        for n in m.names:
            files |= self.words.get(n, set())
        return sorted(files)

    def apply(self, m: Mutation) -> None:
        with open(os.path.join(self.repo, m.symbol.path), "w", encoding="utf-8") as f:
            f.write(m.new_text)
        run(["git", "add", m.symbol.path], cwd=self.repo)

    def restore(self, path: str) -> None:
        run(["git", "checkout", "-q", "HEAD", "--", path], cwd=self.repo)

    def probe(self, group: list[Symbol], sites: list[Site]) -> list[Diag]:
        """New oracle diagnostics at `sites` when every symbol of `group` gets a required keyword-only parameter."""
        key = (tuple(sorted(t.full for t in group)), tuple(sorted({(s.path, s.line) for s in sites})))
        if key not in self.probes:
            self.probes[key] = self._probe(group, sites)
        return self.probes[key]

    def _probe(self, group: list[Symbol], sites: list[Site]) -> list[Diag]:
        texts: dict[str, str] = {}
        for sym in sorted(group, key=lambda t: -t.node.lineno):  # bottom up: earlier offsets stay valid
            src = Source(texts.get(sym.path, self.texts[sym.path]))
            if sym.fn is None:
                continue
            try:
                ps = params(src, sym.fn)[1 if implicit_first(sym) else 0:]
                at = len(ps) - (1 if ps and ps[-1].kind == "kwarg" else 0)
                text = _with_params(src, sym, ps[:at] + [P("kwonly", "gg_probe", "gg_probe", False)] + ps[at:])
            except (ValueError, StopIteration, AssertionError, tokenize.TokenError):
                text = None
            if text is not None:
                texts[sym.path] = text
        if not texts:
            return []
        for path, text in texts.items():
            with open(os.path.join(self.repo, path), "w", encoding="utf-8") as f:
                f.write(text)
        try:
            new, _ = self.new_diagnostics(sorted({s.path for s in sites}))
        finally:
            run(["git", "checkout", "-q", "HEAD", "--", *texts], cwd=self.repo)
        return [d for d in new if d.rule in ORACLE_RULES]

    def gg_modes(self, m: Mutation) -> tuple[dict[str, tuple[dict, float, float]], list[Diag], float, list[Diag], float]:
        """graphguard's report in each mode, and the oracle's and ty's new diagnostics, the mutation in place."""
        repo, path = self.repo, m.symbol.path
        files = self.affected(m)
        reports: dict[str, tuple[dict, float, float]] = {}
        with open(os.path.join(repo, path), "w", encoding="utf-8") as f:
            f.write(m.new_text)
        try:
            if "worktree" in self.modes:
                reports["worktree"] = gg_check(repo, "--worktree")
            run(["git", "add", path], cwd=repo)
            if "staged" in self.modes:
                reports["staged"] = gg_check(repo, "--staged")
            new, pyright_s = self.new_diagnostics(files)
            after, ty_s = self.ty.run(files)
            ty_new = new_only(after, self.ty_base)
            committed = [md for md in self.modes if md.startswith(("base", "cold"))]
            if committed:
                run(["git", *GIT_ID, "commit", "-q", "--no-verify", "-m", f"mutation: {m.kind} {m.symbol.full}"], cwd=repo)
                try:
                    if "base:graph-old" in self.modes:  # the base checked out: the graph describes the old side
                        run(["git", "checkout", "-q", "--detach", "HEAD~1"], cwd=repo)
                        reports["base:graph-old"] = gg_check(repo, "--base", "HEAD", "--head", "main")
                        run(["git", "checkout", "-q", "main"], cwd=repo)
                    if "base:graph-new" in self.modes:  # the mutation checked out and indexed, as post-checkout leaves it
                        run([*GG, "index"], cwd=repo)
                        reports["base:graph-new"] = gg_check(repo, "--base", "HEAD~1", "--head", "HEAD")
                    if "cold-clone" in self.modes:  # CI: a fresh clone, no graph
                        clone = os.path.join(CACHE, f"cold-{self.name}")
                        shutil.rmtree(clone, ignore_errors=True)
                        run(["git", "clone", "-q", repo, clone])
                        try:
                            reports["cold-clone"] = gg_check(clone, "--base", "HEAD~1", "--head", "HEAD")
                        finally:
                            shutil.rmtree(clone, ignore_errors=True)
                finally:
                    run(["git", "checkout", "-q", "-f", "main"], cwd=repo)
                    run(["git", "reset", "-q", "--hard", "HEAD~1"], cwd=repo)
        finally:
            self.restore(path)
        return reports, new, pyright_s, ty_new, ty_s

    def measure(self, m: Mutation) -> list[Outcome]:
        """One outcome per mode: the same oracle and ty sites, graphguard's report in that mode."""
        path = m.symbol.path
        files = self.affected(m)
        reports, new, pyright_s, ty_new, ty_s = self.gg_modes(m)
        oracle, annotations = [], []
        trees: dict[str, list[tuple[int, int, int, int]]] = {}

        def annotation(d: Diag) -> bool:
            if d.path not in trees:
                text = m.new_text if d.path == path else self.texts.get(d.path, "")
                try:
                    trees[d.path] = annotation_lines(ast.parse(text))
                except SyntaxError:
                    trees[d.path] = []
            return in_annotation(d, trees[d.path])

        def gone_param(d: Diag) -> bool:
            """A use, in the mutated body, of a parameter the mutation removed or renamed: no call site."""
            return (d.path == path and m.span[0] <= d.line <= m.span[1] and d.rule in ("reportUndefinedVariable", "unresolved-reference")
                    and any(f'"{g}" is not defined' in d.message or f"`{g}`" in d.message for g in m.gone_params))

        for d in new:
            if d.rule not in ORACLE_RULES or gone_param(d):
                continue
            (annotations if annotation(d) else oracle).append(d)
        ty_sites = sorted({(d.path, d.line): d for d in ty_new if d.rule in TY_RULES and not gone_param(d) and not annotation(d)}.values(),
                          key=lambda d: (d.path, d.line))
        # Only what pyright checks can be compared (attrs' bench/ and typing-examples/ are outside).
        scope = set(self.files)
        out = []
        for mode in self.modes:
            report, check_s, check_cpu = reports[mode]
            sites = [s for s in sites_of(report) if s.path in scope]
            o = Outcome(self.name, m, check_s * 1000, report.get("stats", {}).get("elapsed_ms", 0), check_cpu * 1000,
                        pyright_s, len(files), report.get("verdict", "?"), sites, list(oracle), list(annotations), mode=mode,
                        ty=[d for d in ty_sites if d.path in scope], ty_s=ty_s)
            self.compare(o)
            out.append(o)
        return out

    def compare(self, o: Outcome) -> None:
        def covers(s: Site, d: Diag) -> bool:
            return s.path == d.path and s.line <= d.line <= s.end_line

        points = sorted({(d.path, d.line): d for d in o.oracle}.values(), key=lambda d: (d.path, d.line))
        o.oracle = points
        broken = [s for s in o.gg if s.status == "broken"]
        for d in points:
            here = [s for s in o.gg if covers(s, d)]
            if any(s.status == "broken" for s in here):
                o.recalled += 1
            else:
                status = max((s.status for s in here), key=_SEVERITY.__getitem__, default="not found")
                o.oracle_only.append((d, status))
                o.oracle_unknown += status == "unknown"
        name = o.mutation.symbol.name
        # pyright flags a failed import, not the uses of the name it brought: a site in a file whose
        # import of the name (or whose package's re-export of it) pyright flags is confirmed.
        import_hit = {d.path for d in points if f'"{name}" is unknown import symbol' in d.message}
        packages = {p.rsplit("/", 2)[-2] for p in import_hit if p.endswith("/__init__.py") and "/" in p}

        def via_import(s: Site) -> bool:
            return s.path in import_hit or any(pkg in self.words and s.path in self.words[pkg] for pkg in packages)

        def meets(t: Diag, d: Diag) -> bool:
            return t.path == d.path and (t.line <= d.line <= t.end_line or d.line <= t.line <= d.end_line)

        o.ty_recalled = sum(any(meets(t, d) for t in o.ty) for d in points)
        for t in o.ty:
            if (any(meets(t, d) for d in points) or any(meets(t, d) for d in o.annotations)
                    or o.mutation.kind in ("remove", "rename") and (t.path in import_hit or any(pkg in self.words and t.path in self.words[pkg] for pkg in packages))):
                o.ty_both += 1
            else:
                o.ty_only.append(t)

        gg_only = []
        for s in broken:
            if any(covers(s, d) for d in points):
                o.both += 1
            elif any(covers(s, d) for d in o.annotations):
                o.both += 1  # pyright flags the name in an annotation: confirmed, though recall does not ask for it
            elif o.mutation.kind in ("remove", "rename") and via_import(s):
                o.both += 1
                o.confirmed_import += 1
            else:
                gg_only.append(s)
        if not gg_only:
            return
        # Probe: does pyright see these calls at all? Add a required keyword-only parameter
        # (which no call passes) to the symbol as it was and look again; then to every
        # definition of that name: a site flagged only then is, for pyright, a call of another one.
        sym = o.mutation.symbol
        rest = gg_only
        for group in ([sym], [t for t in self.by_name.get(sym.name, []) if t.kind == sym.kind or sym.kind != "class"]):
            flagged = self.probe(group, rest)
            hit = [s for s in rest if any(covers(s, d) for d in flagged)]
            (o.gg_only_seen if group == [sym] else o.gg_only_elsewhere).extend(hit)
            rest = [s for s in rest if s not in hit]
            if not rest:
                break
        o.gg_only_blind = rest


# --- selection ----------------------------------------------------------------------------------


def keyword_uses(bench: Bench, sym: Symbol, trees: dict[str, ast.Module]) -> collections.Counter[str]:
    """Keywords passed at calls naming `sym` (by its name), anywhere in the project: from the source, not the graph."""
    uses: collections.Counter[str] = collections.Counter()
    for path in bench.words.get(sym.name, ()):
        tree = trees.get(path)
        if tree is None:
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                f = n.func
                called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if called == sym.name:
                    uses.update(k.arg for k in n.keywords if k.arg)
    return uses


def select(bench: Bench, symbols: list[Symbol], trees: dict[str, ast.Module], n: int, seed: int) -> list[Mutation]:
    rng = random.Random(f"{seed}:{bench.name}")
    pool = list(symbols)
    rng.shuffle(pool)
    callers_cache: dict[str, bool] = {}
    used: set[str] = set()
    plan = [KINDS[i % len(KINDS)] for i in range(n)]
    out: list[Mutation] = []
    for kind in plan:
        for sym in pool:
            if sym.full in used:
                continue
            if len(bench.words.get(sym.name, ())) > bench.project.max_files or not bench.called_by_text(sym.name):
                continue
            src = Source(bench.texts[sym.path])
            try:
                m = mutate(kind, sym, src, random.Random(f"{seed}:{sym.full}:{kind}"), keyword_uses(bench, sym, trees)
                           if kind == "rename-kw-param" else collections.Counter())
            except (ValueError, StopIteration, AssertionError, tokenize.TokenError):
                m = None
            if m is None:
                continue
            try:
                ast.parse(m.new_text)
            except SyntaxError as e:
                log(f"  (skipped {kind} {sym.full}: the edit does not parse: {e})")
                continue
            if m.new_text.count("\n") != src.text.count("\n"):
                continue
            if sym.full not in callers_cache:
                callers = gg_callers(bench.repo, sym.full)
                callers_cache[sym.full] = bool(callers) and any(c["kind"] == "call" and c["resolution"] == "exact" for c in callers)
            if not callers_cache[sym.full]:
                continue
            used.add(sym.full)
            out.append(m)
            break
    return out


# --- the report ---------------------------------------------------------------------------------


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def table(outcomes: list[Outcome]) -> str:
    head = ("| project | mutation | n | pyright sites | gg broken | both | recall | precision | precision (pyright sees) "
            "| ty sites | ty recall | ty precision "
            "| gg-only, pyright blind | gg-only, pyright sees: this def / another | pyright-only: gg unknown / ok / not found | gg unknown | blocked |")
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    groups: dict[tuple[str, str], list[Outcome]] = collections.defaultdict(list)
    projects = list(dict.fromkeys(o.project for o in outcomes))
    for o in outcomes:
        for p in {o.project, "all projects" if len(projects) > 1 else o.project}:
            groups[(p, o.mutation.kind)].append(o)
            groups[(p, "all breaking" if o.mutation.kind in BREAKING else "all controls")].append(o)
    projects += ["all projects"] if len(projects) > 1 else []
    order = [(p, k) for p in projects for k in [*KINDS, "all breaking", "all controls"] if (p, k) in groups]
    for p, k in order:
        g = groups[(p, k)]
        oracle = sum(len(o.oracle) for o in g)
        broken = sum(sum(s.status == "broken" for s in o.gg) for o in g)
        both = sum(o.both for o in g)
        recalled = sum(o.recalled for o in g)
        blind = sum(len(o.gg_only_blind) for o in g)
        seen = sum(len(o.gg_only_seen) for o in g)
        elsewhere = sum(len(o.gg_only_elsewhere) for o in g)
        only = collections.Counter(st for o in g for _, st in o.oracle_only)
        unknown = sum(sum(s.status == "unknown" for s in o.gg) for o in g)
        blocked = sum(o.verdict == "block" for o in g)
        ty_sites = sum(len(o.ty) for o in g)
        ty_recalled = sum(o.ty_recalled for o in g)
        ty_both = sum(o.ty_both for o in g)
        bold = "**" if k.startswith("all") else ""
        control = k in CONTROLS or k == "all controls"
        rows.append(f"| {p} | {bold}{k}{bold} | {len(g)} | {oracle} | {broken} | {both} | {pct(recalled, oracle)} | "
                    f"{pct(both, broken)} | {pct(both, both + seen + elsewhere)} | "
                    f"{ty_sites} | {pct(ty_recalled, oracle)} | {pct(ty_both, ty_sites)} | {blind} | {seen} / {elsewhere} | "
                    f"{only['unknown']} / {only['ok']} / {only['not found']} | {unknown} | "
                    f"{f'{blocked} of {len(g)}' if control else blocked} |")
    return "\n".join(rows)


def line_text(bench: Bench, path: str, line: int) -> str:
    lines = bench.texts.get(path, "").splitlines()
    return lines[line - 1].strip()[:110] if 0 < line <= len(lines) else ""


def disagreements(benches: dict[str, Bench], outcomes: list[Outcome], per_kind: int) -> str:
    out = []
    cats: dict[str, list[str]] = collections.defaultdict(list)
    for o in outcomes:
        b = benches[o.project]
        m = o.mutation
        what = f"{o.project} {m.kind} `{m.symbol.full}` ({m.detail})"
        for d, st in o.oracle_only:
            cats[f"pyright flags, graphguard {st}"].append(
                f"{what}\n    {d.path}:{d.line}: `{line_text(b, d.path, d.line)}`\n    pyright {d.rule}: {d.message.splitlines()[0]}")
        for s in o.gg_only_seen:
            cats["graphguard broken, pyright sees the call and accepts it"].append(
                f"{what}\n    {s.path}:{s.line}: `{line_text(b, s.path, s.line)}`\n    graphguard: {s.reason} [{s.resolution}]")
        for s in o.gg_only_elsewhere:
            cats["graphguard broken, pyright resolves the call to another definition of that name"].append(
                f"{what}\n    {s.path}:{s.line}: `{line_text(b, s.path, s.line)}`\n    graphguard: {s.reason} [{s.resolution}]")
        for s in o.gg_only_blind:
            cats["graphguard broken, pyright blind there"].append(
                f"{what}\n    {s.path}:{s.line}: `{line_text(b, s.path, s.line)}`\n    graphguard: {s.reason} [{s.resolution}]")
        if m.kind in CONTROLS:
            for s in o.gg:
                if s.status == "broken":
                    cats["control blocked"].append(f"{what}\n    {s.path}:{s.line}: {s.reason}")
        for t in o.ty_only:
            cats["ty flags, the oracle does not confirm"].append(
                f"{what}\n    {t.path}:{t.line}: `{line_text(b, t.path, t.line)}`\n    ty {t.rule}: {t.message.splitlines()[0]}")
        for d in o.annotations:
            cats["pyright flags an annotation (not counted)"].append(
                f"{what}\n    {d.path}:{d.line}: `{line_text(b, d.path, d.line)}`")
    for cat, items in cats.items():
        out.append(f"\n### {cat}: {len(items)}\n")
        for item in items[:per_kind]:
            out.append(f"- {item}")
        if len(items) > per_kind:
            out.append(f"- ... {len(items) - per_kind} more")
    return "\n".join(out)


def mode_differences(outcomes: list[Outcome], reference: str = "staged") -> str:
    """Per mutation, the sites whose status in a mode differs from the reference mode's (a site absent there: "-")."""
    by_mutation: dict[tuple[str, str, str], dict[str, dict[tuple[str, int], str]]] = collections.defaultdict(dict)
    for o in outcomes:
        by_mutation[(o.project, o.mutation.kind, o.mutation.symbol.full)][o.mode] = {(s.path, s.line): s.status for s in o.gg}
    out = []
    for (project, kind, symbol), modes in by_mutation.items():
        ref = modes.get(reference, {})
        for mode, found in modes.items():
            if mode == reference:
                continue
            for key in sorted(set(ref) | set(found)):
                if ref.get(key) != found.get(key):
                    out.append(f"- {project} {kind} `{symbol}`: {key[0]}:{key[1]}: {reference} {ref.get(key, '-')}, {mode} {found.get(key, '-')}")
    return "\n".join(out) if out else "none: every mode reported the same sites with the same status"


def timing(outcomes: list[Outcome], extra: dict[str, dict[str, float]]) -> str:
    """Whole-process times of `check --staged` (graph warm), beside pyright's on the same repository."""
    rows = ["| project | checks | check p50, wall | interface changes: p50 wall / CPU / reported | body edits: p50 wall "
            "| check max, wall | graphguard index (cold) | pyright, whole project | pyright p50, affected files only (files) "
            "| ty p50, affected files only |",
            "|---|---|---|---|---|---|---|---|---|---|"]

    def p50(values: list[float]) -> str:
        return f"{statistics.median(values):.0f} ms" if values else "-"

    for p in dict.fromkeys(o.project for o in outcomes):
        g = [o for o in outcomes if o.project == p and o.mode == outcomes[0].mode]
        sig = [o for o in g if o.mutation.kind != "body-edit"]
        body = [o for o in g if o.mutation.kind == "body-edit"]
        e = extra[p]
        rows.append(f"| {p} | {len(g)} | {p50([o.check_ms for o in g])} | {p50([o.check_ms for o in sig])} / "
                    f"{p50([o.check_cpu_ms for o in sig])} / {p50([o.check_reported_ms for o in sig])} | "
                    f"{p50([o.check_ms for o in body])} | {max(o.check_ms for o in g):.0f} ms | {e['index_s']:.1f} s | "
                    f"{e['pyright_whole_s']:.0f} s{' (cached run)' if e['cached'] else ''} | "
                    f"{statistics.median(o.pyright_s for o in g):.1f} s ({statistics.median(o.files for o in g):.0f}) | "
                    f"{statistics.median(o.ty_s for o in g):.2f} s |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", default="attrs,jinja2,django,netbox")
    ap.add_argument("--modes", default=",".join(MODES), help="graphguard modes to run: " + ", ".join(MODES))
    ap.add_argument("--mutations", type=int, default=12, help="mutations per project, dealt round-robin over the 9 kinds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="pyright --threads")
    ap.add_argument("--examples", type=int, default=4, help="disagreements printed per category")
    ap.add_argument("--budget", type=float, default=10.0, help="minutes per project before remaining mutations are skipped")
    ap.add_argument("--json", help="write every outcome here")
    args = ap.parse_args()

    started = time.perf_counter()
    exe, python, ty_exe = ensure_tools()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or "staged" not in modes:
        raise SystemExit(f"--modes: {unknown or 'staged is required (the timing table and the reference)'}; choose from {MODES}")
    outcomes: list[Outcome] = []
    benches: dict[str, Bench] = {}
    extra: dict[str, dict[str, float]] = {}
    for name in args.projects.split(","):
        project = PROJECTS[name]
        t0 = time.perf_counter()
        repo = fetch(name, project)
        t = time.perf_counter()
        run([*GG, "index"], cwd=repo)
        index_s = time.perf_counter() - t
        pyright = Pyright(exe, python, repo, args.threads)
        base, whole_s, cached = baseline(pyright, project, name)
        extra[name] = {"index_s": index_s, "pyright_whole_s": whole_s, "cached": cached}
        ty = Ty(ty_exe, python, repo, project)
        bench = Bench(name, project, repo, pyright, base, ty, ty_baseline(ty, name), modes)
        benches[name] = bench
        sys.path.insert(0, ROOT)
        from graphguard.languages.python.modules import ModuleMap  # the module names graphguard gives files

        modules = ModuleMap.build(run(["git", "ls-files"], cwd=repo).stdout.split()).primary
        symbols, trees = symbols_of(repo, bench.files, modules)
        for sym in symbols:
            bench.by_name.setdefault(sym.name, []).append(sym)
        plan = select(bench, symbols, trees, args.mutations, args.seed)
        log(f"{name}: {len(bench.files)} files, {len(symbols)} symbols, {len(plan)} mutations")
        for i, m in enumerate(plan, 1):
            if time.perf_counter() - t0 > args.budget * 60:
                log(f"{name}: budget of {args.budget} min spent; {len(plan) - i + 1} mutations skipped")
                break
            per_mode = bench.measure(m)
            outcomes += per_mode
            o = next(o for o in per_mode if o.mode == "staged")
            log(f"  [{i}/{len(plan)}] {m.kind:<16} {m.symbol.full}: gg {sum(s.status == 'broken' for s in o.gg)} broken "
                f"{sum(s.status == 'unknown' for s in o.gg)} unknown, pyright {len(o.oracle)}, both {o.both}, "
                f"recalled {o.recalled}, ty {len(o.ty)} (recalled {o.ty_recalled}); modes: "
                + ", ".join(f"{x.mode} {x.recalled}/{x.both}/{sum(s.status == 'broken' for s in x.gg)}" for x in per_mode)
                + f" ({o.check_ms:.0f} ms check, {o.pyright_s:.1f} s pyright on {o.files} files)")
    staged = [o for o in outcomes if o.mode == "staged"]
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n{len(staged)} mutations of {args.projects} (seed {args.seed}) in {len(modes)} modes, "
          f"{(time.perf_counter() - started) / 60:.1f} min, {time.strftime('%Y-%m-%d', time.gmtime())}, "
          f"{os.cpu_count()} cores (load average {load}), pyright {PYRIGHT_VERSION}, ty {TY_VERSION}")
    for mode in modes:
        print(f"\n## Results: {mode}\n")
        print(table([o for o in outcomes if o.mode == mode]))
    print("\n## Mode differences (against staged)\n")
    print(mode_differences(outcomes))
    print("\n## Timing (check --staged)\n")
    print(timing(staged, extra))
    print("\n## Disagreements (examples, check --staged)")
    print(disagreements(benches, staged, args.examples))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"project": o.project, "mode": o.mode, "kind": o.mutation.kind, "symbol": o.mutation.symbol.full,
                        "detail": o.mutation.detail, "verdict": o.verdict, "check_ms": o.check_ms,
                        "check_cpu_ms": o.check_cpu_ms, "check_reported_ms": o.check_reported_ms,
                        "pyright_s": o.pyright_s, "files": o.files,
                        "gg": [s.__dict__ for s in o.gg], "oracle": [d.__dict__ for d in o.oracle],
                        "annotations": [d.__dict__ for d in o.annotations],
                        "gg_only_blind": [s.__dict__ for s in o.gg_only_blind],
                        "gg_only_seen": [s.__dict__ for s in o.gg_only_seen],
                        "gg_only_elsewhere": [s.__dict__ for s in o.gg_only_elsewhere],
                        "oracle_only": [[d.__dict__, st] for d, st in o.oracle_only],
                        "ty": [d.__dict__ for d in o.ty], "ty_only": [d.__dict__ for d in o.ty_only]} for o in outcomes], f, indent=1)


if __name__ == "__main__":
    main()
