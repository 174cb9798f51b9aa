/// An ordered list of edits applied to one catalogue in one transaction (docs/Batches-and-moves.md): all of them
/// land, or — at the first that fails — none does.
public struct Batch: Sendable, Hashable {
    /// The revision the edits were made against; `nil` applies them to whatever is current.
    public var baseRevision: Int?
    public var operations: [BatchOperation]

    public init(baseRevision: Int? = nil, operations: [BatchOperation]) {
        self.baseRevision = baseRevision
        self.operations = operations
    }
}

/// One edit of a batch. Indices are positions in the catalogue *as the earlier operations of the
/// batch left it*; an index may equal the count (append).
public enum BatchOperation: Sendable, Hashable {
    case insertItem(section: String, index: Int, item: Item)
    case deleteItem(id: String)
    case updateItem(id: String, fields: ItemFields)
    /// Moves an item within its section or to another (docs/Batches-and-moves.md); `policy` says what happens
    /// when the target shelf is full. A `nil` index is the end of the section, as it is when
    /// the operation runs.
    case moveItem(id: String, toSection: String, index: Int?, policy: MovePolicy = .reject)
    case insertSection(index: Int, section: Section)
    case deleteSection(id: String)
    case moveSection(id: String, index: Int)
    case updateSection(id: String, fields: SectionFields)

    /// The operation's name in batch files (`insertItem`, …).
    public var name: String {
        switch self {
        case .insertItem: "insertItem"
        case .deleteItem: "deleteItem"
        case .updateItem: "updateItem"
        case .moveItem: "moveItem"
        case .insertSection: "insertSection"
        case .deleteSection: "deleteSection"
        case .moveSection: "moveSection"
        case .updateSection: "updateSection"
        }
    }

    /// Whether the operation changes the list of sections (and so needs the catalogue's section order).
    public var changesSections: Bool {
        switch self {
        case .insertSection, .deleteSection, .moveSection: true
        default: false
        }
    }
}

/// What happens when a book is moved into a full shelf (docs/Batches-and-moves.md).
public enum MovePolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// The move is refused with an error naming the shelf and its capacity.
    case reject
    /// The book lands; the shelf's last book overflows to the start of the next shelf, and so on;
    /// refused if the last shelf would overflow.
    case displace
    /// The book at the target index takes the moved book's old place.
    case swap
}

/// New values for some of an item's fields: content fields (``ItemField/content(of:)``) and the
/// size. An optional field (`author`, `statusText`, `size`) is cleared with `.some(nil)`.
public struct ItemFields: Sendable, Hashable {
    /// The content fields to set, each with its new value; a nil value clears an optional field.
    public var content: [ItemField: ItemFieldValue?]
    public var size: Size??

    public init(content: [ItemField: ItemFieldValue?] = [:], size: Size?? = nil) {
        self.content = content
        self.size = size
    }

    /// The fields by name, as Swift code sets them; `nil` leaves a field as it is.
    public init(title: String? = nil, cover: String? = nil, author: String?? = nil, playCount: Int? = nil,
                likeCount: Int? = nil, status: VideoStatus? = nil, statusText: String?? = nil,
                name: String? = nil, icon: String? = nil, size: Size?? = nil) {
        var content: [ItemField: ItemFieldValue?] = [:]
        for (field, text) in [(ItemField.title, title), (.cover, cover), (.name, name), (.icon, icon), (.status, status?.rawValue)] {
            if let text { content[field] = .some(.text(text)) }
        }
        for (field, text) in [(ItemField.author, author), (.statusText, statusText)] {
            if let text { content[field] = .some(text.map(ItemFieldValue.text)) }
        }
        for (field, count) in [(ItemField.playCount, playCount), (.likeCount, likeCount)] {
            if let count { content[field] = .some(.count(count)) }
        }
        self.init(content: content, size: size)
    }

    /// The content fields to set with their values, in the order of ``ItemField/allCases``.
    public var orderedContent: [(field: ItemField, value: ItemFieldValue?)] {
        ItemField.allCases.compactMap { field in content[field].map { (field, $0) } }
    }
}

/// New values for some of a section's fields; `.some(nil)` clears `title`, or `capacity` (unbounded).
public struct SectionFields: Sendable, Hashable {
    public var title: String??
    public var capacity: Int??

    public init(title: String?? = nil, capacity: Int?? = nil) {
        self.title = title
        self.capacity = capacity
    }
}
