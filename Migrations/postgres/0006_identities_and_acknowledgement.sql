-- A database's identity, and where each client's last applied write landed (SQLite's migration
-- 0012 says why).

CREATE TABLE database_identity (
    id TEXT PRIMARY KEY
);
INSERT INTO database_identity (id) VALUES (md5(random()::text || clock_timestamp()::text));

ALTER TABLE client_write ADD COLUMN catalog TEXT, ADD COLUMN revision BIGINT;
