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
from typing import TYPE_CHECKING

from graphguard import git, output
from graphguard.config import Config
from graphguard.config import load as load_config
from graphguard.errors import GraphguardError
from graphguard.graph import CodeGraph
from graphguard.model import DefKind, FileFacts
from graphguard.modules import ModuleMap, is_python
from graphguard.repo import Repo, ensure_current, open_repo
from graphguard.result import (
    SYNTAX_ERROR,
    CallerImpact,
    ChangeKind,
    CheckResult,
    FileWarning,
    Status,
    SymbolImpact,
    TestHit,
)

if TYPE_CHECKING:
    from graphguard import impact, sigdiff, signature
    from graphguard.indexer import Indexer
    from graphguard.resolve import FileResolution, Resolver, Site


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
    unnamed = [p for p in paths if not git.is_utf8_name(p)]
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
    if base is None:
        _refuse_conflicts(root, config)
    old_rev, new_rev, compared, notes = _select(repo, head_commit, staged, worktree, base, head)
    ensure_current(repo, config=config)
    result = CheckResult(base=old_rev, head=new_rev, compared=compared, notes=notes,
                         block_on=frozenset(config.block_on), fail_on_unknown=config.fail_on_unknown)
    paths = _changed(root, config, old_rev, new_rev)
    if paths:
        _assess(repo, config, old_rev, new_rev, paths, result)
    # A merge is decided against each parent: a caller that one side added and the
    # other side's change breaks is new relative to the first parent and to the second
    # only in the merge result. Each comparison reports the breaks relative to its parent.
    others = _other_parents(root, old_rev, new_rev, compared)
    seen = set(paths)
    for parent in others:
        other = CheckResult(base=parent, head=new_rev, compared=compared)
        other_paths = _changed(root, config, parent, new_rev)
        seen.update(other_paths)
        if other_paths:
            _assess(repo, config, parent, new_rev, other_paths, other)
        _union(result, other)
    if others:
        result.notes.append("a merge: checked against each parent (" + ", ".join(p[:12] for p in [old_rev, *others]) + ")")
    result.files_changed = len(seen)
    return _finish(result, fmt, t0)


def _refuse_conflicts(root: str, config: Config) -> None:
    """An unresolved conflict has no staged version to check (git shows the file as gone from the index)."""
    paths = [p for p in git.unmerged_paths(root) if is_python(p) and not config.is_excluded(p)]
    if paths:
        which = paths[0] + " is" if len(paths) == 1 else f"{len(paths)} files are"
        listed = "" if len(paths) == 1 else " (" + ", ".join(paths[:5]) + (", ..." if len(paths) > 5 else "") + ")"
        raise GraphguardError(f"{which} in conflict{listed}: resolve, `git add`, then check again")


def _changed(root: str, config: Config, old_rev: str, new_rev: str) -> list[str]:
    """The Python files that differ between two revisions and are not excluded."""
    return [c.path for c in git.diff(root, old_rev, new_rev) if is_python(c.path) and not config.is_excluded(c.path)]


def _other_parents(root: str, old_rev: str, new_rev: str, compared: str) -> list[str]:
    """The parents of a merge other than the one compared already: none for an ordinary change."""
    if compared == "commits":
        heads = git.parents(root, new_rev)
        heads = heads if len(heads) > 1 else []
    else:  # staged or worktree: during `git merge` (its pre-merge-commit hook) or after --no-commit
        heads = git.merge_heads(root)
    return [p for p in dict.fromkeys(heads) if p != old_rev]


def _caller_key(c: CallerImpact) -> tuple[str, int, int, str, str]:
    return (c.path, c.line, c.end_line, c.caller, c.kind)


def _union(into: CheckResult, other: CheckResult) -> None:
    """Add another parent's findings; the same change's callers and warnings are counted once."""
    # One entry per symbol and new signature: `before` (and so some codes) differ by parent.
    where = {(c.symbol, c.path, c.change, c.after): i for i, c in enumerate(into.changes)}
    for ch in other.changes:
        i = where.get((ch.symbol, ch.path, ch.change, ch.after))
        if i is None:
            where[(ch.symbol, ch.path, ch.change, ch.after)] = len(into.changes)
            into.changes.append(ch)
            continue
        have = into.changes[i]
        known = {_caller_key(c) for c in have.callers}
        extra = tuple(c for c in ch.callers if _caller_key(c) not in known)
        callers = tuple(sorted(have.callers + extra, key=lambda c: (c.status.value != "broken", c.path, c.line)))
        into.changes[i] = dataclasses.replace(
            have, callers=callers, breaking=tuple(dict.fromkeys(have.breaking + ch.breaking)),
            tests=have.tests + tuple(t for t in ch.tests if t not in have.tests))
    into.warnings += [w for w in other.warnings if w not in into.warnings]
    into.changes.sort(key=lambda c: (c.path, c.line, c.symbol))


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
    from graphguard.resolve import Resolver

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

    stored_cache: list[dict[str, str]] = []

    def stored_files() -> dict[str, str]:
        """path -> blob of the stored graph (read once, when the old side is another commit)."""
        if not stored_cache:
            stored_cache.append(dict(store.graph.execute("SELECT path, blob FROM files").fetchall()))
        return stored_cache[0]

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
    # A new version that is not Python breaks every importer, whatever tree-sitter made of it.
    # (Files tree-sitter skipped as too large or too nested are not parsed again; binary ones are.)
    readable = [p for p in sorted(new.data) if new_facts[p].parsed or b"\0" in new.data[p]]
    unparsable = {p: err for p in readable if (err := _syntax_error(new.data[p])) is not None}
    for p, (line, why) in unparsable.items():
        warnings.append(FileWarning(p, f"{why} (line {line}); file not checked"))
        if SYNTAX_ERROR in config.block_on:
            result.changes.append(_syntax_impact(graph, config, p, line, why, new_map.primary.get(p) or old_map.primary.get(p, p),
                                                 new_facts, new_resolver, set(paths)))
    # A file whose definitions' headers, decorators and class-level fields are as they
    # were changed only bodies: no interface change, and libcst (slow to import and to
    # run) is not needed for it.
    shaped = [p for p in sorted(paths) if p not in unparsable
              and _shape(old_loader(p) if p in old.data else None) != _shape(new_facts.get(p))]
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
    unknown_before: set[str] = set()  # the old version did not parse: every definition is compared with its uses
    for path in shaped:
        before, after = sigs(old, path, "old"), sigs(new, path, "new")
        if after is None:
            continue
        if before is None:
            warnings.append(FileWarning(path, f"its version in {old_rev[:12]} does not parse: its interface there is unknown;"
                                        " every use was checked against the new signatures"))
            unknown_before.add(path)
            per_file += [(path, sigdiff.SymbolChange(q, ChangeKind.SIGNATURE, (sigdiff.OLD_UNPARSABLE,), None, sig))
                         for q, sig in sorted(after.defs.items())]
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
        fresh_old[p] = Resolver(hybrid_map, _hybrid_loader(p, new_facts[p], old_loader)).resolve_file(p)

    changed_paths = set(paths)
    gone_classes = {(path, ch.qualname) for path, ch in symbol_changes
                    if ch.change.value != "signature" and ch.before is not None and ch.before.kind == "class"}
    written = {p: impact.written_calls(old_loader(p) if p in old.data else None, new_facts[p]) for p in new.data}
    sig_cache: dict[str, signature.ModuleSignatures | None] = {}

    def sig_at(target_path: str, qualname: str) -> signature.Signature | None:
        """A definition's signature in the new version (a file outside the change: its blob at the new side)."""
        if target_path not in sig_cache:
            data = new.data.get(target_path)
            if data is None and target_path not in changed_paths and target_path in new_entries:
                data = next((d for _, d in git.read_blobs(root, [new_entries[target_path]])), None)
            try:
                sig_cache[target_path] = signature.extract(data) if data is not None else None
            except signature.SignatureParseError:
                sig_cache[target_path] = None
        module = new_map.primary.get(target_path)
        sigs_ = sig_cache[target_path]
        if sigs_ is None or module is None or not qualname.startswith(module + "."):
            return None
        return sigs_.defs.get(qualname[len(module) + 1:])

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
        class_gone = is_method and (path, ch.qualname.rsplit(".", 1)[0]) in gone_classes
        ctx = impact.ChangeContext(ch.change.value, qual, new_q, tuple(ch.breaking), after_sig, is_method, class_name,
                                   before=ch.before, forwards=_forwards_of(ch, path, new_q, fresh_new, sig_at),
                                   class_gone=class_gone)
        found: dict[tuple[str, int, int, str], impact.Found] = {}

        def add(f: impact.Found, found: dict[tuple[str, int, int, str], impact.Found] = found) -> None:
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
            for f in _limited_uses(graph, qual, changed_paths, reaches_new=ch.change.value == "signature"):
                add(f)
        else:
            resolver = Resolver(old_map, old_loader)
            for p in _candidates(graph, qual, changed_paths) + _unstored_candidates(indexer, old_entries, stored_files(), qual, changed_paths):
                if p not in old_map.primary:
                    continue
                for s in resolver.resolve_file(p).sites:
                    if qual in (s.target, s.init_target) or _limited(s, qual):
                        add(_found(p, s, reaches_new=ch.change.value == "signature", init=s.init_target == qual))
            if stored_head == new_rev:  # CI: the graph describes the head, where unchanged files read the same
                for u in graph.uses_of(qual):  # method calls on receivers typed by name only, as the hook sees them
                    if u.resolution == "by-name" and u.path not in changed_paths:
                        add(impact.Found(u.path, u.line, u.end_line, u.col, u.caller, u.kind, u.text, by_name,
                                         CallShape(u.n_positional, u.keywords, u.has_star, u.has_starstar),
                                         reaches_new=ch.change.value == "signature"))
        # Changed files: their new version, resolved against the old and against the new repository.
        for p, fr in fresh_old.items():
            for s in fr.sites:
                if qual in (s.target, s.init_target) or _limited(s, qual):
                    add(_found(p, s, reaches_new=False, init=s.init_target == qual, written=(s.line, s.col) in written[p]))
        if new_q is not None:
            for p, fr in fresh_new.items():
                for s in fr.sites:
                    if new_q in (s.target, s.init_target) or _limited(s, new_q):
                        add(_found(p, s, reaches_new=True, init=s.init_target == new_q, written=(s.line, s.col) in written[p]))
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
        if path in unknown_before and all(c.status is Status.OK for c in callers):
            continue  # the new signature binds every use: only the warning says the old one is unknown
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


def _syntax_error(data: bytes) -> tuple[int, str] | None:
    """(line, why) when the bytes are not Python; None when they parse, or when that cannot be told.

    Python's own parser answers fast; a failure is confirmed by libcst, so that syntax
    newer than the running interpreter is not taken for an error.
    """
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(data)
        return None
    except SyntaxError as e:
        line, why = e.lineno or 1, f"syntax error: {e.msg}"
    except ValueError as e:  # a NUL byte (Python < 3.12)
        line, why = 1, f"syntax error: {e}"
    except (RecursionError, MemoryError):
        return None  # too deeply nested to tell: libcst's warning says so
    from graphguard import signature

    try:
        signature.extract(data)
        return None
    except signature.SignatureParseError as e:
        if not str(e).startswith("syntax error"):
            return None
    for i, text in enumerate(data.splitlines(), 1):
        if text.startswith((b"<<<<<<< ", b">>>>>>> ")) or text in (b"<<<<<<<", b">>>>>>>", b"======="):
            return i, "merge conflict markers"
    if b"\0" in data:
        return data[: data.index(b"\0")].count(b"\n") + 1, "a NUL byte: not Python source"
    return line, why


def _syntax_impact(graph: CodeGraph, config: Config, path: str, line: int, why: str, module: str,
                   new_facts: dict[str, FileFacts], new_resolver: Resolver, changed: set[str]) -> SymbolImpact:
    """A file that does not parse, as a change that blocks (block_on "syntax-error"), with its importers."""
    reason = f"imports {module}, which does not parse: {why} (line {line})"
    callers = [
        CallerImpact(q, q_line, q_line, graph_module, Status.BROKEN, reason, "import")
        for q, q_line, graph_module in graph.db.execute(
            "SELECT f.path, min(i.line), f.module FROM imports i JOIN files f ON f.id = i.file_id JOIN files t ON t.id = i.target_file"
            " WHERE t.path = ? GROUP BY f.path", (path,))
        if q not in changed and not config.is_generated(q)
    ]
    for q in sorted(changed - {path}):
        facts = new_facts.get(q)
        for imp in facts.imports if facts is not None and q in new_resolver.modmap.primary else ():
            absolute = new_resolver.absolute(imp, q)
            if module in (absolute, f"{absolute}.{imp.name}"):
                callers.append(CallerImpact(q, imp.line, imp.end_line, new_resolver.modmap.primary[q], Status.BROKEN, reason, "import"))
                break
    callers.sort(key=lambda c: (c.path, c.line))
    return SymbolImpact(symbol=module, path=path, line=line, change=SYNTAX_ERROR, breaking=(SYNTAX_ERROR,), before=None, after=None,
                        callers=tuple(callers), tests=tuple(_tests(graph, config, callers)))


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


def _hybrid_loader(path: str, new: FileFacts, old_loader: Callable[[str], FileFacts | None]) -> Callable[[str], FileFacts | None]:
    """The old repository, with `path` in its new version (and the definitions it dropped)."""
    def load(q: str) -> FileFacts | None:
        return _with_old_definitions(new, old_loader(path)) if q == path else old_loader(q)
    return load


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


def _on_class(resolver: Resolver, f: impact.Found) -> impact.Found:
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


def _found(path: str, s, *, reaches_new: bool, init: bool, written: bool = False):  # type: ignore[no-untyped-def]
    from graphguard import impact
    from graphguard.binding import CallShape

    return impact.Found(path, s.line, s.end_line, s.col, s.scope, s.kind, s.text, s.resolution.value,
                        CallShape(s.n_positional, s.keywords, s.has_star, s.has_starstar), reaches_new,
                        via="init" if init else "self", written=s.kind == "call" and written)


def _forwards_of(ch: sigdiff.SymbolChange, path: str, new_q: str | None, fresh_new: dict[str, FileResolution],
                 sig_at: Callable[[str, str], signature.Signature | None]) -> tuple[impact.Forward, ...]:
    """Where the changed definition's new version passes its **kwargs on (a class: its __init__)."""
    from graphguard import impact

    after = ch.after
    where = ch.new_module if ch.change.value == "moved" and ch.new_module is not None else path
    if after is None or new_q is None or where not in fresh_new:
        return ()
    function = f"{new_q}.__init__" if after.kind == "class" else new_q
    init = sig_at(where, function) if after.kind == "class" else after
    if init is None:
        return ()
    return impact.forwards(fresh_new[where], function, init, sig_at)


_LIMITED = ("too-deep", "too-long")  # model.Resolution members for a resolution a limit stopped


def _limited(site: Site, qualname: str) -> bool:
    """A call whose resolution stopped at a limit, by the name it calls: it may reach `qualname`."""
    return site.kind == "call" and site.resolution.value in _LIMITED and site.name == qualname.rsplit(".", 1)[-1]


def _limited_uses(graph: CodeGraph, qualname: str, changed: set[str], *, reaches_new: bool) -> list[impact.Found]:
    """Stored calls of `qualname`'s name whose resolution a limit stopped: undecided, never left out."""
    from graphguard import impact
    from graphguard.binding import CallShape

    rows = graph.db.execute(
        "SELECT f.path, s.line, s.end_line, s.col, s.scope, s.text, s.resolution, s.n_positional, s.keywords, s.has_star, s.has_starstar"
        " FROM sites s JOIN files f ON f.id = s.file_id WHERE s.name = ? AND s.kind = 'call'"
        " AND s.resolution IN ('too-deep', 'too-long')",  # literals: so the partial index sites_limited_name applies
        (qualname.rsplit(".", 1)[-1],),
    )
    return [impact.Found(path, line, end_line, col, scope, "call", text, resolution,
                         CallShape(n_pos, tuple(k for k in kws.split(",") if k), bool(star), bool(starstar)), reaches_new)
            for path, line, end_line, col, scope, text, resolution, n_pos, kws, star, starstar in rows if path not in changed]


def _candidates(graph: CodeGraph, qualname: str, changed: set[str]) -> list[str]:
    """Files that may use `qualname`: those naming it, and importers of its module's file."""
    name = qualname.rsplit(".", 1)[-1]
    db = graph.db
    rows = {p for (p,) in db.execute("SELECT DISTINCT f.path FROM sites s JOIN files f ON f.id = s.file_id WHERE s.name = ?", (name,))}
    rows |= {p for (p,) in db.execute("SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id WHERE i.name = ?", (name,))}
    return sorted(rows - changed)


def _unstored_candidates(indexer: Indexer, old_entries: dict[str, str], stored: dict[str, str], qualname: str, changed: set[str]) -> list[str]:
    """Files of the old side that the stored graph does not describe (another branch's, during a
    merge) and that name `qualname`'s last part: the graph's own candidates miss them."""
    name = qualname.rsplit(".", 1)[-1]
    out = []
    for path, blob in sorted(old_entries.items()):
        if path in changed or stored.get(path) == blob:
            continue
        facts = indexer.facts(blob)
        if facts is not None and _names(facts, name):
            out.append(path)
    return out


def _names(facts: FileFacts, name: str) -> bool:
    """Does the file mention `name` in a call, an import, a reference or a binding?"""
    return (any(c.name == name for c in facts.calls) or any(i.name == name or name in i.module.split(".") for i in facts.imports)
            or any(r.target.rsplit(".", 1)[-1] == name for r in facts.references)
            or any(b.value.rsplit(".", 1)[-1].removesuffix("()") == name for b in facts.bindings))


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
