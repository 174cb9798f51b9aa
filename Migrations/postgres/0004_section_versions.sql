-- A version per section, raised by every write that changes the section — its fields, its
-- position or its items — so that a combined write of items can check the sections it read
-- instead of the whole catalogue's revision: two instances' writes to different shelves of one
-- catalogue then both commit, and the catalogue's row is held only while a write claims its
-- revisions, not across the round trips of its reads.

ALTER TABLE section ADD COLUMN version BIGINT NOT NULL DEFAULT 0;

-- Claims the revisions of a combined write of items (PostgresCatalogStore.writeItems): locks the
-- catalogue's row, then finds the parts of the write whose reads are no longer true — a section
-- read at another version or gone, an item or section read as absent that is there now — and
-- raises the revision by one per journal entry of the other parts, notifying on commit.
--
-- A part is a set of the write's batches that read no section or item another part read; each
-- part is kept or dropped whole. Every writer of a catalogue's sections holds the catalogue's
-- row until it commits, so once the row is locked here, the checks (each a new snapshot, as in
-- any VOLATILE function) see every write committed before this one and none can follow until
-- this one commits.
--
-- Answers the revision before the write's first entry and the stale parts; no row when the
-- catalogue is not there.
CREATE FUNCTION catalogkit_claim(
    catalog_key      BIGINT,
    read_parts       INTEGER[], read_sections BIGINT[], read_versions BIGINT[],
    absent_item_parts INTEGER[], absent_items TEXT[],
    absent_section_parts INTEGER[], absent_sections TEXT[],
    entry_parts      INTEGER[],
    channel          TEXT,
    catalog_name     TEXT
) RETURNS TABLE (base BIGINT, stale INTEGER[])
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    revision_before BIGINT;
    dropped INTEGER[];
    entries BIGINT;
BEGIN
    SELECT c.revision INTO revision_before FROM catalog c WHERE c.pk = catalog_key FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- Each key probed through its own index (a correlated subquery per key), never a join
    -- the planner could turn into a scan of the catalogue's sections or items.
    dropped := ARRAY(
        SELECT r.part FROM unnest(read_parts, read_sections, read_versions) AS r(part, section, version)
        WHERE (SELECT s.version FROM section s WHERE s.pk = r.section) IS DISTINCT FROM r.version
        UNION
        SELECT a.part FROM unnest(absent_item_parts, absent_items) AS a(part, id)
        WHERE (SELECT i.pk FROM item i WHERE i.catalog_pk = catalog_key AND i.id = a.id) IS NOT NULL
        UNION
        SELECT a.part FROM unnest(absent_section_parts, absent_sections) AS a(part, id)
        WHERE (SELECT s.pk FROM section s WHERE s.catalog_pk = catalog_key AND s.id = a.id) IS NOT NULL);
    SELECT count(*) INTO entries FROM unnest(entry_parts) AS e(part) WHERE e.part <> ALL(dropped);
    IF entries > 0 THEN
        PERFORM set_config('catalogkit.section_versions', 'on', true);
        UPDATE catalog SET revision = revision_before + entries WHERE pk = catalog_key;
        PERFORM pg_notify(channel, CASE WHEN catalog_name IS NULL THEN '*' ELSE (revision_before + entries)::text || ' ' || catalog_name END);
    END IF;
    base := revision_before;
    stale := dropped;
    RETURN NEXT;
END
$$;

-- Instances of a version before this migration, still running while a newer one migrated the
-- database, would write without raising section versions, and a combined write's checks would
-- miss what they wrote. So a raised revision must come from a writer that knows section
-- versions (it says so for its transaction, `catalogkit.section_versions`); an older one's write
-- fails whole, and the instance must be restarted with this version.
CREATE FUNCTION catalogkit_revision_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.revision <> OLD.revision AND current_setting('catalogkit.section_versions', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION 'catalogue % was written by an instance older than the database''s schema (migration 0004_section_versions): restart it with the version that migrated the database', OLD.name;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER catalogkit_revision_guard BEFORE UPDATE OF revision ON catalog
    FOR EACH ROW EXECUTE FUNCTION catalogkit_revision_guard();
