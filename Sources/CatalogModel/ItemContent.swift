/// The kind-specific fields of an item.
public enum ItemContent: Sendable, Hashable {
    case video(Video)
    case book(Book)
    case icon(Icon)

    public var kind: ItemKind {
        switch self {
        case .video: .video
        case .book: .book
        case .icon: .icon
        }
    }

    /// The text a cell shows first: a video's or book's title, an icon's name.
    public var displayText: String {
        switch self {
        case .video(let video): video.title
        case .book(let book): book.title
        case .icon(let icon): icon.name
        }
    }

    /// The key that identifies the content when a file gives no id: the icon image for icons,
    /// the cover for books and videos.
    public var naturalKey: String {
        switch self {
        case .video(let video): video.cover
        case .book(let book): book.cover
        case .icon(let icon): icon.icon
        }
    }
}

/// A video card: cover, title, counters and review status.
public struct Video: Sendable, Hashable {
    public var title: String
    /// Cover image URL.
    public var cover: String
    public var playCount: Int
    public var likeCount: Int
    public var status: VideoStatus
    public var statusText: String?

    public init(title: String, cover: String, playCount: Int = 0, likeCount: Int = 0,
                status: VideoStatus = .published, statusText: String? = nil) {
        self.title = title
        self.cover = cover
        self.playCount = playCount
        self.likeCount = likeCount
        self.status = status
        self.statusText = statusText
    }
}

/// Where a video is in its review pipeline.
public enum VideoStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case draft, reviewing, recommended, published, rejected
}

/// A book on a shelf: title, cover image name, author.
public struct Book: Sendable, Hashable {
    public var title: String
    /// Cover image name; several books may share one.
    public var cover: String
    public var author: String?

    public init(title: String, cover: String, author: String? = nil) {
        self.title = title
        self.cover = cover
        self.author = author
    }
}

/// An icon in a grid: label and image name.
public struct Icon: Sendable, Hashable {
    public var name: String
    /// Image name.
    public var icon: String

    public init(name: String, icon: String) {
        self.name = name
        self.icon = icon
    }
}
