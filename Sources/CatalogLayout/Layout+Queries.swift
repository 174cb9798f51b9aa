import CatalogModel

/// Rect queries and hit tests in O(log n + k): binary searches over lines (flow, shelf, carousel),
/// over each column (waterfall), or over the circle's arcs (circular), never a scan of every item.
extension Layout {
    /// Every element whose frame intersects `rect` (with a positive area), section by section:
    /// decoration, header, cells, footer. A pinned header or footer is included where the
    /// current offset puts it, and whenever any item of its section intersects `rect`.
    public func elements(in rect: Rect) -> [LayoutAttributes] {
        var cells: [Int] = []
        cellCandidates(in: rect, into: &cells)
        var result: [LayoutAttributes] = []
        result.reserveCapacity(cells.count + 8)

        switch configuration.style {
        case .circular, .carousel:
            // No supplementary views: group the cells by section.
            var position = 0
            while position < cells.count {
                let section = section(ofItem: cells[position])
                var end = position
                while end < cells.count, cells[end] < sectionStarts[section + 1] { end += 1 }
                appendSection(section, cells: cells[position..<end], into: &result) { _ in false }
                position = end
            }
        case .flow, .shelf, .waterfall:
            let lo = isHorizontal ? rect.minX : rect.minY, hi = isHorizontal ? rect.maxX : rect.maxY
            // Sections are stacked along the scroll axis: the first one that ends after `lo`.
            var section = firstIndex(count: sectionExtents.count) { sectionExtents[$0].hi > lo }
            var position = 0
            while section < sectionExtents.count, sectionExtents[section].lo < hi {
                var end = position
                while end < cells.count, cells[end] < sectionStarts[section + 1] { end += 1 }
                let hasCells = end > position
                appendSection(section, cells: cells[position..<end], into: &result) { element in
                    element.frame.intersects(rect)
                        || (hasCells && ((element.kind == .header && configuration.pinHeaders)
                                         || (element.kind == .footer && configuration.pinFooters)))
                }
                position = end
                section += 1
            }
        }
        return result
    }

    /// The cell under `point` — the topmost where cells overlap (highest zIndex, then the later
    /// index), tested against the frame as drawn (scaled in a carousel); `nil` over empty space.
    public func indexPath(at point: Point) -> IndexPath? {
        guard point.x.isFinite, point.y.isFinite else { return nil }
        // A rectangle one representable step wide: it intersects exactly the frames that contain the point.
        let probe = Rect(x: point.x, y: point.y, width: point.x.nextUp - point.x, height: point.y.nextUp - point.y)
        var cells: [Int] = []
        cellCandidates(in: probe, into: &cells)
        var best: (index: Int, zIndex: Int)?
        for index in cells {
            let attributes = cellAttributes(index, IndexPath(section: 0, item: 0))
            guard attributes.visibleFrame.contains(point) else { continue }
            if best == nil || attributes.zIndex >= best!.zIndex { best = (index, attributes.zIndex) }
        }
        guard let best else { return nil }
        let section = section(ofItem: best.index)
        return IndexPath(section: section, item: best.index - sectionStarts[section])
    }

    /// Where scrolling should come to rest when the user lifts a finger with `velocity` and
    /// UIKit proposes `proposed`: a carousel centres the nearest item (a fling advances at least
    /// one); every style clamps to the content.
    public func targetContentOffset(proposed: Point, velocity: Point = .zero) -> Point {
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
        // The last section whose start is ≤ index and which is not empty.
        var lo = 0, hi = numberOfSections
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
            for column in columnItems {
                guard let first = column.first else { continue }
                let columnFrame = frames[Int(first)]
                guard columnFrame.minX < rect.maxX, rect.minX < columnFrame.maxX else { continue }
                // Items in a column are stacked: both minY and maxY grow down the column.
                var k = firstIndex(count: column.count) { frames[Int(column[$0])].maxY > rect.minY }
                while k < column.count {
                    let index = Int(column[k])
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
        let horizontal = isHorizontal
        let lo = horizontal ? rect.minX : rect.minY, hi = horizontal ? rect.maxX : rect.maxY
        let crossLo = horizontal ? rect.minY : rect.minX, crossHi = horizontal ? rect.maxY : rect.maxX
        var b = firstIndex(count: bands.count) { bands[$0].hi > lo }
        while b < bands.count, bands[b].lo < hi {
            let band = bands[b]
            let start = Int(band.start), end = Int(band.end)
            // Within a line items follow each other along the cross axis without overlapping.
            var k = start + firstIndex(count: end - start) { offset in
                let f = frames[start + offset]
                return (horizontal ? f.maxY : f.maxX) > crossLo
            }
            while k < end {
                let frame = frames[k]
                if (horizontal ? frame.minY : frame.minX) >= crossHi { break }
                if frame.intersects(rect) { result.append(k) }
                k += 1
            }
            b += 1
        }
    }
}
