import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import GRDB
import Testing

/// What only SQLite's store does when it writes an edit back (the contract both stores keep is
/// CatalogDatabaseTests').
@Suite struct EditingStoreTests {
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
