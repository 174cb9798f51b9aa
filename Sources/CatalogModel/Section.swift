/// An ordered run of items of one kind: a shelf of books, a grid of icons, a list of video cards.
public struct Section: Sendable, Hashable, Identifiable {
    /// Stable identity, unique in its catalogue; never the title.
    public var id: String
    public var kind: SectionKind
    public var title: String?
    /// The most items the section may hold; `nil` means unbounded.
    /// Shelves without an explicit capacity hold ``SectionKind/defaultCapacity`` books.
    public var capacity: Int?
    public var items: [Item]

    /// Creates a section; a `nil` capacity takes the kind's default (4 for a bookshelf).
    public init(id: String, kind: SectionKind, title: String? = nil, capacity: Int? = nil, items: [Item] = []) {
        self.id = id
        self.kind = kind
        self.title = title
        self.capacity = capacity ?? kind.defaultCapacity
        self.items = items
    }

    /// Whether the section holds as many items as its capacity allows.
    public var isFull: Bool {
        capacity.map { items.count >= $0 } ?? false
    }
}
