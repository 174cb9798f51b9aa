import CatalogDiff
import CatalogModel

/// Rect queries and hit tests in O(log n + k): binary searches over lines (flow, shelf, carousel),
/// over each column (waterfall), or over the circle's arcs (circular), never a scan of every item.
extension Layout {
    /// Every element whose frame intersects `rect` (with a positive area), section by section:
    /// decoration, header, cells, footer. A pinned header or footer is included where the
    /// current offset puts it, and whenever any item of its section intersects `rect`.
    public func elements(in rect: Rect) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        guard configuration.style.stacksSections else {
            // No supplementary views: the cells, grouped by section.
            var cells: [Int] = []
            cellCandidates(in: rect, into: &cells)
            result.reserveCapacity(cells.count)
            var position = 0
            while position < cells.count {
                let section = section(ofItem: cells[position])
                var end = position
                while end < cells.count, cells[end] < sectionStarts[section + 1] { end += 1 }
                appendSection(section, cells: .listed(cells[position..<end]), rect: rect, into: &result)
                position = end
            }
            return result
        }
        switch configuration.style {
        case .waterfall:
            var cells: [Int] = []
            cellCandidates(in: rect, into: &cells)
            result.reserveCapacity(cells.count + 8)
            var position = 0
            forEachSection(intersecting: rect) { section in
                var end = position
                while end < cells.count, cells[end] < sectionStarts[section + 1] { end += 1 }
                appendSection(section, cells: .listed(cells[position..<end]), rect: rect, into: &result)
                position = end
            }
        case .flow, .shelf:
            // Straight from the lines: no list of candidates in between.
            result.reserveCapacity(64)
            var firstSection = true
            forEachSection(intersecting: rect) { section in
                let lines = Int(sectionBands[section])..<Int(sectionBands[section + 1])
                // Only the first section needs a search; later ones start at their first line.
                let first = firstSection ? firstLine(in: lines, endingAfter: isHorizontal ? rect.minX : rect.minY) : lines.lowerBound
                firstSection = false
                appendSection(section, cells: .inLines(first..<lines.upperBound), rect: rect, into: &result)
            }
        case .circular, .carousel:
            break  // sections not stacked: answered above
        }
        return result
    }

    /// Calls `body` with every section whose extent along the scroll axis overlaps `rect`, in order.
    @inline(__always)
    private func forEachSection(intersecting rect: Rect, _ body: (Int) -> Void) {
        let lo = isHorizontal ? rect.minX : rect.minY, hi = isHorizontal ? rect.maxX : rect.maxY
        var section = firstIndex(count: sectionExtents.count) { sectionExtents[$0].hi > lo }
        while section < sectionExtents.count, sectionExtents[section].lo < hi {
            body(section)
            section += 1
        }
    }

    /// One section's elements that meet `rect` (all of them for `nil`): its board, header, cells
    /// and footer — with a pinned header or footer whenever any of its cells is there.
    @inline(__always)
    func appendSection(_ section: Int, cells: CellSource, rect: Rect?, into result: inout [LayoutAttributes]) {
        func meets(_ frame: Rect) -> Bool { rect.map(frame.intersects) ?? true }
        if let board = attributes(forSupplementary: .decoration, inSection: section), meets(board.frame) {
            result.append(board)
        }
        let header = attributes(forSupplementary: .header, inSection: section)
        let headerIndex = result.count
        var headerAdded = false
        if let header, meets(header.frame) {
            result.append(header)
            headerAdded = true
        }
        let cellsStart = result.count
        let start = sectionStarts[section]
        switch cells {
        case .all:
            for index in start..<sectionStarts[section + 1] {
                result.append(cellAttributes(index, ItemPath(section: section, item: index - start)))
            }
        case .listed(let indices):
            for index in indices {
                result.append(cellAttributes(index, ItemPath(section: section, item: index - start)))
            }
        case .inLines(let lines):
            // Walking lines is only for queries, which have a rect.
            forEachCell(inLines: lines, intersecting: rect!) { index in
                result.append(cellAttributes(index, ItemPath(section: section, item: index - start)))
            }
        }
        let hasCells = result.count > cellsStart
        if let header, !headerAdded, hasCells, configuration.pinHeaders {
            result.insert(header, at: headerIndex)
        }
        if let footer = attributes(forSupplementary: .footer, inSection: section),
           meets(footer.frame) || (hasCells && configuration.pinFooters) {
            result.append(footer)
        }
    }

    /// The first line in `lines` that ends after `lo` along the scroll axis.
    @inline(__always)
    private func firstLine(in lines: Range<Int>, endingAfter lo: Double) -> Int {
        lines.lowerBound + firstIndex(count: lines.count) { bands[lines.lowerBound + $0].hi > lo }
    }

    /// The cell under `point` — the topmost where cells overlap (highest zIndex, then the later
    /// index), tested against the frame as drawn (scaled in a carousel); `nil` over empty space.
    public func indexPath(at point: Point) -> ItemPath? {
        guard point.x.isFinite, point.y.isFinite else { return nil }
        // A rectangle one representable step wide: it intersects exactly the frames that contain the point.
        let probe = Rect(x: point.x, y: point.y, width: point.x.nextUp - point.x, height: point.y.nextUp - point.y)
        var cells: [Int] = []
        cellCandidates(in: probe, into: &cells)
        var best: (index: Int, zIndex: Int)?
        for index in cells {
            let attributes = cellAttributes(index, ItemPath(section: 0, item: 0))
            guard attributes.visibleFrame.contains(point) else { continue }
            if best == nil || attributes.zIndex >= best!.zIndex { best = (index, attributes.zIndex) }
        }
        guard let best else { return nil }
        let section = section(ofItem: best.index)
        return ItemPath(section: section, item: best.index - sectionStarts[section])
    }

    /// Where scrolling should come to rest when the user lifts a finger with `velocity` and
    /// UIKit proposes `proposed`: a carousel centres the nearest item (a fling advances at least
    /// one); every style clamps to the content. A coordinate that is not a number stays where
    /// the layout is scrolled (a velocity that is not a number is no fling).
    public func targetContentOffset(proposed: Point, velocity: Point = .zero) -> Point {
        let proposed = Point(x: proposed.x.isNaN ? contentOffset.x : proposed.x,
                             y: proposed.y.isNaN ? contentOffset.y : proposed.y)
        if configuration.style == .carousel {
            return carouselTargetOffset(proposed: proposed, velocity: velocity)
        }
        let maxX = max(0, contentSize.width - viewportSize.width)
        let maxY = max(0, contentSize.height - viewportSize.height)
        return Point(x: min(max(proposed.x, 0), maxX), y: min(max(proposed.y, 0), maxY))
    }

    // MARK: Internals

    /// The section holding global item `index` (binary search over section starts).
    func section(ofItem index: Int) -> Int {
        Self.section(ofItem: index, sectionStarts: sectionStarts)
    }

    /// The section holding global item `index`, given each section's first item and one extra
    /// entry at the end: the first section that ends after `index` (skipping empty sections).
    static func section(ofItem index: Int, sectionStarts: [Int]) -> Int {
        var lo = 0, hi = sectionStarts.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if sectionStarts[mid + 1] <= index { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first index in `0..<count` for which `isPast` holds, given that it is false then true.
    @inline(__always)
    func firstIndex(count: Int, where isPast: (Int) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isPast(mid) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// Global indices of the cells whose (untransformed) frame intersects `rect`, ascending.
    func cellCandidates(in rect: Rect, into result: inout [Int]) {
        switch configuration.style {
        case .flow, .shelf, .carousel:
            bandCandidates(in: rect, into: &result)
        case .waterfall:
            for c in 0..<columnStarts.count - 1 {
                let start = columnStarts[c], count = columnStarts[c + 1] - start
                guard count > 0 else { continue }
                let columnFrame = frames[Int(columnItems[start])]
                guard columnFrame.minX < rect.maxX, rect.minX < columnFrame.maxX else { continue }
                // Items in a column are stacked: both minY and maxY grow down the column.
                var k = firstIndex(count: count) { frames[Int(columnItems[start + $0])].maxY > rect.minY }
                while k < count {
                    let index = Int(columnItems[start + k])
                    let frame = frames[index]
                    if frame.minY >= rect.maxY { break }
                    if frame.intersects(rect) { result.append(index) }
                    k += 1
                }
            }
            result.sort()
        case .circular:
            circularCandidates(in: rect, into: &result)
        }
    }

    private func bandCandidates(in rect: Rect, into result: inout [Int]) {
        let first = firstLine(in: 0..<bands.count, endingAfter: isHorizontal ? rect.minX : rect.minY)
        forEachCell(inLines: first..<bands.count, intersecting: rect) { result.append($0) }
    }

    /// Where a section's cells come from: all of them, a list found beforehand, or lines to walk.
    enum CellSource {
        case all
        case listed(ArraySlice<Int>)
        case inLines(Range<Int>)
    }

    /// Calls `body` with the index of every cell of `lines` that intersects `rect`, in order: lines
    /// stop once they start past the rect; within a line a binary search finds the first cell
    /// across, and the walk stops past the rect's far edge.
    @inline(__always)
    func forEachCell(inLines lines: Range<Int>, intersecting rect: Rect, _ body: (Int) -> Void) {
        let horizontal = isHorizontal
        let hi = horizontal ? rect.maxX : rect.maxY
        let crossLo = horizontal ? rect.minY : rect.minX, crossHi = horizontal ? rect.maxY : rect.maxX
        frames.withUnsafeBufferPointer { frames in
            bands.withUnsafeBufferPointer { bands in
                for line in lines {
                    let band = bands[line]
                    if band.lo >= hi { break }
                    let start = Int(band.start), end = Int(band.end)
                    // Within a line items follow each other across without overlapping.
                    var lo = start, top = end
                    while lo < top {
                        let mid = (lo + top) / 2
                        if (horizontal ? frames[mid].maxY : frames[mid].maxX) > crossLo { top = mid } else { lo = mid + 1 }
                    }
                    for index in lo..<end {
                        let frame = frames[index]
                        if (horizontal ? frame.minY : frame.minX) >= crossHi { break }
                        if frame.intersects(rect) { body(index) }
                    }
                }
            }
        }
    }
}
