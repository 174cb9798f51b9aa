import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import GRDB
import Testing

/// Batches and moves through the store: the same outcome as the rules applied in memory, one
/// revision per successful write and none on a failed one, a changeset that replays to the new
/// snapshot, a journal that can rebuild every revision, and positions 0..<count everywhere.
@Suite struct EditingStoreTests {
    @Test(arguments: 0..<4)
    func randomSequencesMatchTheRulesInMemory(batch: Int) throws {
        var random = RandomEdits(seed: UInt64(900 + batch))
        var accepted = 0, refused = 0
        for _ in 0..<500 {
            let store = try CatalogStore.inMemory()
            var expected = random.catalog()
            expected.revision = try store.replace(expected).revision
            let first = expected
            for _ in 0..<random.int(1...5) {
                let operations = (0..<(random.chance(25) ? random.int(2...4) : 1)).map { _ in random.operation(on: expected) }
                let base = random.chance(90) ? expected.revision : expected.revision - 1
                let batch = Batch(baseRevision: base, operations: operations)
                let inMemory: Result<Catalog, BatchError> = Result { () throws(BatchError) in try expected.applying(batch) }
                do {
                    let result = try store.apply(batch, to: "shelf")
                    let next = try inMemory.get()
                    let stored = try store.catalog(named: "shelf")
                    #expect(stored == next, "\(operations)")
                    // A batch that changes nothing keeps the revision.
                    let raised = next == expected ? 0 : 1
                    #expect(result.revision == expected.revision + raised && result.previousRevision == expected.revision)
                    #expect(result.changeset.violations(from: expected, to: stored) == [], "\(operations)")
                    expected = stored
                    accepted += 1
                } catch StoreError.rejected(_, let error) {
                    guard case .failure(let memoryError) = inMemory else {
                        Issue.record("the store refused \(operations) with \(error); in memory it applies")
                        return
                    }
                    #expect(error == memoryError)
                    #expect(try store.catalog(named: "shelf") == expected, "a refused batch changes nothing")
                    refused += 1
                }
            }
            // The journal rebuilds the first revision from the last.
            if expected.revision > first.revision {
                let changes = try store.changes(in: "shelf", since: first.revision)
                #expect(changes.violations(from: first, to: expected) == [])
            }
            try store.checkIntegrity()
        }
        #expect(accepted > 300 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    @Test func aMoveBetweenShelvesAndAFullShelf() throws {
        let store = try CatalogStore.inMemory()
        let shelves = Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, capacity: 2, items: Self.books("a", 2)),
            Section(id: "b", kind: .bookshelf, capacity: 2, items: Self.books("b", 1)),
        ])
        try store.replace(shelves)
        let moved = try store.move(item: "a0", toSection: "b", index: 1, in: "shelf")
        #expect(moved.revision == 2)
        #expect(moved.changeset.stages.flatMap(\.items.moved) == [Move(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 1, item: 1))])
        #expect(try store.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a1"], ["b0", "a0"]])
        #expect {
            try store.move(item: "a1", toSection: "b", index: 0, in: "shelf")
        } throws: { error in
            (error as? StoreError)?.description == #"catalogue "shelf": operation 0 (moveItem): shelf "b" is full: it holds at most 2 books"#
        }
        #expect(try store.revision(of: "shelf") == 2)
        #expect {
            try store.move(item: "a1", toSection: "b", index: 0, in: "shelf", baseRevision: 1)
        } throws: { error in
            guard case StoreError.rejected(_, let batchError)? = error as? StoreError else { return false }
            return batchError.reason == .staleRevision(base: 1, current: 2)
        }
        #expect { try store.move(item: "a1", toSection: "b", index: 0, in: "nope") } throws: { error in
            (error as? StoreError) == .unknownCatalog("nope")
        }
    }

    @Test func theJournalOfAMoveKeepsAwkwardIDs() throws {
        let store = try CatalogStore.inMemory()
        let awkward = ["quote\"d", "back\\slash", "new\nline", "tab\tand\u{01}control", "été", "📚 books", "slash/and,comma"]
        let shelves = Catalog(name: "shelf", sections: [
            Section(id: "a \"one\"", kind: .bookshelf, capacity: 10,
                    items: awkward.map { Item(id: $0, content: .book(Book(title: $0, cover: $0))) }),
            Section(id: "b\\two", kind: .bookshelf, capacity: 10),
        ])
        try store.replace(shelves)
        for id in awkward.reversed() {
            try store.move(item: id, toSection: "b\\two", index: 0, in: "shelf")
        }
        let now = try store.catalog(named: "shelf")
        #expect(now.sections[1].items.map(\.id) == awkward)
        let changes = try store.changes(in: "shelf", since: 1)
        #expect(changes.violations(from: shelves, to: now) == [])
        #expect(changes.stages.flatMap(\.items.moved).count == awkward.count)
    }

    /// A section deleted and inserted again in one batch: its old row steps aside under an id
    /// that no section has, whatever ids the catalogue holds — even the ones the store would pick.
    @Test(arguments: [["replaced 1", "replaced 1'", "replaced 2"], ["\u{FFFF}replaced 1"], []])
    func aReplacedSectionNeverCollidesWithAnotherID(others: [String]) throws {
        let store = try CatalogStore.inMemory()
        let books = Self.books("b", 3)
        let catalog = Catalog(name: "shelf", sections: [Section(id: "a", kind: .bookshelf, capacity: 10, items: books)]
                              + others.map { Section(id: $0, kind: .bookshelf, capacity: 10) })
        try store.replace(catalog)
        let result = try store.apply(Batch(operations: [
            .moveItem(id: "b1", toSection: others.first ?? "a", index: 0),
            .deleteSection(id: "a"),
            .insertSection(index: 0, section: Section(id: "a", kind: .bookshelf, title: "New", capacity: 5, items: [books[2]])),
            // A new section whose id the retired row might otherwise have taken.
            .insertSection(index: 1, section: Section(id: "replaced 3", kind: .bookshelf, capacity: 5)),
        ]), to: "shelf")
        let now = try store.catalog(named: "shelf")
        #expect(now.sections.map(\.id) == ["a", "replaced 3"] + others)
        #expect(now.sections[0].items.map(\.id) == ["b2"] && now.sections[0].title == "New")
        if let first = others.first { #expect(now.sections[2].items.map(\.id) == ["b1"] && first == now.sections[2].id) }
        #expect(result.revision == 2)
        try store.checkIntegrity()
        let changes = try store.changes(in: "shelf", since: 1)
        #expect(changes.violations(from: catalog, to: now) == [])
    }

    static func books(_ prefix: String, _ count: Int) -> [Item] {
        (0..<count).map { Item(id: "\(prefix)\($0)", content: .book(Book(title: "\(prefix) \($0)", cover: "\(prefix)\($0)"))) }
    }
}

/// `checkIntegrity()` (behind `catalog check`) finds an order key repeated in a section by a
/// program writing to the file behind the store's back.
@Suite struct IntegrityCheckTests {
    @Test func aRepeatedKeyIsReported() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-integrity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("check.sqlite").path
        var shelf = Section(id: "s", kind: .bookshelf, items: EditingStoreTests.books("b", 3))
        shelf.capacity = nil
        let store = try CatalogStore(path: path)
        try store.replace(Catalog(name: "shelf", sections: [shelf]))
        try store.checkIntegrity()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE item SET position = (SELECT position FROM item WHERE id = 'b1') WHERE id = 'b2'")
        }
        #expect(throws: StoreError.positionsOutOfOrder(catalog: "shelf", section: "s")) { try store.checkIntegrity() }
    }
}
