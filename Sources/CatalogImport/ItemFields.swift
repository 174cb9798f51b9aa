import CatalogModel

/// The one table of which keys fill which field, per item kind (docs/Catalogue-files.md). The first key of each
/// field is CatalogKit's own (what the exporter writes); the rest are aliases that files from
/// real apps use, matched without regard to case. Decoding, detection, the report's ignored keys,
/// the exporter's keys and their order, the keys a batch's `updateItem` accepts and README's table
/// all come from here, so adding an alias is one line.
enum ItemFieldTable {
    typealias Row = (field: ItemField, keys: [String])

    /// The keys files from real apps use for `field` of a `kind` item besides the field's own
    /// name, which comes first.
    private static func aliases(of field: ItemField, in kind: ItemKind) -> [String] {
        switch (field, kind) {
        case (.id, _): ["identifier", "uuid"]
        case (.width, _): ["w"]
        case (.height, _): ["h"]
        case (.cover, .video): ["images", "image", "img", "poster", "thumbnail"]
        case (.playCount, _): ["play_count"]
        case (.likeCount, _): ["praise_count"]
        case (.statusText, _): ["status_desc"]
        case (.name, _): ["title", "text", "label"]
        case (.icon, _): ["image", "img", "imageName", "pic"]
        default: []
        }
    }

    /// A kind's rows: the fields every kind has, then its content fields in the model's order
    /// (``ItemField/content(of:)``), each with its own name and its aliases.
    private static func table(for kind: ItemKind) -> [Row] {
        (ItemField.common + ItemField.content(of: kind)).map { ($0, [$0.rawValue] + aliases(of: $0, in: kind)) }
    }

    static let video = table(for: .video)
    static let book = table(for: .book)
    static let icon = table(for: .icon)

    /// Fields every kind has.
    static let common = Array(video.prefix(ItemField.common.count))

    static func rows(for kind: ItemKind) -> [Row] {
        switch kind {
        case .video: video
        case .book: book
        case .icon: icon
        }
    }

    /// Keys that are not fields: the item's kind and its size as `[width, height]`.
    static let structuralKeys = ["kind", "size"]

    /// Per kind, every key in lower case → its field.
    static let lookUp: [ItemKind: [String: ItemField]] = {
        var result: [ItemKind: [String: ItemField]] = [:]
        for kind in [ItemKind.video, .book, .icon] {
            var table: [String: ItemField] = [:]
            for (field, keys) in rows(for: kind) {
                for key in keys { table[key.lowercased()] = field }
            }
            result[kind] = table
        }
        return result
    }()


    /// The table as README shows it (a test keeps README's copy the same): one line per kind
    /// and field.
    static var markdown: String {
        var lines = ["| kind | field | keys (the first is CatalogKit's own; the others are aliases, any case) |", "|---|---|---|"]
        for (kind, rows) in [("any", common), ("video", Array(video.dropFirst(common.count))),
                             ("book", Array(book.dropFirst(common.count))), ("icon", Array(icon.dropFirst(common.count)))] {
            for (field, keys) in rows {
                lines.append("| \(kind) | `\(field.rawValue)` | \(keys.map { "`\($0)`" }.joined(separator: ", ")) |")
            }
        }
        return lines.joined(separator: "\n")
    }
}
