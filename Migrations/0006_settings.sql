-- CatalogKit schema, version 6: settings that belong to the database rather than to a process.
--
-- `journal_revisions`: how many revisions of each catalogue the journal keeps at least (1,000
-- when absent). Every process that writes the database prunes the journal by this value, so a
-- server that keeps a long journal is not cut short by a write from the command line.

CREATE TABLE setting (
    name TEXT PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL
) WITHOUT ROWID;
