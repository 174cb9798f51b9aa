-- CatalogKit schema, version 12: a database's identity, and what a server can tell a device of
-- the writes a state holds.
--
-- `database_identity` holds one random id, made when the database is created (or first
-- migrated to this version) and kept by `catalog copy` of a whole database. A device that
-- follows a server remembers it per followed catalogue (`followed_catalog.server_identity`): a
-- server that answers with another id is another database, whatever its revisions say, and the
-- copy takes its snapshot instead of resuming.
--
-- On a server, `client_write` also keeps where each client's last applied write landed: its
-- catalogue and the revision after it (`catalog`, `revision`; a refusal keeps them). With the
-- client's last number, read after a snapshot at revision R, they say exactly which of the
-- client's writes R holds when `revision <= R`: every number up to `sequence` is settled and no
-- later one exists — so a device can tell a write of its own that a restored server no longer
-- has from one still on the way.

CREATE TABLE database_identity (
    id TEXT NOT NULL PRIMARY KEY
) WITHOUT ROWID;
INSERT INTO database_identity (id) VALUES (lower(hex(randomblob(16))));

ALTER TABLE client_write ADD COLUMN catalog TEXT;
ALTER TABLE client_write ADD COLUMN revision INTEGER;

ALTER TABLE followed_catalog ADD COLUMN server_identity TEXT;
