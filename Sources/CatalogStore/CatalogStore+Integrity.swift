import GRDB

extension CatalogStore {
    /// Checks the whole database: SQLite's `integrity_check` and `foreign_key_check`, then the
    /// model's own rule that every catalogue's sections, and every section's items, sit at
    /// positions 0..<count. Throws ``StoreError/database(_:)`` naming the first problem.
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
            if let catalog = try String.fetchOne(db, sql: """
                SELECT c.name FROM catalog c JOIN section s ON s.catalog_pk = c.pk GROUP BY c.pk
                HAVING min(s.position) <> 0 OR max(s.position) <> count(*) - 1 LIMIT 1
                """) {
                throw StoreError.positionsNotContiguous(catalog: catalog, section: "(section order)")
            }
            // Items: sorted by position, the k-th of a section at k (no gap, no repeat), and no
            // more of them than the section's capacity.
            if let row = try Row.fetchOne(db, sql: """
                SELECT c.name, s.id FROM section s JOIN catalog c ON c.pk = s.catalog_pk JOIN (
                    SELECT section_pk, position, row_number() OVER (PARTITION BY section_pk ORDER BY position) - 1 AS rank
                    FROM item
                ) i ON i.section_pk = s.pk
                WHERE i.position <> i.rank LIMIT 1
                """) {
                throw StoreError.positionsNotContiguous(catalog: row[0], section: row[1])
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT c.name, s.id, s.capacity, count(*) FROM section s JOIN catalog c ON c.pk = s.catalog_pk
                JOIN item i ON i.section_pk = s.pk
                WHERE s.capacity IS NOT NULL GROUP BY s.pk HAVING count(*) > s.capacity LIMIT 1
                """) {
                let (catalog, section, capacity, count): (String, String, Int, Int) = (row[0], row[1], row[2], row[3])
                throw StoreError.database("section \(section) of \(catalog) holds \(count) items, over its capacity of \(capacity)")
            }
        }
    }
}
