import CatalogStore
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
    /// each with its items in order. Sections and items are reached by their keys (``KeyLookup``;
    /// the `OFFSET 0` keeps each section's items a probe of its own index).
    struct Sections: PostgresPreparedStatement {
        static let name = "catalogkit_sections"
        static let sql = """
            SELECT c.revision, s.id, s.kind, s.title, s.capacity, s.position, i.position, \(ItemRows.columns("i"))
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

    /// The one statement of a combined write: raises the catalogue's revision from `base` to
    /// `final` — only if it is still `base` (else it writes nothing and answers 0 updated) — and
    /// with it deletes the items `gone`, writes `rows` (an ``ItemRows/Writer`` document: new items
    /// inserted, others taking their new section, place and content), journals each revision
    /// (`journal`: rows of `revision`, `patch`), forgets journal entries past what the database
    /// keeps when `prune`, and notifies on commit. Answers how many catalogue rows it updated (1,
    /// or 0 when the revision had moved on).
    ///
    /// Outside a transaction the statement is its own: so when fewer item rows than `rowCount`
    /// were written (a row whose section is not there, which the revision guard rules out), the
    /// statement itself fails — a cast of its message to an integer, which PostgreSQL refuses
    /// naming the message — and nothing of it stays.
    struct GroupWrite: PostgresPreparedStatement {
        static let name = "catalogkit_group_write"
        static let sql = """
                WITH raised AS (
                    UPDATE catalog SET revision = $3 WHERE pk = $1 AND revision = $2 RETURNING pk
                ), removed AS (
                    DELETE FROM item WHERE \(KeyLookup.primaryKey(of: "item", in: [
                        KeyLookup.rows("pk", of: "item", catalogPK: "$1", where: "id", in: "$4", keyType: "text"),
                    ])) AND EXISTS (SELECT 1 FROM raised)
                ), written AS (
                    \(ItemRows.upsertSQL(catalogPK: "$1", document: "$5", onlyIf: "EXISTS (SELECT 1 FROM raised)"))
                ), journalled AS (
                    INSERT INTO journal (catalog_pk, revision, patch)
                    SELECT $1, j.revision, j.patch FROM json_to_recordset($6::json) AS j(revision BIGINT, patch TEXT)
                    WHERE EXISTS (SELECT 1 FROM raised)
                ), pruned AS (
                    DELETE FROM journal WHERE $7 AND catalog_pk = $1 AND EXISTS (SELECT 1 FROM raised)
                        AND revision <= $3 - coalesce((SELECT value FROM setting WHERE name = 'journal_revisions'), $8)
                )
                SELECT (SELECT count(*) FROM raised)
                    + 0 * (SELECT count(pg_notify($9, $10)) FROM raised)
                    + CASE WHEN NOT EXISTS (SELECT 1 FROM raised) OR (SELECT count(*) FROM written) = $11 THEN 0
                           ELSE ('items of the write found no section: ' || (SELECT count(*) FROM written) || ' of ' || $11)::bigint
                      END
                """
        typealias Row = Int64

        var catalogPK: Int64
        var base: Int
        var final: Int
        var gone: [String]
        var rows: String
        var rowCount: Int
        var journal: String
        var prune: Bool
        var channel: String
        var payload: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(catalogPK)
            bindings.append(Int64(base))
            bindings.append(Int64(final))
            bindings.append(gone)
            bindings.append(rows)
            bindings.append(journal)
            bindings.append(prune)
            bindings.append(Int64(CatalogStore.defaultJournalRevisions))
            bindings.append(channel)
            bindings.append(payload)
            bindings.append(Int64(rowCount))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
