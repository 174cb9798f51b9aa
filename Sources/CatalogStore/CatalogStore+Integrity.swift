import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Checks the whole database: SQLite's `integrity_check` and `foreign_key_check`, then the
    /// model's own rules — every catalogue's sections at positions exactly 0..<n, no two items
    /// of a section at one order key, no section over its capacity, and every name and id in
    /// canonical form (`Identifier`), so that no two of them are the same id. Throws the first
    /// problem found: ``/CatalogStoreCore/StoreError/database(_:)``, ``/CatalogStoreCore/StoreError/positionsOutOfOrder(catalog:section:)``,
    /// ``/CatalogStoreCore/StoreError/overCapacity(catalog:section:count:capacity:)`` or
    /// ``/CatalogStoreCore/StoreError/nonCanonicalID(catalog:id:equivalent:)``.
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
            try Self.verifyCanonicalIDs(in: db)
        }
    }

    /// Checks that every catalogue name, section id and item id is stored in canonical form
    /// (``StoreRules/nonCanonicalID(in:catalog:)`` says what is reported).
    static func verifyCanonicalIDs(in db: Database) throws {
        let catalogs = try Row.fetchAll(db, sql: "SELECT pk, name FROM catalog ORDER BY name").map { ($0[0] as Int64, $0[1] as String) }
        if let problem = StoreRules.nonCanonicalID(in: catalogs.map(\.1), catalog: nil) { throw problem }
        for (pk, name) in catalogs {
            for table in ["section", "item"] {
                // Streamed: the ids are read whole only to report a problem found.
                let sql = "SELECT id FROM \(table) WHERE catalog_pk = ?"
                let ids = try String.fetchCursor(db, sql: sql, arguments: [pk])
                var canonical = true
                while canonical, let id = try ids.next() { canonical = Identifier.isCanonical(id) }
                if !canonical, let problem = StoreRules.nonCanonicalID(in: try String.fetchAll(db, sql: sql, arguments: [pk]), catalog: name) {
                    throw problem
                }
            }
        }
    }

    /// Checks that a catalogue's sections sit at positions 0..<n, and that no two items of a
    /// section share an order key (item positions are keys with gaps, see ``OrderKeys``; an
    /// item's index is its rank). Section positions have a UNIQUE index, so min and max prove
    /// theirs. Run on every import.
    static func verifyPositions(ofCatalog catalogPK: Int64, named catalog: String, in db: Database) throws {
        try verifySectionOrder(ofCatalog: catalogPK, named: catalog, in: db)
        if let broken = try String.fetchOne(db, sql: """
            SELECT s.id FROM item i JOIN section s ON s.pk = i.section_pk
            WHERE i.catalog_pk = ? GROUP BY i.section_pk, i.position HAVING count(*) > 1 LIMIT 1
            """, arguments: [catalogPK]) {
            throw StoreError.positionsOutOfOrder(catalog: catalog, section: broken)
        }
    }

    /// Checks that a catalogue's sections sit at positions 0..<n (``StoreSQL/sectionOrderHolds(catalogPK:)``).
    static func verifySectionOrder(ofCatalog catalogPK: Int64, named catalog: String, in db: Database) throws {
        let ok = try Bool.fetchOne(db.cachedStatement(sql: StoreSQL.sectionOrderHolds(catalogPK: "?")), arguments: [catalogPK]) ?? true
        if !ok { throw StoreError.positionsOutOfOrder(catalog: catalog, section: "(section order)") }
    }

    /// Checks that exactly one of a section's items has the order key `key`: after a write of a
    /// single row (a quick move), the one place where two keys could have become alike.
    static func verifyKey(_ key: Int64, ofSection pk: Int64, id: String, catalog: String, in db: Database) throws {
        let holders = try RawStatement(db, "SELECT count(*) FROM item WHERE section_pk = ? AND position = ?")
            .first(.integer(pk), .integer(key), read: { $0.int(0) }) ?? 0
        if holders != 1 { throw StoreError.positionsOutOfOrder(catalog: catalog, section: id) }
    }

    /// Checks that no two of one section's items share an order key and that there are no more
    /// of them than `capacity`, reading the keys from the index alone: what every write runs on
    /// the sections it wrote, before its commit.
    static func verifyItemPositions(ofSection pk: Int64, id: String, capacity: Int?, catalog: String, in db: Database) throws {
        var count = 0
        var previous = Int64.min
        var repeated = false
        try RawStatement(db, "SELECT position FROM item WHERE section_pk = ? ORDER BY position").forEach(.integer(pk)) { row in
            let key = row.int64(0)
            repeated = key <= previous
            previous = key
            count += 1
            return !repeated
        }
        if repeated { throw StoreError.positionsOutOfOrder(catalog: catalog, section: id) }
        if let capacity, count > capacity {
            throw StoreError.overCapacity(catalog: catalog, section: id, count: count, capacity: capacity)
        }
    }
}
