import CatalogDiff
import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// A fresh database file in a temporary folder, removed by the caller's `defer`.
func temporaryDatabasePath(_ name: String = "test") throws -> (path: String, folder: URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogkit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return (folder.appendingPathComponent("\(name).sqlite").path, folder)
}

@Suite("Storing and loading catalogues")
struct StoreRoundTripTests {
    @Test("a stored catalogue loads back equal, at revision 1", arguments: SectionKind.allCases)
    func roundTrip(kind: SectionKind) throws {
        let store = try CatalogStore.inMemory()
        let catalog = Catalog.generated(name: "c", items: 503, sections: 9, kind: kind, seed: 5)
        let result = try store.replace(catalog)
        #expect(result.catalog == "c" && result.previousRevision == 0 && result.revision == 1)
        try #require(result.changeset.stages.count == 1)
        #expect(result.changeset.stages[0].sections.inserted == Array(0..<9), "a new catalogue's sections arrive whole")
        var expected = catalog
        expected.revision = 1
        #expect(try store.catalog(named: "c") == expected)
        #expect(try store.revision(of: "c") == 1)
    }

    @Test("empty sections, empty catalogues, titles, sizes and optional fields survive")
    func edgeShapes() throws {
        let store = try CatalogStore.inMemory()
        let catalog = Catalog(name: "edges", sections: [
            Section(id: "empty", kind: .bookshelf, title: nil, capacity: 2),
            Section(id: "v", kind: .videos, title: "Ünïcödé 書", items: [
                Item(id: "a", content: .video(Video(title: "t", cover: "c", playCount: 0, likeCount: 0, status: .draft, statusText: "x")),
                     size: Size(width: 0.5, height: 1e6)),
                Item(id: "b", content: .video(Video(title: "", cover: "d", status: .rejected))),
            ]),
        ])
        try store.replace(catalog)
        try store.replace(Catalog(name: "nothing"))
        var expected = catalog
        expected.revision = 1
        #expect(try store.catalog(named: "edges") == expected)
        #expect(try store.catalog(named: "nothing").sections.isEmpty)
    }

    @Test("every write raises the revision by exactly one, and re-importing replaces the content")
    func revisions() throws {
        let store = try CatalogStore.inMemory()
        let first = Catalog.generated(name: "shelf", items: 40, sections: 10, kind: .bookshelf, seed: 1)
        let second = Catalog.generated(name: "shelf", items: 12, sections: 3, kind: .bookshelf, seed: 2)
        try store.replace(first)
        let result = try store.replace(second)
        #expect(result.previousRevision == 1 && result.revision == 2)
        #expect(result.changeset.fromRevision == 1 && result.changeset.toRevision == 2)
        var firstStored = first
        firstStored.revision = 1
        var secondStored = second
        secondStored.revision = 2
        #expect(result.changeset.violations(from: firstStored, to: secondStored).isEmpty)
        let loaded = try store.catalog(named: "shelf")
        #expect(loaded.revision == 2)
        #expect(loaded.sections == second.sections)
        try store.replace(second)
        #expect(try store.revision(of: "shelf") == 3)
    }

    @Test("list summaries count sections and items per catalogue")
    func summaries() throws {
        let store = try CatalogStore.inMemory()
        try store.replace([(Catalog.generated(name: "b", items: 7, sections: 2, kind: .icons), nil),
                           (Catalog.generated(name: "a", items: 3, sections: 3, kind: .videos), nil)])
        #expect(try store.summaries() == [CatalogSummary(name: "a", revision: 1, sections: 3, items: 3),
                                          CatalogSummary(name: "b", revision: 1, sections: 2, items: 7)])
    }

    @Test("an unknown catalogue is a typed error")
    func unknownCatalog() throws {
        let store = try CatalogStore.inMemory()
        #expect(throws: StoreError.unknownCatalog("nope")) { try store.catalog(named: "nope") }
        #expect(throws: StoreError.unknownCatalog("nope")) { try store.revision(of: "nope") }
    }

    @Test("the import table records where a revision came from")
    func importRecord() throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Catalog.generated(name: "r", items: 5, sections: 1, kind: .icons),
                          record: ImportRecord(source: "icons.plist", format: "plist", shape: "icons", derivedIDs: 5, ignoredKeys: 2))
        let row = try store.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT source, revision, items, derived_ids, ignored_keys FROM import")
        }
        #expect(row?["source"] == "icons.plist")
        #expect(row?["revision"] == 1)
        #expect(row?["items"] == 5)
        #expect(row?["derived_ids"] == 5)
        #expect(row?["ignored_keys"] == 2)
    }

    @Test("a file database uses WAL, foreign keys and both migrations, and reopens with its data")
    func fileDatabase() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try CatalogStore(path: path)
            try store.replace(Catalog.generated(name: "f", items: 20, sections: 2))
            let (journal, foreignKeys) = try store.writer.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"))
            }
            #expect(journal == "wal")
            #expect(foreignKeys == true)
            // Savepoint journals in memory (2 = MEMORY): on a file they cost a loaded server most
            // of its writer's time.
            let tempStore = try store.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
            #expect(tempStore == 2)
            #expect(try store.appliedMigrations() == CatalogStore.migrationIDs)
            #expect(CatalogStore.migrationIDs == ["0001_initial", "0002_import_history", "0003_change_journal", "0004_item_positions_checked_by_store",
                                           "0005_item_order_keys", "0006_settings", "0007_deleted_catalogues", "0008_client_writes",
                                           "0009_followed_catalogues", "0010_client_answers", "0011_per_catalogue_numbers", "0012_identities_and_acknowledgement", "0013_confirmed_writes", "0014_device_file"])
        }
        let reopened = try CatalogStore(path: path)
        #expect(try reopened.catalog(named: "f").itemCount == 20)
    }

    @Test("a database a newer version migrated is refused, not misread")
    func newerSchema() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try CatalogStore(path: path)
            try store.writer.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('9999_future')") }
        }
        let refusal = StoreError.cannotOpen(path: path, reason: "the database was migrated by a newer version of CatalogKit "
                                                + "(migration 9999_future, which this version does not know); use that version or newer")
        #expect(throws: refusal) { _ = try CatalogStore(path: path) }
        // Opened for reading (`list`, `show`) too.
        #expect(throws: refusal) { _ = try CatalogStore.openForReading(path: path) }
    }

    @Test("a file that is not a database is refused with a readable error")
    func notADatabase() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            _ = try CatalogStore(path: path)
            Issue.record("expected an error")
        } catch {
            guard case .cannotOpen(let errorPath, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(errorPath == path)
            #expect(reason.contains("not a database"))
        }
    }
}
