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
            try v1.write { db in
                var writer = CatalogWriter(db: db, total: catalog.itemCount, progress: nil)
                _ = try writer.replace(catalog, record: nil)
            }
        }
        let latest = try CatalogStore(path: path)
        #expect(try latest.appliedMigrations() == CatalogStore.migrationIDs)
        var expected = catalog
        expected.revision = 1
        #expect(try latest.catalog(named: "old") == expected)
        // The new table works on the old data.
        let result = try latest.replace(catalog, record: ImportRecord(source: "again.json", format: "json", shape: "native"))
        #expect(result.revision == 2)
        let imports = try latest.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM import") }
        #expect(imports == 1)
    }

    @Test("every migration file is embedded, in order")
    func embedded() {
        let ids = CatalogStore.migrationIDs
        #expect(ids == ids.sorted())
        #expect(ids.first == "0001_initial")
    }
}
