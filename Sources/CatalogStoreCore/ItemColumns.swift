import CatalogModel

/// The `item` table's columns for an item's fields (Migrations/): one per content field of any
/// kind, named after the field in snake case (`playCount` → `play_count`), NULL where the item's
/// kind has no such field; then `width` and `height`. The reader, the inserter and the updater
/// list their columns from here, so a new content field needs only its migration.
package enum ItemColumns {
    /// The content fields of every kind, in the order the statements list their columns: the
    /// order of ``ItemField/allCases``, where they follow the id.
    package static let content = ItemField.allCases.filter { $0.contentType != nil }

    /// The content columns, in the order of ``content``.
    package static let names = content.map(column)

    /// The content columns, comma-separated, each prefixed with `prefix` (a table alias and a dot).
    package static func list(prefix: String = "") -> String {
        names.map { prefix + $0 }.joined(separator: ", ")
    }

    /// The column of `field`.
    package static func column(_ field: ItemField) -> String {
        field.rawValue.reduce(into: "") { name, character in
            if character.isUppercase { name += "_" + character.lowercased() } else { name.append(character) }
        }
    }

    /// Where `field`'s column is among the content columns (0 for the first).
    @inline(__always)
    package static func offset(of field: ItemField) -> Int32 {
        // The content fields are `allCases` from the second on.
        Int32(truncatingIfNeeded: field.ordinal &- 1)
    }
}
