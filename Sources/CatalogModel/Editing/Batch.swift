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

/// New values for some of an item's fields; `nil` leaves a field as it is. Optional fields
/// (`author`, `statusText`, `size`) are cleared with `.some(nil)`.
public struct ItemFields: Sendable, Hashable {
    public var title: String?
    public var cover: String?
    public var author: String??
    public var playCount: Int?
    public var likeCount: Int?
    public var status: VideoStatus?
    public var statusText: String??
    public var name: String?
    public var icon: String?
    public var size: Size??

    public init(title: String? = nil, cover: String? = nil, author: String?? = nil, playCount: Int? = nil,
                likeCount: Int? = nil, status: VideoStatus? = nil, statusText: String?? = nil,
                name: String? = nil, icon: String? = nil, size: Size?? = nil) {
        self.title = title
        self.cover = cover
        self.author = author
        self.playCount = playCount
        self.likeCount = likeCount
        self.status = status
        self.statusText = statusText
        self.name = name
        self.icon = icon
        self.size = size
    }

    /// The names of the fields this update sets, for error messages.
    public var names: [String] {
        var names: [String] = []
        if title != nil { names.append("title") }
        if cover != nil { names.append("cover") }
        if author != nil { names.append("author") }
        if playCount != nil { names.append("playCount") }
        if likeCount != nil { names.append("likeCount") }
        if status != nil { names.append("status") }
        if statusText != nil { names.append("statusText") }
        if name != nil { names.append("name") }
        if icon != nil { names.append("icon") }
        if size != nil { names.append("size") }
        return names
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
