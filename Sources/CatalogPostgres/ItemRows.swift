import CatalogModel
import CatalogStoreCore
import PostgresNIO

/// Items to and from the `item` table's columns, which are SQLite's (``ItemColumns`` lists the
/// content columns once for both stores).
enum ItemRows {
    /// The columns a read selects for an item, from `alias`: id, kind, content, width, height.
    static func columns(_ alias: String) -> String {
        "\(alias).id, \(alias).kind, \(ItemColumns.list(prefix: alias + ".")), \(alias).width, \(alias).height"
    }

    /// How many columns ``columns(_:)`` selects.
    static let columnCount = 4 + ItemColumns.content.count

    /// The item in the columns of `row` from `offset` on (as ``columns(_:)`` selected them).
    static func item(_ row: PostgresRandomAccessRow, at offset: Int) throws -> Item {
        let id = try row[offset].decode(String.self)
        let kindName = try row[offset + 1].decode(String.self)
        guard let kind = ItemKind(rawValue: kindName) else {
            throw StoreError.database("item \(id) has an unknown kind \(kindName)")
        }
        var values: [ItemField: ItemFieldValue] = [:]
        for (index, field) in ItemColumns.content.enumerated() {
            let cell = row[offset + 2 + index]
            switch field.representation {
            case .count: values[field] = try cell.decode(Int64?.self).map { .count(Int($0)) }
            case .text: values[field] = try cell.decode(String?.self).map(ItemFieldValue.text)
            }
        }
        let content: ItemContent
        do {
            content = try ItemContent(kind: kind) { values[$0] }
        } catch {
            throw StoreError.database("item \(id) holds a value its field may not: \(error)")
        }
        let sizeColumn = offset + 2 + ItemColumns.content.count
        let width = try row[sizeColumn].decode(Double?.self)
        let height = try row[sizeColumn + 1].decode(Double?.self)
        let size = width.flatMap { width in height.map { Size(width: width, height: $0) } }
        return Item(id: id, content: content, size: size)
    }

    /// Rows to write, as one JSON array that `json_to_recordset` turns into a table (``recordType``):
    /// one parameter however many rows, NULLs kept.
    struct Writer {
        private(set) var json = "["
        private(set) var count = 0

        /// The part of a combined write each row belongs to, in order, when given.
        private(set) var parts: [Int32] = []

        /// Appends an item's row: where it goes (the section with id `section`, order key `key`)
        /// and its content; `part`, the part of a combined write it belongs to (``partColumn``).
        mutating func append(_ item: Item, section: String, key: Int64, part: Int32? = nil) {
            if count > 0 { json += "," }
            count += 1
            json += "{"
            if let part {
                parts.append(part)
                json += "\"\(ItemRows.partColumn)\":\(part),"
            }
            json += "\"id\":"
            appendJSONString(item.id, to: &json)
            json += ",\"section\":"
            appendJSONString(section, to: &json)
            json += ",\"position\":\(key),\"kind\":\"\(item.kind.rawValue)\""
            for field in ItemField.content(of: item.kind) {
                guard let value = item.content[field] else { continue }
                json += ",\"\(ItemColumns.column(field))\":"
                switch value {
                case .text(let text): appendJSONString(text, to: &json)
                case .count(let count): json += String(count)
                }
            }
            if let size = item.size {
                json += ",\"width\":\(size.width),\"height\":\(size.height)"
            }
            json += "}"
        }

        var document: String { json + "]" }
    }

    /// The field of a ``Writer``'s row that names its part of a combined write.
    static let partColumn = "part"

    /// The SQL type of `field`'s column.
    static func sqlType(of field: ItemField) -> String {
        switch field.representation {
        case .count: "BIGINT"
        case .text: "TEXT"
        }
    }

    /// The record type of a ``Writer``'s rows for `json_to_recordset(…) AS r(…)`.
    static let recordType: String = {
        let content = ItemColumns.content.map { field in
            "\(ItemColumns.column(field)) \(sqlType(of: field))"
        }
        return (["\(partColumn) INTEGER", "id TEXT", "section TEXT", "position BIGINT", "kind TEXT"] + content
            + ["width DOUBLE PRECISION", "height DOUBLE PRECISION"]).joined(separator: ", ")
    }()

    /// One statement that writes a ``Writer``'s rows (parameter `document`) into catalogue
    /// `catalogPK`: new items are inserted, items that exist (by id) take their new section,
    /// place and content. Each row's section is looked up by id, a probe of its unique index
    /// (see ``KeyLookup``); a row per item written comes back, so the caller can tell that none
    /// was left out.
    static func upsert(_ document: String, catalogPK: Int64) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(catalogPK)
        binds.append(document)
        return PostgresQuery(unsafeSQL: upsertSQL(catalogPK: "$1", document: "$2"), binds: binds)
    }

    /// The text of ``upsert(_:catalogPK:)`` with the SQL expressions given for its values (a
    /// combined write uses it inside a larger statement), writing only the rows `r` for which
    /// `condition` holds.
    static func upsertSQL(catalogPK: String, document: String, onlyIf condition: String = "true") -> String {
        let content = ItemColumns.names
        return """
            INSERT INTO item (catalog_pk, section_pk, id, position, kind, \(content.joined(separator: ", ")), width, height)
            SELECT \(catalogPK), r.section_pk, r.id, r.position, r.kind, \(content.map { "r." + $0 }.joined(separator: ", ")), r.width, r.height
            FROM (
                SELECT r.*, (SELECT pk FROM section WHERE catalog_pk = \(catalogPK) AND id = r.section) AS section_pk
                FROM json_to_recordset(\(document)::json) AS r(\(recordType))
                OFFSET 0
            ) AS r
            WHERE r.section_pk IS NOT NULL AND \(condition)
            ON CONFLICT (catalog_pk, id) DO UPDATE SET
                section_pk = excluded.section_pk, position = excluded.position, kind = excluded.kind,
                \((content + ["width", "height"]).map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            RETURNING 1
            """
    }
}
