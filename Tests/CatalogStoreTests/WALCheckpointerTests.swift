import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// A file store copies its write-ahead log back in the background, and readers never wait for
/// the writer.
@Suite("WAL and readers")
struct WALCheckpointerTests {
    /// Ten shelves of five books, room for ten each.
    static func shelves() -> Catalog {
        var catalog = Catalog.generated(name: "shelves", items: 50, sections: 10, kind: .bookshelf)
        for s in catalog.sections.indices { catalog.sections[s].capacity = 10 }
        return catalog
    }

    @Test("writes schedule background checkpoints; the data stays whole")
    func checkpointsInBackground() throws {
        let (path, folder) = try temporaryDatabasePath("wal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        let catalog = Self.shelves()
        try store.replace(catalog)
        let checkpointer = try #require(store.checkpointer)
        let writes = 3 * WALCheckpointer.writesPerCheckpoint
        for n in 0..<writes {
            // Back and forth between the first two shelves.
            let book = catalog.sections[0].items[0].id
            try store.move(item: book, toSection: catalog.sections[n % 2 == 0 ? 1 : 0].id, in: "shelves")
        }
        checkpointer.waitUntilIdle()
        #expect(checkpointer.completed >= 1)
        try store.checkIntegrity()
        #expect(try store.catalog(named: "shelves").revision == 1 + writes)
        // Another connection, opened afresh, reads the same.
        let reader = try CatalogStore.openForReading(path: path)
        #expect(try reader.catalog(named: "shelves") == store.catalog(named: "shelves"))
        // A store opened only for reading has no checkpointer; an in-memory one neither.
        #expect(reader.checkpointer == nil)
        #expect(try CatalogStore.inMemory().checkpointer == nil)
    }

    @Test("a reader does not wait for a write transaction in progress")
    func readsDoNotWaitForWrites() throws {
        let (path, folder) = try temporaryDatabasePath("readers")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves())
        let writing = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        // On a thread of its own (not the test's task pool): a write transaction that changes a
        // row and then holds the write lock until released.
        let writer = Thread {
            _ = try? store.write { db in
                try db.execute(sql: "UPDATE catalog SET revision = revision + 100")
                writing.signal()
                release.wait()
                return []
            }
            finished.signal()
        }
        writer.start()
        guard writing.wait(timeout: .now() + 60) == .success else {
            Issue.record("the write transaction never started")
            return
        }
        // Meanwhile the snapshot reads in full, at the last committed revision.
        let started = Date()
        let snapshot = try store.catalog(named: "shelves")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(snapshot.revision == 1)
        release.signal()
        finished.wait()
        #expect(try store.catalog(named: "shelves").revision == 101)
    }
}
