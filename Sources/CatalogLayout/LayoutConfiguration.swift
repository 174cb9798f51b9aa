import CatalogModel

/// Which geometry a layout computes; see docs/Layouts.md for the exact rules of each.
public enum LayoutStyle: String, Sendable, Hashable, CaseIterable, Codable {
    /// `UICollectionViewFlowLayout`: greedy lines, justified gaps, headers and footers.
    case flow
    /// Columns of items scaled to the column width, each item into the shortest column.
    case waterfall
    /// Every item on one circle around the viewport's centre.
    case circular
    /// A flow layout with a decoration view (the shelf board) behind each non-empty section.
    case shelf
    /// One horizontal row, the item nearest the centre full size and the others scaled down.
    case carousel

    /// Whether the style stacks its sections one after another along the scroll axis, each with
    /// its header and footer (flow, waterfall, shelf). Circular and carousel lay every item out
    /// as one run: no headers, footers or section extents, and no section under a point.
    public var stacksSections: Bool {
        switch self {
        case .flow, .waterfall, .shelf: true
        case .circular, .carousel: false
        }
    }

    /// Whether the style's attributes change as the viewport scrolls (a carousel scales its items
    /// by their distance from the centre), besides pinned headers and footers, which any style
    /// may have: see ``Layout/dependsOnContentOffset``.
    public var dependsOnContentOffset: Bool {
        switch self {
        case .carousel: true
        case .flow, .waterfall, .circular, .shelf: false
        }
    }
}

/// The direction content scrolls in a flow or shelf layout.
public enum ScrollDirection: String, Sendable, Hashable, Codable {
    case vertical
    case horizontal
}

/// A layout's style and parameters: the contents of a `LAYOUT.json` file (docs/Layouts.md).
///
/// Every parameter has the default a `UICollectionViewFlowLayout` user would expect; keys that do
/// not apply to a style are accepted and ignored, keys no style knows are refused (a typo should
/// not silently fall back to a default).
public struct LayoutConfiguration: Sendable, Hashable {
    public var style: LayoutStyle
    /// The size of an item without a natural size of its own; `nil` takes the per-kind default
    /// (video cards two per line at 180:256, books 80×120, icons 60×70; 50×50 otherwise).
    public var itemSize: Size?
    /// Between lines (flow), between items along the row (carousel).
    public var lineSpacing: Double
    /// Between items in one line (flow), between items in one column (waterfall).
    public var interitemSpacing: Double
    public var sectionInset: Insets
    /// Header and footer extent along the scroll axis; 0 means none.
    public var headerHeight: Double
    public var footerHeight: Double
    /// Headers stay at the top of the viewport while their section is on screen.
    public var pinHeaders: Bool
    /// Footers stay at the bottom of the viewport while their section is on screen.
    public var pinFooters: Bool
    public var scrollDirection: ScrollDirection
    /// Waterfall columns and the space between them.
    public var columns: Int
    public var columnSpacing: Double
    /// Carousel: the smallest scale of a cell far from the centre.
    public var minScale: Double
    /// Carousel: the speed (in the units the caller's velocity uses; UIKit passes points per
    /// millisecond) above which a release counts as a fling and advances at least one item.
    public var flingThreshold: Double

    public init(
        style: LayoutStyle,
        itemSize: Size? = nil,
        lineSpacing: Double = 10,
        interitemSpacing: Double = 10,
        sectionInset: Insets = .zero,
        headerHeight: Double = 0,
        footerHeight: Double = 0,
        pinHeaders: Bool = false,
        pinFooters: Bool = false,
        scrollDirection: ScrollDirection = .vertical,
        columns: Int = 2,
        columnSpacing: Double = 10,
        minScale: Double = 0.6,
        flingThreshold: Double = 0.3
    ) {
        self.style = style
        self.itemSize = itemSize
        self.lineSpacing = lineSpacing
        self.interitemSpacing = interitemSpacing
        self.sectionInset = sectionInset
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.pinHeaders = pinHeaders
        self.pinFooters = pinFooters
        self.scrollDirection = scrollDirection
        self.columns = columns
        self.columnSpacing = columnSpacing
        self.minScale = minScale
        self.flingThreshold = flingThreshold
    }

    /// Throws ``LayoutConfigurationError`` for the first parameter out of range.
    public func validate() throws(LayoutConfigurationError) {
        func check(_ ok: Bool, _ key: String, _ expected: String) throws(LayoutConfigurationError) {
            if !ok { throw LayoutConfigurationError(key: key, expected: expected) }
        }
        let limit = "from 0 to \(Int(Size.maximumLength))"
        if let itemSize {
            try check(Size.isValidLength(itemSize.width, minimum: .leastNonzeroMagnitude)
                        && Size.isValidLength(itemSize.height, minimum: .leastNonzeroMagnitude),
                      "itemSize", "a positive width and height of at most \(Int(Size.maximumLength))")
        }
        for (key, value) in [("lineSpacing", lineSpacing), ("interitemSpacing", interitemSpacing),
                             ("columnSpacing", columnSpacing), ("headerHeight", headerHeight),
                             ("footerHeight", footerHeight)] {
            try check(Size.isValidLength(value), key, "a number \(limit)")
        }
        try check(flingThreshold.isFinite && flingThreshold >= 0, "flingThreshold", "a number ≥ 0")
        let inset = sectionInset
        try check([inset.top, inset.left, inset.bottom, inset.right].allSatisfy { Size.isValidLength($0) },
                  "sectionInset", "four numbers \(limit) (top, left, bottom, right)")
        try check(columns >= 1 && columns <= 1_000, "columns", "an integer from 1 to 1000")
        try check(minScale.isFinite && minScale > 0 && minScale <= 1, "minScale", "a number in (0, 1]")
    }
}

/// A layout configuration that cannot be used: which key, what it should have been.
public struct LayoutConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending key (`itemSize`), `""` for the document itself, `viewport` or `offset`, or
    /// the path of an item of the input (`sections[2].items[5].size`).
    public var key: String
    public var expected: String
    public var found: String?

    public init(key: String, expected: String, found: String? = nil) {
        self.key = key
        self.expected = expected
        self.found = found
    }

    /// Inputs of a layout that are not configuration keys.
    static let layoutArguments: Set<String> = ["viewport", "offset"]

    public var description: String {
        let subject = key.isEmpty ? "layout configuration"
            : key.hasPrefix("sections[") ? "layout input \(key)"
            : LayoutConfiguration.knownKeys.contains(key) || !Self.layoutArguments.contains(key) ? "layout configuration key \"\(key)\""
            : key
        return "\(subject): expected \(expected)" + (found.map { ", found \($0)" } ?? "")
    }
}
