import CatalogModel

/// Structural checks of a prepared layout, as swift-collections does for its types: debug builds
/// run them after every prepare, tests call them directly.
extension Layout {
    /// Every broken invariant, in words; empty for a sound layout.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { problems.append(message()) }
        }
        expect(sectionStarts.first == 0 && sectionStarts.last == frames.count,
               "section starts \(sectionStarts.first ?? -1)…\(sectionStarts.last ?? -1) do not cover \(frames.count) items")
        for s in 0..<numberOfSections {
            expect(sectionStarts[s] <= sectionStarts[s + 1], "section \(s) starts after section \(s + 1)")
        }
        for (index, frame) in frames.enumerated() where !(frame.x.isFinite && frame.y.isFinite
                                                           && frame.width >= 0 && frame.height >= 0) {
            problems.append("item \(index) has frame \(frame)")
        }
        expect(contentSize.width.isFinite && contentSize.height.isFinite, "content size is not finite")

        switch style {
        case .flow, .shelf, .carousel:
            var next = 0
            var previous = Band(lo: -.infinity, hi: -.infinity, start: 0, end: 0)
            for band in bands {
                expect(Int(band.start) == next && band.end > band.start,
                       "line \(band.start)..<\(band.end) does not continue at item \(next)")
                expect(band.lo >= previous.lo && band.hi >= previous.hi, "lines are not in scroll order")
                var crossEnd = -Double.infinity
                for k in Int(band.start)..<min(Int(band.end), frames.count) {
                    let f = frames[k]
                    let (lo, hi) = isHorizontal ? (f.minX, f.maxX) : (f.minY, f.maxY)
                    expect(lo >= band.lo - 1e-9 && hi <= band.hi + 1e-9, "item \(k) sticks out of its line")
                    let (crossLo, crossHi) = isHorizontal ? (f.minY, f.maxY) : (f.minX, f.maxX)
                    expect(crossLo >= crossEnd - 1e-9, "item \(k) overlaps the item before it in its line")
                    crossEnd = crossHi
                }
                next = Int(band.end)
                previous = band
            }
            expect(next == frames.count, "lines cover \(next) of \(frames.count) items")
        case .waterfall:
            var seen = [Bool](repeating: false, count: frames.count)
            expect(columnStarts.count == configuration.columns + 1 && columnStarts.first == 0
                   && columnStarts.last == columnItems.count && zip(columnStarts, columnStarts.dropFirst()).allSatisfy { $0 <= $1 },
                   "column starts \(columnStarts.prefix(8)) do not partition \(columnItems.count) items")
            for c in 0..<max(0, columnStarts.count - 1) {
                var bottom = -Double.infinity
                for index in columnItems[columnStarts[c]..<columnStarts[c + 1]].map(Int.init) {
                    guard index < frames.count, !seen[index] else {
                        problems.append("item \(index) is listed twice or out of range in the columns")
                        continue
                    }
                    seen[index] = true
                    expect(frames[index].minY >= bottom, "item \(index) overlaps the item above it in its column")
                    bottom = frames[index].maxY
                }
            }
            expect(!seen.contains(false), "some items are in no column")
        case .circular:
            break
        }
        if style.stacksSections {
            for s in 0..<sectionExtents.count {
                expect(sectionExtents[s].lo <= sectionExtents[s].hi, "section \(s) ends before it starts")
                if s > 0 { expect(sectionExtents[s].lo >= sectionExtents[s - 1].hi - 1e-9, "section \(s) overlaps section \(s - 1)") }
            }
        }
        return problems
    }

    /// Traps with the list of broken invariants; debug builds call it after every prepare.
    package func checkInvariants() {
        let problems = invariantViolations()
        precondition(problems.isEmpty, "Layout invariants broken: " + problems.joined(separator: "; "))
    }
}
