import CatalogDiff
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

/// Preparing a layout again — new data, a new viewport — gives exactly what a new layout gives.
@Suite struct PrepareAgainTests {
    @Test func preparingAgainEqualsANewLayout() throws {
        var random = RandomLayouts(seed: 31)
        for _ in 0..<300 {
            var layout = try random.layout()
            let input = random.input()
            let viewport = random.bool() ? layout.viewportSize : Size(width: random.length(120...500), height: random.length(120...700))
            try layout.prepare(input, viewportSize: viewport)
            let fresh = try Layout(input, configuration: layout.configuration, viewportSize: viewport, contentOffset: layout.contentOffset)
            #expect(layout.allElements == fresh.allElements)
            #expect(layout.contentSize == fresh.contentSize)
            #expect(layout.invariantViolations() == [])
            let rect = random.rect(in: layout)
            #expect(layout.elements(in: rect) == fresh.elements(in: rect))
        }
    }

    @Test func aCopyKeepsItsGeometryWhenTheOriginalPreparesAgain() throws {
        var layout = try Layout(LayoutInput(itemCounts: [7]), configuration: SpecVectorTests.f1, viewportSize: Size(width: 320, height: 480))
        let copy = layout
        try layout.prepare(LayoutInput(itemCounts: [2, 2]))
        #expect(copy.numberOfItems == 7)
        #expect(copy.attributes(forItemAt: ItemPath(section: 0, item: 6))?.frame == Rect(x: 10, y: 170, width: 90, height: 50))
        #expect(layout.numberOfSections == 2)
        #expect(throws: LayoutConfigurationError.self) { try layout.prepare(LayoutInput(itemCounts: [1]), viewportSize: Size(width: -1, height: 3)) }
    }
}
