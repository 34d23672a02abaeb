"""Real merged commits that graphguard blocked although they are correct: what each version says now.

    python bench/false_blocks.py [--old SRC] [--new SRC] [--work DIR] [REPO:COMMIT ...]

Each REPO:COMMIT (REPO a local git repository: a `fetch`ed mirror, cloned into --work) is
checked as CI checks it, `check --base COMMIT~1 --head COMMIT --format json`, by each
version (a folder holding a `graphguard` package, run first on sys.path: common.graphguard_argv;
`--new` defaults to this checkout). Without commits, the repros of issue 19 §1.1, §1.2, §1.3, §1.6, §1.7, §1.8:

    ansible b3c4154e86e  `class NoTokenSentinel` became `from ...sentinel import Sentinel as NoTokenSentinel` (§1.1)
    ansible b2a289dcbb7  `def is_python_identifier` became `is_python_identifier = str.isidentifier` (§1.1)
    poetry 93baede18     `SimpleRepositoryRootPage` moved to link_sources/base.py, html.py imports it back (§1.2)
    ansible 79f819dc54e  one of two `vyos.py` (plugin folders on the path) deleted; the other's own `ActionModule` (§1.6)
    sphinx 1156555fcc  `Documenter.get_attr` became `self.get_attr = directive.get_attr` (§1.3)
    scrapy d1bd8eb49   `self.download_request = handler.download_request` in setup_method (§1.3),
                       the legacy `handler.download_request(request, spider)  # type: ignore[call-arg]` (§1.8)
    pydantic 44b5da2aa `Url(url, preserve_empty_path=True)`: the compiled Url accepts it, the .pyi did not (§1.7)

Prints per commit and version: the verdict, broken / unknown / suppressed sites, seconds
(whole process, cold graph: each version indexes its own clone), and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

from common import graphguard_argv

HERE = Path(__file__).resolve().parent.parent
MIRRORS = Path("/work/.mirror")
DEFAULT = ("ansible+ansible/repo:b3c4154e86e", "ansible+ansible/repo:b2a289dcbb7", "python-poetry+poetry/repo:93baede18",
           "ansible+ansible/repo:79f819dc54e", "sphinx-doc+sphinx/repo:1156555fcc", "scrapy+scrapy/repo:d1bd8eb49", "pydantic+pydantic/repo:44b5da2aa")


def clone(source: Path, work: Path, label: str, commit: str) -> Path:
    """A working clone of `source` at `commit` (one per version: each keeps its own graph)."""
    target = work / f"{source.parent.name if source.name == 'repo' else source.name}-{label}"
    if not target.exists():
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(target)], check=True)
    # git's own complaints about a fixture's encoding (sphinx's wrongenc.inc) are no part of the figures
    subprocess.run(["git", "checkout", "-q", "--detach", commit], cwd=target, check=True, stderr=subprocess.DEVNULL)
    return target


def check(repo: Path, src: Path, commit: str) -> tuple[dict[str, object] | str, float]:
    t = time.perf_counter()
    proc = subprocess.run([*graphguard_argv(src), "check", "--base", f"{commit}~1", "--head", commit, "--format", "json"],
                          cwd=repo, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        return f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}", elapsed
    return json.loads(proc.stdout), elapsed


def summary(report: dict[str, object] | str) -> str:
    if isinstance(report, str):
        return report
    callers = [k for ch in report["changes"] for k in ch["callers"]]  # type: ignore[attr-defined]
    count = {s: sum(1 for k in callers if k["status"] == s) for s in ("broken", "unknown")}
    suppressed = sum(1 for k in callers if k.get("suppressed"))
    return f"{report['verdict']:5}  broken {count['broken']:3}  unknown {count['unknown']:3}  suppressed {suppressed:3}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("commits", nargs="*", default=list(DEFAULT), help="REPO:COMMIT (REPO relative to /work/.mirror, or a path)")
    p.add_argument("--old", type=Path, help="a folder holding the graphguard package to compare with")
    p.add_argument("--new", type=Path, default=HERE)
    p.add_argument("--work", type=Path, default=Path("/tmp/graphguard-false-blocks"))
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    versions = [("old", args.old)] * (args.old is not None) + [("new", args.new)]
    for spec in args.commits:
        repo, _, commit = spec.rpartition(":")
        source = Path(repo) if Path(repo).is_absolute() else MIRRORS / repo
        for label, src in versions:
            assert src is not None
            report, seconds = check(clone(source, args.work, label, commit), src, commit)
            print(f"{spec:45} {label}  {summary(report)}  {seconds:6.1f} s", flush=True)
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
