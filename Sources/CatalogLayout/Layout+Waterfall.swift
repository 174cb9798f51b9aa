import CatalogModel

/// Waterfall geometry: equal columns, each item scaled to the column width from its natural size
/// and placed in the shortest column (ties to the lowest index). Sections stack vertically, each
/// with its header, insets and footer; columns restart level at every section.
extension Layout {
    mutating func prepareWaterfall(_ input: LayoutInput) {
        let config = configuration
        let inset = config.sectionInset
        let width = viewportSize.width
        let columnCount = config.columns
        let available = width - inset.left - inset.right
        let columnWidth = max(0, ((available - Double(columnCount - 1) * config.columnSpacing) / Double(columnCount)).rounded(.down))
        let itemCount = input.itemCount

        frames = []
        frames.reserveCapacity(itemCount)
        columnItems = Array(repeating: [], count: columnCount)
        for c in 0..<columnCount { columnItems[c].reserveCapacity(itemCount / columnCount + 1) }
        sectionStarts = [0]
        let columnX = (0..<columnCount).map { inset.left + Double($0) * (columnWidth + config.columnSpacing) }

        var heights = [Double](repeating: 0, count: columnCount)
        var filled = [Bool](repeating: false, count: columnCount)
        var position = 0.0
        for section in input.sections {
            let sectionStart = position
            headers.append(Rect(x: 0, y: position, width: width, height: config.headerHeight))
            position += config.headerHeight + inset.top
            for c in 0..<columnCount {
                heights[c] = position
                filled[c] = false
            }
            for item in section.items {
                let natural = config.contentSize(of: item, crossLength: available)
                let height = natural.width > 0 ? (natural.height * columnWidth / natural.width).rounded(.down) : natural.height
                var shortest = 0
                for c in 1..<max(1, columnCount) where heights[c] < heights[shortest] { shortest = c }
                let y = heights[shortest] + (filled[shortest] ? config.interitemSpacing : 0)
                columnItems[shortest].append(Int32(frames.count))
                frames.append(Rect(x: columnX[shortest], y: y, width: columnWidth, height: height))
                heights[shortest] = y + height
                filled[shortest] = true
            }
            let itemsTop = position - inset.top
            position = heights.max() ?? position
            position += inset.bottom
            itemAreas.append(Extent(lo: itemsTop, hi: position))
            footers.append(Rect(x: 0, y: position, width: width, height: config.footerHeight))
            position += config.footerHeight
            sectionExtents.append(Extent(lo: sectionStart, hi: position))
            sectionStarts.append(frames.count)
        }
        contentSize = Size(width: width, height: position)
    }
}
