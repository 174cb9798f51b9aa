-- CatalogKit schema, version 5: an item's position is an order key with gaps, not its index.
--
-- With dense positions (0, 1, 2, …) a move shifts every book after the gap it leaves and every
-- book after the place it takes: on shelves of 100, about a hundred rows (and their index
-- entries) rewritten for one book, 60–80% of a move's time. Now positions only order the items
-- of a section: keys start 2^32 apart, a book that moves takes a key between its new
-- neighbours', and only its own row is written. An item's index is its rank by key. When two
-- neighbours have no key left between them (after about 32 moves into the same gap), the store
-- gives that section fresh keys 2^32 apart.
--
-- Keys are unique within a section (the store checks every section it writes before the commit,
-- and every section on import; `catalog check` checks the whole file). SQLite still refuses an
-- item of the wrong kind for its section, and a new item for a full section (counting the
-- section's items, which only sections with a capacity need); an item moving
-- between sections is checked by the store, since two books swapping between full shelves are
-- each, for a moment, one too many.

UPDATE item SET position = (position + 1) * 4294967296;

DROP TRIGGER item_fits_section_on_insert;
CREATE TRIGGER item_fits_section_on_insert BEFORE INSERT ON item
BEGIN
    SELECT RAISE(ABORT, 'item kind does not match its section kind')
    FROM section WHERE pk = NEW.section_pk
        AND kind <> CASE NEW.kind WHEN 'video' THEN 'videos' WHEN 'book' THEN 'bookshelf' ELSE 'icons' END;
    SELECT RAISE(ABORT, 'section is full')
    FROM section WHERE pk = NEW.section_pk AND capacity IS NOT NULL
        AND (SELECT count(*) FROM item WHERE section_pk = NEW.section_pk) >= capacity;
END;

DROP TRIGGER item_fits_section_on_update;
CREATE TRIGGER item_fits_section_on_update BEFORE UPDATE OF section_pk, kind ON item
BEGIN
    SELECT RAISE(ABORT, 'item kind does not match its section kind')
    FROM section WHERE pk = NEW.section_pk
        AND kind <> CASE NEW.kind WHEN 'video' THEN 'videos' WHEN 'book' THEN 'bookshelf' ELSE 'icons' END;
END;

-- A section's capacity may not drop below the number of items it holds (it compared positions
-- with the capacity, which keys no longer allow).
DROP TRIGGER section_keeps_its_items;
CREATE TRIGGER section_keeps_its_items BEFORE UPDATE OF kind, capacity ON section
BEGIN
    SELECT RAISE(ABORT, 'section kind cannot change while it holds items')
    WHERE NEW.kind <> OLD.kind AND EXISTS (SELECT 1 FROM item WHERE section_pk = NEW.pk);
    SELECT RAISE(ABORT, 'section capacity is below its item count')
    WHERE NEW.capacity IS NOT NULL
        AND (SELECT count(*) FROM item WHERE section_pk = NEW.pk) > NEW.capacity;
END;
