/// An ordered run of items of one kind: a shelf of books, a grid of icons, a list of video cards.
public struct Section: Sendable, Hashable, Identifiable {
    /// Stable identity, unique in its catalogue; never the title.
    public var id: String
    public var kind: SectionKind
    public var title: String?
    /// The most items the section may hold; `nil` means unbounded. Within ``capacities`` in every
    /// valid catalogue.
    public var capacity: Int?

    /// The capacities a section may have: from 1 to 2^31 − 1, what every backend stores (SQLite's
    /// and PostgreSQL's `INTEGER`), so that a catalogue one store takes, every store takes.
    public static let capacities = 1...Int(Int32.max)

    /// What a capacity outside ``capacities`` is told: `expected a positive integer up to 2147483647`.
    public static let capacityExpectation = "a positive integer up to \(Int(Int32.max))"
    public var items: [Item]

    /// Creates a section holding at most `capacity` items; `nil` is unbounded, here as in the
    /// property.
    public init(id: String, kind: SectionKind, title: String? = nil, capacity: Int?, items: [Item] = []) {
        self.id = id
        self.kind = kind
        self.title = title
        self.capacity = capacity
        self.items = items
    }

    /// Creates a section with its kind's default capacity (``SectionKind/defaultCapacity``: a
    /// shelf holds 4 books; other kinds are unbounded), as a file that states none gets.
    public init(id: String, kind: SectionKind, title: String? = nil, items: [Item] = []) {
        self.init(id: id, kind: kind, title: title, capacity: kind.defaultCapacity, items: items)
    }

    /// The text a header shows: the title, or the id of a section without one.
    public var displayTitle: String {
        title ?? id
    }

    /// Whether the section holds as many items as its capacity allows.
    public var isFull: Bool {
        capacity.map { items.count >= $0 } ?? false
    }
}
