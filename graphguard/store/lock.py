"""The advisory write lock of the store, with a timeout."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import ClassVar

from graphguard import files
from graphguard.errors import LockTimeout


class Lock:
    """An advisory file lock with a timeout (fcntl; msvcrt on Windows).

    The lock belongs to the open file description, which a forked child shares:
    a parse worker that outlived a killed parent would hold it forever. So every
    forked child closes its copies at once (see `_forget_in_child`; exec'd children
    never get one: os.open makes it non-inheritable, PEP 446), and a lock whose
    holder died is free: the kernel drops it with the last descriptor.
    """

    _held: ClassVar[set[int]] = set()  # descriptors this process holds locked

    def __init__(self, path: str):
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float) -> None:
        fd = files.open_own(self.path, os.O_RDWR | os.O_CREAT)
        deadline = time.monotonic() + timeout
        while True:
            try:
                _lock(fd)
                self._fd = fd
                Lock._held.add(fd)
                return
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeout(
                        "another graphguard process is updating the graph (lock held); try again in a moment"
                    ) from None
                time.sleep(0.05)

    def release(self) -> None:
        if self._fd in Lock._held:  # not in a forked child: its copy is closed, the parent's lock is not its to drop
            Lock._held.discard(self._fd)
            _unlock(self._fd)
            os.close(self._fd)
        self._fd = None

    @staticmethod
    def _forget_in_child() -> None:
        """In a forked child: close the inherited lock descriptors without unlocking (that would free the parent's lock)."""
        for fd in Lock._held:
            with contextlib.suppress(OSError):
                os.close(fd)
        Lock._held = set()

    @classmethod
    def adopt(cls, path: str, fd: int) -> Lock:
        """The lock on `path` already held on descriptor `fd`, inherited from the process that started this
        one (background.launcher.launch): released like any other, and closed in forked children like any other."""
        lock = cls(path)
        lock._fd = fd
        cls._held.add(fd)
        return lock


if hasattr(os, "register_at_fork"):  # runs in the child before fork() returns there, before any of its own code
    os.register_at_fork(after_in_child=Lock._forget_in_child)


if sys.platform == "win32":  # pragma: no cover
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
