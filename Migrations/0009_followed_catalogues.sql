-- CatalogKit schema, version 9: a device's copy of a server's catalogues, and its outbox.
--
-- A followed catalogue is the server's catalogue with the device's own writes not yet confirmed
-- on top. `followed_catalog` says which server it follows and the server revision the copy has
-- taken in, written in the same transaction as each change taken from the server, so a follower
-- that restarts resumes from there. Every write the device makes to a followed catalogue is
-- applied to the copy and queued in `outbox` in the same transaction, numbered in order (the
-- number the server is sent with the client id of `follower_identity`, which keeps the last
-- number given): pending until the server answers, then acknowledged (with the server revision
-- that holds it) until the copy has taken that revision in, or rejected (with the server's
-- answer) for good.

CREATE TABLE follower_identity (
    client        TEXT    NOT NULL PRIMARY KEY,
    last_sequence INTEGER NOT NULL DEFAULT 0 CHECK (last_sequence >= 0)
) WITHOUT ROWID;

CREATE TABLE followed_catalog (
    name            TEXT    NOT NULL PRIMARY KEY,
    server          TEXT    NOT NULL,
    server_revision INTEGER NOT NULL DEFAULT 0 CHECK (server_revision >= 0)
) WITHOUT ROWID;

CREATE TABLE outbox (
    sequence        INTEGER NOT NULL PRIMARY KEY CHECK (sequence > 0),
    catalog         TEXT    NOT NULL,
    batch           TEXT    NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'acknowledged', 'rejected')),
    server_revision INTEGER,
    status          INTEGER,
    answer          TEXT
);
