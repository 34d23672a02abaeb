"""Format versions: bump one and what was stored under the old one is rebuilt."""

#: The shape of FileFacts (and what the parser extracts): cached facts of another version are re-parsed.
FACTS_VERSION = 4
#: The graph database's tables.
SCHEMA_VERSION = 5
#: The blob cache's table (2: facts as bytes with a checksum).
BLOB_VERSION = 2
