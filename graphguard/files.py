"""Opening a file only when it is a regular file: never waiting on a FIFO, a socket or a device.

`open()` of a FIFO blocks until someone opens the other end: a FIFO at a log, a lock or a
database of the store (a CI cache restored by tar keeps FIFOs; `mkfifo` by mistake or malice)
held git, with the refresh lock, for as long as nobody came. So every file of the store, and
every file a user names for graphguard to write, is opened non-blocking and kept only when
`fstat` says it is a regular file. The store's own files are graphguard's: something else at
their place is debris, removed (store/ and background/ say where) and made again.
"""

from __future__ import annotations

import os
import stat
import sys

from graphguard.errors import GraphguardError

# O_NONBLOCK: the open of a FIFO returns at once (or fails with ENXIO for a writer without a reader)
# instead of waiting for the other end; on a regular file it changes nothing that graphguard does.
_SAFE = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegularFile(OSError):
    """Something other than a regular file stands at a path graphguard reads or writes."""

    def __init__(self, path: str, what: str):
        super().__init__(f"{path} is {what}, not a regular file")
        self.path = path
        self.what = what


def kind(mode: int) -> str:
    """What a file of this mode is, in words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def foreign(path: str) -> str | None:
    """What stands at `path` when it is neither absent nor a regular file (a link is not followed); else None."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else kind(mode)


def open_regular(path: str, flags: int, mode: int = 0o644, *, follow: bool = False) -> int:
    """os.open that returns a descriptor only on a regular file, at once: a FIFO, socket, device or directory
    is NotRegularFile (no device is even opened: lstat first), and a symbolic link ELOOP unless `follow`
    (for a path the user named). The descriptor is blocking again, as os.open would have made it."""
    found = foreign(path)
    if found is not None and found != "a symbolic link":
        raise NotRegularFile(path, found)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)  # a link: ELOOP, which callers already name
    fd = os.open(path, flags | _SAFE, mode)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # put there since the lstat
            raise NotRegularFile(path, kind(st.st_mode))
        if hasattr(os, "O_NONBLOCK"):
            import fcntl

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_own(path: str, flags: int, mode: int = 0o644) -> int:
    """open_regular for a file that is graphguard's own (a log, a lock, a state file of the store): a FIFO,
    socket or device at its place is removed, with a warning, and the file made afresh. A symbolic link is
    left alone (ELOOP): whoever planted it meant us to write through it."""
    found = foreign(path)
    if found is not None and found not in ("a symbolic link", "a directory"):
        remove_foreign(path, found)
    return open_regular(path, flags, mode)


def remove_foreign(path: str, what: str) -> None:
    """Remove what stands at a path of the store that is not a regular file; the warning says what it was."""
    print(f"graphguard: warning: {path} is {what}, not a regular file; removing it", file=sys.stderr)
    os.remove(path)


def ensure_dir(path: str) -> None:
    """Create the store's directory; a file or a symbolic link standing there is an error, never followed."""
    if os.path.islink(path):
        raise GraphguardError(f"{path} is a symbolic link; graphguard never follows one: remove it")
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        if not os.path.isdir(path):
            raise GraphguardError(f"{path} is not a directory; remove it so that graphguard can keep its graph there") from None
    except OSError as e:
        raise GraphguardError(f"cannot create {path}: {e.strerror}") from None


def write_log(git_dir: str, name: str, text: str, *, append: bool, mode: int) -> str | None:
    """Write `text` to `<git_dir>/graphguard/<name>`; its path, or None when it could not be written
    (a read-only .git, say: a message must not point to a log that is not there). Never through a
    symbolic link, the folder's or the file's: one planted there would have us write to another file."""
    directory = os.path.join(git_dir, "graphguard")
    path = os.path.join(directory, name)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC) | getattr(os, "O_NOFOLLOW", 0)
    try:
        ensure_dir(directory)
        with os.fdopen(open_own(path, flags, mode), "a" if append else "w", encoding="utf-8") as f:
            f.write(text)
    except (GraphguardError, OSError):
        return None
    return path
