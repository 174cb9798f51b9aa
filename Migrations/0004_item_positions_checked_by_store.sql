-- CatalogKit schema, version 4: item positions are checked by the store, not by a UNIQUE index.
--
-- Moving a book shifts the books after it on both shelves. With UNIQUE (section_pk, position)
-- every shifted row had to be written twice (out of the way, then into place: SQLite checks
-- uniqueness row by row), and the capacity trigger ran for each of them. Measured on a 1M-book
-- table: a bare cross-shelf move took 399 µs that way and 96 µs with a plain index and the
-- trigger limited to rows that change section or kind.
--
-- What the database no longer refuses by itself — two items at one position, a position at or
-- past capacity reached by a shift inside the shelf — the store checks before every commit for
-- each section it wrote (positions exactly 0..<count, count <= capacity), and for every section
-- on import; `catalog check` checks the whole file. An item that enters a section (insert, or a
-- new section_pk) is still checked by the triggers, kind and capacity both.
--
-- SQLite cannot drop a table constraint, so the item table is rebuilt with the same columns,
-- keys and rows.

CREATE TABLE item_v4 (
    pk          INTEGER PRIMARY KEY,
    catalog_pk  INTEGER NOT NULL,
    section_pk  INTEGER NOT NULL,
    id          TEXT    NOT NULL CHECK (length(id) > 0),
    position    INTEGER NOT NULL CHECK (position >= 0),
    kind        TEXT    NOT NULL CHECK (kind IN ('video', 'book', 'icon')),
    title       TEXT,
    cover       TEXT,
    play_count  INTEGER CHECK (play_count >= 0),
    like_count  INTEGER CHECK (like_count >= 0),
    status      TEXT    CHECK (status IN ('draft', 'reviewing', 'recommended', 'published', 'rejected')),
    status_text TEXT,
    author      TEXT,
    name        TEXT,
    icon        TEXT,
    width       REAL    CHECK (width >= 0),
    height      REAL    CHECK (height >= 0),
    CHECK ((width IS NULL) = (height IS NULL)),
    CHECK (CASE kind
        WHEN 'video' THEN title IS NOT NULL AND cover IS NOT NULL AND play_count IS NOT NULL
                          AND like_count IS NOT NULL AND status IS NOT NULL
        WHEN 'book'  THEN title IS NOT NULL AND cover IS NOT NULL
        WHEN 'icon'  THEN name IS NOT NULL AND icon IS NOT NULL
    END),
    UNIQUE (catalog_pk, id),
    FOREIGN KEY (section_pk, catalog_pk) REFERENCES section(pk, catalog_pk) ON DELETE CASCADE
);

INSERT INTO item_v4 (pk, catalog_pk, section_pk, id, position, kind, title, cover, play_count, like_count,
                     status, status_text, author, name, icon, width, height)
SELECT pk, catalog_pk, section_pk, id, position, kind, title, cover, play_count, like_count,
       status, status_text, author, name, icon, width, height
FROM item;

-- The section trigger reads the item table: dropped with it and made again below (a rename
-- checks every trigger, and this one would name a table that is gone for a moment).
DROP TRIGGER section_keeps_its_items;
DROP TABLE item;  -- and its own triggers
ALTER TABLE item_v4 RENAME TO item;

-- Reading a section in order, shifting a run of positions, checking a section's positions.
CREATE INDEX item_place ON item (section_pk, position);

CREATE TRIGGER item_fits_section_on_insert BEFORE INSERT ON item
BEGIN
    SELECT RAISE(ABORT, 'item kind does not match its section kind')
    FROM section WHERE pk = NEW.section_pk
        AND kind <> CASE NEW.kind WHEN 'video' THEN 'videos' WHEN 'book' THEN 'bookshelf' ELSE 'icons' END;
    SELECT RAISE(ABORT, 'section is full')
    FROM section WHERE pk = NEW.section_pk AND NEW.position >= capacity;
END;

CREATE TRIGGER item_fits_section_on_update BEFORE UPDATE OF section_pk, kind ON item
BEGIN
    SELECT RAISE(ABORT, 'item kind does not match its section kind')
    FROM section WHERE pk = NEW.section_pk
        AND kind <> CASE NEW.kind WHEN 'video' THEN 'videos' WHEN 'book' THEN 'bookshelf' ELSE 'icons' END;
    SELECT RAISE(ABORT, 'section is full')
    FROM section WHERE pk = NEW.section_pk AND NEW.position >= capacity;
END;

CREATE TRIGGER section_keeps_its_items BEFORE UPDATE OF kind, capacity ON section
BEGIN
    SELECT RAISE(ABORT, 'section kind cannot change while it holds items')
    WHERE NEW.kind <> OLD.kind AND EXISTS (SELECT 1 FROM item WHERE section_pk = NEW.pk);
    SELECT RAISE(ABORT, 'section capacity is below its item count')
    WHERE NEW.capacity IS NOT NULL
        AND EXISTS (SELECT 1 FROM item WHERE section_pk = NEW.pk AND position >= NEW.capacity);
END;
