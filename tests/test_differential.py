"""The incremental graph must equal a fresh index of the same commit, whatever path git took to get there.

Each test moves a real repository through real git operations, brings its own graph up to date
incrementally after every move, and compares a full dump of it with a from-scratch index of HEAD.
"""

from __future__ import annotations

import random
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.differential import (
    BULK_DIR,
    DIRS,
    HUB,
    HUB_BROKEN,
    bulk_module,
    draw_module,
    fresh_dump,
    hub_files,
    incremental_dump,
    module_names,
    universe,
    widened,
)
from tests.graphdump import differences, dump
from tests.helpers import GitRepo, Result

Run = Callable[..., Result]


def call_sites(graphguard: Run, repo: GitRepo, symbol: str) -> int:
    """How many calls `callers` resolves to `symbol` (by-name guesses left out)."""
    r = graphguard(repo, "callers", symbol, "--format", "json")
    assert r.code == 0, r.err
    return sum(c["kind"] == "call" and c["resolution"] == "exact" for c in r.json["callers"])


def assert_same_as_fresh(repo: GitRepo, what: str) -> None:
    mine, fresh = dump(repo.graph_path), fresh_dump(repo.root)
    assert mine == fresh, f"{what}: incremental graph differs from a fresh index:\n" + "\n".join(differences(mine, fresh))


# --- the reviewer's scenario ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_checkout_of_hundreds_of_files_and_back_keeps_every_call_site(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # A hub function called from 1,200 modules; branch `wide` changes 600 of them (more than one
    # update has ever been allowed to rewrite by deleting the whole graph).
    files = hub_files(1200)
    repo = make_repo(files)
    repo.git("checkout", "-q", "-b", "wide")
    repo.commit("wide", widened(files, 600))
    repo.git("checkout", "-q", "main")
    assert graphguard(repo, "index").code == 0
    assert call_sites(graphguard, repo, "core.hub.target_fn") == 1200

    for branch in ("wide", "main"):
        repo.git("checkout", "-q", branch)
        r = graphguard(repo, "index")
        assert r.code == 0, r.err
        assert call_sites(graphguard, repo, "core.hub.target_fn") == 1200, f"after checking out {branch}"
        assert_same_as_fresh(repo, f"after checking out {branch}")

    # The graph still knows the callers, so a change that breaks them all is blocked.
    repo.write({HUB: HUB_BROKEN})
    repo.git("add", HUB)
    r = graphguard(repo, "check", "--staged", "--format", "json")
    assert r.code == 1, r.err
    assert r.json["verdict"] == "block"
    assert sum(c["status"] == "broken" for ch in r.json["changes"] for c in ch["callers"]) == 1200


# --- what the walk found, one case each ------------------------------------------------------------------


def index_and_compare(graphguard: Run, repo: GitRepo, what: str) -> None:
    r = graphguard(repo, "index")
    assert r.code == 0, r.err
    assert_same_as_fresh(repo, what)


def test_a_module_that_stops_re_exporting_a_name_re_resolves_its_importers(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # `use.py` imports `f` from `mid.py`, which only re-exports it: its sites point at `low.py`.
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/low.py": "def f(a):\n    return a\n",
        "pkg/mid.py": "from pkg.low import f\n",
        "pkg/use.py": "from pkg.mid import f\n\n\ndef g():\n    return f(1)\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("mid stops re-exporting", {"pkg/mid.py": "X = 1\n"})
    index_and_compare(graphguard, repo, "after the re-export went")
    assert call_sites(graphguard, repo, "pkg.low.f") == 0


def test_a_base_class_appearing_re_resolves_the_subclass_users(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # `Child`'s base, named through a module alias, does not exist yet; then it does, with `run`.
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/base.py": "X = 1\n",
        "pkg/child.py": "import pkg.base as b\n\n\nclass Child(b.Base):\n    pass\n",
        "pkg/use.py": "from pkg.child import Child\n\n\ndef g():\n    return Child().run(1)\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("Base appears", {"pkg/base.py": "class Base:\n    def run(self, x):\n        return x\n"})
    index_and_compare(graphguard, repo, "after Base appeared")
    assert call_sites(graphguard, repo, "pkg.base.Base.run") == 1


def test_a_class_appearing_re_resolves_a_module_imported_from_its_package(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # Django's admin_views: `from . import admin as base_admin` then `site.register(..., base_admin.ArticleAdmin)`;
    # the graph was at the commit without the class (a `check --base` brings it back to the one with it).
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/admin.py": "X = 1\n",
        "pkg/custom.py": "from . import admin as base_admin\n\nREGISTERED = [base_admin.ArticleAdmin]\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("ArticleAdmin appears", {"pkg/admin.py": "class ArticleAdmin:\n    pass\n"})
    index_and_compare(graphguard, repo, "after ArticleAdmin appeared")


def test_two_files_of_one_module_name_resolve_their_own_members(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # `app/` and `lib/` are import roots, so both files are module `a`: a member of one is not the other's.
    one = "class L:\n    def m(self):\n        return self.n()\n"
    repo = make_repo({"app/a.py": one + "    def n(self):\n        return 1\n", "lib/a.py": one})
    index_and_compare(graphguard, repo, "first index")
    repo.commit("touch lib", {"lib/a.py": one + "# touched\n"})
    index_and_compare(graphguard, repo, "after touching lib/a.py")


def test_a_configuration_change_rebuilds_what_a_fresh_index_builds(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/mod.py": "def f(a):\n    return a\n",
        "checks/probe.py": "from pkg.mod import f\n\n\ndef test_f():\n    assert f(1)\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("probe is a test", {".graphguard.toml": 'tests = ["checks/*.py"]\n'})
    index_and_compare(graphguard, repo, "after the test globs changed")


# --- a randomized walk over a generated history ---------------------------------------------------------


class Walk:
    """Random commits and git moves over the generated universe of modules (tests/differential.py)."""

    def __init__(self, repo: GitRepo, rng: random.Random):
        self.repo = repo
        self.rng = rng
        self.done: Counter[str] = Counter()
        self.n = 0

    # what is there

    def tracked(self) -> list[str]:
        return [p for p in self.repo.git("ls-files").splitlines() if p.endswith(".py")]

    def modules(self) -> list[str]:
        tracked = [p for p in self.tracked() if not p.startswith(BULK_DIR + "/")]
        return sorted(set(module_names(universe())) | set(module_names(tracked)))

    def commits(self) -> list[str]:
        return self.repo.git("rev-list", "--all").splitlines()

    def branches(self) -> list[str]:
        return self.repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads").splitlines()

    def on_branch(self) -> str | None:
        name = self.repo.git("symbolic-ref", "-q", "--short", "HEAD", check=False)
        return name or None

    # commits

    def commit(self, what: str, files: dict[str, str | None]) -> str:
        self.n += 1
        self.repo.commit(f"{self.n} {what}", files)
        return what

    def edit(self) -> str:
        present = [p for p in self.tracked() if not p.startswith(BULK_DIR + "/")]
        chosen = self.rng.sample(present, min(len(present), self.rng.randint(1, 3)))
        if self.rng.random() < 0.3:  # a body-only change: no interface moves
            return self.commit("touch", {p: self.repo.path(p).read_text() + f"# {self.n}\n" for p in chosen})
        return self.commit("edit", {p: draw_module(self.rng, self.modules()) for p in chosen})

    def add(self) -> str:
        absent = sorted(set(universe()) - set(self.tracked()))
        if not absent:
            return self.edit()
        chosen = self.rng.sample(absent, min(len(absent), self.rng.randint(1, 3)))
        return self.commit("add", {p: draw_module(self.rng, self.modules()) for p in chosen})

    def remove(self) -> str:
        present = [p for p in self.tracked() if not p.startswith(BULK_DIR + "/")]
        if len(present) < 4:
            return self.add()
        return self.commit("remove", dict.fromkeys(self.rng.sample(present, self.rng.randint(1, 2))))

    def rename(self) -> str:
        present = [p for p in self.tracked() if not p.startswith(BULK_DIR + "/") and not p.endswith("__init__.py")]
        absent = sorted(set(universe()) - set(self.tracked()) - {p for p in universe() if p.endswith("__init__.py")})
        if not present or not absent:
            return self.edit()
        src, dst = self.rng.choice(present), self.rng.choice(absent)
        Path(self.repo.path(dst)).parent.mkdir(parents=True, exist_ok=True)
        self.repo.git("mv", src, dst)
        return self.commit(f"rename {src} {dst}", {})

    def package(self) -> str:
        # A folder gains or loses its __init__.py: every module under it changes name.
        init = f"{self.rng.choice([d for d in DIRS if d])}/__init__.py"
        if init in self.tracked():
            return self.commit(f"unpackage {init}", {init: None})
        reexport = self.rng.random() < 0.6  # a barrel: `from .a import f`
        text = f"from .{self.rng.choice(('a', 'b', 'c', 'd'))} import {self.rng.choice(('f', 'g', 'K'))}\n" if reexport else ""
        return self.commit(f"package {init}", {init: text})

    def bulk(self) -> str:
        # Hundreds of files at once: the size of a pull, a rebase or a branch switch in a big repository.
        present = [p for p in self.tracked() if p.startswith(BULK_DIR + "/")]
        modules = self.modules()
        if not present:
            return self.commit("bulk add", {f"{BULK_DIR}/g{i}.py": bulk_module(self.rng, modules, i) for i in range(600)})
        if self.rng.random() < 0.3:
            return self.commit("bulk remove", dict.fromkeys(present))
        return self.commit("bulk edit", {p: bulk_module(self.rng, modules, i) for i, p in enumerate(present[:550])})

    # moves

    def attempt(self, args: tuple[str, ...], abort: tuple[str, ...]) -> bool:
        """Run a git command that may stop on a conflict; on one, abort it and report False."""
        proc = subprocess.run(("git", *args), cwd=self.repo.root, capture_output=True, check=False)
        if proc.returncode == 0:
            return True
        self.repo.git(*abort, check=False)
        self.repo.git("reset", "-q", "--hard")
        self.repo.git("clean", "-qfd")
        return False

    def branch(self) -> str:
        name = f"b{len(self.branches())}"
        self.repo.git("checkout", "-q", "-b", name, self.rng.choice(self.commits()))
        return f"branch {name}"

    def checkout(self) -> str:
        if self.rng.random() < 0.25:  # detached, anywhere in history: the biggest jumps
            rev = self.rng.choice(self.commits())
            self.repo.git("checkout", "-q", "--detach", rev)
            return f"checkout {rev[:8]}"
        name = self.rng.choice(self.branches())
        self.repo.git("checkout", "-q", name)
        return f"checkout {name}"

    def merge(self) -> str | None:
        other = self.rng.choice(self.branches())
        ok = self.attempt(("merge", "-q", "--no-edit", "-X", "theirs", other), ("merge", "--abort"))
        return f"merge {other}" if ok else None

    def rebase(self) -> str | None:
        if self.on_branch() is None:
            return None
        other = self.rng.choice(self.branches())
        ok = self.attempt(("rebase", "-q", "-X", "theirs", other), ("rebase", "--abort"))
        return f"rebase onto {other}" if ok else None

    def cherry_pick(self) -> str | None:
        rev = self.rng.choice(self.commits())
        ok = self.attempt(("cherry-pick", "-X", "theirs", rev), ("cherry-pick", "--abort"))
        return f"cherry-pick {rev[:8]}" if ok else None

    def step(self) -> str | None:
        ops: list[tuple[Callable[[], str | None], int]] = [
            (self.edit, 6), (self.add, 3), (self.remove, 2), (self.rename, 2), (self.package, 2), (self.bulk, 1),
            (self.branch, 2), (self.checkout, 3), (self.merge, 2), (self.rebase, 1), (self.cherry_pick, 1),
        ]
        op = self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
        what = op()
        if what is not None:
            self.done[what.split()[0]] += 1
        return what


def seed_repo(make_repo: Callable[..., GitRepo], rng: random.Random) -> GitRepo:
    paths = [p for p in universe() if rng.random() < 0.5]
    modules = module_names(universe())
    return make_repo({p: draw_module(rng, modules) for p in paths})


def walk(repo: GitRepo, rng: random.Random, steps: int) -> Counter[str]:
    w = Walk(repo, rng)
    incremental_dump(repo.root)
    for i in range(steps):
        what = w.step()
        if what is None:
            continue
        mine, fresh = incremental_dump(repo.root), fresh_dump(repo.root)
        assert mine == fresh, f"step {i} ({what}, {dict(w.done)} so far): incremental graph differs from a fresh index:\n" + "\n".join(
            differences(mine, fresh)
        )
    return w.done


@pytest.mark.slow
def test_random_walk_over_branches_merges_and_rebases_matches_a_fresh_index(
    make_repo: Callable[..., GitRepo], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fixed dates make the commits, hence the walk, the same on every run.
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
    rng = random.Random(21)  # at step 114, a file resolved differently after other files than on its own
    done = walk(seed_repo(make_repo, rng), rng, 120)
    # The walk took every kind of move (a seed that skips one would prove less than it claims).
    assert {"edit", "touch", "add", "remove", "rename", "package", "unpackage", "bulk", "branch", "checkout", "merge", "rebase",
            "cherry-pick"} <= set(done), done


# --- what an edit re-resolves: only the files whose resolution it can change (issue 19 §3) --------------------


DISPLAY = (
    "class Display:\n"
    "    def warning(self, msg: str, formatted: bool = False) -> None:\n"
    '        """Show a warning."""\n'
    "        print(msg)\n"
    "\n"
    "    def banner(self, msg):\n"
    "        return msg\n"
)
NOTE = "class Note:\n    def close(self):\n        return 1\n\n\nclass Other:\n    def close(self, a):\n        return a\n"


def display_users(n: int) -> dict[str, str]:
    """`pkg/display.py` and `n` modules that call `Display.warning` and drop its result, as ansible's do."""
    files = {"pkg/__init__.py": "", "pkg/display.py": DISPLAY, "pkg/note.py": NOTE}
    for i in range(n):
        files[f"pkg/user{i}.py"] = (
            "from pkg.display import Display\n\ndisplay = Display()\n\n\n"
            f"def run{i}(x):\n    display.warning('careful')\n    return display.banner(x)\n"
        )
    return files


def resolved_by_index(graphguard: Run, repo: GitRepo) -> int:
    r = graphguard(repo, "index", "--format", "json")
    assert r.code == 0, r.err
    return int(r.json["resolved"])


@pytest.mark.parametrize(("what", "old", "new"), [
    ("a return annotation", "formatted: bool = False) -> None:", 'formatted: bool = False) -> "None":'),
    ("a parameter annotation", "msg: str,", "msg: object,"),
    ("a docstring", '"""Show a warning."""', '"""Show a warning, once."""'),
    ("a body", "        print(msg)\n", "        print(msg)\n        print(formatted)\n"),
])
def test_an_edit_inside_a_method_re_resolves_only_its_own_file(
    make_repo: Callable[..., GitRepo], graphguard: Run, what: str, old: str, new: str
) -> None:
    # 30 modules call `display.warning(...)` and drop the result: none of their bindings can change.
    repo = make_repo(display_users(30))
    index_and_compare(graphguard, repo, "first index")
    assert old in DISPLAY
    repo.commit(what, {"pkg/display.py": DISPLAY.replace(old, new)})
    assert resolved_by_index(graphguard, repo) == 1, what
    assert_same_as_fresh(repo, f"after {what}")


def test_a_decorator_argument_edit_re_resolves_no_user(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    files = display_users(10)
    files["pkg/display.py"] = "import functools\n\n\n@functools.total_ordering\nclass Base:\n    pass\n\n\n" + DISPLAY.replace(
        "    def warning", "    @functools.lru_cache(maxsize=8)\n    def warning")
    repo = make_repo(files)
    index_and_compare(graphguard, repo, "first index")
    repo.commit("decorator argument", {"pkg/display.py": files["pkg/display.py"].replace("maxsize=8", "maxsize=16")})
    assert resolved_by_index(graphguard, repo) == 1
    assert_same_as_fresh(repo, "after a decorator argument edit")


@pytest.mark.parametrize("use", [
    "    display.warning('x').close()\n",  # the call's result is called on
    "    note = display.warning('x')\n    note.close()\n",  # bound, then called on
    "    with display.warning('x') as note:\n        note.close()\n",  # entered
])
def test_a_return_type_edit_re_resolves_the_caller_that_uses_the_result(
    make_repo: Callable[..., GitRepo], graphguard: Run, use: str
) -> None:
    # `warning` returning a `Note` types the receiver of `.close()` in another file; returning `Other` retypes it.
    files = display_users(5)
    files["pkg/display.py"] = "from pkg.note import Note, Other\n\n\n" + DISPLAY.replace("-> None:", "-> Note:")
    files["pkg/chain.py"] = "from pkg.display import Display\n\ndisplay = Display()\n\n\ndef go():\n" + use
    repo = make_repo(files)
    index_and_compare(graphguard, repo, "first index")
    assert call_sites(graphguard, repo, "pkg.note.Note.close") == 1
    repo.commit("returns another class", {"pkg/display.py": files["pkg/display.py"].replace("-> Note:", "-> Other:")})
    assert resolved_by_index(graphguard, repo) == 2  # display.py and chain.py, not the five users dropping it
    assert_same_as_fresh(repo, "after the return type changed")
    assert (call_sites(graphguard, repo, "pkg.note.Note.close"), call_sites(graphguard, repo, "pkg.note.Other.close")) == (0, 1)


def test_a_return_type_edit_reaches_a_function_imported_under_an_alias(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/note.py": NOTE,
        "pkg/make.py": "from pkg.note import Note, Other\n\n\ndef make() -> Note:\n    return Note()\n",
        "pkg/use.py": "from pkg.make import make as build\n\n\ndef go():\n    return build().close()\n",
        "pkg/drop.py": "from pkg.make import make\n\n\ndef go():\n    make()\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("make returns Other", {"pkg/make.py": "from pkg.note import Note, Other\n\n\ndef make() -> Other:\n    return Other()\n"})
    assert resolved_by_index(graphguard, repo) == 2  # make.py and use.py; drop.py drops the result
    assert_same_as_fresh(repo, "after the return type changed")
    assert call_sites(graphguard, repo, "pkg.note.Other.close") == 1


def test_a_class_decorator_argument_edit_re_resolves_no_user(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    point = "import dataclasses\n\n\n@dataclasses.dataclass(frozen=True)\nclass Point:\n    x: int\n    y: int = 0\n"
    files = {"pkg/__init__.py": "", "pkg/point.py": point}
    files.update({f"pkg/use{i}.py": f"from pkg.point import Point\n\n\ndef p{i}():\n    return Point({i}, y=2)\n" for i in range(8)})
    repo = make_repo(files)
    index_and_compare(graphguard, repo, "first index")
    repo.commit("dataclass arguments", {"pkg/point.py": point.replace("frozen=True", "frozen=False, order=True")})
    assert resolved_by_index(graphguard, repo) == 1
    assert_same_as_fresh(repo, "after a class decorator's arguments changed")


def test_an_update_that_would_re_resolve_most_files_rebuilds_the_graph(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # `f` becoming a class changes how each of its 110 users binds: 111 of 113 files to re-resolve, so the
    # update resolves all 113 into emptied tables instead (the cheaper plan), and the graph is a fresh one.
    files = {"pkg/__init__.py": "", "pkg/hub.py": "def f(a):\n    return a\n", "pkg/lone.py": "X = 1\n"}
    files.update({f"pkg/use{i}.py": f"from pkg.hub import f\n\n\ndef g{i}():\n    return f({i})\n" for i in range(110)})
    repo = make_repo(files)
    index_and_compare(graphguard, repo, "first index")
    repo.commit("f becomes a class", {"pkg/hub.py": "class f:\n    def __init__(self, a):\n        self.a = a\n"})
    assert resolved_by_index(graphguard, repo) == 113
    assert_same_as_fresh(repo, "after the rebuild")
    repo.commit("one file", {"pkg/hub.py": "class f:\n    def __init__(self, a):\n        self.a = a\n", "pkg/lone.py": "X = 2\n"})
    assert resolved_by_index(graphguard, repo) == 1  # lone.py alone: no rebuild


def test_a_return_type_edit_reaches_a_module_level_object_made_by_the_function(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # `obj = make()` in the changed file itself: a file that imports `obj` (not `make`) binds `obj.close()` anew.
    make = "from pkg.note import Note, Other\n\n\ndef make() -> Note:\n    return Note()\n\n\nobj = make()\n"
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/note.py": NOTE,
        "pkg/make.py": make,
        "pkg/use.py": "from pkg.make import obj\n\n\ndef go():\n    return obj.close()\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("make returns Other", {"pkg/make.py": make.replace("-> Note:", "-> Other:")})
    index_and_compare(graphguard, repo, "after the return type changed")
    assert call_sites(graphguard, repo, "pkg.note.Other.close") == 1


def test_a_return_type_edit_reaches_a_caller_through_a_subclass_in_a_third_file(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    display = "from pkg.note import Note, Other\n\n\n" + DISPLAY.replace("-> None:", "-> Note:")
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/note.py": NOTE,
        "pkg/display.py": display,
        "pkg/mine.py": "from pkg.display import Display\n\n\nclass Mine(Display):\n    pass\n",
        "pkg/use.py": "from pkg.mine import Mine\n\n\ndef go():\n    return Mine().warning('x').close()\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("warning returns Other", {"pkg/display.py": display.replace("-> Note:", "-> Other:")})
    index_and_compare(graphguard, repo, "after the return type changed")
    assert call_sites(graphguard, repo, "pkg.note.Other.close") == 1


def test_a_new_module_re_resolves_only_the_files_whose_imports_it_can_change(make_repo: Callable[..., GitRepo], graphguard: Run) -> None:
    # ansible: 128 files say `from ansible import constants`; a new `ansible/utils/note.py` changes none of them.
    files = display_users(30)
    files["pkg/reader.py"] = "from pkg import display\n\n\ndef read():\n    return display.Display()\n"
    repo = make_repo(files)
    index_and_compare(graphguard, repo, "first index")
    repo.commit("a new module", {"pkg/extra.py": "def extra(x):\n    return x\n"})
    assert resolved_by_index(graphguard, repo) == 1
    assert_same_as_fresh(repo, "after a new module")


@pytest.mark.parametrize("importer", [
    "from pkg import extra\n",  # the name turns into the new module
    "import pkg\n",  # `pkg.extra.f` reaches it
    "from pkg.extra import f\n",  # the module itself
    "from pkg import *\n",
])
def test_a_new_module_re_resolves_its_importers_and_their_users(
    make_repo: Callable[..., GitRepo], graphguard: Run, importer: str
) -> None:
    # `mid.py` imports `extra` before it exists (unresolved); `use.py` reaches it through `mid`.
    repo = make_repo({
        "pkg/__init__.py": "",
        "pkg/mid.py": importer + "\n\ndef g():\n    return pkg_extra()\n\n\ndef pkg_extra():\n    return 1\n",
        "pkg/use.py": "from pkg import mid\nfrom pkg.mid import *\n\n\ndef h():\n    return mid.extra.f(1), f(2), extra.f(3)\n",
        "pkg/other.py": "def other():\n    return 2\n",
    })
    index_and_compare(graphguard, repo, "first index")
    repo.commit("extra appears", {"pkg/extra.py": "def f(x):\n    return x\n"})
    index_and_compare(graphguard, repo, "after extra appeared")
    repo.commit("extra goes", {"pkg/extra.py": None})
    index_and_compare(graphguard, repo, "after extra went")
