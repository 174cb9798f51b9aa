-- CatalogKit schema, version 10: the answers to each client's last request, not only to its
-- last write.
--
-- A client may send several numbered writes in one request (`POST …/writes`). When the answer to
-- such a request is lost, the client sends the whole request again, and each write in it must
-- get the answer it got the first time — a refusal with its reason included. So `client_answer`
-- keeps the answer to every write of the client's last request (written in the same transaction
-- as the write, like the number), and the answers of the request before are dropped when the
-- first write of a new one is recorded: a client sends a request only once it has the answer to
-- the one before. `client_write` keeps only each client's last number.

CREATE TABLE client_answer (
    client   TEXT    NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence > 0),
    status   INTEGER NOT NULL,
    answer   TEXT    NOT NULL,
    PRIMARY KEY (client, sequence)
) WITHOUT ROWID;

INSERT INTO client_answer (client, sequence, status, answer)
    SELECT client, sequence, status, answer FROM client_write;

CREATE TABLE client_last_write (
    client   TEXT    PRIMARY KEY NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence > 0)
) WITHOUT ROWID;

INSERT INTO client_last_write (client, sequence) SELECT client, sequence FROM client_write;
DROP TABLE client_write;
ALTER TABLE client_last_write RENAME TO client_write;
