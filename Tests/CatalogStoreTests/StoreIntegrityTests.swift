import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// The database refuses invalid states by itself, and a failed write changes nothing.
@Suite("Store integrity")
struct StoreIntegrityTests {
    private func seededStore() throws -> CatalogStore {
        let store = try CatalogStore.inMemory()
        try store.replace(Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, capacity: 2, items: [
                Item(id: "b1", content: .book(Book(title: "One", cover: "1"))),
                Item(id: "b2", content: .book(Book(title: "Two", cover: "2"))),
            ]),
            Section(id: "v", kind: .videos, items: [
                Item(id: "v1", content: .video(Video(title: "V", cover: "c"))),
            ]),
        ]))
        return store
    }

    /// Runs raw SQL in a write transaction and returns SQLite's message when it is refused.
    private func refusal(_ store: CatalogStore, _ sql: String) -> String? {
        do {
            try store.writer.write { db in try db.execute(sql: sql) }
            return nil
        } catch let error as DatabaseError {
            return error.message ?? "\(error.resultCode)"
        } catch {
            return "\(error)"
        }
    }

    private let sectionA = "(SELECT pk FROM section WHERE id = 'a')"
    private let sectionV = "(SELECT pk FROM section WHERE id = 'v')"

    @Test("SQLite itself refuses a book entering a full shelf")
    func capacityTrigger() throws {
        let store = try seededStore()
        let message = refusal(store, """
            INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover)
            VALUES (1, \(sectionA), 'b3', 2, 'book', 'Three', '3')
            """)
        #expect(message == "section is full")
        #expect(refusal(store, "UPDATE section SET capacity = 1 WHERE id = 'a'") == "section capacity is below its item count")
        #expect(refusal(store, "UPDATE item SET position = -1 WHERE id = 'b2'")?.contains("CHECK") == true)
    }

    @Test("a repeated order key or too many items, written by hand, are caught by the store's checks")
    func positionsCheckedByStore() throws {
        // Item positions are order keys with gaps (migration 0005) and have no UNIQUE index, and
        // position-only updates fire no trigger: a key given to two items of a shelf is found by
        // checkIntegrity and by the check every write runs on the sections it touched. (A gap,
        // or a key moved past another, is not an error: it is how keys work.)
        let repeated = "UPDATE item SET position = (SELECT position FROM item WHERE id = 'b1') WHERE id = 'b2'"
        do {
            let store = try seededStore()
            #expect(refusal(store, repeated) == nil)
            #expect(throws: StoreError.positionsOutOfOrder(catalog: "shelf", section: "a")) { try store.checkIntegrity() }
        }
        do {
            let store = try seededStore()
            #expect(refusal(store, "UPDATE item SET position = 5 WHERE id = 'b2'") == nil)
            try store.checkIntegrity()
            #expect(try store.catalog(named: "shelf").sections[0].items.map(\.id) == ["b2", "b1"])
        }
        let store = try seededStore()
        // Over capacity with distinct keys: a third book squeezed in by hand.
        try store.writer.write { db in
            try db.execute(sql: "UPDATE section SET capacity = NULL WHERE id = 'a'")
            try db.execute(sql: """
                INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover)
                VALUES (1, \(sectionA), 'b3', 3 * 4294967296, 'book', 'Three', '3')
                """)
            try db.execute(sql: "DROP TRIGGER section_keeps_its_items")
            try db.execute(sql: "UPDATE section SET capacity = 2 WHERE id = 'a'")
        }
        #expect(throws: StoreError.overCapacity(catalog: "shelf", section: "a", count: 3, capacity: 2)) { try store.checkIntegrity() }
        // The check every write runs on the sections it wrote finds the same, and a repeat.
        try store.writer.read { db in
            #expect(throws: StoreError.overCapacity(catalog: "shelf", section: "a", count: 3, capacity: 2)) {
                try CatalogStore.verifyItemPositions(ofSection: 1, id: "a", capacity: 2, catalog: "shelf", in: db)
            }
            try CatalogStore.verifyItemPositions(ofSection: 1, id: "a", capacity: nil, catalog: "shelf", in: db)
        }
        try store.writer.write { db in try db.execute(sql: "UPDATE item SET position = (SELECT position FROM item WHERE id = 'b2') WHERE id = 'b3'") }
        _ = try store.writer.read { db in
            #expect(throws: StoreError.positionsOutOfOrder(catalog: "shelf", section: "a")) {
                try CatalogStore.verifyItemPositions(ofSection: 1, id: "a", capacity: nil, catalog: "shelf", in: db)
            }
            // The quick move's check of the one key it wrote: held twice, or by no book, is refused.
            let b1 = try Int64.fetchOne(db, sql: "SELECT position FROM item WHERE id = 'b1'")!
            let b2 = try Int64.fetchOne(db, sql: "SELECT position FROM item WHERE id = 'b2'")!
            try CatalogStore.verifyKey(b1, ofSection: 1, id: "a", catalog: "shelf", in: db)
            for key in [b2, b1 + 1] {
                #expect(throws: StoreError.positionsOutOfOrder(catalog: "shelf", section: "a")) {
                    try CatalogStore.verifyKey(key, ofSection: 1, id: "a", catalog: "shelf", in: db)
                }
            }
        }
    }

    @Test("SQLite refuses an item of the wrong kind, a duplicate id, a bad value")
    func constraints() throws {
        let store = try seededStore()
        #expect(refusal(store, """
            INSERT INTO item (catalog_pk, section_pk, id, position, kind, name, icon) VALUES (1, \(sectionV), 'i', 1, 'icon', 'n', 'i')
            """) == "item kind does not match its section kind")
        #expect(refusal(store, """
            INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover, play_count, like_count, status)
            VALUES (1, \(sectionV), 'b1', 1, 'video', 't', 'c', 0, 0, 'draft')
            """)?.contains("UNIQUE") == true)
        #expect(refusal(store, "UPDATE item SET play_count = -1 WHERE id = 'v1'")?.contains("CHECK") == true)
        #expect(refusal(store, "UPDATE item SET status = 'live' WHERE id = 'v1'")?.contains("CHECK") == true)
        #expect(refusal(store, "UPDATE item SET cover = NULL WHERE id = 'b1'")?.contains("CHECK") == true)
        #expect(refusal(store, "UPDATE section SET kind = 'icons' WHERE id = 'a'") == "section kind cannot change while it holds items")
        #expect(refusal(store, "INSERT INTO section (catalog_pk, id, position, kind) VALUES (1, 'z', 2, 'podcasts')")?.contains("CHECK") == true)
        #expect(refusal(store, "UPDATE item SET catalog_pk = 99 WHERE id = 'b1'")?.contains("FOREIGN KEY") == true)
        #expect(try store.catalog(named: "shelf").itemCount == 3)
    }

    @Test("a repeated item key or a gap in section positions is caught before commit and rolls the write back")
    func contiguity() throws {
        let store = try seededStore()
        let before = try store.catalog(named: "shelf")
        #expect(throws: StoreError.positionsOutOfOrder(catalog: "shelf", section: "a")) {
            try store.write { db in
                try db.execute(sql: "UPDATE item SET position = (SELECT position FROM item WHERE id = 'b1') WHERE id = 'b2'")
                try CatalogStore.verifyPositions(ofCatalog: 1, named: "shelf", in: db)
                return []
            }
        }
        #expect(try store.catalog(named: "shelf") == before)
        // Sections keep dense positions 0..<n.
        #expect(throws: StoreError.positionsOutOfOrder(catalog: "shelf", section: "(section order)")) {
            try store.write { db in
                try db.execute(sql: "UPDATE section SET position = 5 WHERE id = 'v'")
                try CatalogStore.verifyPositions(ofCatalog: 1, named: "shelf", in: db)
                return []
            }
        }
        #expect(try store.catalog(named: "shelf") == before)
    }

    @Test("an invalid catalogue is refused before the database is touched, with every violation")
    func invalidCatalogue() throws {
        let store = try seededStore()
        let before = try store.catalog(named: "shelf")
        var bad = Catalog.generated(name: "shelf", items: 6, sections: 1, kind: .bookshelf)
        bad.sections[0].capacity = 3
        do {
            try store.replace(bad)
            Issue.record("expected an error")
        } catch {
            guard case .invalidCatalog(let validation) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(validation.violations == [.overCapacity(section: 0, sectionID: "s1", count: 6, capacity: 3)])
        }
        #expect(try store.catalog(named: "shelf") == before)
    }

    @Test("several catalogues land together or not at all")
    func allOrNothing() throws {
        let store = try seededStore()
        let before = try store.summaries()
        var broken = Catalog.generated(name: "second", items: 4, sections: 1, kind: .icons)
        broken.sections[0].items[3].id = broken.sections[0].items[0].id
        #expect(throws: StoreError.self) {
            try store.replace([(Catalog.generated(name: "first", items: 4, sections: 1), nil), (broken, nil)])
        }
        #expect(try store.summaries() == before)
    }

    @Test("a write that fails halfway inside SQLite rolls back whole, revision included")
    func rollback() throws {
        let store = try seededStore()
        let before = try store.catalog(named: "shelf")
        #expect(throws: StoreError.self) {
            try store.write { db in
                try db.execute(sql: "UPDATE catalog SET revision = revision + 1")
                try db.execute(sql: "DELETE FROM item WHERE id = 'b1'")
                try db.execute(sql: "INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover) VALUES (1, \(sectionV), 'x', 7, 'book', 't', 'c')")
                return []
            }
        }
        #expect(try store.catalog(named: "shelf") == before)
    }

    @Test("two catalogues with one name in one write are refused, naming their sources")
    func sameNameTwice() throws {
        let store = try seededStore()
        let before = try store.summaries()
        let twin = Catalog.generated(name: "twin", items: 2, sections: 1, kind: .icons)
        #expect(throws: StoreError.catalogNamedTwice("twin", sources: ["a.json", "b.json"])) {
            try store.replace([(twin, ImportRecord(source: "a.json", format: "json", shape: "native")),
                               (twin, ImportRecord(source: "b.json", format: "json", shape: "native"))])
        }
        #expect(throws: StoreError.catalogNamedTwice("twin", sources: [])) { try store.replace([(twin, nil), (twin, nil)]) }
        #expect(try store.summaries() == before)
    }
}
