"""graphguard: a persisted code graph that blocks commits leaving callers broken."""

__version__ = "0.2.0"
