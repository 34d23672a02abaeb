"""What an update must re-resolve: the changed files, and those whose use of a name whose interface changed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from graphguard.index.facts import Facts
from graphguard.index.plan import facts_key
from graphguard.index.storedmap import _StoredMap
from graphguard.languages import for_path
from graphguard.languages.python.digests import EVERY_NAME, changed_names, returns_of
from graphguard.languages.python.modules import names_of as module_names  # the indexer has a names_of of its own
from graphguard.model import DefKind, FileFacts
from graphguard.store import dependents, rows

if TYPE_CHECKING:
    from graphguard.languages.python.modules import ModuleMap


def _stored_digests(raw: str | None) -> dict[str, str]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {EVERY_NAME: ""}  # unreadable: assume everything changed
    return value if isinstance(value, dict) else {EVERY_NAME: ""}



def _mentions(text: str | None, refs: set[str]) -> bool:
    return bool(text) and not refs.isdisjoint(_WORD.findall(text or ""))


def _derived(facts: FileFacts, refs: set[str]) -> set[str]:
    """The module-level names a file derives from `refs`: a binding (`obj = make()`), a function returning one
    (`def get() -> K`), and so on (`b = obj.build()`), to a fixed point."""
    refs = set(refs)
    derived: set[str] = set()
    grew = True
    while grew:
        before = len(derived)
        refs |= derived
        derived |= {b.target for b in facts.bindings if not b.scope and "." not in b.target and _mentions(b.value, refs)}
        derived |= {d.qualname for d in facts.definitions if "." not in d.qualname and _mentions(d.returns, refs)}
        grew = len(derived) > before
    return derived


def _import_affected(module: str, name: str | None, status: str, names: set[str], prefixes: set[str], tops: AbstractSet[str]) -> bool:
    """Can modules `names` appearing or vanishing change what this import row binds? `prefixes` are the names
    and the packages above them; `tops` the top-level names that came or went."""
    if module.startswith("."):
        return status == "unresolved"  # a relative import not found: its base is unknown
    parts = module.split(".")
    if parts[0] in tops or not names.isdisjoint(".".join(parts[:i]) for i in range(1, len(parts) + 1)):
        return True  # the module itself, or a package above it, came or went
    if name is None or name == "*":
        return module in prefixes  # `import a` reaches `a.b.c`; `from a import *` may bind submodules
    return f"{module}.{name}" in prefixes  # `from a import b`: b is the new module, or a package above it


def _by_path(path: str) -> bool:
    lang = for_path(path)
    return lang is not None and lang.by_path


def _in_map(m: ModuleMap, path: str) -> bool:
    return isinstance(m, _StoredMap) or path in m.paths


def _names_in(m: ModuleMap, path: str) -> list[str]:
    """Every name `path` is importable under in `m`: as ModuleMap.build names it, from each root above it."""
    return module_names(path, set(m.roots))


_WORD = re.compile(r"\w+")
_CALLED = re.compile(r"(\w+)\(\)")  # a name whose result a chain goes on from: `get` in `d.get().close`
def _words(facts: FileFacts) -> set[str]:
    """Every name a file's uses mention: callees, references, bases, annotations, bound values."""
    texts = [c.callee for c in facts.calls] + [r.target for r in facts.references] + [b.value for b in facts.bindings]
    texts += [t for d in facts.definitions for t in (*d.bases, *d.decorators, d.returns or "")]
    return {w for t in texts for w in _WORD.findall(t)}




class Dirty(Facts):
    """The dirty-set half of `Indexer` (a mixin over `Facts`)."""

    if TYPE_CHECKING:
        _old_map: ModuleMap | None
        _configs_changed: bool

    def _dirty(
        self,
        old: dict[str, tuple[int, str, str, str]],
        n_old: int,
        added: list[str],
        removed: list[str],
        modified: list[str],
        digests: dict[str, dict[str, str]],
        modmap: ModuleMap,
        blobs: dict[str, str],
    ) -> set[str]:
        """Files whose resolution can differ: the changed ones and those that use a name whose interface changed.
        `old` holds the stored rows of the changed files at least (`n_old` files are stored); the rows of the
        files reached are added to it as the edges are followed."""
        db = self.store.graph
        gone = set(removed)
        dirty = set(added) | set(modified)
        fresh = set(added)
        # Files not dirty yet; once none is left, every file is dirty: nothing left to look for.
        clean = n_old - len(gone) - len(dirty - fresh)
        old_map = self._old_map if (added or removed) and self._old_map is not None else modmap

        def names_of(path: str) -> list[str]:
            """Every name a file is importable under (several roots can give it several), removed files' from the old map."""
            if _by_path(path):
                return []
            return [n for m in (old_map, modmap) if _in_map(m, path) for n in _names_in(m, path)]

        queue: list[tuple[str, set[str]]] = []
        queued: dict[str, set[str]] = {}

        def push(path: str, names: set[str]) -> None:
            # Only names not yet looked for: whether a file uses a set of names is the union over them.
            have = queued.setdefault(path, set())
            news = {EVERY_NAME} if EVERY_NAME in names else names - have
            if news and EVERY_NAME not in have:
                have |= news
                queue.append((path, news))

        for p in removed:
            push(p, {EVERY_NAME})
        for p in modified:
            lang = for_path(p)
            names = (lang.changed_names if lang is not None and lang.by_path else changed_names)(_stored_digests(old[p][3]), digests[p])
            push(p, names | self._made_by(blobs[p], names))
        if self._configs_changed or any(_by_path(p) for p in added + removed):
            # A config file, or a file that specifiers may name, came, went or changed: its language's files resolve anew.
            every = {p for p in rows.every_path(db) if _by_path(p)} | {p for p in added if _by_path(p)}
            clean -= len(every - dirty - fresh)
            dirty |= every
        if added or removed:
            affected = {p: lines for p, lines in self._affected_by_modules(added + removed, names_of, old_map, modmap).items() if p not in gone}
            clean -= len(affected.keys() - dirty - fresh)
            dirty |= affected.keys()
            # What such a file binds through those imports (and derives from them) may resolve differently now:
            # its users too.
            for p in sorted(affected.keys() - set(added)):
                push(p, self._bound_by(old[p][0], lines=affected[p]))
        while queue and clean > 0:
            path, names = queue.pop()
            fid, module = old[path][0], old[path][2]
            if _by_path(path):
                clean -= self._importers_by_path(fid, old, gone, dirty, push)
                continue
            modules = sorted(set(names_of(path)) | {module})
            plain, results = returns_of(names)
            for src_path, src_id, src_blob, src_module, src_iface in dependents.importers(db, fid):
                old.setdefault(src_path, (src_id, src_blob, src_module, src_iface))
                if src_path in gone or EVERY_NAME in queued.get(src_path, ()):
                    continue  # gone, or dirty already with every name passed on
                used = self._uses_names(src_id, src_blob, module, modules, plain) if plain else set()
                if results and (through := self._uses_names(src_id, src_blob, module, modules, results)) and self._uses_results(src_blob, results):
                    used |= through
                if not used:
                    continue
                if src_path not in dirty:
                    dirty.add(src_path)
                    clean -= 1
                # Subclasses, re-exports and what is derived from them pass the change on.
                push(src_path, self._passes_on(src_id, src_blob, module, modules, used))
        return dirty - gone

    def _importers_by_path(self, fid: int, old: dict[str, tuple[int, str, str, str]], gone: set[str], dirty: set[str],
                           push: Callable[[str, set[str]], None]) -> int:
        """A file whose modules are paths (TypeScript): each importer re-resolves, and one that re-exports (`export *`,
        `export { a } from`) passes every name on. How many files this made dirty."""
        made = 0
        for src_path, src_id, src_blob, src_module, src_iface in dependents.importers(self.store.graph, fid):
            old.setdefault(src_path, (src_id, src_blob, src_module, src_iface))
            if src_path in gone:
                continue
            if src_path not in dirty:
                dirty.add(src_path)
                made += 1
            facts = self.facts(facts_key(src_path, src_blob))
            if facts is None or any(e.specifier is not None or e.local is not None for e in facts.exports):
                push(src_path, {EVERY_NAME})
        return made

    def _made_by(self, blob: str, names: set[str]) -> set[str]:
        """A changed file's own module-level names made by calling one whose return annotation changed
        (`obj = make()`): what they are bound to changed with it, though their digests did not."""
        _, results = returns_of(names)
        facts = self.facts(blob) if results else None
        if facts is None:
            return set()
        return _derived(facts, {n.rsplit(".", 1)[-1] for n in results})  # `warning`, not its class `Display`

    def _affected_by_modules(
        self, paths: list[str], names_of: Callable[[str], list[str]], old_map: ModuleMap, modmap: ModuleMap
    ) -> dict[str, set[int]]:
        """Files with an import that a module appearing or vanishing (at `paths`) can resolve differently, with
        the lines of those imports: one naming it, a package above it or a module below it (`from a import b`
        once `a/b.py` comes: not `from a import c`); one under a top-level name that came or went (it turns
        from external to not found, or back; `sub.c` once `src/proj/sub/c.py` is added); a relative one not found."""
        names = {n for p in paths for n in names_of(p)}
        prefixes = {n.rsplit(".", i)[0] for n in names for i in range(n.count(".") + 1)}
        tops = old_map.top_names ^ modmap.top_names
        affected: dict[str, set[int]] = {}
        for path, line, module, name, status in dependents.every_import(self.store.graph):
            if _import_affected(module, name, status, names, prefixes, tops):
                affected.setdefault(path, set()).add(line)
        return affected

    def _bound_by(self, file_id: int, *, lines: set[int]) -> set[str]:
        """The module-level names a file binds by its imports on `lines`, and those it derives from them; every
        name when one is a star import or a class's base may involve one (its members come from the base)."""
        blob = rows.blob_of_id(self.store.graph, file_id)
        facts = self.facts(blob) if blob is not None else None
        if facts is None:
            return {EVERY_NAME}
        imports = [i for i in facts.imports if i.line in lines]
        if any(i.name == "*" for i in imports):
            return {EVERY_NAME}
        bound = {i.bound_name for i in imports if not i.scope}
        if any(d.kind is DefKind.CLASS and any(_mentions(b, bound) for b in d.bases) for d in facts.definitions):
            return {EVERY_NAME}
        return bound | _derived(facts, bound)

    def _uses_names(self, file_id: int, blob: str, module: str, modules: list[str], names: set[str]) -> set[str]:
        """The names through which a file uses `names` of `module` (importable as any of `modules`); empty if none."""
        db = self.store.graph
        if EVERY_NAME in names:
            return {EVERY_NAME}
        bound = dependents.names_imported(db, file_id, modules, names)
        if bound:
            return bound if "*" not in bound else {EVERY_NAME}
        # Sites name their target by the defining file's own module name.
        targets = [f"{module}.{n}" for n in names]
        last = {n.rsplit(".", 1)[-1] for n in names}  # a member's name: `x.close()` unresolved
        if dependents.has_site_naming(db, file_id, last, targets):
            return set(names)
        # A use that resolved to nothing left no site (`class K(mod.Base)` before `Base` existed): where the
        # module itself is imported (`import pkg.mod`, or `from pkg import mod as alias`), look for the name in
        # the file's own text of uses.
        if dependents.imports_module(db, file_id, modules):
            facts = self.facts(blob)
            if facts is None or not last.isdisjoint(_words(facts)):
                return set(names)
        return set()

    def _uses_results(self, blob: str, names: set[str]) -> bool:
        """Can a file's resolution depend on what calling one of `names` returns? Only where a result is used:
        bound (`x = d.warning()`, any binding naming it), called on (`d.get().close()`), or in a class's bases,
        a decorator or an annotation; a call whose result is dropped (`d.warning(msg)`) binds as before."""
        facts = self.facts(blob)
        if facts is None:
            return True
        last = {n.rsplit(".", 1)[-1] for n in names}
        last |= {i.bound_name for i in facts.imports if i.name in last}  # `from a import get as g`: `g()`
        texts = [b.value for b in facts.bindings]
        texts += [t for d in facts.definitions for t in (*d.bases, *d.decorators, d.returns or "")]
        if any(not last.isdisjoint(_WORD.findall(t)) for t in texts):
            return True
        chains = [c.callee for c in facts.calls] + [r.target for r in facts.references]
        return any(not last.isdisjoint(_CALLED.findall(t)) for t in chains if "()" in t)

    def _passes_on(self, file_id: int, blob: str, module: str, modules: list[str], used: set[str]) -> set[str]:
        """The names under which a file that uses `used` of `module` passes a change of them on to its own users.

        A name it imports is bound again in it (a re-export: `from .a import f`, under its alias), and so is
        whatever it derives from one at module level: a binding (`obj = make()`), a function returning one
        (`def get() -> K`). A class whose base may involve one passes on every name: its members come from
        the base, whatever they are called."""
        if dependents.inherits_from_module(self.store.graph, file_id, module):
            return {EVERY_NAME}
        facts = self.facts(blob)
        if facts is None:
            return {EVERY_NAME}
        bound = self._rebinds(file_id, facts, modules, used)
        if EVERY_NAME in bound:
            return {EVERY_NAME}
        refs = bound | {part for n in used - {EVERY_NAME} for part in n.split(".")}
        if any(d.kind is DefKind.CLASS and any(_mentions(b, refs) for b in d.bases) for d in facts.definitions):
            return {EVERY_NAME}
        return bound | _derived(facts, refs)

    def _rebinds(self, file_id: int, facts: FileFacts, modules: list[str], names: set[str]) -> set[str]:
        """The names a file binds at module level by importing `names` from one of `modules`; for EVERY_NAME,
        every name it binds from them (the modules themselves included: `import a.b as m`)."""
        imported = dependents.module_level_imports_from(self.store.graph, file_id, modules)
        if any(name == "*" for _, name in imported):
            return set(names)  # a star import re-exports them under their own names
        # The graph keeps the imported name; the facts have the alias it is bound to.
        every = EVERY_NAME in names
        return {i.bound_name for i in facts.imports if (i.line, i.name) in imported and (every or i.name is not None and i.name in names)}

