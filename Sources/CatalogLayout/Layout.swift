import CatalogModel

/// The geometry of one snapshot in one style and viewport: every cell, header, footer and
/// decoration view, the content size, rect queries, hit testing and scroll targets.
///
/// Preparing is O(n) (waterfall O(n·columns)) and keeps about 40 bytes per item: the frames in
/// one flat array plus a per-style index (lines, columns, or the circle's angles) that answers
/// ``elements(in:)`` in O(log n + k). A `Layout` is a value: scrolling (``contentOffset``) only
/// changes what depends on it — pinned headers and footers, carousel scales — never the frames.
public struct Layout: Sendable {
    public let configuration: LayoutConfiguration
    /// The visible size: a collection view's bounds size.
    public private(set) var viewportSize: Size
    /// The scroll position: the viewport's origin in content coordinates.
    public var contentOffset: Point
    public internal(set) var contentSize: Size
    /// Whether the scroll axis is x (see ``scrollsHorizontally(_:)``).
    let isHorizontal: Bool

    /// Cell frames, all sections' items in order.
    var frames: [Rect] = []
    /// `sectionStarts[s]` is the index in `frames` of section `s`'s first item; one extra entry at the end.
    var sectionStarts: [Int] = [0]
    /// Flow, shelf and carousel: runs of items along the cross axis (lines), in scroll order.
    var bands: [Band] = []
    /// Waterfall: every column's items, top to bottom, column after column; column `c`'s are
    /// `columnItems[columnStarts[c]..<columnStarts[c + 1]]`.
    var columnItems: [Int32] = []
    var columnStarts: [Int] = []
    /// Per section, along the scroll axis: where the section starts and ends (header to footer).
    /// Headers, footers, shelf boards and the bounds of pinning all follow from these extents, the
    /// lines and the frames, so nothing else is stored per section.
    var sectionExtents: [Extent] = []
    /// Flow and shelf: `sectionBands[s]` is the index in `bands` of section `s`'s first line; one extra entry.
    var sectionBands: [Int32] = []

    /// Computes the layout of `input` for a viewport of `viewportSize` scrolled to `contentOffset`.
    ///
    /// Throws ``LayoutConfigurationError`` for a configuration out of range, a viewport that is
    /// not a positive, finite size, an item whose natural size is not finite and non-negative,
    /// more than 2³¹ − 1 items, or lengths so large that the content's size would not be finite.
    public init(_ input: LayoutInput, configuration: LayoutConfiguration, viewportSize: Size,
                contentOffset: Point = .zero) throws(LayoutConfigurationError) {
        try configuration.validate()
        guard contentOffset.x.isFinite, contentOffset.y.isFinite else {
            throw LayoutConfigurationError(key: "offset", expected: "finite numbers")
        }
        self.configuration = configuration
        self.viewportSize = viewportSize
        self.contentOffset = contentOffset
        self.contentSize = viewportSize
        self.isHorizontal = Self.scrollsHorizontally(configuration)
        try prepare(input, viewportSize: viewportSize)
    }

    /// Lays out `input` again — new data, or a new viewport size after a rotation — as
    /// `UICollectionViewLayout.prepare()` does after an invalidation. The layout's storage is
    /// reused when this value is its only owner, so preparing again allocates no memory per item
    /// (unless the new input has more items, sections or lines than the last). On an error for
    /// the viewport or an item's size the layout is unchanged; when the content would be
    /// infinitely large, the layout is left empty (no items) in its previous viewport.
    public mutating func prepare(_ input: LayoutInput, viewportSize: Size? = nil) throws(LayoutConfigurationError) {
        let size = viewportSize ?? self.viewportSize
        guard Size.isValidLength(size.width, minimum: .leastNonzeroMagnitude),
              Size.isValidLength(size.height, minimum: .leastNonzeroMagnitude) else {
            throw LayoutConfigurationError(key: "viewport", expected: "a positive width and height of at most \(Int(Size.maximumLength))",
                                           found: "\(format(size.width))×\(format(size.height))")
        }
        try Self.checkItemCount(input.itemCount)
        if let index = input.firstInvalidSize {
            let path = input.path(ofItemAt: index)
            let bad = input.naturalSizes[index]
            throw LayoutConfigurationError(key: "sections[\(path.section)].items[\(path.item)].size",
                                           expected: "a width and height from 0 to \(Int(Size.maximumLength))",
                                           found: "\(format(bad.width))×\(format(bad.height))")
        }
        let previousSize = self.viewportSize
        self.viewportSize = size
        layOut(input)
        // Lengths near the largest `Double` (a header of 1e308 points, say) add up to infinity.
        // Checking every input against a bound would still miss a waterfall item of a tiny
        // natural width scaled up, so the sum is checked: a finite content size means every
        // position is finite, as positions only grow. The geometry of the failed attempt is
        // not kept, since the layout's own storage was written: the layout is left empty.
        guard contentSize.width.isFinite, contentSize.height.isFinite else {
            let found = "\(format(contentSize.width))×\(format(contentSize.height))"
            self.viewportSize = previousSize
            layOut(LayoutInput())
            throw LayoutConfigurationError(key: "", expected: "sizes, spacings and insets whose sums stay finite",
                                           found: "a content size of \(found)")
        }
        #if DEBUG
        checkInvariants()
        #endif
    }

    /// The most items a layout takes: lines and columns keep item indices in 32 bits (half the
    /// memory of `Int`).
    static let maximumItemCount = Int(Int32.max)

    /// Refuses more than `limit` items (``maximumItemCount``; tests pass a smaller one, since an
    /// input of 2³¹ items needs tens of gigabytes).
    static func checkItemCount(_ count: Int, limit: Int = maximumItemCount) throws(LayoutConfigurationError) {
        guard count <= limit else {
            throw LayoutConfigurationError(key: "", expected: "at most \(limit) items", found: "\(count)")
        }
    }

    private mutating func layOut(_ input: LayoutInput) {
        switch configuration.style {
        case .flow, .shelf: prepareFlow(input)
        case .waterfall: prepareWaterfall(input)
        case .circular: prepareCircular(input)
        case .carousel: prepareCarousel(input)
        }
    }

    public var style: LayoutStyle { configuration.style }

    /// Whether the attributes change when only ``contentOffset`` does: pinned headers or footers
    /// of a style that has them (``LayoutStyle/stacksSections``), or a style that depends on it
    /// (``LayoutStyle/dependsOnContentOffset``). A view lays the
    /// elements out again as it scrolls exactly when this is true — the UIKit adapter's
    /// `shouldInvalidateLayout(forBoundsChange:)`, and the console, which reads it from the layout
    /// document (`dependsOnOffset`).
    public var dependsOnContentOffset: Bool {
        style.dependsOnContentOffset || (style.stacksSections && (configuration.pinHeaders || configuration.pinFooters))
    }
    public var numberOfSections: Int { sectionStarts.count - 1 }
    public func numberOfItems(inSection section: Int) -> Int { sectionStarts[section + 1] - sectionStarts[section] }
    public var numberOfItems: Int { frames.count }

    /// The visible rectangle: the viewport at the current offset.
    public var visibleRect: Rect { Rect(origin: contentOffset, size: viewportSize) }

    /// Whether the layout scrolls horizontally: flow and shelf by configuration, carousels always.
    static func scrollsHorizontally(_ configuration: LayoutConfiguration) -> Bool {
        switch configuration.style {
        case .carousel: true
        case .flow, .shelf: configuration.scrollDirection == .horizontal
        case .waterfall, .circular: false
        }
    }
}

/// A stretch along the scroll axis.
struct Extent: Sendable, Hashable {
    var lo: Double
    var hi: Double
}

/// A line of a flow layout (or one carousel slot): items `start..<end`, side by side along the
/// cross axis and all within `lo..<hi` along the scroll axis.
struct Band: Sendable, Hashable {
    var lo: Double
    var hi: Double
    var start: Int32
    var end: Int32
}
