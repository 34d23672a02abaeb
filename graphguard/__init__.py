"""graphguard: a persisted code graph that blocks commits leaving callers broken."""

import os as _os
import sys as _sys

__version__ = "0.2.0"


def _drop_pythonpath_entries_of_the_working_directory() -> None:
    """An empty or relative PYTHONPATH entry (`PYTHONPATH=:$HOME/lib`, `PYTHONPATH=.`) names whatever folder
    graphguard starts in, usually the repository it analyses: when graphguard is the program (the console
    script, `python -m graphguard`), drop those folders from sys.path before anything else is imported.
    What Python imported before this line (sitecustomize, this package) cannot be helped from here: the
    hooks and the refresher start their interpreter with -E, and `python -I -m graphguard` is immune."""
    value = _os.environ.get("PYTHONPATH")
    if not value or _sys.flags.ignore_environment or not _is_the_program():
        return
    relative = {_os.path.abspath(e or ".") for e in value.split(_os.pathsep) if not _os.path.isabs(e)}
    if not relative:
        return
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") not in relative]
    ran = sorted(name for name, module in list(_sys.modules.items())
                 if any(str(getattr(module, "__file__", None) or "").startswith(d + _os.sep) for d in relative))
    if ran:
        print(f"graphguard: warning: Python imported {', '.join(ran)} from {', '.join(sorted(relative))} before graphguard"
              " started (PYTHONPATH has an empty or relative entry); `python -I -m graphguard` keeps such files out",
              file=_sys.stderr)


def _is_the_program() -> bool:
    """The console script (`bin/graphguard`, `graphguard-script.py`), or `-m graphguard` being located (then
    sys.argv[0] is "-m"); never a program that imports graphguard as a library."""
    first = _sys.argv[0] if _sys.argv else ""
    return first == "-m" or _os.path.basename(first).split(".")[0].removesuffix("-script") == "graphguard"


_drop_pythonpath_entries_of_the_working_directory()
