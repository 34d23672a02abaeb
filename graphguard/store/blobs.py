"""The blob cache: facts by blob SHA, each row checked by a CRC-32 of its key and facts."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from graphguard.store.db import _warn, chunked, marks, transaction


class BlobCache:
    """The blob-cache half of `Store` (a mixin: the connection and its path are `Store`'s)."""

    if TYPE_CHECKING:
        blobs_path: str
        _blobs_readonly: bool

        @property
        def blobs(self) -> sqlite3.Connection: ...

    # blob cache

    def known_blobs(self, shas: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for chunk in chunked(shas):
            q = f"SELECT sha FROM blobs WHERE sha IN ({marks(chunk)})"
            found.update(r[0] for r in self.blobs.execute(q, chunk))
        return found

    def load_facts(self, sha: str) -> str | None:
        """The cached facts of a blob; None when there are none, or when the row is damaged (it is
        dropped with a warning, so the caller parses the blob again)."""
        # CAST: SQLite hands back bytes whatever a damaged row claims to hold, and Python decodes them here.
        row = self.blobs.execute("SELECT CAST(facts AS BLOB), CAST(crc AS INTEGER) FROM blobs WHERE sha = ?", (sha,)).fetchone()
        if row is None:
            return None
        data, crc = row
        try:
            if not isinstance(data, bytes) or _checksum(sha, data) != crc:
                raise ValueError("checksum mismatch")
            return str(data.decode("utf-8"))
        except ValueError as e:  # UnicodeDecodeError included
            _warn(f"blob cache at {self.blobs_path}: the facts of blob {sha[:12]} are damaged ({e.__class__.__name__}:"
                  f" {str(e)[:60]}); parsing the blob again")
            if not self._blobs_readonly:
                self.blobs.execute("DELETE FROM blobs WHERE sha = ?", (sha,))
            return None

    def save_facts(self, rows: Iterable[tuple[str, str]]) -> None:
        conn = self.blobs
        if self._blobs_readonly:
            return  # a cache: what cannot be kept is parsed again next time
        encoded = [(sha, raw.encode("utf-8")) for sha, raw in rows]
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO blobs(sha, facts, crc) VALUES (?, ?, ?)",
                             ((sha, data, _checksum(sha, data)) for sha, data in encoded))


def _checksum(sha: str, data: bytes) -> int:
    """CRC-32 of a row's key and facts: a flipped bit in either fails it (a few µs per row)."""
    return zlib.crc32(data, zlib.crc32(sha.encode("ascii", "replace")))
