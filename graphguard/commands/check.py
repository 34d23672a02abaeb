"""`graphguard check`: find interface changes, walk to every use, decide, block or report.

    what is compared (staged | worktree | two commits)
      -> the changed .py files, old and new bytes (blobs; the working tree only for --worktree)
      -> libcst signatures of both versions -> sigdiff -> changed symbols
      -> uses: stored graph for unchanged files; changed files resolved fresh
         against the old and the new version (an overlay: nothing stored changes)
      -> impact.decide per use -> tests -> verdict -> report
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from graphguard import git, output
from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.errors import GraphguardError
from graphguard.graph import CodeGraph
from graphguard.model import DefKind, FileFacts
from graphguard.modules import ModuleMap, is_python
from graphguard.repo import Repo, ensure_current, open_repo
from graphguard.result import CallerImpact, CheckResult, FileWarning, Status, SymbolImpact, TestHit


@dataclass
class Version:
    """One side of the comparison for the changed files."""

    rev: str  # a commit, INDEX or WORKTREE
    data: dict[str, bytes] = field(default_factory=dict)  # path -> bytes (absent: the file does not exist)
    blobs: dict[str, str] = field(default_factory=dict)  # path -> blob sha


def _select(repo: Repo, head: str | None, staged: bool, worktree: bool, base: str | None, head_ref: str | None) -> tuple[str, str, str, list[str]]:
    """(old commit, new rev, what is compared, notes)."""
    root = repo.root
    notes: list[str] = []
    if base is not None:
        if head is None:
            raise GraphguardError("the repository has no commits; nothing to compare with --base")
        new = git.resolve_commit(root, head_ref or "HEAD")
        try:
            base_commit = git.resolve_commit(root, base)
        except GraphguardError:
            hint = (" (a shallow clone: fetch it, e.g. `git fetch origin main`, or check out"
                    " with actions/checkout `fetch-depth: 0`)") if git.is_shallow(root) else ""
            raise GraphguardError(f"unknown revision: {base}{hint}") from None
        old = git.merge_base(root, base_commit, new)
        if old is None:
            if git.is_shallow(root):
                raise GraphguardError(
                    f"no merge base between {base} and {head_ref or 'HEAD'}: this is a shallow clone."
                    " Fetch the history (actions/checkout with `fetch-depth: 0`, or `git fetch --deepen=200`)"
                )
            raise GraphguardError(f"{base} and {head_ref or 'HEAD'} have no common ancestor")
        return old, new, "commits", notes
    assert head is not None
    if staged:
        return head, git.INDEX, "staged", notes
    if worktree:
        return head, git.WORKTREE, "worktree", notes
    if git.has_staged_changes(root):
        if git.has_unstaged_changes(root):
            notes.append("unstaged changes were not checked (staged changes were); `graphguard check --worktree` checks them")
        return head, git.INDEX, "staged", notes
    return head, git.WORKTREE, "worktree", notes


def _read(root: str, rev: str, paths: list[str], warnings: list[FileWarning]) -> Version:
    version = Version(rev)
    # A name that is not UTF-8 cannot be a module name, nor be stored in SQLite: as the indexer does, skip it.
    unnamed = [p for p in paths if not _is_utf8(p)]
    for path in unnamed:
        warning = FileWarning(path, "file name is not valid UTF-8; not checked")
        if warning not in warnings:  # once for both sides
            warnings.append(warning)
    paths = [p for p in paths if p not in unnamed]
    if rev == git.WORKTREE:
        for path in paths:
            data = _read_regular_file(root, path)
            if isinstance(data, str):  # why it was not read
                warnings.append(FileWarning(path, f"{data}; not checked"))
            elif data is not None:
                version.data[path] = data
                version.blobs[path] = git.blob_sha(data)
        return version
    entries = git.blobs_at(root, rev, paths)
    wanted = {}
    for path, e in entries.items():
        if e.mode == git.MODE_SYMLINK:
            warnings.append(FileWarning(path, "symlink; not checked"))
        elif e.mode != git.MODE_SUBMODULE:
            wanted[e.sha] = path
    for sha, data in git.read_blobs(root, sorted(wanted)):
        pass_path = wanted[sha]
        version.data[pass_path] = data
        version.blobs[pass_path] = sha
    # Several paths can share one blob.
    for path, e in entries.items():
        if path not in version.data and e.sha in version.blobs.values():
            src = next(p for p, s in version.blobs.items() if s == e.sha)
            version.data[path], version.blobs[path] = version.data[src], e.sha
    return version


def _is_utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_regular_file(root: str, path: str) -> bytes | str | None:
    """A working-tree file's bytes; None when it is not there; else why it was not read.

    Only a regular file is opened (a FIFO would block the read for ever), and no symlink is
    followed on the way, folders included: `pkg/sub -> /elsewhere` must not make the check
    read `pkg/sub/x.py` outside the repository (git itself never looks through it).
    """
    *folders, name = path.split("/")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if os.open not in os.supports_dir_fd:  # Windows: no openat; check each step, then open
        return _read_checked_path(root, folders, name, flags)
    fds = [os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))]
    try:
        for folder in folders:
            try:
                fds.append(os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fds[-1]))
            except (FileNotFoundError, NotADirectoryError):
                return "reached through a symlink in its path" if _is_link(folder, fds[-1]) else None
            except OSError as e:  # ELOOP: O_NOFOLLOW met a symlink
                return "reached through a symlink in its path" if _is_link(folder, fds[-1]) else f"not readable ({e.strerror})"
        try:
            fds.append(os.open(name, flags, dir_fd=fds[-1]))
        except FileNotFoundError:
            return None
        except OSError as e:
            return "symlink" if _is_link(name, fds[-1]) else f"not readable ({e.strerror})"
        return _read_fd(fds[-1])
    finally:
        for fd in fds:
            os.close(fd)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _read_checked_path(root: str, folders: list[str], name: str, flags: int) -> bytes | str | None:
    full = root
    parts = [*folders, name]
    for i, part in enumerate(parts):
        full = os.path.join(full, part)
        if not os.path.lexists(full):
            return None
        if os.path.islink(full):
            return "symlink" if i == len(parts) - 1 else "reached through a symlink in its path"
    try:
        fd = os.open(full, flags)
    except OSError as e:
        return f"not readable ({e.strerror})"
    try:
        return _read_fd(fd)
    finally:
        os.close(fd)


def _read_fd(fd: int) -> bytes | str | None:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        return None  # a folder where the file was: it is gone
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    with os.fdopen(os.dup(fd), "rb") as f:
        return f.read()


def check(
    repo_path: str,
    *,
    staged: bool = False,
    worktree: bool = False,
    base: str | None = None,
    head: str | None = None,
    fmt: str = "text",
) -> int:
    t0 = time.perf_counter()
    repo = open_repo(repo_path)
    root = repo.root
    head_commit = git.head(root)
    if base is None and head_commit is None:
        result = CheckResult(base="", head="", compared="nothing", notes=["no commit yet: nothing to compare"])
        return _finish(result, fmt, t0)
    config = load_config(root)
    old_rev, new_rev, compared, notes = _select(repo, head_commit, staged, worktree, base, head)
    ensure_current(repo, config=config)
    result = CheckResult(base=old_rev, head=new_rev, compared=compared, notes=notes,
                         block_on=frozenset(config.block_on), fail_on_unknown=config.fail_on_unknown)
    changes = [c for c in git.diff(root, old_rev, new_rev) if is_python(c.path) and not config.is_excluded(c.path)]
    result.files_changed = len(changes)
    if changes:
        _assess(repo, config, old_rev, new_rev, [c.path for c in changes], result)
    return _finish(result, fmt, t0)


def _finish(result: CheckResult, fmt: str, t0: float) -> int:
    from graphguard.report import RENDERERS

    result.elapsed_ms = int((time.perf_counter() - t0) * 1000)
    output.write(RENDERERS[fmt](result))
    if fmt == "github":  # GitHub sets GITHUB_STEP_SUMMARY in every step: only this format writes it
        from graphguard.report.github import append_step_summary

        try:
            append_step_summary(result)
        except GraphguardError as e:
            output.warn(f"step summary not written: {e}")
    return 1 if result.verdict == "block" else 0


# --- the assessment ------------------------------------------------------------------------


def _assess(repo: Repo, config: Config, old_rev: str, new_rev: str, paths: list[str], result: CheckResult) -> None:
    from graphguard.indexer import Indexer, parse_blob
    from graphguard.resolve import FileResolution, Resolver

    root = repo.root
    warnings = result.warnings
    old = _read(root, old_rev, paths, warnings)
    new = _read(root, new_rev, paths, warnings)
    store = repo.store
    graph = CodeGraph(store.graph)
    indexer = Indexer(repo.paths, store)

    # Tree-sitter facts of the new versions go to the blob cache: once the commit
    # lands, bringing the graph to it costs no parse.
    new_facts: dict[str, FileFacts] = {}
    fresh_rows = []
    for path, data in new.data.items():
        sha = new.blobs[path]
        raw = store.load_facts(sha)
        if raw is None:
            raw = parse_blob(data)
            fresh_rows.append((sha, raw))
        new_facts[path] = FileFacts.from_json(raw)
    if fresh_rows:
        store.save_facts(fresh_rows)

    # The snapshots around the changed files: the stored graph when it describes the old commit.
    stored_head = store.meta("head")
    if stored_head == old_rev:
        old_entries = dict(store.graph.execute("SELECT path, blob FROM files").fetchall())
    else:
        entries, _ = indexer.snapshot(old_rev)
        indexer.ensure_facts(entries)
        old_entries = {e.path: e.blob for e in entries}
    new_entries = {p: b for p, b in old_entries.items() if p not in paths}
    new_entries.update(new.blobs)
    old_map = ModuleMap.build(old_entries)
    # Module names depend only on the set of paths: most changes add or remove no file.
    new_map = old_map if old_entries.keys() == new_entries.keys() else ModuleMap.build(new_entries)

    def cached(path: str, entries: dict[str, str]) -> FileFacts | None:
        sha = entries.get(path)
        return indexer.facts(sha) if sha else None

    def old_loader(path: str) -> FileFacts | None:
        if path in old.data:
            sha = old.blobs[path]
            return indexer.facts(sha) or FileFacts.from_json(parse_blob(old.data[path]))
        return cached(path, old_entries)

    def new_loader(path: str) -> FileFacts | None:
        return new_facts.get(path) or (None if path in paths else cached(path, new_entries))

    new_resolver = Resolver(new_map, new_loader)
    resolved_new: dict[str, FileResolution] = {}  # unchanged files re-read against the new version, once each

    result.changes += _lost_reexports(graph, config, paths, old, new, old_map, old_loader, new_facts, new_resolver)
    # A file whose definitions' headers, decorators and class-level fields are as they
    # were changed only bodies: no interface change, and libcst (slow to import and to
    # run) is not needed for it.
    shaped = [p for p in sorted(paths) if _shape(old_loader(p) if p in old.data else None) != _shape(new_facts.get(p))]
    if not shaped:
        return
    from graphguard import impact, sigdiff, signature
    from graphguard.binding import CallShape

    # Signatures of both versions of each changed file (libcst: these files only).
    def sigs(version: Version, path: str, side: str) -> signature.ModuleSignatures | None:
        data = version.data.get(path)
        if data is None:
            return signature.ModuleSignatures(defs={}, all_names=None)
        try:
            return signature.extract(data)
        except signature.SignatureParseError as e:
            if side == "new":
                warnings.append(FileWarning(path, f"{e}; file not checked"))
            return None

    # Changed symbols, per file, then moves across files.
    per_file: list[tuple[str, sigdiff.SymbolChange]] = []
    gained: list[tuple[str, signature.Signature]] = []
    for path in shaped:
        before, after = sigs(old, path, "old"), sigs(new, path, "new")
        if before is None or after is None:
            continue
        per_file += [(path, ch) for ch in sigdiff.compare(before, after)]
        gained += [(path, sig) for sig in sigdiff.added(before, after)]
    # Modules are keyed by path here; a removal that another file gained is a move.
    symbol_changes = sigdiff.find_moves(per_file, gained)
    if not symbol_changes:
        return

    # Fresh resolution of the changed files' new versions, against both versions of the repository.
    fresh_new = {p: new_resolver.resolve_file(p) for p in new.data if p in new_map.primary}
    fresh_old = {}
    for p in new.data:
        if p not in old_map.primary and p not in new_map.primary:
            continue
        hybrid_map = old_map if p in old_map.primary else ModuleMap.build([*old_entries, p])
        loader: Callable[[str], FileFacts | None] = (lambda q, p=p: _with_old_definitions(new_facts[p], old_loader(p)) if q == p else old_loader(q))
        fresh_old[p] = Resolver(hybrid_map, loader).resolve_file(p)

    changed_paths = set(paths)
    for path, ch in symbol_changes:
        old_module = old_map.primary.get(path) or new_map.primary.get(path, "")
        qual = f"{old_module}.{ch.qualname}"
        new_q = None
        if ch.change.value in ("renamed", "signature"):
            new_q = f"{new_map.primary.get(path, old_module)}.{ch.new_qualname or ch.qualname}"
        elif ch.change.value == "moved" and ch.new_module is not None:
            new_q = f"{new_map.primary.get(ch.new_module, '')}.{ch.new_qualname}"
            ch = dataclasses.replace(ch, breaking=(f"moved:{new_q}",))
        after_sig = ch.after
        is_method = (ch.before or ch.after) is not None and (ch.before or ch.after).kind == "method"  # type: ignore[union-attr]
        class_name = ch.qualname.rsplit(".", 2)[-2] if is_method and "." in ch.qualname else None
        ctx = impact.ChangeContext(ch.change.value, qual, new_q, tuple(ch.breaking), after_sig, is_method, class_name)
        found: dict[tuple[str, int, int, str], impact.Found] = {}

        def add(f: impact.Found) -> None:
            key = (f.path, f.line, f.col, f.kind)
            if key not in found or f.reaches_new and not found[key].reaches_new:
                found[key] = f

        # How sure a by-name use is that it calls this definition (and not an override or a dict's).
        by_name = graph.by_name_resolution(qual) if is_method else "candidate"
        # Unchanged files: the stored graph (it describes the old commit, and these files did not change).
        if stored_head == old_rev:
            for u in graph.uses_of(qual):
                if u.path in changed_paths or u.resolution == "candidate":
                    continue
                add(impact.Found(u.path, u.line, u.end_line, u.col, u.caller, u.kind, u.text,
                                 by_name if u.resolution == "by-name" else u.resolution,
                                 CallShape(u.n_positional, u.keywords, u.has_star, u.has_starstar),
                                 reaches_new=ch.change.value == "signature", via="init" if u.via_init else "self"))
        else:
            resolver = Resolver(old_map, old_loader)
            for p in _candidates(graph, qual, changed_paths):
                if p not in old_map.primary:
                    continue
                for s in resolver.resolve_file(p).sites:
                    if qual in (s.target, s.init_target):
                        add(_found(p, s, reaches_new=ch.change.value == "signature", init=s.target != qual))
            if stored_head == new_rev:  # CI: the graph describes the head, where unchanged files read the same
                for u in graph.uses_of(qual):  # method calls on receivers typed by name only, as the hook sees them
                    if u.resolution == "by-name" and u.path not in changed_paths:
                        add(impact.Found(u.path, u.line, u.end_line, u.col, u.caller, u.kind, u.text, by_name,
                                         CallShape(u.n_positional, u.keywords, u.has_star, u.has_starstar),
                                         reaches_new=ch.change.value == "signature"))
        # Changed files: their new version, resolved against the old and against the new repository.
        for p, fr in fresh_old.items():
            for s in fr.sites:
                if qual in (s.target, s.init_target):
                    add(_found(p, s, reaches_new=False, init=s.target != qual))
        if new_q is not None:
            for p, fr in fresh_new.items():
                for s in fr.sites:
                    if new_q in (s.target, s.init_target):
                        add(_found(p, s, reaches_new=True, init=s.target != new_q))
            # Unchanged files reach the new definition when their names lead there now: a
            # re-export left behind by a move, an alias kept by a rename, a factory's return type.
            if ch.change.value != "signature":
                stale = {f.path for f in found.values() if not f.reaches_new and f.path not in changed_paths}
                for p in sorted(stale & set(new_map.primary)):
                    if p not in resolved_new:
                        resolved_new[p] = new_resolver.resolve_file(p)
                    for s in resolved_new[p].sites:
                        if new_q in (s.target, s.init_target):
                            add(_found(p, s, reaches_new=True, init=s.target != new_q))
                if new_q.rsplit(".", 1)[-1] == qual.rsplit(".", 1)[-1]:  # a method whose class was renamed or moved
                    for key, f in found.items():
                        if f.resolution in ("by-name", "by-name-weak") and not f.reaches_new:
                            found[key] = dataclasses.replace(f, reaches_new=True)
        # Generated code is walked through but is nobody's to fix.
        callers = sorted(
            (impact.decide(ctx, _on_class(new_resolver, f) if is_method else f)
             for f in found.values() if not config.is_generated(f.path)),
            key=lambda c: (c.status.value != "broken", c.path, c.line),
        )
        inherited = _inherited_now(new_resolver, new_map, path, ch.qualname) if is_method and ch.change.value == "removed" else None
        if inherited is not None:  # an override was removed: the base's method answers these calls now
            callers = [
                dataclasses.replace(c, status=Status.UNKNOWN, reason=f"'{ch.qualname.rsplit('.', 1)[-1]}' is now inherited from"
                                    f" {inherited}: check the call against its signature")
                if c.status is Status.BROKEN and c.kind == "call" else c
                for c in callers
            ]
        line = after_sig.line if after_sig is not None else (ch.before.line if ch.before is not None else 1)
        # A move is reported where the definition is now: its line, and any ignore marker, are there.
        where = ch.new_module if ch.change.value == "moved" and ch.new_module is not None else path
        marker_side = new if after_sig is not None and where in new.data else old
        ignored = ignored_codes(marker_side.data.get(where, b""), line)
        result.changes.append(
            SymbolImpact(
                symbol=qual,
                path=where,
                line=line,
                change=ch.change.value,
                breaking=tuple(ch.breaking),
                before=ch.before.text if ch.before is not None else None,
                after=after_sig.text if after_sig is not None else None,
                callers=tuple(callers),
                tests=tuple(_tests(graph, config, callers)),
                ignored=ignored,
                public=config.is_public(qual),
            )
        )
    result.changes.sort(key=lambda c: (c.path, c.line, c.symbol))


def _inherited_now(resolver, modmap: ModuleMap, path: str, local: str) -> str | None:  # type: ignore[no-untyped-def]
    """The base class method that a removed method `Class.name` now falls back to, if any."""
    from graphguard.resolve import Sym

    cls_local, name = local.rsplit(".", 1)
    module = modmap.primary.get(path)
    if module is None:
        return None
    info = resolver.info(path)
    if info is None or cls_local not in info.defs:
        return None
    cls = Sym(path, f"{module}.{cls_local}", cls_local, DefKind.CLASS)
    for base in resolver.bases(cls):
        if isinstance(base, Sym):
            found = resolver.member(base, name)
            if isinstance(found, Sym):
                return found.qualname
    return None


def _with_old_definitions(new: FileFacts, old: FileFacts | None) -> FileFacts:
    """The new version of a file, with the definitions it dropped put back.

    Resolved against the old repository, a call in the new version to a function of
    the same file that was removed or renamed must still reach the old definition:
    that is how the call is found, and then reported as broken.
    """
    if old is None:
        return new
    kept = {d.qualname for d in new.definitions}
    dropped = tuple(d for d in old.definitions if d.qualname not in kept)
    return dataclasses.replace(new, definitions=new.definitions + dropped) if dropped else new


def _shape(facts: FileFacts | None) -> object:
    """What libcst's signature model is built from, as tree-sitter saw it; None for no file."""
    if facts is None:
        return None
    classes = {d.qualname for d in facts.definitions if d.kind is DefKind.CLASS}
    return (
        [(d.qualname, d.kind, d.signature, d.decorators, d.bases, d.is_async) for d in facts.definitions],
        [(b.scope, b.target, b.kind, b.value) for b in facts.bindings if b.scope in classes],  # dataclass and NamedTuple fields
        facts.all_names,
        facts.warnings,  # a file that stopped (or started) parsing must go through libcst to say so
    )


def _module_names(facts: FileFacts) -> dict[str, int]:
    """Names a module binds at its top level by import or assignment (what others can import) -> line."""
    names = {i.bound_name: i.line for i in facts.imports if not i.scope and i.name != "*"}
    names.update({b.target: b.line for b in facts.bindings if not b.scope and "." not in b.target})
    return names


def _lost_reexports(graph, config, paths, old, new, old_map, old_loader, new_facts, new_resolver) -> list[SymbolImpact]:  # type: ignore[no-untyped-def]
    """Names a module re-exported (`from .clock import stamp` in a package `__init__`) and no longer binds.

    sigdiff compares definitions; a dropped import line is no definition, yet every
    `from pkg import stamp` elsewhere now fails.
    """
    out: list[SymbolImpact] = []
    for path in sorted(p for p in paths if p in old.data and p in new.data and p in old_map.primary):
        before, after = old_loader(path), new_facts.get(path)
        if before is None or after is None:
            continue
        defined = {d.qualname for d in after.definitions}
        kept = _module_names(after)
        module = old_map.primary[path]
        for name, line in sorted(_module_names(before).items()):
            if name in kept or name in defined or new_resolver.module_attr(path, name) is not None:
                continue
            callers = []
            for q, q_line, q_end in graph.db.execute(
                "SELECT f.path, i.line, i.line FROM imports i JOIN files f ON f.id = i.file_id WHERE i.module = ? AND i.name = ?",
                (module, name),
            ):
                if q in paths or config.is_generated(q):
                    continue  # a changed importer is judged on its new version, below
                callers.append(CallerImpact(q, q_line, q_end, old_map.primary.get(q, q), Status.BROKEN,
                                            f"imports a name that no longer exists: '{name}'", "import"))
            for q in sorted(p for p in new.data if p != path):
                facts = new_facts.get(q)
                for imp in facts.imports if facts else ():
                    absolute = new_resolver.absolute(imp, q) if q in new_resolver.modmap.primary else None
                    if absolute == module and imp.name == name:
                        callers.append(CallerImpact(q, imp.line, imp.end_line, new_resolver.modmap.primary.get(q, q), Status.BROKEN,
                                                    f"imports a name that no longer exists: '{name}'", "import"))
            if not callers and not config.is_public(f"{module}.{name}"):
                continue  # nobody imported it: an internal tidy-up
            callers.sort(key=lambda c: (c.path, c.line))
            out.append(SymbolImpact(symbol=f"{module}.{name}", path=path, line=line, change="removed",
                                    breaking=("removed",), before=f"{name} (re-exported by {module})", after=None,
                                    callers=tuple(callers), tests=tuple(_tests(graph, config, callers)),
                                    public=config.is_public(f"{module}.{name}")))
    return out


def _on_class(resolver, f):  # type: ignore[no-untyped-def]
    """`Sub.method(obj, ...)`, `Alias.method(obj, ...)`: a method called on a class gets no implicit self."""
    from graphguard.model import DefKind
    from graphguard.resolve import Sym

    receiver = f.text.rsplit(".", 1)[0] if f.kind == "call" and f.via == "self" and "." in f.text else ""
    info = resolver.info(f.path) if receiver and f.path in resolver.modmap.primary else None
    if info is None:
        return f
    module = info.module
    scope = f.caller[len(module) + 1:] if f.caller.startswith(module + ".") else ""
    target = resolver.chain(info, scope, receiver)
    return dataclasses.replace(f, via="class") if isinstance(target, Sym) and target.kind is DefKind.CLASS else f


def _found(path: str, s, *, reaches_new: bool, init: bool):  # type: ignore[no-untyped-def]
    from graphguard import impact
    from graphguard.binding import CallShape

    return impact.Found(path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, s.resolution.value,
                        CallShape(s.n_positional, s.keywords, s.has_star, s.has_starstar), reaches_new,
                        via="init" if init else "self")


def _candidates(graph: CodeGraph, qualname: str, changed: set[str]) -> list[str]:
    """Files that may use `qualname`: those naming it, and importers of its module's file."""
    name = qualname.rsplit(".", 1)[-1]
    db = graph.db
    rows = {p for (p,) in db.execute("SELECT DISTINCT f.path FROM sites s JOIN files f ON f.id = s.file_id WHERE s.name = ?", (name,))}
    rows |= {p for (p,) in db.execute("SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.name = ?", (name,))}
    return sorted(rows - changed)


_IGNORE = re.compile(rb"#\s*graphguard:\s*ignore(?:\[([^\]]*)\])?")


def ignored_codes(source: bytes, line: int) -> tuple[str, ...]:
    """Codes accepted by `# graphguard: ignore[code, ...]` on a definition's line ("*" for a bare ignore)."""
    from graphguard.languages.encoding import to_utf8

    lines = to_utf8(source)[0].splitlines()  # in the file's declared encoding, as the parsers read it
    if not 0 < line <= len(lines):
        return ()
    m = _IGNORE.search(lines[line - 1])
    if m is None:
        return ()
    if m.group(1) is None:
        return ("*",)
    return tuple(c.strip() for c in m.group(1).decode("utf-8", "replace").split(",") if c.strip())


def _tests(graph: CodeGraph, config: Config, callers) -> list[TestHit]:  # type: ignore[no-untyped-def]
    direct: dict[str, int] = {}
    for c in callers:
        if config.is_test(c.path):
            direct[c.path] = min(direct.get(c.path, c.line), c.line)
    hits = [TestHit(p, line, True) for p, line in sorted(direct.items())]
    seen = set(direct)
    indirect: dict[str, int] = {}
    for c in callers:
        if config.is_test(c.path):
            continue
        for test_path, line in graph.db.execute(
            "SELECT s.path, min(i.line) FROM file_edges e JOIN files d ON d.id = e.dst JOIN files s ON s.id = e.src"
            " LEFT JOIN imports i ON i.file_id = s.id AND i.target_file = d.id"
            " WHERE d.path = ? AND e.kind = 'test-of' GROUP BY s.path",
            (c.path,),
        ):
            if test_path not in seen:
                indirect[test_path] = min(indirect.get(test_path, line or 1), line or 1)
    hits += [TestHit(p, line, False) for p, line in sorted(indirect.items())]
    return hits
