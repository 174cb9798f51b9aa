#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CatalogModel

/// Circular geometry: every item (all sections, in order) on one circle of radius
/// `0.4·min(W, H)` around the viewport's centre, item i of N at angle `2πi/N` (0 at 3 o'clock,
/// clockwise since y grows downward). Content size = viewport; no headers or footers.
extension Layout {
    /// The circle's radius and centre.
    var circle: (radius: Double, center: Point) {
        (0.4 * min(viewportSize.width, viewportSize.height),
         Point(x: viewportSize.width / 2, y: viewportSize.height / 2))
    }

    /// The size of every item in circular and carousel layouts, which do not size from content.
    func uniformItemSize(_ input: LayoutInput, fallback: Size?) -> Size {
        if let itemSize = configuration.itemSize { return itemSize }
        if let fallback { return fallback }
        let kind = input.kinds.first ?? nil
        return LayoutConfiguration.defaultSize(for: kind, crossLength: viewportSize.width, spacing: configuration.lineSpacing)
    }

    mutating func prepareCircular(_ input: LayoutInput) {
        let size = uniformItemSize(input, fallback: Size(width: 70, height: 70))
        let (radius, center) = circle
        let count = input.itemCount
        frames = (0..<count).map { index in
            let angle = 2 * Double.pi * Double(index) / Double(count)
            let x = center.x + radius * cos(angle), y = center.y + radius * sin(angle)
            return Rect(x: x - size.width / 2, y: y - size.height / 2, width: size.width, height: size.height)
        }
        sectionStarts = input.sectionStarts
        contentSize = viewportSize
    }

    /// Candidates for a rect query on the circle, in index order: every item whose centre lies in
    /// `rect` grown by half an item, found from the arcs of the circle inside it — O(1 + k).
    func circularCandidates(in rect: Rect, into result: inout [Int]) {
        let count = frames.count
        guard count > 0 else { return }
        let size = frames[0].size
        let (radius, center) = circle
        // Centres that can matter, relative to the circle's centre and in units of the radius.
        // A little slack keeps centres exactly on the boundary (a point on a cell's corner) inside.
        let slack = 1e-9
        let x0 = (rect.minX - size.width / 2 - center.x) / radius - slack
        let x1 = (rect.maxX + size.width / 2 - center.x) / radius + slack
        let y0 = (rect.minY - size.height / 2 - center.y) / radius - slack
        let y1 = (rect.maxY + size.height / 2 - center.y) / radius + slack
        guard x0 <= 1, x1 >= -1, y0 <= 1, y1 >= -1, radius > 0 else { return }
        let cosArcs = arcs(cosineFrom: x0, to: x1)
        let sinArcs = arcs(sineFrom: y0, to: y1)
        let step = 2 * Double.pi / Double(count)
        // Index 0 sits at angle 0 and 2π alike: always test both ends of the circle.
        var ranges: [(first: Int, last: Int)] = [(0, 0), (count - 1, count - 1)]
        for a in cosArcs {
            for b in sinArcs {
                let lo = max(a.0, b.0) - slack, hi = min(a.1, b.1) + slack
                guard lo <= hi else { continue }
                // One index of slack on each side absorbs rounding; the exact test below decides.
                ranges.append((max(0, Int((lo / step).rounded(.down)) - 1),
                               min(count - 1, Int((hi / step).rounded(.up)) + 1)))
            }
        }
        ranges.sort { $0.first < $1.first }
        var next = 0
        for range in ranges {
            var index = max(range.first, next)
            while index <= range.last {
                if frames[index].intersects(rect) { result.append(index) }
                index += 1
            }
            next = max(next, range.last + 1)
        }
    }

    /// Angles in [0, 2π] where cos θ ∈ [lo, hi], as closed intervals.
    private func arcs(cosineFrom lo: Double, to hi: Double) -> [(Double, Double)] {
        let a = acos(min(1, max(-1, hi))), b = acos(min(1, max(-1, lo)))   // 0 ≤ a ≤ b ≤ π
        return [(a, b), (2 * Double.pi - b, 2 * Double.pi - a)]
    }

    /// Angles in [0, 2π] where sin θ ∈ [lo, hi], as closed intervals.
    private func arcs(sineFrom lo: Double, to hi: Double) -> [(Double, Double)] {
        let a = asin(min(1, max(-1, lo))), b = asin(min(1, max(-1, hi)))   // −π/2 ≤ a ≤ b ≤ π/2
        var result: [(Double, Double)] = [(Double.pi - b, Double.pi - a)]
        if a >= 0 {
            result.append((a, b))
        } else if b >= 0 {
            result.append((0, b))
            result.append((2 * Double.pi + a, 2 * Double.pi))
        } else {
            result.append((2 * Double.pi + a, 2 * Double.pi + b))
        }
        return result
    }
}
