import CatalogModel

/// A field a view's filter, sort or grouping reads from an item: an `ItemField` (the id, a
/// content field, the size's `width` and `height`), the item's `kind`, or `section`, the id of the
/// stored section that holds it.
public enum ViewField: Sendable, Hashable {
    case item(ItemField)
    case kind
    case section

    /// Every field, in the order error messages list them.
    public static let allCases: [ViewField] = ItemField.allCases.map(ViewField.item) + [.kind, .section]

    /// The field named `name` (case-sensitive, as catalogue files spell it).
    public init?(name: String) {
        switch name {
        case "kind": self = .kind
        case "section": self = .section
        default:
            guard let field = ItemField(rawValue: name) else { return nil }
            self = .item(field)
        }
    }

    public var name: String {
        switch self {
        case .item(let field): field.rawValue
        case .kind: "kind"
        case .section: "section"
        }
    }

    /// What the field holds, as a view compares it.
    public enum ValueType: Sendable, Hashable {
        /// A number: a count, or a length of the natural size.
        case number
        /// A string.
        case text
        /// One of a fixed set of names: a video's status, an item's kind.
        case name([String])
    }

    public var valueType: ValueType {
        switch self {
        case .kind: .name(ItemKind.allCases.map(\.rawValue))
        case .section: .text
        case .item(let field):
            switch field {
            case .width, .height: .number
            case .id: .text
            default:
                switch field.contentType {
                case .count?: .number
                case .status?: .name(VideoStatus.allCases.map(\.rawValue))
                case .text?, .optionalText?, nil: .text
                }
            }
        }
    }

    /// Whether items of `kind` have the field (an optional one may still be absent).
    public func exists(in kind: ItemKind) -> Bool {
        switch self {
        case .kind, .section: true
        case .item(let field): ItemField.common.contains(field) || ItemField.content(of: kind).contains(field)
        }
    }

    /// The fields items of `kinds` have, in ``allCases`` order: what an error lists as the
    /// catalogue's fields.
    public static func fields(of kinds: some Sequence<ItemKind>) -> [ViewField] {
        let kinds = Array(kinds)
        return allCases.filter { field in kinds.contains { field.exists(in: $0) } }
    }
}

/// A field's value in one item, as a view compares it.
public enum ViewValue: Sendable, Hashable {
    case number(Double)
    case integer(Int)
    case text(String)
}

extension ViewValue: Comparable {
    /// Numbers by value (an integer and a number compare exactly where a `Double` holds the
    /// integer), text by the Unicode scalar values of its NFC form (Swift's `String` order); a
    /// number before any text.
    public static func < (a: ViewValue, b: ViewValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): x < y
        case (.integer(let x), .number(let y)): Double(x) < y
        case (.number(let x), .integer(let y)): x < Double(y)
        case (.number(let x), .number(let y)): x < y
        case (.text(let x), .text(let y)): x < y
        case (.text, _): false
        case (_, .text): true
        }
    }

    public static func == (a: ViewValue, b: ViewValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): x == y
        case (.integer(let x), .number(let y)), (.number(let y), .integer(let x)): Double(x) == y
        case (.number(let x), .number(let y)): x == y
        case (.text(let x), .text(let y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .integer(let x): hasher.combine(Double(x))
        case .number(let x): hasher.combine(x)
        case .text(let x): hasher.combine(x)
        }
    }

    /// The value as a group's header shows it: a count in digits, a length as it was written.
    public var text: String {
        switch self {
        case .integer(let x): String(x)
        case .number(let x): x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
        case .text(let x): x
        }
    }
}

extension Item {
    /// The value of `field` in this item held in the stored section `section`; nil when the item
    /// has no such field, an optional one is empty, or the item has no natural size.
    @inlinable
    public func value(of field: ViewField, section: String) -> ViewValue? {
        switch field {
        case .kind: return .text(kind.rawValue)
        case .section: return .text(section)
        case .item(.id): return .text(id)
        case .item(.width): return size.map { .number($0.width) }
        case .item(.height): return size.map { .number($0.height) }
        case .item(let field):
            switch content[field] {
            case .count(let count)?: return .integer(count)
            case .text(let text)?: return .text(text)
            case nil: return nil
            }
        }
    }
}
