-- A hash of the write recorded under each kept number (SQLite's migration 0011 says why): a
-- resend must be that write; another write under a taken number is refused.

ALTER TABLE client_answer ADD COLUMN fingerprint TEXT;
