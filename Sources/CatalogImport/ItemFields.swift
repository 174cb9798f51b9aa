import CatalogModel

/// A field of an item in the model, as `--map FIELD=KEY` names it (docs/Catalogue-files.md).
public enum ItemField: String, CaseIterable, Sendable, Hashable {
    case id, name, icon, title, cover, author, playCount, likeCount, status, statusText, width, height

    /// The field's place in a decoder's per-item buffer (a switch, not a hash: it runs for
    /// every field of every item).
    var slot: Int {
        switch self {
        case .id: 0
        case .name: 1
        case .icon: 2
        case .title: 3
        case .cover: 4
        case .author: 5
        case .playCount: 6
        case .likeCount: 7
        case .status: 8
        case .statusText: 9
        case .width: 10
        case .height: 11
        }
    }
}

/// The one table of which keys fill which field, per item kind (docs/Catalogue-files.md). The first key of each
/// field is CatalogKit's own (what the exporter writes); the rest are aliases that files from
/// real apps use, matched without regard to case. Decoding, detection, the report's ignored keys,
/// the exporter's keys and their order, the keys a batch's `updateItem` accepts and README's table
/// all come from here, so adding an alias is one line.
enum ItemFieldTable {
    typealias Row = (field: ItemField, keys: [String])

    /// Fields every kind has.
    static let common: [Row] = [
        (.id, ["id", "identifier", "uuid"]),
        (.width, ["width", "w"]),
        (.height, ["height", "h"]),
    ]

    static let video: [Row] = common + [
        (.title, ["title"]),
        (.cover, ["cover", "images", "image", "img", "poster", "thumbnail"]),
        (.playCount, ["playCount", "play_count"]),
        (.likeCount, ["likeCount", "praise_count"]),
        (.status, ["status"]),
        (.statusText, ["statusText", "status_desc"]),
    ]

    static let book: [Row] = common + [
        (.title, ["title"]),
        (.cover, ["cover"]),
        (.author, ["author"]),
    ]

    static let icon: [Row] = common + [
        (.name, ["name", "title", "text", "label"]),
        (.icon, ["icon", "image", "img", "imageName", "pic"]),
    ]

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
