import CatalogModel
import CatalogStore
import Foundation
import Testing

/// SQLite's process-wide settings (``CatalogStore/disableSQLiteMemoryStatistics()``). The
/// setting taking effect is checked through the `catalog` tool, which makes it at its start
/// (`CLIBenchTests`); a test process has SQLite running already.
@Suite struct ProcessSettingsTests {
    @Test("once SQLite is in use, turning its memory statistics off is refused and changes nothing")
    func refusedOnceSQLiteRuns() throws {
        let (path, folder) = try temporaryDatabasePath("settings")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Catalog(name: "shelf", sections: [Section(id: "s", kind: .bookshelf)]))
        #expect(CatalogStore.sqliteKeepsMemoryStatistics)
        #expect(!CatalogStore.disableSQLiteMemoryStatistics())
        #expect(CatalogStore.sqliteKeepsMemoryStatistics)
        // The store works as before.
        #expect(try store.catalog(named: "shelf").sections.map(\.id) == ["s"])
        #expect(CatalogStore.sqliteVersion.split(separator: ".").count >= 3)
    }
}
