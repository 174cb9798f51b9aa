-- CatalogKit schema, version 13: a device keeps its last writes the server confirmed.
--
-- An acknowledged write leaves the outbox once the copy stands on a server revision that holds
-- it. A server restored from a backup taken before then no longer has it, and the stream's
-- acknowledgement (migration 0012) says so — but the write was gone from the device too. Each
-- write that leaves the outbox so is kept in `confirmed_write` (the last 1,000 of each followed
-- catalogue), with its order, client id, number and batch: when the server's history is found
-- to have changed, those it lacks go back to the outbox as pending, under their numbers.

CREATE TABLE confirmed_write (
    sequence        INTEGER NOT NULL PRIMARY KEY CHECK (sequence > 0),
    catalog         TEXT    NOT NULL,
    client          TEXT,
    number          INTEGER,
    batch           TEXT    NOT NULL,
    server_revision INTEGER NOT NULL
);
CREATE INDEX confirmed_write_by_catalog ON confirmed_write (catalog, sequence);

-- `identity_checked`: the stream has seen the server database's identity since the catalogue
-- last moved to another address (`refollow`). Until then, a server's "expected N" is not taken
-- to mean that it lost the confirmed writes past N: a copy of chosen catalogues has them without
-- their records.
ALTER TABLE followed_catalog ADD COLUMN identity_checked INTEGER NOT NULL DEFAULT 1 CHECK (identity_checked IN (0, 1));
