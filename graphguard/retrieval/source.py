"""File contents from git objects, never the working tree: one `git cat-file --batch` per question."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from graphguard import git


@dataclass
class Batch:
    found: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # spec -> (blob sha, content)
    missing: list[str] = field(default_factory=list)


def parse_batch(out: bytes, specs: list[str]) -> Batch:
    """`git cat-file --batch` output for `specs`, in order: `<sha> <type> <size>\\n<data>\\n` or `<spec> missing\\n`."""
    batch = Batch()
    pos = 0
    for spec in specs:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].decode("utf-8", "surrogateescape")
        pos = nl + 1
        parts = header.split(" ")
        if len(parts) == 3 and parts[1] in ("blob", "tree", "commit", "tag") and parts[2].isdigit():
            size = int(parts[2])
            if parts[1] == "blob":
                batch.found[spec] = (parts[0], out[pos : pos + size])
            else:
                batch.missing.append(spec)
            pos += size + 1
        else:  # "<spec> missing" / "ambiguous"
            batch.missing.append(spec)
    return batch


def read(root: str, specs: Iterable[str]) -> Batch:
    specs = [s for s in dict.fromkeys(specs) if "\n" not in s]
    if not specs:
        return Batch()
    out = git.run(root, "cat-file", "--batch", input="".join(s + "\n" for s in specs).encode("utf-8", "surrogateescape"))
    return parse_batch(out, specs)


def at_head(root: str, paths: Iterable[str], rev: str = "HEAD") -> tuple[dict[str, tuple[str, bytes]], list[str]]:
    """path -> (blob sha, content) at `rev`, and the paths that are not there."""
    paths = list(paths)
    # `cat-file --batch` takes one `rev:path` per line: a name with a line break is looked up by its blob.
    odd = [p for p in paths if "\n" in p]
    batch = read(root, (f"{rev}:{p}" for p in paths if "\n" not in p))
    prefix = len(rev) + 1
    found = {spec[prefix:]: v for spec, v in batch.found.items()}
    missing = [spec[prefix:] for spec in batch.missing]
    if odd:
        entries = {p: e for p, e in git.blobs_at(root, rev, odd).items() if p in odd and e.mode not in (git.MODE_SYMLINK, git.MODE_SUBMODULE)}
        contents = blobs(root, {e.sha for e in entries.values()})
        for p in odd:
            sha = entries[p].sha if p in entries else None
            if sha is not None and sha in contents:
                found[p] = (sha, contents[sha])
            else:
                missing.append(p)
    return found, missing


def blobs(root: str, shas: Iterable[str]) -> dict[str, bytes]:
    batch = read(root, shas)
    return {spec: data for spec, (_, data) in batch.found.items()}


def changed_paths(root: str, old: str, new: str) -> list[str]:
    """Paths that differ between two commits (a tree diff: what a commit touched, not what the repository holds)."""
    # A name that is not UTF-8 is never indexed (and SQLite could not be asked about it).
    return [c.path for c in git.diff(root, old, new) if git.is_utf8_name(c.path)]
