import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore
@testable import CatalogStoreCore

/// The store's columns and journal keys come from the model's field table.
@Suite("Item columns")
struct ItemColumnsTests {
    @Test("every content field has its column in the item table, and every item column is a field's")
    func columnsMatchTheSchema() throws {
        let store = try CatalogStore.inMemory()
        let columns = try store.writer.read { db in try db.columns(in: "item").map(\.name) }
        let fieldColumns = ItemColumns.names
        #expect(fieldColumns == ["name", "icon", "title", "cover", "author", "play_count", "like_count", "status", "status_text"])
        #expect(Set(columns) == Set(fieldColumns + ["pk", "catalog_pk", "section_pk", "id", "position", "kind", "width", "height"]))
        // The statements find a field's column by its offset among the content columns.
        #expect(ItemColumns.content.indices.map(Int32.init) == ItemColumns.content.map(ItemColumns.offset(of:)))
    }

    @Test("a row whose values its fields may not hold is a typed error when read, not a crash")
    func damagedRowsAreTypedErrors() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        for damage in ["status = 'gone'", "play_count = -1", "title = NULL"] {
            try? FileManager.default.removeItem(atPath: path)
            try CatalogStore(path: path).replace(Catalog.generated(name: "c", items: 20, sections: 2, seed: 3))
            // Only a damaged file holds such a row: the schema's checks are switched off to write it.
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
                try db.execute(sql: "UPDATE item SET \(damage) WHERE id = (SELECT min(id) FROM item)")
            }
            try queue.close()
            // A new store: the rows are read, not a snapshot it kept.
            #expect(throws: StoreError.self, "\(damage)") { try CatalogStore(path: path).catalog(named: "c") }
        }
    }

    @Test("the journal writes an item's fields under the names it has always used, and reads them back")
    func journalKeys() throws {
        let video = Item(id: "v1", content: .video(Video(title: "Clip", cover: "c.jpg", playCount: 4, likeCount: 2,
                                                          status: .draft, statusText: "new")),
                         size: Size(width: 3, height: 4))
        let book = Item(id: "b1", content: .book(Book(title: "Dune", cover: "d.png")))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(StoredItem(video)), as: UTF8.self) == """
            {"cover":"c.jpg","id":"v1","kind":"video","likeCount":2,"playCount":4,"size":[3,4],"status":"draft","statusText":"new","title":"Clip"}
            """)
        #expect(String(decoding: try encoder.encode(StoredItem(book)), as: UTF8.self) == """
            {"cover":"d.png","id":"b1","kind":"book","title":"Dune"}
            """)
        for item in [video, book] {
            let stored = try JSONDecoder().decode(StoredItem.self, from: encoder.encode(StoredItem(item)))
            #expect(try stored.item() == item)
        }
        // An entry missing a required field, or with a value its field may not hold, is reported
        // when it is read back.
        for damaged in [#"{"id":"b2","kind":"book","title":"T"}"#, #"{"id":"v2","kind":"video","title":"T","cover":"c","playCount":-1,"likeCount":0,"status":"draft"}"#] {
            let stored = try JSONDecoder().decode(StoredItem.self, from: Data(damaged.utf8))
            #expect(throws: StoreError.self) { try stored.item() }
        }
    }
}
