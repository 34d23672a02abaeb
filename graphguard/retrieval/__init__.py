"""Retrieval for agents: the files and symbols a task needs, ranked, within a token budget.

Pure steps:
    tokenize    code-aware words; a source file cut into per-definition documents
    expand      breadth-first over file edges, both ways, with a degree cap
    rank        signals -> one score per file (weighted reciprocal-rank fusion, profiles; past the score cliff:
                references only); symbols named by the task's words
    budget      disclosure levels (full, signature, reference) within a token budget
    fit         the fusion weights and co-change half-life that rank a repository's past commits best
    outlines    a definition or a module in brief (its header, its docstring's first line), from its lines
    records     the request, the result and its items

Their I/O:
    textindex   BM25 over symbols: SQLite FTS5, kept in step with the graph's files table
    history     git co-change, recency and edit frequency: a touch log that follows HEAD
    graphdata   file edges with their kinds, read from the graph's tables
    source      file contents from git blobs (the stale-path guard)
    engine      seeds -> expansion -> history -> ranking -> symbols -> budget: `Retriever`, over its stages
    candidates  the stage before ranking: seeds, expansion, co-change, tests, recency (`Gathering`)
    named       the symbols a task's words name, the tests named after a seed (`Naming`)
    fill        the stage after ranking: each file's symbols, their text at HEAD, the budget (`Filling`)
    maintain    the indexer's hook that keeps history (and the text index) current
    render      text and JSON renderers
    fitting     past commits replayed as queries, history cut at each (the cases `fit` learns from)
    profiles    the fitted profile in the graph's meta; which profile `auto` means
"""
