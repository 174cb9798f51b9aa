import CatalogDiff
import CatalogLayout
import CatalogModel

/// Random layouts for property tests: every style, random sizes, spacings, insets, headers,
/// footers, pinning, scroll direction, viewport and offset.
struct RandomLayouts {
    var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func double(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &random)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    mutating func bool() -> Bool { Bool.random(using: &random) }

    /// Sometimes a whole number, sometimes a fraction: integers hit ties and touching edges.
    mutating func length(_ range: ClosedRange<Double>) -> Double {
        bool() ? double(range).rounded() : double(range)
    }

    mutating func input() -> LayoutInput {
        let kinds: [ItemKind?] = [nil, .video, .book, .icon]
        return LayoutInput(sections: (0..<int(0...6)).map { s in
            let kind = kinds[int(0...3)]
            let uniform = bool()
            return LayoutSectionInput(title: "S\(s)", items: (0..<int(0...40)).map { i in
                LayoutItemInput(size: uniform ? nil : Size(width: length(1...260), height: length(1...200)),
                                kind: kind, label: "item \(i)")
            })
        })
    }

    mutating func configuration(_ style: LayoutStyle) -> LayoutConfiguration {
        var config = LayoutConfiguration(style: style)
        if bool() { config.itemSize = Size(width: length(1...200), height: length(1...160)) }
        config.lineSpacing = length(0...30)
        config.interitemSpacing = length(0...30)
        if bool() {
            config.sectionInset = Insets(top: length(0...20), left: length(0...20), bottom: length(0...20), right: length(0...20))
        }
        if bool() { config.headerHeight = length(1...50) }
        if bool() { config.footerHeight = length(1...50) }
        config.pinHeaders = bool()
        config.pinFooters = bool()
        config.scrollDirection = bool() ? .vertical : .horizontal
        config.columns = int(1...5)
        config.columnSpacing = length(0...20)
        config.minScale = double(0.3...1)
        return config
    }

    mutating func layout() throws -> Layout {
        let style = LayoutStyle.allCases[int(0...LayoutStyle.allCases.count - 1)]
        let viewport = Size(width: length(120...500), height: length(120...700))
        let layout = try Layout(input(), configuration: configuration(style), viewportSize: viewport)
        var scrolled = layout
        scrolled.contentOffset = Point(x: double(-50...max(0, layout.contentSize.width)),
                                       y: double(-50...max(0, layout.contentSize.height)))
        return scrolled
    }

    /// A rectangle around the content: inside, across its edges, thin, empty or huge.
    mutating func rect(in layout: Layout) -> Rect {
        let size = layout.contentSize
        switch int(0...5) {
        case 0: return Rect(x: -10, y: -10, width: size.width + 20, height: size.height + 20)
        case 1: return Rect(x: double(0...size.width), y: double(0...size.height), width: 0, height: length(0...100))
        default:
            return Rect(x: length(-40...size.width), y: length(-40...size.height),
                        width: length(0...layout.viewportSize.width), height: length(0...layout.viewportSize.height))
        }
    }

    /// A point on the content: often on a cell's edge, where hit tests go wrong.
    mutating func point(in layout: Layout) -> Point {
        let elements = layout.allElements.filter { $0.kind == .cell }
        if !elements.isEmpty, bool() {
            let frame = elements[int(0...elements.count - 1)].visibleFrame
            switch int(0...3) {
            case 0: return frame.origin
            case 1: return Point(x: frame.maxX, y: frame.midY)
            case 2: return Point(x: frame.midX, y: frame.maxY)
            default: return frame.center
            }
        }
        return Point(x: double(-20...layout.contentSize.width + 20), y: double(-20...layout.contentSize.height + 20))
    }
}

/// The answers a correct index must give, found by looking at every element.
enum BruteForce {
    static func elements(_ layout: Layout, in rect: Rect) -> [LayoutAttributes] {
        let all = layout.allElements
        let sectionsWithCells = Set(all.filter { $0.kind == .cell && $0.frame.intersects(rect) }.map(\.indexPath.section))
        return all.filter { element in
            if element.frame.intersects(rect) { return true }
            guard sectionsWithCells.contains(element.indexPath.section) else { return false }
            return (element.kind == .header && layout.configuration.pinHeaders)
                || (element.kind == .footer && layout.configuration.pinFooters)
        }
    }

    static func indexPath(_ layout: Layout, at point: Point) -> ItemPath? {
        var best: LayoutAttributes?
        for element in layout.allElements where element.kind == .cell && element.visibleFrame.contains(point) {
            if best == nil || element.zIndex >= best!.zIndex { best = element }
        }
        return best?.indexPath
    }
}
