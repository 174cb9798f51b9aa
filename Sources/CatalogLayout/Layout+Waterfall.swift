import CatalogModel

/// Waterfall geometry: equal columns, each item scaled to the column width from its natural size
/// and placed in the shortest column (ties to the lowest index). Sections stack vertically, each
/// with its header, insets and footer; columns start level again in every section.
extension Layout {
    mutating func prepareWaterfall(_ input: LayoutInput) {
        let config = configuration
        let inset = config.sectionInset
        let width = viewportSize.width
        let columnCount = config.columns
        let spacing = config.interitemSpacing
        let available = width - inset.left - inset.right
        let columnWidth = max(0, ((available - Double(columnCount - 1) * config.columnSpacing) / Double(columnCount)).rounded(.down))
        let itemCount = input.itemCount
        let sectionCount = input.numberOfSections

        // Storage from an earlier prepare is reused when this layout is its only owner.
        var columnItems = self.columnItems
        self.columnItems = []
        var sectionExtents = Self.takeStorage(&self.sectionExtents, capacity: sectionCount)
        let columnX = (0..<columnCount).map { inset.left + Double($0) * (columnWidth + config.columnSpacing) }
        // Where the next item of each column goes (its bottom plus the spacing, once it has an item).
        var next = [Double](repeating: 0, count: columnCount)
        var bottom = [Double](repeating: 0, count: columnCount)
        // Each item's column, gathered into the columns' lists afterwards (appending to one of
        // several arrays per item checked both arrays' uniqueness and capacity every time).
        var columnOf = [UInt16](repeating: 0, count: itemCount)
        var columnCounts = [Int](repeating: 0, count: columnCount)

        var position = 0.0
        let frames = Self.withStorage(&self.frames, count: itemCount) { out in
            input.naturalSizes.withUnsafeBufferPointer { sizes in
            input.kinds.withUnsafeBufferPointer { kinds in
            next.withUnsafeMutableBufferPointer { next in
            bottom.withUnsafeMutableBufferPointer { bottom in
            columnOf.withUnsafeMutableBufferPointer { columnOf in
            columnCounts.withUnsafeMutableBufferPointer { columnCounts in
                for s in 0..<sectionCount {
                    let sectionStart = position
                    position += config.headerHeight + inset.top
                    for c in 0..<columnCount {
                        next[c] = position
                        bottom[c] = position
                    }
                    for k in input.sectionStarts[s]..<input.sectionStarts[s + 1] {
                        let natural = config.contentSize(natural: sizes[k], kind: kinds[k], crossLength: available)
                        let height = natural.width > 0 ? roundedDown(natural.height * columnWidth / natural.width) : natural.height
                        var shortest = 0
                        var lowest = bottom[0]
                        for c in 1..<columnCount where bottom[c] < lowest {
                            shortest = c
                            lowest = bottom[c]
                        }
                        let y = next[shortest]
                        columnOf[k] = UInt16(truncatingIfNeeded: shortest)
                        columnCounts[shortest] += 1
                        out[k] = Rect(x: columnX[shortest], y: y, width: columnWidth, height: height)
                        bottom[shortest] = y + height
                        next[shortest] = y + height + spacing
                    }
                    position = (bottom.max() ?? position) + inset.bottom + config.footerHeight
                    sectionExtents.append(Extent(lo: sectionStart, hi: position))
                }
            }
            }
            }
            }
            }
            }
        }
        // The columns' lists, column after column, in one pass over the items.
        var columnStarts = [Int](repeating: 0, count: columnCount + 1)
        for c in 0..<columnCount { columnStarts[c + 1] = columnStarts[c] + columnCounts[c] }
        var filled = Array(columnStarts.dropLast())
        columnItems = Self.withStorage(&columnItems, count: itemCount) { list in
            columnOf.withUnsafeBufferPointer { columnOf in
            filled.withUnsafeMutableBufferPointer { filled in
                for k in 0..<itemCount {
                    let c = Int(columnOf[k])
                    list[filled[c]] = Int32(k)
                    filled[c] += 1
                }
            }
            }
        }
        let sectionStarts = input.sectionStarts
        self.frames = frames
        self.columnItems = columnItems
        self.columnStarts = columnStarts
        self.sectionStarts = sectionStarts
        self.sectionExtents = sectionExtents
        contentSize = Size(width: width, height: position)
    }
}

/// `value.rounded(.down)` without a call into libm for the usual case: a conversion truncates,
/// which is the same for values from 0 to 2⁵³ (x86-64 without SSE 4.1 has no rounding instruction).
@inline(__always)
func roundedDown(_ value: Double) -> Double {
    value >= 0 && value < 9_007_199_254_740_992 ? Double(Int64(value)) : value.rounded(.down)
}
