import os
import sys

# `python -m graphguard` puts the working directory (often the analysed repository) first on
# sys.path, where its sqlite3.py or libcst.py would shadow ours: drop it before importing more.
# (Modules python imported before this line, the package itself among them, cannot be helped:
# the console script `graphguard` and the installed hooks never put the repository on sys.path.)
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]
os.environ.setdefault("PYTHONSAFEPATH", "1")  # and off the sys.path of worker interpreters (spawn, 3.11+)

from graphguard.main import main

raise SystemExit(main())
