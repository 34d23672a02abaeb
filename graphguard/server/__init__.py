"""The long-lived answerer behind `graphguard mcp`: one process, one open repository, many questions.

    session.py   the open repository, kept current: a stat probe before each answer, the indexer when
                 HEAD or the index moved, and each answer read inside one SQLite read transaction
    tools.py     the tools: name, description, JSON input schema, and the function that answers
                 (arguments -> the JSON document the CLI prints); no MCP in it
    stdio.py     the only importer of the `mcp` SDK: the protocol over stdin/stdout

Nothing here is imported by the hook path or by any other command.
"""
