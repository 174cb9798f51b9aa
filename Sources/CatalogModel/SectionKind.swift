/// What a section holds. Every item of a section has the section's ``itemKind``.
public enum SectionKind: String, Sendable, Hashable, CaseIterable, Codable {
    case videos
    case bookshelf
    case icons

    /// The kind of every item in a section of this kind.
    public var itemKind: ItemKind {
        switch self {
        case .videos: .video
        case .bookshelf: .book
        case .icons: .icon
        }
    }

    /// The capacity a section of this kind gets when none is given: shelves hold 4 books.
    public var defaultCapacity: Int? {
        self == .bookshelf ? 4 : nil
    }
}

/// The three kinds of item a catalogue holds.
public enum ItemKind: String, Sendable, Hashable, CaseIterable, Codable {
    case video
    case book
    case icon

    /// The section kind that holds items of this kind.
    public var sectionKind: SectionKind {
        switch self {
        case .video: .videos
        case .book: .bookshelf
        case .icon: .icons
        }
    }
}
