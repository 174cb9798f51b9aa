import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

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
