-- The PostgreSQL store's schema: the tables of the SQLite schema (Migrations/, up to 0007) in
-- PostgreSQL's dialect. The catalogue row is each catalogue's write lock: a write locks it first
-- (SELECT … FOR UPDATE), so the writes to one catalogue commit one at a time, in revision order,
-- while writes to different catalogues never wait for each other.

CREATE TABLE catalog (
    pk       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name     TEXT   NOT NULL UNIQUE CHECK (length(name) > 0),
    revision BIGINT NOT NULL DEFAULT 0 CHECK (revision >= 0)
);

CREATE TABLE section (
    pk         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    catalog_pk BIGINT  NOT NULL REFERENCES catalog(pk) ON DELETE CASCADE,
    id         TEXT    NOT NULL CHECK (length(id) > 0),
    position   INTEGER NOT NULL CHECK (position >= 0),
    kind       TEXT    NOT NULL CHECK (kind IN ('videos', 'bookshelf', 'icons')),
    title      TEXT,
    capacity   INTEGER CHECK (capacity IS NULL OR capacity > 0),
    -- Checked at commit: a write that reorders sections passes through states where two share a
    -- position, or where a replaced section's id is briefly taken twice.
    UNIQUE (catalog_pk, id) DEFERRABLE INITIALLY DEFERRED,
    UNIQUE (catalog_pk, position) DEFERRABLE INITIALLY DEFERRED,
    UNIQUE (pk, catalog_pk)  -- target of item's composite foreign key
);

-- An item's position is an order key with gaps (as in SQLite's migration 0005): its index is its
-- rank by key within its section, so a move writes one row.
CREATE TABLE item (
    pk          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    catalog_pk  BIGINT  NOT NULL,
    section_pk  BIGINT  NOT NULL,
    id          TEXT    NOT NULL CHECK (length(id) > 0),
    position    BIGINT  NOT NULL CHECK (position >= 0),
    kind        TEXT    NOT NULL CHECK (kind IN ('video', 'book', 'icon')),
    -- video: title, cover, play_count, like_count, status, status_text
    -- book:  title, cover, author
    -- icon:  name, icon
    title       TEXT,
    cover       TEXT,
    play_count  BIGINT CHECK (play_count >= 0),
    like_count  BIGINT CHECK (like_count >= 0),
    status      TEXT   CHECK (status IN ('draft', 'reviewing', 'recommended', 'published', 'rejected')),
    status_text TEXT,
    author      TEXT,
    name        TEXT,
    icon        TEXT,
    -- natural content size in points, both or neither
    width       DOUBLE PRECISION CHECK (width >= 0),
    height      DOUBLE PRECISION CHECK (height >= 0),
    CHECK ((width IS NULL) = (height IS NULL)),
    CHECK (CASE kind
        WHEN 'video' THEN title IS NOT NULL AND cover IS NOT NULL AND play_count IS NOT NULL
                          AND like_count IS NOT NULL AND status IS NOT NULL
        WHEN 'book'  THEN title IS NOT NULL AND cover IS NOT NULL
        WHEN 'icon'  THEN name IS NOT NULL AND icon IS NOT NULL
    END),
    UNIQUE (catalog_pk, id),
    UNIQUE (section_pk, position) DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (section_pk, catalog_pk) REFERENCES section(pk, catalog_pk) ON DELETE CASCADE
);

-- A section's capacity and an item's kind matching its section's depend on other rows: every
-- write checks them for the sections it touched, inside its transaction, while it holds the
-- catalogue's lock (a row-level trigger would cost an import a count per item, and would refuse
-- the intermediate states of a batch that, say, lowers a capacity as books leave).

CREATE TABLE import (
    pk           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    catalog_pk   BIGINT NOT NULL REFERENCES catalog(pk) ON DELETE CASCADE,
    revision     BIGINT NOT NULL CHECK (revision > 0),
    source       TEXT   NOT NULL,
    format       TEXT   NOT NULL,
    shape        TEXT   NOT NULL,
    sections     BIGINT NOT NULL CHECK (sections >= 0),
    items        BIGINT NOT NULL CHECK (items >= 0),
    derived_ids  BIGINT NOT NULL CHECK (derived_ids >= 0),
    duplicates   BIGINT NOT NULL CHECK (duplicates >= 0),
    ignored_keys BIGINT NOT NULL CHECK (ignored_keys >= 0),
    imported_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (catalog_pk, revision)
);

-- How to rebuild each revision from the next (the same JSON patches as SQLite's journal).
CREATE TABLE journal (
    catalog_pk BIGINT NOT NULL REFERENCES catalog(pk) ON DELETE CASCADE,
    revision   BIGINT NOT NULL CHECK (revision > 0),
    patch      TEXT   NOT NULL,
    PRIMARY KEY (catalog_pk, revision)
);

CREATE TABLE setting (
    name  TEXT   PRIMARY KEY,
    value BIGINT NOT NULL
);

-- Deleted catalogues' last revisions: a catalogue made again under the name goes on from there.
CREATE TABLE retired_catalog (
    name     TEXT   PRIMARY KEY,
    revision BIGINT NOT NULL CHECK (revision >= 0)
);
