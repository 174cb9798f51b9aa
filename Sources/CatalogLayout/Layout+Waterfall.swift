import CatalogModel
import CCatalogSupport

/// Waterfall geometry: equal columns, each item scaled to the column width from its natural size
/// and placed in the shortest column (ties to the lowest index). Sections stack vertically, each
/// with its header, insets and footer; columns start level again in every section.
extension Layout {
    mutating func prepareWaterfall(_ input: LayoutInput) {
        let config = configuration
        let inset = config.sectionInset
        let width = viewportSize.width
        let columnCount = config.columns
        let available = width - inset.left - inset.right
        let columnWidth = max(0, ((available - Double(columnCount - 1) * config.columnSpacing) / Double(columnCount)).rounded(.down))
        let columnX = (0..<columnCount).map { inset.left + Double($0) * (columnWidth + config.columnSpacing) }
        let metrics = WaterfallMetrics(available: available, columnWidth: columnWidth, spacing: config.interitemSpacing,
                                       sectionLead: config.headerHeight + inset.top, insetBottom: inset.bottom, footerHeight: config.footerHeight)
        let itemCount = input.itemCount
        let sizing = ContentSizes(config, crossLength: available)

        // Storage from an earlier prepare is reused when this layout is its only owner.
        var columnItems = self.columnItems
        var sectionExtents = self.sectionExtents
        (self.columnItems, self.sectionExtents) = ([], [])
        var position = 0.0
        var columnStarts: [Int] = []
        var frames = self.frames
        self.frames = []
        if columnCount == 2 {
            var firstColumn = 0
            frames = Self.withStorage(&frames, count: itemCount) { out in
            columnItems = Self.withStorage(&columnItems, count: itemCount) { list in
            sectionExtents = Self.withStorage(&sectionExtents, count: input.numberOfSections) { extents in
                input.naturalSizes.withUnsafeBufferPointer { sizes in
                input.kinds.withUnsafeBufferPointer { kinds in
                input.sectionStarts.withUnsafeBufferPointer { starts in
                columnX.withUnsafeBufferPointer { columnX in
                    (position, firstColumn) = Self.placeTwoColumns(
                        metrics, sizing: sizing, columnX: columnX, sizes: sizes, kinds: kinds, sectionStarts: starts,
                        frames: out, columnItems: list, extents: extents)
                }
                }
                }
                }
            }
            }
            }
            columnStarts = [0, firstColumn, itemCount]
        } else {
            sectionExtents = Self.takeStorage(&sectionExtents, capacity: input.numberOfSections)
            // Each item's column, gathered into the columns' lists afterwards (appending to one of
            // several arrays per item checked both arrays' uniqueness and capacity every time).
            var columnOf = [UInt16](repeating: 0, count: itemCount)
            var columnCounts = [Int](repeating: 0, count: columnCount)
            var next = [Double](repeating: 0, count: columnCount)
            var bottom = [Double](repeating: 0, count: columnCount)
            frames = Self.withStorage(&frames, count: itemCount) { out in
                input.naturalSizes.withUnsafeBufferPointer { sizes in
                input.kinds.withUnsafeBufferPointer { kinds in
                next.withUnsafeMutableBufferPointer { next in
                bottom.withUnsafeMutableBufferPointer { bottom in
                columnOf.withUnsafeMutableBufferPointer { columnOf in
                columnCounts.withUnsafeMutableBufferPointer { columnCounts in
                    for s in 0..<input.numberOfSections {
                        let sectionStart = position
                        position += metrics.sectionLead
                        for c in 0..<columnCount {
                            next[c] = position
                            bottom[c] = position
                        }
                        for k in input.sectionStarts[s]..<input.sectionStarts[s + 1] {
                            let height = Self.waterfallHeight(metrics, sizing: sizing, natural: sizes[k], kind: kinds[k])
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
                            next[shortest] = y + height + metrics.spacing
                        }
                        position = (bottom.max() ?? position) + metrics.insetBottom + metrics.footerHeight
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
            columnStarts = [Int](repeating: 0, count: columnCount + 1)
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
        }
        self.frames = frames
        self.columnItems = columnItems
        self.columnStarts = columnStarts
        self.sectionStarts = input.sectionStarts
        self.sectionExtents = sectionExtents
        contentSize = Size(width: width, height: position)
    }

    /// What placing a waterfall's items needs to know.
    struct WaterfallMetrics {
        /// Room across the columns between the section insets (for kinds' default sizes).
        var available: Double
        var columnWidth: Double
        /// Between an item and the next one in its column.
        var spacing: Double
        /// Before a section's items: header and inset.
        var sectionLead: Double
        /// After them, added in this order.
        var insetBottom: Double
        var footerHeight: Double
    }

    /// An item's height: its content size scaled to the column width, rounded down.
    @inline(__always)
    static func waterfallHeight(_ metrics: WaterfallMetrics, sizing: ContentSizes, natural: Size, kind: ItemKind?) -> Double {
        let size = sizing.size(natural: natural, kind: kind)
        return size.width > 0 ? roundedDown(size.height * metrics.columnWidth / size.width) : size.height
    }

    /// Two columns — the default, and the usual waterfall — without a branch on the column.
    ///
    /// With items of varied heights, which column is shorter is a coin toss that the CPU
    /// mispredicts about half the time. So once both columns of a section hold an item, the
    /// bottoms are kept as a sorted pair (`lo`, `hi`) plus the index of the column at `lo`
    /// (0 on a tie, as ties go to the lowest index), and every step is arithmetic: the item goes
    /// at `lo` plus the spacing, then the pair is re-sorted with `min` and `max`. Column 0's items
    /// fill `columnItems` from the front, column 1's from the back, reversed at the end. Returns
    /// the content height and the number of items in column 0.
    static func placeTwoColumns(_ metrics: WaterfallMetrics, sizing: ContentSizes, columnX: UnsafeBufferPointer<Double>,
                                sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                                sectionStarts starts: UnsafeBufferPointer<Int>, frames out: UnsafeMutableBufferPointer<Rect>,
                                columnItems list: UnsafeMutableBufferPointer<Int32>,
                                extents: UnsafeMutableBufferPointer<Extent>) -> (position: Double, firstColumn: Int) {
        let (spacing, columnWidth) = (metrics.spacing, metrics.columnWidth)
        var position = 0.0
        // The next free slot of column 0's list, and the last slot taken by column 1's.
        var front = 0, back = list.count
        for s in 0..<extents.count {
            let sectionStart = position
            position += metrics.sectionLead
            var k = starts[s]
            let end = starts[s + 1]
            // Until both columns hold an item: an empty column's first item goes at the top, without spacing.
            var bottom0 = position, bottom1 = position
            var filled0 = false, filled1 = false
            while k < end, !(filled0 && filled1) {
                let height = waterfallHeight(metrics, sizing: sizing, natural: sizes[k], kind: kinds[k])
                if bottom1 < bottom0 {
                    let y = filled1 ? bottom1 + spacing : bottom1
                    out[k] = Rect(x: columnX[1], y: y, width: columnWidth, height: height)
                    bottom1 = y + height
                    filled1 = true
                    back -= 1
                    list[back] = Int32(truncatingIfNeeded: k)
                } else {
                    let y = filled0 ? bottom0 + spacing : bottom0
                    out[k] = Rect(x: columnX[0], y: y, width: columnWidth, height: height)
                    bottom0 = y + height
                    filled0 = true
                    list[front] = Int32(truncatingIfNeeded: k)
                    front += 1
                }
                k += 1
            }
            var lo = min(bottom0, bottom1), hi = max(bottom0, bottom1)
            var column = bottom1 < bottom0 ? 1 : 0
            while k < end {
                let height = waterfallHeight(metrics, sizing: sizing, natural: sizes[k], kind: kinds[k])
                let y = lo + spacing
                let bottom = y + height
                out[k] = Rect(x: columnX[column], y: y, width: columnWidth, height: height)
                back &-= column
                list[column == 0 ? front : back] = Int32(truncatingIfNeeded: k)
                front &+= 1 &- column
                // The column keeps `lo` while it is still the shorter, hands it over once it grew
                // past the other, and on a tie column 0 is the shorter.
                let below = bottom < hi ? 1 : 0, above = bottom > hi ? 1 : 0
                column = (column & below) | (above & (column ^ 1))
                lo = min(bottom, hi)
                hi = bottom > hi ? bottom : hi   // `max` without its rule for NaN and zeros: one instruction
                k += 1
            }
            position = hi + metrics.insetBottom + metrics.footerHeight
            extents[s] = Extent(lo: sectionStart, hi: position)
        }
        var secondColumn = UnsafeMutableBufferPointer(rebasing: list[back...])
        secondColumn.reverse()
        return (position, front)
    }
}

/// `value.rounded(.down)` without a call into libm for values from 0 to 2⁵² (x86-64 without
/// SSE 4.1 has no rounding instruction): they convert to an integer and back exactly, and the
/// conversion truncates. Swift's own conversion would check the range four times; one unsigned
/// comparison of the bits admits exactly +0 ..< 2⁵², as negative numbers have the sign bit set.
@inline(__always)
func roundedDown(_ value: Double) -> Double {
    let twoToThe52: Double = 4_503_599_627_370_496
    guard value.bitPattern < twoToThe52.bitPattern else { return value.rounded(.down) }
    return catalog_floor_in_range(value)
}
