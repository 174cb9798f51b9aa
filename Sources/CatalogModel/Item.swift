/// One cell's worth of content, with a stable identity that is not its display text.
///
/// Two books may share a cover name; they are still two items with two ids.
/// An item's *content* is everything but its id (and its position, which the section gives):
/// two versions of the same id with different content make a reload.
///
/// The content and size live in storage of their own that every copy of the item shares until
/// one of them sets new ones: an item is 24 bytes however long its texts are, copying it retains
/// two references, and two items that come from the same item (a catalogue and its next
/// revision, a store's snapshot and its edit) are seen to have the same content without reading it.
public struct Item: Sendable, Identifiable {
    public var id: String
    @usableFromInline var storage: ContentStorage

    public init(id: String, content: ItemContent, size: Size? = nil) {
        self.id = id
        self.storage = ContentStorage(content, size)
    }

    /// Everything the item shows but its size; setting it gives this item storage of its own.
    @inlinable
    public var content: ItemContent {
        _read { yield storage.content }
        set { storage = ContentStorage(newValue, storage.size) }
    }

    /// Natural content size in points (a cover's pixel size); layouts that size items from
    /// content use it, others fall back to per-kind defaults. Setting it gives this item storage
    /// of its own.
    @inlinable
    public var size: Size? {
        get { storage.size }
        set { storage = ContentStorage(storage.content, newValue) }
    }

    @inlinable
    public var kind: ItemKind { content.kind }

    /// Whether `other` carries the same content (everything but the id).
    public func hasSameContent(as other: Item) -> Bool {
        storage.holdsSameValues(as: other.storage)
    }

    /// Whether the items at `x` and `y` have the same content (``hasSameContent(as:)``), read in
    /// place, without copying either item (a copy retains and releases its id and its storage).
    @inlinable @inline(__always)
    package static func sameContent(_ x: UnsafePointer<Item>, _ y: UnsafePointer<Item>) -> Bool {
        x.pointee.storage.holdsSameValues(as: y.pointee.storage)
    }
}

extension Item: Hashable {
    public static func == (x: Item, y: Item) -> Bool {
        x.id == y.id && x.hasSameContent(as: y)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(content)
        hasher.combine(size)
    }
}

/// An item's content and size, never changed once made, so that copies of an item can share them.
@usableFromInline
final class ContentStorage: Sendable {
    @usableFromInline let content: ItemContent
    @usableFromInline let size: Size?

    @usableFromInline
    init(_ content: ItemContent, _ size: Size?) {
        self.content = content
        self.size = size
    }

    /// Whether `other` holds the same content and size: at once when it is this storage, else
    /// compared field by field.
    @inlinable @inline(__always)
    func holdsSameValues(as other: ContentStorage) -> Bool {
        self === other || hasEqualFields(other)
    }

    @usableFromInline
    func hasEqualFields(_ other: ContentStorage) -> Bool {
        size == other.size && content == other.content
    }
}

/// A width and height in points.
public struct Size: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The longest length, in points, that any size, spacing, inset or viewport may have: far
    /// beyond any screen or cover image, and small enough that a layout of the most items it
    /// takes stays exact in a `Double` and every coordinate converts to an `Int`.
    public static let maximumLength: Double = 1_000_000

    /// Whether `value` is a usable length: finite, at least `minimum`, at most ``maximumLength``.
    /// Every length that comes from input (files, batches, layout configurations, viewports) is
    /// checked by this one rule.
    @inlinable
    public static func isValidLength(_ value: Double, minimum: Double = 0) -> Bool {
        value >= minimum && value <= maximumLength // false for NaN
    }

    /// Whether this is a usable natural size of an item: both lengths valid, zero allowed.
    @inlinable
    public var isValidNaturalSize: Bool {
        Self.isValidLength(width) && Self.isValidLength(height)
    }
}
