"""The limits every parser of a repository's files keeps, whatever its language.

Apart from the package's `__init__`, which imports every language: a language's modules import this one only.
"""

#: Files above this size are generated or vendored data, not code anyone calls into: not parsed.
MAX_BYTES = 2_000_000
