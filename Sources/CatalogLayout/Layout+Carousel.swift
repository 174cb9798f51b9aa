import CatalogModel

/// Carousel geometry: all items in one horizontal row (sections follow each other), centred
/// vertically, `lineSpacing` apart, with side insets `(W − itemWidth)/2` so the first and last
/// items can reach the centre. Cells scale with their distance from the visible centre, and
/// scrolling comes to rest with an item centred.
extension Layout {
    mutating func prepareCarousel(_ input: LayoutInput) {
        let size = uniformItemSize(input, fallback: nil)
        let width = viewportSize.width
        let side = max(0, (width - size.width) / 2)
        let y = max(0, (viewportSize.height - size.height) / 2)
        let count = input.itemCount
        let step = size.width + configuration.lineSpacing
        frames = (0..<count).map { Rect(x: side + Double($0) * step, y: y, width: size.width, height: size.height) }
        bands = (0..<count).map { Band(lo: frames[$0].minX, hi: frames[$0].maxX, start: Int32($0), end: Int32($0 + 1)) }
        sectionStarts = input.sectionStarts
        let x = side + Double(count) * step
        let contentWidth = count == 0 ? width : x - configuration.lineSpacing + side
        contentSize = Size(width: max(width, contentWidth), height: viewportSize.height)
    }

    /// A carousel cell's scale: `max(minScale, 1 − 0.5·|center.x − visibleMidX| / W)`.
    @inline(__always)
    func carouselScale(of frame: Rect) -> Double {
        let visibleMidX = contentOffset.x + viewportSize.width / 2
        return max(configuration.minScale, 1 - 0.5 * abs(frame.midX - visibleMidX) / viewportSize.width)
    }

    /// The index of the cell whose centre is nearest `x`, ties to the first; `nil` when empty.
    func carouselItem(nearestTo x: Double) -> Int? {
        guard !frames.isEmpty else { return nil }
        // Centres increase with the index: find the first centre at or past x, then compare neighbours.
        var lo = 0, hi = frames.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if frames[mid].midX < x { lo = mid + 1 } else { hi = mid }
        }
        if lo == frames.count { return frames.count - 1 }
        if lo == 0 { return 0 }
        return (x - frames[lo - 1].midX) <= (frames[lo].midX - x) ? lo - 1 : lo
    }

    func carouselTargetOffset(proposed: Point, velocity: Point) -> Point {
        let width = viewportSize.width
        let maxX = max(0, contentSize.width - width)
        guard var target = carouselItem(nearestTo: proposed.x + width / 2) else {
            return Point(x: min(max(proposed.x, 0), maxX), y: 0)
        }
        let threshold = configuration.flingThreshold
        if abs(velocity.x) > threshold, let current = carouselItem(nearestTo: contentOffset.x + width / 2) {
            // A fling moves at least one item in its direction, however short the proposed travel.
            if velocity.x > 0, target <= current { target = min(frames.count - 1, current + 1) }
            if velocity.x < 0, target >= current { target = max(0, current - 1) }
        }
        let x = frames[target].midX - width / 2
        return Point(x: min(max(x, 0), maxX), y: 0)
    }
}
