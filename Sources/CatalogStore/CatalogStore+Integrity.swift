import GRDB

extension CatalogStore {
    /// Checks the whole database: SQLite's `integrity_check` and `foreign_key_check`, then the
    /// model's own rules — every catalogue's sections, and every section's items, at positions
    /// exactly 0..<count, and no section over its capacity. Throws the first problem found:
    /// ``StoreError/database(_:)``, ``StoreError/positionsNotContiguous(catalog:section:)`` or
    /// ``StoreError/overCapacity(catalog:section:count:capacity:)``.
    ///
    /// For tests, tools and after a crash; ordinary writes check what they touch themselves.
    public func checkIntegrity() throws(StoreError) {
        try read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            guard integrity == ["ok"] else {
                throw StoreError.database("integrity check failed: " + integrity.prefix(5).joined(separator: "; "))
            }
            if let row = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                throw StoreError.database("foreign key check failed: \(row)")
            }
            for row in try Row.fetchAll(db, sql: "SELECT pk, name FROM catalog ORDER BY name") {
                try Self.verifyPositions(ofCatalog: row[0], named: row[1], in: db)
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT c.name, s.id, count(*), s.capacity FROM section s JOIN catalog c ON c.pk = s.catalog_pk
                JOIN item i ON i.section_pk = s.pk
                WHERE s.capacity IS NOT NULL GROUP BY s.pk HAVING count(*) > s.capacity LIMIT 1
                """) {
                throw StoreError.overCapacity(catalog: row[0], section: row[1], count: row[2], capacity: row[3])
            }
        }
    }

    /// Checks that a catalogue's sections sit at positions 0..<n, and each section's items at
    /// exactly 0..<count: sorted by position, the k-th item of a section must be at k, which
    /// rules out gaps and repeats alike (item positions have no UNIQUE index since migration
    /// 0004; section positions do, so min and max prove theirs). Run on every import.
    static func verifyPositions(ofCatalog catalogPK: Int64, named catalog: String, in db: Database) throws {
        let sectionsOK = try Bool.fetchOne(db, sql: """
            SELECT count(*) = 0 OR (min(position) = 0 AND max(position) = count(*) - 1) FROM section WHERE catalog_pk = ?
            """, arguments: [catalogPK]) ?? true
        if !sectionsOK { throw StoreError.positionsNotContiguous(catalog: catalog, section: "(section order)") }
        if let broken = try String.fetchOne(db, sql: """
            SELECT s.id FROM section s JOIN (
                SELECT section_pk, position, row_number() OVER (PARTITION BY section_pk ORDER BY position) - 1 AS rank
                FROM item WHERE catalog_pk = ?
            ) i ON i.section_pk = s.pk
            WHERE i.position <> i.rank LIMIT 1
            """, arguments: [catalogPK]) {
            throw StoreError.positionsNotContiguous(catalog: catalog, section: broken)
        }
    }

    /// Checks that one section's items sit at exactly 0..<count (no gap, no position twice) and
    /// that there are no more of them than `capacity`, reading the positions from the index
    /// alone: what every write runs on the sections it wrote, before its commit.
    static func verifyItemPositions(ofSection pk: Int64, id: String, capacity: Int?, catalog: String, in db: Database) throws {
        let positions = try db.cachedStatement(sql: "SELECT position FROM item WHERE section_pk = ? ORDER BY position")
        let cursor = try Int.fetchCursor(positions, arguments: [pk])
        var count = 0
        while let position = try cursor.next() {
            guard position == count else { throw StoreError.positionsNotContiguous(catalog: catalog, section: id) }
            count += 1
        }
        if let capacity, count > capacity {
            throw StoreError.overCapacity(catalog: catalog, section: id, count: count, capacity: capacity)
        }
    }
}
