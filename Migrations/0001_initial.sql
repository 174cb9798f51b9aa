-- CatalogKit schema, version 1: catalogues of ordered sections of ordered items.
--
-- Surrogate integer keys (`pk`) join the tables; the string `id` is the stable identity users see.
-- Invalid states are refused by the database itself where SQLite can express the rule:
--   * ids unique per catalogue (UNIQUE), positions unique per section (UNIQUE),
--   * kinds, counts and capacities in range (CHECK),
--   * an item's kind matches its section's kind and no item sits at or past its section's capacity
--     (triggers below; with contiguous positions 0..<count this is exactly "count <= capacity").
-- Contiguity of positions (0, 1, …, count-1) is verified by the store before every commit,
-- because SQLite has no deferred CHECK and shifting rows passes through gaps.

CREATE TABLE catalog (
    pk       INTEGER PRIMARY KEY,
    name     TEXT    NOT NULL UNIQUE CHECK (length(name) > 0),
    revision INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0)
);

CREATE TABLE section (
    pk         INTEGER PRIMARY KEY,
    catalog_pk INTEGER NOT NULL REFERENCES catalog(pk) ON DELETE CASCADE,
    id         TEXT    NOT NULL CHECK (length(id) > 0),
    position   INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('videos', 'bookshelf', 'icons')),
    title      TEXT,
    capacity   INTEGER CHECK (capacity IS NULL OR capacity > 0),
    UNIQUE (catalog_pk, id),
    UNIQUE (catalog_pk, position),
    UNIQUE (pk, catalog_pk)  -- target of item's composite foreign key
);

CREATE TABLE item (
    pk          INTEGER PRIMARY KEY,
    catalog_pk  INTEGER NOT NULL,
    section_pk  INTEGER NOT NULL,
    id          TEXT    NOT NULL CHECK (length(id) > 0),
    position    INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('video', 'book', 'icon')),
    -- video: title, cover, play_count, like_count, status, status_text
    -- book:  title, cover, author
    -- icon:  name, icon
    title       TEXT,
    cover       TEXT,
    play_count  INTEGER CHECK (play_count >= 0),
    like_count  INTEGER CHECK (like_count >= 0),
    status      TEXT    CHECK (status IN ('draft', 'reviewing', 'recommended', 'published', 'rejected')),
    status_text TEXT,
    author      TEXT,
    name        TEXT,
    icon        TEXT,
    -- natural content size in points, both or neither
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
    UNIQUE (section_pk, position),
    FOREIGN KEY (section_pk, catalog_pk) REFERENCES section(pk, catalog_pk) ON DELETE CASCADE
);

CREATE TRIGGER item_fits_section_on_insert BEFORE INSERT ON item
BEGIN
    SELECT RAISE(ABORT, 'item kind does not match its section kind')
    FROM section WHERE pk = NEW.section_pk
        AND kind <> CASE NEW.kind WHEN 'video' THEN 'videos' WHEN 'book' THEN 'bookshelf' ELSE 'icons' END;
    SELECT RAISE(ABORT, 'section is full')
    FROM section WHERE pk = NEW.section_pk AND NEW.position >= capacity;
END;

CREATE TRIGGER item_fits_section_on_update BEFORE UPDATE OF section_pk, position, kind ON item
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
