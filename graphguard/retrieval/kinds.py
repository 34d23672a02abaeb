"""The retrieval's kinds: how a file was reached (`Via`, in every answer), which way an edge points
(`Direction`) and what an edge between two files is made of (`Link`); the names of the ranking profiles. Wire strings (WireEnum): they
print and compare as the contract's words."""

from __future__ import annotations

from graphguard.model import WireEnum

#: The names `--profile` takes (rank.PROFILES holds the shipped ones' weights): here, so that the command line's
#: parser, built by every command, does not import the ranking (rank checks that its profiles are these).
AUTO = "auto"
FITTED = "fitted"
SHIPPED = ("default", "fix_bug", "implement_feature", "code_review")
CHOICES = (AUTO, FITTED, *SHIPPED)


class Direction(WireEnum):
    """Which way a file was reached from a seed: along its dependencies or its dependents."""

    FORWARD = "forward"  # the node depends on it
    REVERSE = "reverse"  # it depends on the node
    SEED = "seed"
    TEXT = "text"  # found by text only
    HISTORY = "history"  # committed together with a seed


class Via(WireEnum):
    """How an answer's file was found (`via` of context and related)."""

    SEED = "seed"
    TEXT = "text"
    CALL = "call"
    IMPORT = "import"
    CALLER = "caller"
    TEST = "test"
    HISTORY = "history"


class Link(WireEnum):
    """What an edge between two files is made of, strongest first."""

    CALL = "call"
    INHERIT = "inherit"
    REFERENCE = "reference"  # type references, decorators, callbacks, attributes
    TEST = "test"  # a test file importing the module it tests
    FIXTURE = "fixture"  # a test asking for a pytest fixture that a conftest.py defines
    IMPORT = "import"
    REEXPORT = "reexport"  # an `__init__` barrel importing a name only to export it
