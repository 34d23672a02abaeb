"""Readers of Python source for the signature model (graphguard.languages.python.signature).

Each reader turns a module's text into the same neutral records (records.py): what
was written, with expression texts in one canonical spelling. The rules that turn
those into signatures (constructors, dataclass fields, overloads) live once, in
graphguard.languages.python.signature. ast_reader uses CPython's own parser (fast, no import cost);
cst_reader uses LibCST, for syntax newer than the running interpreter, and is imported
only then.
"""
