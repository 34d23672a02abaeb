"""The contents of blobs (one `git cat-file --batch` for many), and the id git gives bytes as a blob."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from graphguard.git.commits import INDEX
from graphguard.git.process import run


def parse_cat_file_batch(out: bytes) -> Iterator[tuple[str, bytes]]:
    """`git cat-file --batch` output: '<sha> <type> <size>\\n<content>\\n' per object ('<sha> missing')."""
    pos = 0
    while pos < len(out):
        eol = out.index(b"\n", pos)
        header = out[pos:eol].split(b" ")
        pos = eol + 1
        if len(header) != 3:
            continue  # '<sha> missing': not in this repository (a shallow clone)
        size = int(header[2])
        yield header[0].decode(), out[pos : pos + size]
        pos += size + 1


def read_blobs(root: str, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """Contents of many blobs through one `git cat-file --batch`."""
    request = "".join(f"{sha}\n" for sha in shas).encode()
    if not request:
        return iter(())
    return parse_cat_file_batch(run(root, "cat-file", "--batch", input=request))


def read_at(root: str, rev: str, path: str) -> bytes | None:
    """One tracked file's bytes at a commit (or in the index, INDEX); None when it has no such file."""
    name = f":{path}" if rev == INDEX else f"{rev}:{path}"
    if "\n" in name:
        return None
    for _, data in read_blobs(root, [name]):
        return data
    return None


def blob_sha(data: bytes) -> str:
    """The SHA git would give these bytes as a blob (for working-tree files)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
