-- The last write of each client that numbers its writes (SQLite's migration 0008 says why): one
-- row per client, written in the same transaction as the write it records.

CREATE TABLE client_write (
    client   TEXT    PRIMARY KEY,
    sequence BIGINT  NOT NULL CHECK (sequence > 0),
    status   INTEGER NOT NULL,
    answer   TEXT    NOT NULL
);
