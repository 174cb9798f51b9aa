import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

@Suite("Migrations")
struct MigrationTests {
    @Test("a database made by migration 0001 alone, with data, migrates to the latest with its data intact")
    func upgradeKeepsData() throws {
        let (path, folder) = try temporaryDatabasePath("v1")
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = Catalog.generated(name: "old", items: 50, sections: 5, kind: .bookshelf)
        do {
            // Version 1 of the schema only, written to by hand as an old build would have.
            let pool = try DatabasePool(path: path, configuration: CatalogStore.configuration())
            let v1 = try CatalogStore(writer: pool, path: path, upTo: "0001_initial")
            #expect(try v1.appliedMigrations() == ["0001_initial"])
            let hasImportTable = try pool.read { db in try db.tableExists("import") }
            #expect(!hasImportTable)
            // Rows as an old build wrote them: plain SQL against the version-1 tables.
            try v1.writer.write { db in
                try db.execute(sql: "INSERT INTO catalog (name, revision) VALUES ('old', 1)")
                for (s, section) in catalog.sections.enumerated() {
                    try db.execute(sql: "INSERT INTO section (catalog_pk, id, position, kind, title, capacity) VALUES (1, ?, ?, 'bookshelf', ?, ?)",
                                   arguments: [section.id, s, section.title, section.capacity])
                    let sectionPK = db.lastInsertedRowID
                    for (i, item) in section.items.enumerated() {
                        guard case .book(let book) = item.content else { continue }
                        try db.execute(sql: """
                            INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover, author, width, height)
                            VALUES (1, ?, ?, ?, 'book', ?, ?, ?, ?, ?)
                            """, arguments: [sectionPK, item.id, i, book.title, book.cover, book.author, item.size?.width, item.size?.height])
                    }
                }
            }
        }
        let latest = try CatalogStore(path: path)
        #expect(try latest.appliedMigrations() == CatalogStore.migrationIDs)
        var expected = catalog
        expected.revision = 1
        #expect(try latest.catalog(named: "old") == expected)
        // 0005 turned the old rows' positions into order keys 2^32 apart (a new import keys from
        // ``OrderKeys/origin`` instead).
        let keys = try latest.writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT position FROM item WHERE section_pk = (SELECT pk FROM section WHERE position = 0) ORDER BY position")
        }
        #expect(keys == (0..<catalog.sections[0].items.count).map { Int64($0 + 1) << 32 })
        // The new table works on the old data.
        let result = try latest.replace(catalog, record: ImportRecord(source: "again.json", format: "json", shape: "native"))
        #expect(result.revision == 2)
        let imports = try latest.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM import") }
        #expect(imports == 1)
        // Migration 0004 rebuilt the item table without the UNIQUE index on positions, keeping
        // the rows, triggers and checks.
        let indexes = try latest.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT name, \"unique\" FROM pragma_index_list('item')").map { ($0[0] as String, $0[1] as Bool) }
        }
        #expect(indexes.contains { $0.0 == "item_place" && !$0.1 })
        let positionColumns = try latest.writer.read { db in
            try indexes.filter(\.1).map { index in try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index.0]) }
        }
        #expect(!positionColumns.contains(["section_pk", "position"]))
        let triggers = try latest.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") }
        #expect(triggers == ["item_fits_section_on_insert", "item_fits_section_on_update", "section_keeps_its_items"])
        try latest.checkIntegrity()
        // The journal starts with the first write after the upgrade.
        #expect(try latest.changes(in: "old", since: 1).stages.isEmpty)
        #expect(throws: StoreError.revisionTooOld(catalog: "old", requested: 0, oldest: 1)) { try latest.changes(in: "old", since: 0) }
    }

    @Test("every migration file is embedded, in order")
    func embedded() {
        let ids = CatalogStore.migrationIDs
        #expect(ids == ids.sorted())
        #expect(ids.first == "0001_initial")
    }

    /// Instances started together on a database that does not exist yet (a deploy, a test
    /// harness) each open it: whichever applies a migration first, the others find it applied.
    @Test("stores opened at once on a new database all open it, each migration applied once")
    func openersRacingOnANewDatabaseAllSucceed() async throws {
        let (_, folder) = try temporaryDatabasePath("race")
        defer { try? FileManager.default.removeItem(at: folder) }
        for round in 0..<20 {
            let path = folder.appendingPathComponent("race-\(round).sqlite").path
            let failures = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            let store = try CatalogStore(path: path)
                            return try store.appliedMigrations() == CatalogStore.migrationIDs ? nil : "not every migration applied"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(failures.isEmpty, "round \(round)")
            let recorded = try await DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
            }
            #expect(recorded == CatalogStore.migrationIDs)
        }
    }
}
