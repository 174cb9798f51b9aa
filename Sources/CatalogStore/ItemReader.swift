import CatalogModel
import CatalogStoreCore
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
            SELECT i.section_pk, i.id, i.kind, \(ItemColumns.list(prefix: "i.")), i.width, i.height
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
            SELECT i.pk, i.id, i.kind, \(ItemColumns.list(prefix: "i.")), i.width, i.height, i.position
            FROM item i WHERE i.section_pk = ? ORDER BY i.position
            """))
        var result: [(pk: Int64, key: Int64, item: Item)] = []
        try reader.forEachRow(binding: sectionPK) { row, item in
            result.append((row.int64(0), row.int64(Self.sizeColumn + 2), item))
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

    /// Where the content columns start: after the section's (or item's) key, the id and the kind.
    private static let contentColumn: Int32 = 3
    /// Where the width is; the height follows.
    private static let sizeColumn = contentColumn + Int32(ItemColumns.content.count)

    private func item(_ row: RawStatement.Columns) throws -> Item {
        let id = row.text(1) ?? ""
        guard let kind = row.text(2).flatMap(ItemKind.init(rawValue:)) else {
            throw StoreError.database("item \(id) has an unknown kind \(row.text(2) ?? "NULL")")
        }
        let content: ItemContent
        do {
            content = try ItemContent(kind: kind) { field in
                let column = Self.contentColumn &+ ItemColumns.offset(of: field)
                if row.isNull(column) { return nil }
                switch field.representation {
                case .count: return .count(row.int(column))
                case .text: return .text(row.text(column) ?? "")
                }
            }
        } catch {
            throw StoreError.database("item \(id) holds a value its field may not: \(error)")
        }
        let size = row.isNull(Self.sizeColumn) ? nil : Size(width: row.double(Self.sizeColumn), height: row.double(Self.sizeColumn + 1))
        return Item(id: id, content: content, size: size)
    }
}
