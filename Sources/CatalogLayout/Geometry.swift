import CatalogModel

/// A point in layout coordinates: points, y grows downward.
public struct Point: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public var description: String { "(\(format(x)), \(format(y)))" }
}

/// An axis-aligned rectangle in layout coordinates, like `CGRect` but without UIKit.
///
/// Two rectangles *intersect* when they overlap with a positive area; a rectangle *contains* a
/// point on its top and left edges but not on its bottom and right ones, so a point between two
/// touching cells belongs to exactly one of them.
public struct Rect: Sendable, Hashable, BitwiseCopyable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(origin: Point, size: Size) {
        self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var origin: Point { Point(x: x, y: y) }
    public var size: Size { Size(width: width, height: height) }
    public var center: Point { Point(x: midX, y: midY) }

    @inline(__always)
    public func intersects(_ other: Rect) -> Bool {
        x < other.x + other.width && other.x < x + width
            && y < other.y + other.height && other.y < y + height
    }

    @inline(__always)
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }

    /// The smallest rectangle that holds both.
    public func union(_ other: Rect) -> Rect {
        let minX = Swift.min(x, other.x), minY = Swift.min(y, other.y)
        return Rect(x: minX, y: minY,
                    width: Swift.max(maxX, other.maxX) - minX, height: Swift.max(maxY, other.maxY) - minY)
    }

    /// This rectangle scaled by `factor` about its centre (what a scale transform shows).
    public func scaled(by factor: Double) -> Rect {
        if factor == 1 { return self }
        let w = width * factor, h = height * factor
        return Rect(x: midX - w / 2, y: midY - h / 2, width: w, height: h)
    }

    public var description: String { "(\(format(x)), \(format(y)), \(format(width)), \(format(height)))" }
}

/// Section insets: top, left, bottom, right, as in `UIEdgeInsets`.
public struct Insets: Sendable, Hashable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = Insets()
}

/// `10`, `10.5`, `-3.25`: integers without a fraction, others in the shortest exact form.
func format(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}
