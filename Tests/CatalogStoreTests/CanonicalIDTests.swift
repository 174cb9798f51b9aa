import CatalogModel
import GRDB
import Testing
@testable import CatalogStore

/// Ids and names are one id when Swift's `==` says so (canonically equivalent Unicode): the store
/// keeps one form, finds an id whichever form it is asked for, refuses a twin, and `checkIntegrity`
/// finds a twin that a database written without this rule holds.
@Suite struct CanonicalIDTests {
    static let composed = "caf\u{E9}", decomposed = "cafe\u{301}"

    static func book(_ id: String) -> Item { Item(id: id, content: .book(Book(title: id, cover: "c"))) }

    @Test func identifiersTakeOneForm() {
        #expect(Identifier.canonical(Self.decomposed).utf8.elementsEqual(Self.composed.utf8))
        #expect(Identifier.canonical("plain-ascii") == "plain-ascii")
        #expect(Identifier.isCanonical(Self.composed) && !Identifier.isCanonical(Self.decomposed))
        // The Kelvin sign is canonically the letter K.
        #expect(Identifier.canonical("\u{212A}").utf8.elementsEqual("K".utf8))
    }

    @Test func theStoreKeepsOneFormAndFindsBoth() throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Catalog(name: "shelf \(Self.decomposed)", sections: [
            Section(id: "s\(Self.decomposed)", kind: .bookshelf, capacity: 4, items: [Self.book(Self.decomposed)]),
        ]))
        let stored = try store.catalog(named: "shelf \(Self.composed)")
        #expect(stored.name.utf8.elementsEqual("shelf \(Self.composed)".utf8))
        #expect(stored.sections[0].items[0].id.utf8.elementsEqual(Self.composed.utf8))
        let refused = #expect(throws: StoreError.self) {
            try store.apply(Batch(operations: [.insertItem(section: "s\(Self.composed)", index: 0, item: Self.book(Self.composed))]),
                            to: "shelf \(Self.decomposed)")
        }
        #expect("\(refused!)".contains("already exists"))
        try store.apply(Batch(operations: [.deleteItem(id: Self.composed)]), to: "shelf \(Self.decomposed)")
        #expect(try store.catalog(named: "shelf \(Self.composed)").itemCount == 0)
        try store.checkIntegrity()
    }

    @Test func checkFindsTwinsWrittenWithoutTheRule() throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Catalog(name: "shelf", sections: [
            Section(id: "s", kind: .bookshelf, capacity: 4, items: [Self.book(Self.composed), Self.book("other")]),
        ]))
        try store.checkIntegrity()
        try store.writer.write { db in
            try db.execute(sql: "UPDATE item SET id = ? WHERE id = 'other'", arguments: [Self.decomposed])
        }
        #expect(throws: StoreError.nonCanonicalID(catalog: "shelf", id: Self.decomposed, equivalent: Self.composed)) {
            try store.checkIntegrity()
        }
    }
}
