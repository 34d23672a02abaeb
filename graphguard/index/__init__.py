"""Building and updating the graph from git blobs: `update.Indexer` plans, parses, resolves and writes."""
