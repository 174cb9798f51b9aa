-- CatalogKit schema, version 3: a journal of revisions, for "changes since revision N".
--
-- Each row is written in the same transaction as the revision it describes. Its patch holds what
-- is needed to rebuild the previous revision from this one: the previous versions of the sections
-- that differ, and the previous section order when it differs. Walking the journal back from the
-- current snapshot rebuilds any retained revision, and one diff gives the staged changeset from it
-- to now. The store keeps the last 1,000 revisions of each catalogue.

CREATE TABLE journal (
    catalog_pk INTEGER NOT NULL REFERENCES catalog(pk) ON DELETE CASCADE,
    revision   INTEGER NOT NULL CHECK (revision > 0),
    patch      TEXT    NOT NULL,
    PRIMARY KEY (catalog_pk, revision)
) WITHOUT ROWID;
