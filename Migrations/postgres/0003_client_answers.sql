-- The answers to each client's last request, not only to its last write (SQLite's migration
-- 0010 says why): one row per write of the request, written in the same transaction as the
-- write; `client_write` keeps only each client's last number.

CREATE TABLE client_answer (
    client   TEXT    NOT NULL,
    sequence BIGINT  NOT NULL CHECK (sequence > 0),
    status   INTEGER NOT NULL,
    answer   TEXT    NOT NULL,
    PRIMARY KEY (client, sequence)
);

INSERT INTO client_answer (client, sequence, status, answer)
    SELECT client, sequence, status, answer FROM client_write;

ALTER TABLE client_write DROP COLUMN status, DROP COLUMN answer;
