import CatalogModel
import Foundation
import Testing
@testable import CatalogStore

/// `revision(of:)` reads on a connection of its own in a file store (``RevisionReader``): it must
/// see every committed write, from this store or another connection, and none that rolled back.
@Suite("Revision reader")
struct RevisionReaderTests {
    @Test("a file store's revisions follow its writes, other connections' writes and refusals")
    func followsWrites() throws {
        let (path, folder) = try temporaryDatabasePath("shared")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        let other = try CatalogStore(path: path)
        #expect(throws: StoreError.unknownCatalog("shelf")) { try store.revision(of: "shelf") }
        try store.replace(SnapshotCacheTests.shelves())
        #expect(try store.revision(of: "shelf") == 1)
        // Answered by the connection kept for it, not the pool.
        #expect(store.revisions.hasOwnConnection)

        try store.move(item: "b0-0", toSection: "s1", index: 0, in: "shelf")
        #expect(try store.revision(of: "shelf") == 2)
        try other.move(item: "b0-1", toSection: "s2", index: nil, in: "shelf")
        #expect(try store.revision(of: "shelf") == 3)
        // A refused write (an unknown book) changes nothing, the revision included.
        #expect(throws: StoreError.self) { try other.move(item: "missing", toSection: "s0", index: nil, in: "shelf") }
        #expect(try store.revision(of: "shelf") == 3)
        #expect(try store.revision(of: "shelf") == store.catalog(named: "shelf").revision)
        #expect(throws: StoreError.unknownCatalog("nope")) { try store.revision(of: "nope") }

        // A store opened for reading answers from its own connection too.
        let readOnly = try CatalogStore.openForReading(path: path)
        #expect(try readOnly.revision(of: "shelf") == 3)
        #expect(readOnly.revisions.hasOwnConnection)
    }

    @Test("a store in memory reads revisions through its one connection")
    func inMemory() throws {
        let store = try CatalogStore.inMemory()
        #expect(throws: StoreError.unknownCatalog("shelf")) { try store.revision(of: "shelf") }
        try store.replace(SnapshotCacheTests.shelves())
        try store.move(item: "b0-0", toSection: "s1", index: 0, in: "shelf")
        #expect(try store.revision(of: "shelf") == 2)
        #expect(throws: StoreError.unknownCatalog("nope")) { try store.revision(of: "nope") }
        #expect(!store.revisions.hasOwnConnection)
    }
}
