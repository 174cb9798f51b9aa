-- CatalogKit schema, version 7: catalogues can be deleted, and a name's revisions never repeat.
--
-- Deleting a catalogue deletes its rows (sections, items, journal and import history go with
-- it) and leaves its name and last revision here. A catalogue made later under the same name
-- goes on from there: the deletion counts as the next revision (an empty catalogue) and the new
-- content as the one after it. So a revision of a name always means one state — ETags, event
-- ids, `If-Match` and every cache keyed by revision stay true — and a client that knew the
-- deleted catalogue finds the journal no longer reaches its revision and reloads (a reset),
-- never taking the new catalogue's changes for its own.

CREATE TABLE retired_catalog (
    name     TEXT    PRIMARY KEY NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 0)
) WITHOUT ROWID;
