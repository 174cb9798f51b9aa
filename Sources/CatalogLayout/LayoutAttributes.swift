import CatalogDiff
import CatalogModel

/// What a layout places: cells and the supplementary views around them.
public enum ElementKind: String, Sendable, Hashable, CaseIterable, Codable {
    case cell
    case header
    case footer
    /// Drawn behind a section's items, such as a shelf board.
    case decoration

    /// Order of elements of one section in query results: behind first, then as they read.
    var rank: Int {
        switch self {
        case .decoration: 0
        case .header: 1
        case .cell: 2
        case .footer: 3
        }
    }
}

/// Everything a `UICollectionViewLayoutAttributes` carries for one element.
///
/// `frame` is the untransformed frame the layout assigns; `scale` is the transform a cell is drawn
/// with (about its centre), so what a person sees is ``visibleFrame``.
public struct LayoutAttributes: Sendable, Hashable {
    public var kind: ElementKind
    /// The element's section and item (`CatalogDiff`'s index path; item 0 for supplementary views).
    public var indexPath: ItemPath
    public var frame: Rect
    public var scale: Double
    public var alpha: Double
    public var zIndex: Int
    public var hidden: Bool

    public init(kind: ElementKind, indexPath: ItemPath, frame: Rect, scale: Double = 1, alpha: Double = 1,
                zIndex: Int = 0, hidden: Bool = false) {
        self.kind = kind
        self.indexPath = indexPath
        self.frame = frame
        self.scale = scale
        self.alpha = alpha
        self.zIndex = zIndex
        self.hidden = hidden
    }

    public var center: Point { frame.center }
    public var size: Size { frame.size }
    /// The frame as drawn: scaled about its centre.
    public var visibleFrame: Rect { frame.scaled(by: scale) }
}
