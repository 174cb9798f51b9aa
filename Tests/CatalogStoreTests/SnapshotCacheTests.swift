import CatalogDiff
import CatalogModel
import Foundation
import Testing
@testable import CatalogStore
@testable import CatalogStoreCore

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

    @Test("a kept catalogue brought forward by moves, swaps and displacements is the one its rows hold")
    func advancedByMoves() throws {
        let (path, folder) = try temporaryDatabasePath("advance")
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try CatalogStore(path: path)
        let reader = try CatalogStore(path: path)
        var counter = 0
        try writer.replace(Catalog(name: "shelf", sections: (0..<6).map { s in
            Section(id: "s\(s)", kind: .bookshelf, capacity: 4, items: (0..<(s == 5 ? 1 : 3 + s % 2)).map { _ in
                counter += 1
                return Item(id: "b\(counter)", content: .book(Book(title: "T\(counter)", cover: "c")))
            })
        }))
        _ = try writer.catalog(named: "shelf")
        var random = SplitMix64(seed: 7)
        var (advanced, severalMoves) = (0, 0)
        for _ in 0..<400 {
            let current = try reader.catalog(named: "shelf")
            let items = current.sections.flatMap(\.items)
            let section = current.sections.randomElement(using: &random)!
            let policy = [MovePolicy.reject, .displace, .swap].randomElement(using: &random)!
            guard let result = try? writer.move(item: items.randomElement(using: &random)!.id, toSection: section.id,
                                                index: Int.random(in: 0...section.items.count, using: &random), policy: policy, in: "shelf"),
                  result.revision == current.revision + 1 else { continue }
            let stored = try reader.catalog(named: "shelf")
            guard let kept = writer.snapshots.latest(named: "shelf")?.catalog, kept.revision == stored.revision else { continue }
            #expect(kept == stored, "after \(result.changeset)")
            advanced += 1
            if (result.changeset.stages.first?.items.moved.count ?? 0) > 1 { severalMoves += 1 }
        }
        #expect(advanced > 100 && severalMoves > 20, "\(advanced) brought forward, \(severalMoves) of several moves")
    }

    @Test("a stage of moves applied to a catalogue's items: each lands at its index after; moves that do not fit are refused")
    func movesApplied() {
        func applying(_ moves: [Move<ItemPath>], to catalog: Catalog) -> Catalog? {
            var catalog = catalog
            return Stage(items: ItemChanges(moved: moves)).applyItemMoves(to: &catalog.sections, \.items) ? catalog : nil
        }
        let catalog = Self.shelves()
        func move(_ from: (Int, Int), _ to: (Int, Int)) -> Move<ItemPath> {
            Move(from: ItemPath(section: from.0, item: from.1), to: ItemPath(section: to.0, item: to.1))
        }
        #expect(applying([move((0, 3), (1, 0))], to: catalog) == nil)
        #expect(applying([move((0, 0), (9, 0))], to: catalog) == nil)
        #expect(applying([move((0, 0), (1, 5))], to: catalog) == nil)
        #expect(applying([move((0, 0), (1, 0)), move((0, 0), (2, 0))], to: catalog) == nil)
        // A swap: b0-0 and b1-2 trade places.
        let swapped = applying([move((0, 0), (1, 2)), move((1, 2), (0, 0))], to: catalog)
        #expect(swapped?.sections[0].items.map(\.id) == ["b1-2", "b0-1", "b0-2"])
        #expect(swapped?.sections[1].items.map(\.id) == ["b1-0", "b1-1", "b0-0"])
        // Within one shelf, and three books along: each lands at its index in the catalogue after.
        #expect(applying([move((0, 0), (0, 2)), move((0, 2), (0, 0))], to: catalog)?.sections[0].items.map(\.id)
                    == ["b0-2", "b0-1", "b0-0"])
        #expect(applying([move((0, 0), (2, 1)), move((1, 0), (2, 0)), move((2, 2), (0, 2))], to: catalog)?
                    .sections.map { $0.items.map(\.id) } == [["b0-1", "b0-2", "b2-2"], ["b1-1", "b1-2"], ["b1-0", "b0-0", "b2-0", "b2-1"]])
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
