-- CatalogKit schema, version 8: the last write of each client that numbers its writes.
--
-- A device that queues writes while offline numbers them 1, 2, 3… and sends them in order with
-- its client id. Each row is written in the same transaction as the write it records, so a write
-- and its number land together or not at all: a resend after a lost answer finds its number here
-- and gets the recorded answer (status and body) instead of being applied again, and a number
-- past the next one (a gap) is refused. A write refused for good is recorded the same way, so the
-- client's next number follows it.

CREATE TABLE client_write (
    client   TEXT    PRIMARY KEY NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence > 0),
    status   INTEGER NOT NULL,
    answer   TEXT    NOT NULL
) WITHOUT ROWID;
