import CatalogLayout
import CatalogModel
import Testing

/// `Layout.dependsOnContentOffset` is the one statement of whether scrolling changes a layout's
/// attributes (the UIKit adapter invalidates on it; the console asks again on it): a layout that
/// says no gives the same attributes at every offset, and the layouts that say yes do change.
@Suite struct ContentOffsetDependenceTests {
    @Test(arguments: 0..<4)
    func aLayoutThatSaysNoIsTheSameAtEveryOffset(batch: UInt64) throws {
        var random = RandomLayouts(seed: 7_100 + batch)
        var changed = 0, flagged = 0
        for _ in 0..<150 {
            let layout = try random.layout()
            let all = Rect(x: -1_000, y: -1_000, width: layout.contentSize.width + 2_000, height: layout.contentSize.height + 2_000)
            var other = layout
            other.contentOffset = Point(x: random.double(-50...max(0, layout.contentSize.width)),
                                        y: random.double(-50...max(0, layout.contentSize.height)))
            let differs = layout.elements(in: all) != other.elements(in: all)
            let says = layout.dependsOnContentOffset
            if says { flagged += 1 }
            if differs {
                changed += 1
                #expect(says, "\(layout.style) changed with the offset but says it does not depend on it")
            }
        }
        // The seeds hold layouts that do change with the offset (so the check above is exercised).
        #expect(changed > 0 && flagged >= changed)
    }

    @Test func whatDependsOnTheOffset() throws {
        let input = LayoutInput(sections: [LayoutSectionInput(title: "S", items: (0..<5).map { LayoutItemInput(size: nil, kind: .book, label: "\($0)") })])
        let viewport = Size(width: 320, height: 480)
        for style in LayoutStyle.allCases {
            let plain = try Layout(input, configuration: LayoutConfiguration(style: style), viewportSize: viewport)
            #expect(plain.dependsOnContentOffset == (style == .carousel), "\(style)")
            var pinned = LayoutConfiguration(style: style)
            pinned.pinFooters = true
            // Pinning matters only where there are headers and footers to pin.
            #expect(try Layout(input, configuration: pinned, viewportSize: viewport).dependsOnContentOffset
                    == (style.stacksSections || style == .carousel), "\(style) with pinned footers")
        }
    }
}
