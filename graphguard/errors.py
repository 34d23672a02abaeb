"""One error type for users: exit 2 with a message they can act on."""


class GraphguardError(RuntimeError):
    """Could not do what was asked (not: the check failed)."""


class LockTimeout(GraphguardError):
    """Another graphguard process holds the graph's write lock."""
