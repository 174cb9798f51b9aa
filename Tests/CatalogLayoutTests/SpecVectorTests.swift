import CatalogDiff
import CatalogLayout
import CatalogModel
import Testing

/// The test vectors of docs/Layouts.md, exactly as written there.
@Suite struct SpecVectorTests {
    /// F1's configuration: W 320, insets 10, item 90×50, spacing 10/10, header 40, footer 30.
    static let f1 = LayoutConfiguration(style: .flow, itemSize: Size(width: 90, height: 50), lineSpacing: 10,
                                        interitemSpacing: 10, sectionInset: Insets(top: 10, left: 10, bottom: 10, right: 10),
                                        headerHeight: 40, footerHeight: 30)

    static func layout(_ config: LayoutConfiguration, _ input: LayoutInput, width: Double = 320, height: Double = 480,
                       offset: Point = .zero) throws -> Layout {
        let layout = try Layout(input, configuration: config, viewportSize: Size(width: width, height: height), contentOffset: offset)
        #expect(layout.invariantViolations() == [])
        return layout
    }

    static func cell(_ layout: Layout, _ item: Int, section: Int = 0) -> Rect {
        layout.attributes(forItemAt: ItemPath(section: section, item: item))!.frame
    }

    @Test func f1FlowWithHeaderAndFooter() throws {
        let layout = try Self.layout(Self.f1, LayoutInput(itemCounts: [7]))
        #expect((0..<3).map { Self.cell(layout, $0).x } == [10, 115, 220])
        #expect([0, 3, 6].map { Self.cell(layout, $0).y } == [50, 110, 170])
        #expect(Self.cell(layout, 6) == Rect(x: 10, y: 170, width: 90, height: 50))
        #expect(layout.attributes(forSupplementary: .header, inSection: 0)?.frame == Rect(x: 0, y: 0, width: 320, height: 40))
        #expect(layout.attributes(forSupplementary: .footer, inSection: 0)?.frame == Rect(x: 0, y: 230, width: 320, height: 30))
        #expect(layout.contentSize == Size(width: 320, height: 260))
    }

    @Test func f2LoneItemsAreCentred() throws {
        var config = LayoutConfiguration(style: .flow, itemSize: Size(width: 200, height: 50))
        config.sectionInset = .zero
        let layout = try Self.layout(config, LayoutInput(itemCounts: [5]))
        #expect((0..<5).map { Self.cell(layout, $0).x } == [60, 60, 60, 60, 60])
    }

    @Test func f3ShortItemsAreCentredInTheirLine() throws {
        let input = LayoutInput(sections: [LayoutSectionInput(items: [
            LayoutItemInput(size: Size(width: 50, height: 50)), LayoutItemInput(size: Size(width: 50, height: 80)),
        ])])
        let layout = try Self.layout(LayoutConfiguration(style: .flow), input)
        let line = Self.cell(layout, 1).y
        #expect(Self.cell(layout, 0).y == line + 15)
        #expect(Self.cell(layout, 0).x < Self.cell(layout, 1).x)
    }

    @Test func s1PinnedHeaders() throws {
        var config = Self.f1
        config.pinHeaders = true
        let input = LayoutInput(itemCounts: [7])
        for (offset, expected) in [(100.0, 100.0), (200, 190), (-20, 0)] {
            let layout = try Self.layout(config, input, offset: Point(x: 0, y: offset))
            let header = layout.attributes(forSupplementary: .header, inSection: 0)!
            #expect(header.frame.y == expected, "offset \(offset)")
            #expect(header.zIndex > layout.attributes(forItemAt: ItemPath(section: 0, item: 0))!.zIndex)
        }
    }

    @Test func w1Waterfall() throws {
        let sizes = [(100.0, 100.0), (100, 50), (100, 200), (100, 100)]
        let input = LayoutInput(sections: [LayoutSectionInput(items: sizes.map {
            LayoutItemInput(size: Size(width: $0.0, height: $0.1))
        })])
        let layout = try Self.layout(LayoutConfiguration(style: .waterfall, columns: 2), input)
        #expect((0..<4).map { Self.cell(layout, $0) } == [
            Rect(x: 0, y: 0, width: 155, height: 155), Rect(x: 165, y: 0, width: 155, height: 77),
            Rect(x: 165, y: 87, width: 155, height: 310), Rect(x: 0, y: 165, width: 155, height: 155),
        ])
        #expect(layout.contentSize.height == 397)
    }

    @Test func c1Circular() throws {
        let layout = try Self.layout(LayoutConfiguration(style: .circular), LayoutInput(itemCounts: [4]), width: 300, height: 400)
        let centres = (0..<4).map { Self.cell(layout, $0).center }
        let expected = [Point(x: 270, y: 200), Point(x: 150, y: 320), Point(x: 30, y: 200), Point(x: 150, y: 80)]
        for (got, want) in zip(centres, expected) {
            #expect(abs(got.x - want.x) < 1e-9 && abs(got.y - want.y) < 1e-9, "\(got) ≠ \(want)")
        }
        #expect(Self.cell(layout, 0).size == Size(width: 70, height: 70))
        #expect(layout.contentSize == Size(width: 300, height: 400))
    }

    @Test func b1ShelfDecoration() throws {
        var config = Self.f1
        config.style = .shelf
        let layout = try Self.layout(config, LayoutInput(itemCounts: [7]))
        let board = layout.attributes(forSupplementary: .decoration, inSection: 0)!
        #expect(board.frame == Rect(x: 0, y: 40, width: 320, height: 190))
        #expect(board.zIndex == -1)
        // Cells are where F1 puts them.
        #expect(Self.cell(layout, 6) == Rect(x: 10, y: 170, width: 90, height: 50))
    }
}
