/// One cell's worth of content, with a stable identity that is not its display text.
///
/// Two books may share a cover name; they are still two items with two ids.
/// An item's *content* is everything but its id (and its position, which the section gives):
/// two versions of the same id with different content make a reload.
public struct Item: Sendable, Hashable, Identifiable {
    public var id: String
    public var content: ItemContent
    /// Natural content size in points (a cover's pixel size); layouts that size items from
    /// content use it, others fall back to per-kind defaults.
    public var size: Size?

    public init(id: String, content: ItemContent, size: Size? = nil) {
        self.id = id
        self.content = content
        self.size = size
    }

    public var kind: ItemKind { content.kind }

    /// Whether `other` carries the same content (everything but the id).
    public func hasSameContent(as other: Item) -> Bool {
        content == other.content && size == other.size
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
