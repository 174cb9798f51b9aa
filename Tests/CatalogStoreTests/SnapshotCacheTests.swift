import CatalogDiff
import CatalogModel
import Foundation
import Testing
@testable import CatalogStore

/// Reads that load a whole catalogue keep it at its revision (``SnapshotCache``): a read of the
/// same revision gets the same catalogue, and a write — by this store or another connection to
/// the file — is seen by the next read.
@Suite("Snapshot cache")
struct SnapshotCacheTests {
    static func shelves() -> Catalog {
        Catalog(name: "shelf", sections: (0..<3).map { s in
            Section(id: "s\(s)", kind: .bookshelf, capacity: 10,
                    items: (0..<3).map { Item(id: "b\(s)-\($0)", content: .book(Book(title: "T\($0)", cover: "c"))) })
        })
    }

    @Test("a read after a write sees the write; reads of one revision share the catalogue kept")
    func readsFollowWrites() throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves())
        let first = try store.catalog(named: "shelf")
        #expect(store.snapshots.catalog(pk: 1, named: "shelf", revision: first.revision) == first)
        #expect(try store.catalog(named: "shelf") == first)

        try store.move(item: "b0-0", toSection: "s2", index: 0, in: "shelf")
        let moved = try store.catalog(named: "shelf")
        #expect(moved.revision == first.revision + 1)
        #expect(moved.sections[2].items.first?.id == "b0-0")
        #expect(moved.sections[0].items.map(\.id) == ["b0-1", "b0-2"])
        // The change feed starts from the catalogue kept at the current revision.
        let changes = try store.changes(in: "shelf", since: first.revision)
        #expect(changes.violations(from: first, to: moved).isEmpty)

        // Re-imported with other content: the next read has it.
        var renamed = Self.shelves()
        renamed.sections[1].title = "Renamed"
        try store.replace(renamed)
        #expect(try store.catalog(named: "shelf").sections[1].title == "Renamed")
    }

    @Test("a write through another connection to the file is seen by the next read")
    func anotherConnectionWrites() throws {
        let (path, folder) = try temporaryDatabasePath("shared")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reader = try CatalogStore(path: path)
        let writer = try CatalogStore(path: path)
        try writer.replace(Self.shelves())
        let before = try reader.catalog(named: "shelf")
        try writer.move(item: "b1-2", toSection: "s1", index: 0, in: "shelf")
        let after = try reader.catalog(named: "shelf")
        #expect(after.revision == before.revision + 1)
        #expect(after.sections[1].items.map(\.id) == ["b1-2", "b1-0", "b1-1"])
        #expect(try reader.changes(in: "shelf", since: before.revision).violations(from: before, to: after).isEmpty)
    }

    @Test("the cache keeps the latest revision of a catalogue and a bounded number of catalogues")
    func bounded() {
        let cache = SnapshotCache()
        var catalog = Self.shelves()
        catalog.revision = 5
        cache.keep(catalog, pk: 1)
        var older = catalog
        older.revision = 4
        cache.keep(older, pk: 1)   // an older read finishing late does not replace the newer one
        #expect(cache.catalog(pk: 1, named: "shelf", revision: 5) == catalog)
        #expect(cache.catalog(pk: 1, named: "shelf", revision: 4) == nil)
        #expect(cache.catalog(pk: 1, named: "other", revision: 5) == nil)
        for pk in 2...Int64(SnapshotCache.limit + 3) { cache.keep(catalog, pk: pk) }
        let kept = (1...Int64(SnapshotCache.limit + 3)).filter { cache.catalog(pk: $0, named: "shelf", revision: 5) != nil }
        #expect(kept.count <= SnapshotCache.limit)
        #expect(kept.contains(Int64(SnapshotCache.limit + 3)))
    }
}
