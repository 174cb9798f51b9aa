-- CatalogKit schema, version 2: a record of every import, for `catalog show` and auditing.
-- Which file produced which revision, in which format, and what the importer had to derive or skip.

CREATE TABLE import (
    pk           INTEGER PRIMARY KEY,
    catalog_pk   INTEGER NOT NULL REFERENCES catalog(pk) ON DELETE CASCADE,
    revision     INTEGER NOT NULL CHECK (revision > 0),
    source       TEXT    NOT NULL,
    format       TEXT    NOT NULL,
    shape        TEXT    NOT NULL,
    sections     INTEGER NOT NULL CHECK (sections >= 0),
    items        INTEGER NOT NULL CHECK (items >= 0),
    derived_ids  INTEGER NOT NULL CHECK (derived_ids >= 0),
    duplicates   INTEGER NOT NULL CHECK (duplicates >= 0),
    ignored_keys INTEGER NOT NULL CHECK (ignored_keys >= 0),
    imported_at  TEXT    NOT NULL,
    UNIQUE (catalog_pk, revision)
);
