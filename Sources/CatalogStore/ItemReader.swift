import CatalogModel
import GRDB
import GRDBSQLite

/// Reads a catalogue's items in display order through SQLite's C API, building model values
/// straight from the column bytes.
///
/// GRDB's `Row` decodes each column through generic conversions; for a 100k-item snapshot the
/// direct reads keep loading near the cost of the bare row scan (see BENCHMARKS.md).
struct ItemReader {
    private let statement: RawStatement

    init(db: Database) throws {
        statement = try RawStatement(db, """
            SELECT i.section_pk, i.id, i.kind, i.title, i.cover, i.play_count, i.like_count, i.status,
                   i.status_text, i.author, i.name, i.icon, i.width, i.height
            FROM section s JOIN item i ON i.section_pk = s.pk
            WHERE s.catalog_pk = ? ORDER BY s.position, i.position
            """)
    }

    /// One section's items in order, each with its row's primary key and its order key: what an
    /// edit reads.
    static func items(inSection sectionPK: Int64, db: Database) throws -> [(pk: Int64, key: Int64, item: Item)] {
        // The same columns as the catalogue walk, with the item's own key first and its order
        // key last.
        let reader = ItemReader(statement: try RawStatement(db, """
            SELECT i.pk, i.id, i.kind, i.title, i.cover, i.play_count, i.like_count, i.status,
                   i.status_text, i.author, i.name, i.icon, i.width, i.height, i.position
            FROM item i WHERE i.section_pk = ? ORDER BY i.position
            """))
        var result: [(pk: Int64, key: Int64, item: Item)] = []
        try reader.forEachRow(binding: sectionPK) { handle, item in
            result.append((sqlite3_column_int64(handle, 0), sqlite3_column_int64(handle, 14), item))
        }
        return result
    }

    private init(statement: RawStatement) {
        self.statement = statement
    }

    /// Calls `body` with each item of the catalogue and the primary key of its section, in
    /// display order: by section position, then item position (an order key). Both walks use the
    /// (…, position) indexes (UNIQUE for sections, `item_place` for items), so SQLite sorts nothing.
    func forEachItem(catalogPK: Int64, _ body: (_ sectionPK: Int64, _ item: Item) throws -> Void) throws {
        try forEachRow(binding: catalogPK) { handle, item in try body(sqlite3_column_int64(handle, 0), item) }
    }

    /// Steps the statement with its one parameter bound to `key`, passing the row and its item.
    private func forEachRow(binding key: Int64, _ body: (_ row: OpaquePointer, _ item: Item) throws -> Void) throws {
        try statement.forEach(.integer(key)) { row in
            try body(row.handle, try item(row.handle))
            return true
        }
    }

    private func item(_ handle: OpaquePointer) throws -> Item {
        let id = text(handle, 1) ?? ""
        let content: ItemContent
        switch text(handle, 2) {
        case "video":
            guard let statusName = text(handle, 7), let status = VideoStatus(rawValue: statusName) else {
                throw StoreError.database("item \(id) has an unknown status")
            }
            content = .video(Video(title: text(handle, 3) ?? "", cover: text(handle, 4) ?? "",
                                   playCount: Int(sqlite3_column_int64(handle, 5)),
                                   likeCount: Int(sqlite3_column_int64(handle, 6)),
                                   status: status, statusText: text(handle, 8)))
        case "book":
            content = .book(Book(title: text(handle, 3) ?? "", cover: text(handle, 4) ?? "", author: text(handle, 9)))
        case "icon":
            content = .icon(Icon(name: text(handle, 10) ?? "", icon: text(handle, 11) ?? ""))
        case let other:
            throw StoreError.database("item \(id) has an unknown kind \(other ?? "NULL")")
        }
        var size: Size?
        if sqlite3_column_type(handle, 12) != SQLITE_NULL {
            size = Size(width: sqlite3_column_double(handle, 12), height: sqlite3_column_double(handle, 13))
        }
        return Item(id: id, content: content, size: size)
    }

    /// The column as a string, or `nil` for NULL.
    private func text(_ handle: OpaquePointer, _ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
