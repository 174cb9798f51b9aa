-- CatalogKit schema, version 11: a device numbers its writes per followed catalogue, and a
-- server tells apart two writes sent under one number.
--
-- A device that follows several catalogues used to number all its writes in one sequence, under
-- one client id, while a run of `catalog sync` sends only the writes of the catalogues it
-- follows: the server saw a gap where another catalogue's write was, and a later write of that
-- catalogue looked applied long ago. Each followed catalogue now has its own client id
-- (`followed_catalog.client`, random) and numbers its writes 1, 2, 3… (`last_number`); an outbox
-- row keeps the id and the number it is sent with (`client`, `number`; none for a write answered
-- before this version). Writes waiting now are numbered afresh under the new ids: the server has
-- no record of those ids, so each is applied once. `outbox.sequence` stays the order the device
-- made its writes in.
--
-- On a server, `client_answer.fingerprint` is a hash of the write recorded under the number: a
-- resend must be that write. Another write under a taken number comes from a second device with
-- the same client id (a copied device database); it is refused, never answered with the first
-- device's answer.

ALTER TABLE followed_catalog ADD COLUMN client TEXT;
ALTER TABLE followed_catalog ADD COLUMN last_number INTEGER NOT NULL DEFAULT 0 CHECK (last_number >= 0);
UPDATE followed_catalog SET client = lower(hex(randomblob(16)));

ALTER TABLE outbox ADD COLUMN client TEXT;
ALTER TABLE outbox ADD COLUMN number INTEGER CHECK (number > 0);
UPDATE outbox SET
    client = (SELECT client FROM followed_catalog WHERE name = outbox.catalog),
    number = (SELECT count(*) FROM outbox AS earlier
              WHERE earlier.catalog = outbox.catalog AND earlier.state = 'pending' AND earlier.sequence <= outbox.sequence)
    WHERE state = 'pending' AND catalog IN (SELECT name FROM followed_catalog);
UPDATE followed_catalog SET last_number = (SELECT count(*) FROM outbox WHERE outbox.catalog = followed_catalog.name AND outbox.number IS NOT NULL);
CREATE UNIQUE INDEX outbox_by_number ON outbox (client, number) WHERE number IS NOT NULL;

-- A refusal is recorded in one transaction and the copy repaired (the refused write taken out)
-- in the next: `unrepaired` is set by the first and cleared by the second, so a device killed
-- in between takes the server's snapshot when it starts again, never trusting a copy that still
-- shows a refused write.
ALTER TABLE followed_catalog ADD COLUMN unrepaired INTEGER NOT NULL DEFAULT 0 CHECK (unrepaired IN (0, 1));

ALTER TABLE client_answer ADD COLUMN fingerprint TEXT;
