-- CatalogKit schema, version 5: the item index names the section only, not the position.
--
-- A move shifts the books after it on both shelves by one, and every shifted position also
-- rewrote its entry in item_place (section_pk, position): about half of a shift's cost. Measured
-- with the system SQLite on 200k books in shelves of 100, shifting a whole shelf took 192–209 µs
-- with item_place and 70–90 µs with an index on section_pk alone; on 1,000 books in shelves of
-- 10, 20–25 µs and 9–13 µs.
--
-- What the position index gave is small for sections of shelf size: a section's items are found
-- by this index and sorted by position on the way out (a whole catalogue is read in section
-- order, so SQLite sorts only the items within each section). The composite foreign key to
-- section(pk, catalog_pk) and its ON DELETE CASCADE use this index too.

DROP INDEX item_place;
CREATE INDEX item_section ON item (section_pk);
