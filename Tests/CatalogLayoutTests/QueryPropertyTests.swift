import CatalogLayout
import CatalogModel
import Testing

/// `elements(in:)` and `indexPath(at:)` answer exactly what a scan of every element answers, on
/// random layouts of every style, random rects and random points (many on cell edges).
@Suite struct QueryPropertyTests {
    @Test(arguments: 0..<8)
    func rectQueriesMatchBruteForce(batch: Int) throws {
        var random = RandomLayouts(seed: UInt64(1_000 + batch))
        for round in 0..<250 {
            let layout = try random.layout()
            #expect(layout.invariantViolations() == [])
            for _ in 0..<8 {
                let rect = random.rect(in: layout)
                let fast = layout.elements(in: rect), slow = BruteForce.elements(layout, in: rect)
                #expect(fast == slow, "batch \(batch) round \(round) \(layout.style) rect \(rect): \(fast.count) vs \(slow.count)")
                if fast != slow { return }
            }
        }
    }

    @Test(arguments: 0..<8)
    func hitTestsMatchBruteForce(batch: Int) throws {
        var random = RandomLayouts(seed: UInt64(2_000 + batch))
        for round in 0..<250 {
            let layout = try random.layout()
            for _ in 0..<8 {
                let point = random.point(in: layout)
                let fast = layout.indexPath(at: point), slow = BruteForce.indexPath(layout, at: point)
                #expect(fast == slow, "batch \(batch) round \(round) \(layout.style) \(layout.configuration.scrollDirection) point \(point) frames \(layout.allElements.filter { $0.kind == .cell && $0.visibleFrame.contains(point) }.map(\.frame))")
                if fast != slow { return }
            }
        }
    }

    @Test func everyCellIsFoundAtItsCentreAndInTheVisibleRect() throws {
        var random = RandomLayouts(seed: 7)
        for _ in 0..<200 {
            let layout = try random.layout()
            guard layout.style != .circular else { continue }   // circular cells may overlap
            for element in layout.allElements where element.kind == .cell && element.frame.width > 0 && element.frame.height > 0 {
                #expect(layout.indexPath(at: element.center) == element.indexPath, "\(layout.style) \(layout.configuration.scrollDirection) \(element.frame)")
            }
        }
    }
}
