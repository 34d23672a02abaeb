"""An update's phases: their wall time, and its progress on stderr."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator


class Phases:
    """Wall time per phase of one update (`times`: bench/index_bench.py prints them) and, when `show`, its progress
    on stderr: on a terminal one line per phase that counts up in place (`graphguard: resolving 1200/2818 files`) and
    ends with the phase's time; elsewhere (an IDE's git console, the pre-commit framework's capture, a CI log) plain
    lines, one at the start, one every PLAIN_EVERY seconds, one at the end."""

    def __init__(self, show: bool, tty: bool = True):
        self.show = show
        self.tty = tty
        self.times: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.times[name] = self.times.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def __call__(self, name: str, label: str = "", total: int = 0) -> Iterator[Callable[[int], None]]:
        """Time the phase `name`; with a `label` show its progress. Yields `tick(done)`."""
        start = time.perf_counter()
        shown = self.show and bool(label)
        every, end, begin = (0.1, "", "\r") if self.tty else (PLAIN_EVERY, "\n", "")
        last = start

        def tick(done: int) -> None:
            nonlocal last
            now = time.perf_counter()
            if shown and (now - last >= every or (self.tty and done >= total)):
                last = now
                print(f"{begin}graphguard: {label} {done}/{total}", end=end, file=sys.stderr, flush=True)

        if shown:
            print(f"{begin}graphguard: {label}" + (f" 0/{total}" if total else "..."), end=end, file=sys.stderr, flush=True)
        try:
            yield tick
        finally:
            elapsed = time.perf_counter() - start
            self.add(name, elapsed)
            if shown:
                count = f" {total}/{total}" if total else ""
                print(f"{begin}graphguard: {label}{count} in {elapsed:.1f} s" + ("\x1b[K" if self.tty else ""), file=sys.stderr,
                      flush=True)


#: Seconds between two progress lines where stderr is no terminal.
PLAIN_EVERY = 5.0
#: Set by `graphguard hook-impl` (the native hooks): this process runs inside a git hook.
HOOK_VARIABLE = "GRAPHGUARD_HOOK"


#: Below this many files to parse or re-resolve, an update shows no progress lines (it is over at once).
SHOW_FROM = 50
