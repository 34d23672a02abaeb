"""How the answer commands print a document: indented JSON (`--format json`) or its compact form (`--compact`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphguard import output
from graphguard.freshness import Freshness, State


def write_compact(doc: Mapping[str, Any]) -> int:
    """Print an answer in its compact form (`--compact`)."""
    from graphguard.report.compact import dumps
    from graphguard.report.printable import printable

    output.write(printable(dumps(doc)))
    return 0


def note_stale(fresh: Freshness) -> None:
    """A text answer from a stale graph says so (on stderr: the answer itself stays as it is)."""
    if fresh.state is State.STALE:
        output.warn(f"the graph describes {(fresh.head or 'no commit')[:12]}, not HEAD: {fresh.reason}")


def write_json(doc: Mapping[str, Any]) -> int:
    """Print an answer as indented JSON (`--format json`), the one writer of every answer command: UTF-8 as it is
    (`m.café`, not `m.caf\\u00e9`), two spaces of indentation, the document's key order."""
    from graphguard.report import indented
    from graphguard.report.printable import printable

    output.write(printable(indented.dumps(doc)))
    return 0
