import CatalogModel
import GRDB

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
        try reader.forEachRow(binding: sectionPK) { row, item in
            result.append((row.int64(0), row.int64(14), item))
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
        try forEachRow(binding: catalogPK) { row, item in try body(row.int64(0), item) }
    }

    /// Steps the statement with its one parameter bound to `key`, passing the row and its item.
    private func forEachRow(binding key: Int64, _ body: (_ row: RawStatement.Columns, _ item: Item) throws -> Void) throws {
        try statement.forEach(.integer(key)) { row in
            try body(row, try item(row))
            return true
        }
    }

    private func item(_ row: RawStatement.Columns) throws -> Item {
        let id = row.text(1) ?? ""
        let content: ItemContent
        switch row.text(2) {
        case "video":
            guard let statusName = row.text(7), let status = VideoStatus(rawValue: statusName) else {
                throw StoreError.database("item \(id) has an unknown status")
            }
            content = .video(Video(title: row.text(3) ?? "", cover: row.text(4) ?? "", playCount: row.int(5),
                                   likeCount: row.int(6), status: status, statusText: row.text(8)))
        case "book":
            content = .book(Book(title: row.text(3) ?? "", cover: row.text(4) ?? "", author: row.text(9)))
        case "icon":
            content = .icon(Icon(name: row.text(10) ?? "", icon: row.text(11) ?? ""))
        case let other:
            throw StoreError.database("item \(id) has an unknown kind \(other ?? "NULL")")
        }
        let size = row.isNull(12) ? nil : Size(width: row.double(12), height: row.double(13))
        return Item(id: id, content: content, size: size)
    }
}
