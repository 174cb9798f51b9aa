import CatalogStoreCore
import PostgresNIO

/// The statements of a combined write of items (``PostgresCatalogStore/writeItems(_:to:)``),
/// prepared once per connection: the server plans each once instead of at every write, which
/// costs it more than running them.
enum PreparedStatements {
    /// The catalogue's row key and revision, by name.
    struct CatalogRow: PostgresPreparedStatement {
        static let name = "catalogkit_catalog_row"
        static let sql = "SELECT pk, revision FROM catalog WHERE name = $1"
        typealias Row = (Int64, Int64)

        var catalog: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(catalog)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// ``PostgresCatalogSource/load(sections:positions:items:on:logger:)``: the catalogue's
    /// revision, then the sections wanted (by id, by position, or as the section of an item),
    /// each with its items in order (and, last, its row key and version). Sections and items are reached by their keys (``KeyLookup``;
    /// the `OFFSET 0` keeps each section's items a probe of its own index).
    struct Sections: PostgresPreparedStatement {
        static let name = "catalogkit_sections"
        static let sql = """
            SELECT c.revision, s.id, s.kind, s.title, s.capacity, s.position, i.position, \(ItemRows.columns("i")), s.pk, s.version
            FROM catalog c
            LEFT JOIN section s ON \(KeyLookup.primaryKey(of: "s", in: [
                KeyLookup.rows("pk", of: "section", catalogPK: "$1", where: "id", in: "$2", keyType: "text"),
                KeyLookup.rows("pk", of: "section", catalogPK: "$1", where: "position", in: "$3", keyType: "integer"),
                KeyLookup.rows("section_pk", of: "item", catalogPK: "$1", where: "id", in: "$4", keyType: "text"),
            ]))
            LEFT JOIN LATERAL (SELECT * FROM item WHERE item.section_pk = s.pk OFFSET 0) AS i ON true
            WHERE c.pk = $1
            ORDER BY s.position, i.position
            """
        typealias Row = PostgresRow

        var catalogPK: Int64
        var sections: [String]
        var positions: [Int32]
        var items: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(catalogPK)
            bindings.append(sections)
            bindings.append(positions)
            bindings.append(items)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { row }
    }

    /// The one statement of a combined write (``PostgresCatalogStore/writeItems(_:to:)``), in
    /// parts: claims the revisions of the parts whose reads still hold (`catalogkit_claim`, of
    /// migration 0004, which locks the catalogue's row first and notifies on commit), and for
    /// those parts only raises the versions of the sections changed, deletes the items `gone`,
    /// writes `rows` (an ``ItemRows/Writer`` document: new items inserted, others taking their
    /// new section, place and content), journals each revision in order from the one claimed,
    /// and forgets journal entries past what the database keeps when a revision it claims is a
    /// multiple of `StoreRules.journalPruningInterval`. Answers the revision before the
    /// write and the stale parts, or no row when the catalogue is not there.
    ///
    /// Outside a transaction the statement is its own: so when fewer item rows were written than
    /// the kept parts have (a row whose section is not there, which the checks rule out), the
    /// statement itself fails — a cast of its message to an integer, which PostgreSQL refuses
    /// naming the message — and nothing of it stays.
    struct GroupWrite: PostgresPreparedStatement {
        static let name = "catalogkit_group_write"
        /// The ids of the items `gone` of the parts kept.
        private static let gone = "ARRAY(SELECT g.id FROM unnest($14::integer[], $15::text[]) AS g(part, id), claimed k WHERE g.part <> ALL(k.stale))"
        static let sql = """
                WITH claimed AS MATERIALIZED (
                    SELECT base, stale, (SELECT count(*) FROM unnest($9::integer[]) AS e(part) WHERE e.part <> ALL(stale)) AS entries
                    FROM catalogkit_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                ), bumped AS (
                    UPDATE section SET version = version + 1 WHERE section.pk = ANY(ARRAY(
                        SELECT c.pk FROM unnest($12::integer[], $13::bigint[]) AS c(part, pk), claimed k WHERE c.part <> ALL(k.stale)))
                ), removed AS (
                    DELETE FROM item WHERE \(KeyLookup.primaryKey(of: "item", in: [
                        KeyLookup.rows("pk", of: "item", catalogPK: "$1", where: "id", in: gone, keyType: "text"),
                    ]))
                ), written AS (
                    \(ItemRows.upsertSQL(catalogPK: "$1", document: "$16", onlyIf: "EXISTS (SELECT 1 FROM claimed k WHERE r.\(ItemRows.partColumn) <> ALL(k.stale))"))
                ), journalled AS (
                    INSERT INTO journal (catalog_pk, revision, patch)
                    SELECT $1, k.base + row_number() OVER (ORDER BY j.entry), j.patch
                    FROM json_to_recordset($18::json) AS j(entry INTEGER, part INTEGER, patch TEXT), claimed k
                    WHERE j.part <> ALL(k.stale)
                ), pruned AS (
                    DELETE FROM journal WHERE catalog_pk = $1
                        AND EXISTS (SELECT 1 FROM claimed k WHERE k.entries > 0 AND (k.base + k.entries) / $20 > k.base / $20)
                        AND revision <= (SELECT k.base + k.entries FROM claimed k)
                            - coalesce((SELECT value FROM setting WHERE name = 'journal_revisions'), $19)
                )
                SELECT k.base, k.stale,
                    CASE WHEN (SELECT count(*) FROM written) = (SELECT count(*) FROM unnest($17::integer[]) AS p(part) WHERE p.part <> ALL(k.stale))
                        THEN 0
                        ELSE ('items of the write found no section: ' || (SELECT count(*) FROM written))::bigint
                    END
                FROM claimed k
                """
        typealias Row = (Int64, [Int32], Int64)

        /// What one part of the write read, as ``PostgresCatalogStore/writeItems(_:to:)`` found it.
        var catalogPK: Int64
        var reads: (parts: [Int32], sections: [Int64], versions: [Int64]) = ([], [], [])
        var absentItems: (parts: [Int32], ids: [String]) = ([], [])
        var absentSections: (parts: [Int32], ids: [String]) = ([], [])
        /// The part of each journal entry, in revision order.
        var entryParts: [Int32] = []
        var channel: String
        /// The catalogue's name for the notification, nil when it is too long for one.
        var notifiedName: String?
        var changedSections: (parts: [Int32], sections: [Int64]) = ([], [])
        var gone: (parts: [Int32], ids: [String]) = ([], [])
        var rows = ItemRows.Writer()
        /// Rows of `entry`, `part`, `patch`.
        var journal = JSONRecords()

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(catalogPK)
            bindings.append(reads.parts)
            bindings.append(reads.sections)
            bindings.append(reads.versions)
            bindings.append(absentItems.parts)
            bindings.append(absentItems.ids)
            bindings.append(absentSections.parts)
            bindings.append(absentSections.ids)
            bindings.append(entryParts)
            bindings.append(channel)
            bindings.append(notifiedName)
            bindings.append(changedSections.parts)
            bindings.append(changedSections.sections)
            bindings.append(gone.parts)
            bindings.append(gone.ids)
            bindings.append(rows.document)
            bindings.append(rows.parts)
            bindings.append(journal.document)
            bindings.append(Int64(StoreRules.defaultJournalRevisions))
            bindings.append(Int64(StoreRules.journalPruningInterval))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
