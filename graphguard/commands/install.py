"""`graphguard install [--uninstall]`: native git hooks, for repositories without the pre-commit framework."""

from __future__ import annotations

import os
import shlex
import sys
from importlib import resources

from graphguard import git, output
from graphguard.errors import GraphguardError

HOOK_TYPES = ("pre-commit", "pre-merge-commit", "pre-applypatch", "post-commit", "post-checkout", "post-merge", "post-rewrite")
#: Opt-in (`--pre-push`): a push of a broken head is refused.
OPTIONAL_HOOK_TYPES = ("pre-push",)
MARKER = "# graphguard-hook"
LEGACY_SUFFIX = ".graphguard-legacy"


def hooks_dir(root: str) -> str:
    """The hooks folder git runs: honours core.hooksPath (relative to the work tree)."""
    out = git.run(root, "rev-parse", "--git-path", "hooks").decode().strip()
    return os.path.normpath(os.path.join(root, out))


def is_ours(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return MARKER in f.read(4096)
    except OSError:
        return False


def script(hook_type: str) -> str:
    template = resources.files("graphguard").joinpath("resources/hook-tmpl").read_text(encoding="utf-8")
    return template.replace("__HOOK_TYPE__", hook_type).replace("__INSTALL_PYTHON__", shlex.quote(sys.executable))


#: How the hook shim starts graphguard (resources/hook-tmpl): -E, so that PYTHONPATH, whose empty or `.` entry
#: is the repository, is ignored; sys.path[0] ('' for -c) dropped before the first import.
HOOK_PROBE = 'import sys\nif sys.path and sys.path[0] in ("", "."):\n    del sys.path[0]\nimport graphguard.main'


def check_hook_interpreter() -> None:
    """The hooks would fail on every commit if their `python -E` could not import graphguard: say so now."""
    import subprocess

    proc = subprocess.run([sys.executable, "-E", "-c", HOOK_PROBE], capture_output=True, check=False, timeout=120)
    if proc.returncode != 0:
        raise GraphguardError(
            f"the hooks start {sys.executable} with -E (PYTHONPATH ignored, so that it cannot run the repository's code),"
            " and it cannot import graphguard then (found only through PYTHONPATH or PYTHONUSERBASE?): install graphguard"
            " into that interpreter's environment (a venv, pipx, pip install --user) and run graphguard install from it"
        )


def install(repo_path: str, *, uninstall: bool = False, pre_push: bool = False) -> int:
    root = git.repo_paths(repo_path).root
    folder = hooks_dir(root)
    # Uninstall removes every hook of ours, the opt-in ones too.
    hook_types = HOOK_TYPES + OPTIONAL_HOOK_TYPES if uninstall or pre_push else HOOK_TYPES
    if not uninstall:
        check_hook_interpreter()
        for hook_type in hook_types:
            path = os.path.join(folder, hook_type)
            if os.path.lexists(path) and not is_ours(path) and os.path.lexists(path + LEGACY_SUFFIX):
                # Moving this one aside would overwrite the hook kept there by an earlier install.
                raise GraphguardError(
                    f"{path} is not graphguard's and {path + LEGACY_SUFFIX} already keeps an earlier hook; move one of them away"
                )
    try:
        os.makedirs(folder, exist_ok=True)
        for hook_type in hook_types:
            path = os.path.join(folder, hook_type)
            legacy = path + LEGACY_SUFFIX
            if uninstall:
                if is_ours(path):
                    os.remove(path)
                    if os.path.lexists(legacy):
                        os.replace(legacy, path)
                        output.write(f"restored {path}")
                    else:
                        output.write(f"removed {path}")
                continue
            if os.path.lexists(path) and not is_ours(path):
                # A foreign hook (or a symlink, even a dangling one) is chained, never overwritten.
                os.replace(path, legacy)
                output.write(f"kept the existing {hook_type} hook: it runs first ({legacy})")
            # Write beside it and rename: never through a symlink that stands at `path`.
            with open(path + ".graphguard-tmp", "w", encoding="utf-8", newline="\n") as f:
                f.write(script(hook_type))
            os.chmod(path + ".graphguard-tmp", 0o755)
            os.replace(path + ".graphguard-tmp", path)
            output.write(f"installed {path}")
    except OSError as e:
        raise GraphguardError(f"cannot write hooks in {folder}: {e.strerror}") from None
    if uninstall:
        _say_what_is_left(root)
    return 0


def _say_what_is_left(root: str) -> None:
    """The store is not the hooks': uninstall leaves it (a reinstall starts warm), and says so."""
    from graphguard.commands.clean import megabytes
    from graphguard.store import Store

    paths = git.repo_paths(root)
    store = Store(paths.git_dir, paths.common_dir)
    if os.path.isdir(store.dir):
        output.write(f"left the graph's store {store.dir} ({megabytes(store.size())}); graphguard clean removes it")
