"""Parsing per language; the limits every parser of a repository's files keeps."""

#: Files above this size are generated or vendored data, not code anyone calls into: not parsed.
MAX_BYTES = 2_000_000
