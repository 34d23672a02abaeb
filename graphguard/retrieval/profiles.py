"""Which ranking profile a query uses: a shipped one, or the one fitted to this repository (stored in meta).

The fitted profile (retrieval/fit.FittedProfile) is one JSON row of the graph's meta table, key `retrieval_fit`.
A row that does not decode is damage: it is ignored (the default is used, and the next fit replaces it).
"""

from __future__ import annotations

import sqlite3

from graphguard.errors import GraphguardError
from graphguard.retrieval import kinds, rank
from graphguard.retrieval.fit import FittedProfile
from graphguard.store.schema import MetaKey, meta, set_meta

META_KEY = MetaKey.RETRIEVAL_FIT.value  # the old name


def load(db: sqlite3.Connection) -> FittedProfile | None:
    """The stored fitted profile; None when there is none or it does not decode."""
    try:
        value = meta(db, MetaKey.RETRIEVAL_FIT)
    except sqlite3.Error:
        return None
    if not isinstance(value, str):
        return None
    try:
        return FittedProfile.from_json(value)
    except ValueError:
        return None


def save(db: sqlite3.Connection, fitted: FittedProfile) -> None:
    """Store it (the caller holds the write lock)."""
    with db:
        set_meta(db, MetaKey.RETRIEVAL_FIT, fitted.to_json())


def in_use(fitted: FittedProfile | None) -> str:
    """The profile `auto` stands for: `fitted` when one was stored and accepted, else `default`."""
    return kinds.FITTED if fitted is not None and fitted.accepted else "default"


def resolve(db: sqlite3.Connection, name: str) -> rank.Profile:
    """A profile name as the caller gave it -> the weights to rank with."""
    if name in rank.PROFILES:
        return rank.PROFILES[name]
    if name not in (kinds.AUTO, kinds.FITTED):
        raise GraphguardError(f"unknown profile {name!r}; choose one of {', '.join(kinds.CHOICES)}")
    fitted = load(db)
    if name == kinds.FITTED:
        if fitted is None:
            raise GraphguardError("no fitted profile for this repository yet: run `graphguard index` to fit one"
                                  " (or use --profile auto)")
        return fitted.profile()
    return fitted.profile() if fitted is not None and fitted.accepted else rank.PROFILES["default"]
