"""One error type for users: exit 2 with a message they can act on."""


class GraphguardError(RuntimeError):
    """Could not do what was asked (not: the check failed)."""


class LockTimeout(GraphguardError):
    """Another graphguard process holds the graph's write lock."""


class StillRefreshing(GraphguardError):
    """A background refresher is still bringing the graph current after the patience a caller gave it (a caller
    that can answer from the graph as it stands, marked stale, rather than wait: repo.ensure_fresh)."""
