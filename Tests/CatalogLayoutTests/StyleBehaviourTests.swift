import CatalogDiff
@testable import CatalogLayout
import CatalogModel
import Foundation
import Testing

/// Behaviour beyond the test vectors of docs/Layouts.md: horizontal flow, pinned footers, default sizes, carousel
/// scaling and snapping, offsets clamped to the content, configuration files.
@Suite struct StyleBehaviourTests {
    @Test func horizontalFlowSwapsTheAxes() throws {
        var config = SpecVectorTests.f1
        config.scrollDirection = .horizontal
        config.itemSize = Size(width: 50, height: 90)
        // Viewport height 320 plays F1's width: columns of three items at y 10, 115, 220.
        let layout = try Layout(LayoutInput(itemCounts: [7]), configuration: config, viewportSize: Size(width: 480, height: 320))
        #expect((0..<3).map { SpecVectorTests.cell(layout, $0).y } == [10, 115, 220])
        #expect([0, 3, 6].map { SpecVectorTests.cell(layout, $0).x } == [50, 110, 170])
        #expect(layout.attributes(forSupplementary: .header, inSection: 0)?.frame == Rect(x: 0, y: 0, width: 40, height: 320))
        #expect(layout.attributes(forSupplementary: .footer, inSection: 0)?.frame == Rect(x: 230, y: 0, width: 30, height: 320))
        #expect(layout.contentSize == Size(width: 260, height: 320))
    }

    /// `stacksSections` is the one answer to "does this style stack its sections": headers,
    /// footers, the section under a point and the rect query's headers all follow it.
    @Test(arguments: LayoutStyle.allCases)
    func stackedSectionsHaveHeadersFootersAndExtents(style: LayoutStyle) throws {
        var config = SpecVectorTests.f1
        config.style = style
        config.headerHeight = 30
        config.footerHeight = 20
        let layout = try Layout(LayoutInput(itemCounts: [4, 3]), configuration: config, viewportSize: Size(width: 320, height: 480))
        let header = layout.attributes(forSupplementary: .header, inSection: 1)
        #expect((header != nil) == style.stacksSections)
        #expect((layout.attributes(forSupplementary: .footer, inSection: 0) != nil) == style.stacksSections)
        let kinds = Set(layout.elements(in: Rect(x: 0, y: 0, width: 320, height: 2_000)).map(\.kind))
        #expect(kinds.contains(.header) == style.stacksSections)
        let cell = SpecVectorTests.cell(layout, 0, section: 1)
        let section = layout.section(at: Point(x: cell.midX, y: cell.midY))
        #expect(section == (style.stacksSections ? 1 : nil))
    }

    @Test func sectionsFollowEachOtherAndPinnedHeadersPushOut() throws {
        var config = SpecVectorTests.f1
        config.pinHeaders = true
        var layout = try Layout(LayoutInput(itemCounts: [7, 3]), configuration: config, viewportSize: Size(width: 320, height: 200))
        // Section 1 starts where section 0's footer ends.
        #expect(layout.attributes(forSupplementary: .header, inSection: 1)?.frame.y == 260)
        #expect(SpecVectorTests.cell(layout, 0, section: 1).y == 310)
        layout.contentOffset = Point(x: 0, y: 300)
        #expect(layout.attributes(forSupplementary: .header, inSection: 1)?.frame.y == 300)
        // Section 0's header went as far as its items allow (220 + 10 − 40 = 190).
        #expect(layout.attributes(forSupplementary: .header, inSection: 0)?.frame.y == 190)
        // A query over section 1's items alone still returns its pinned header.
        let kinds = layout.elements(in: Rect(x: 0, y: 340, width: 320, height: 10)).map(\.kind)
        #expect(kinds == [.header, .cell, .cell, .cell])
    }

    @Test func pinnedFootersStickToTheBottomEdge() throws {
        var config = SpecVectorTests.f1
        config.pinFooters = true
        var layout = try Layout(LayoutInput(itemCounts: [7]), configuration: config, viewportSize: Size(width: 320, height: 100))
        // Natural footer at 230; the viewport's bottom edge at 100 puts it at 70 (offset 0).
        #expect(layout.attributes(forSupplementary: .footer, inSection: 0)?.frame.y == 70)
        layout.contentOffset = Point(x: 0, y: 160)
        #expect(layout.attributes(forSupplementary: .footer, inSection: 0)?.frame.y == 230)
        // Never above the section's items (the header ends at 40).
        var short = try Layout(LayoutInput(itemCounts: [7]), configuration: config, viewportSize: Size(width: 320, height: 20))
        short.contentOffset = .zero
        #expect(short.attributes(forSupplementary: .footer, inSection: 0)?.frame.y == 40)
    }

    @Test func defaultSizesPerKind() throws {
        let config = LayoutConfiguration(style: .flow, interitemSpacing: 10)
        let input = LayoutInput(sections: [
            LayoutSectionInput(items: [LayoutItemInput(kind: .video)]),
            LayoutSectionInput(items: [LayoutItemInput(kind: .book)]),
            LayoutSectionInput(items: [LayoutItemInput(kind: .icon)]),
            LayoutSectionInput(items: [LayoutItemInput(size: Size(width: 33, height: 44), kind: .book)]),
            LayoutSectionInput(items: [LayoutItemInput()]),
        ])
        let layout = try Layout(input, configuration: config, viewportSize: Size(width: 390, height: 800))
        let sizes = (0..<5).map { SpecVectorTests.cell(layout, 0, section: $0).size }
        // Two video cards per line: (390 − 10) / 2 = 190 wide, 190·256/180 = 270.2 → 270 high.
        #expect(sizes == [Size(width: 190, height: 270), Size(width: 80, height: 120), Size(width: 60, height: 70),
                          Size(width: 33, height: 44), Size(width: 50, height: 50)])
    }

    @Test func anItemSizeServesEveryKindWithoutANaturalSize() throws {
        let config = LayoutConfiguration(style: .flow, itemSize: Size(width: 70, height: 30), interitemSpacing: 10)
        let kinds: [ItemKind?] = [.video, .book, .icon, nil]
        let input = LayoutInput(sections: [LayoutSectionInput(items: kinds.map { LayoutItemInput(kind: $0) }
            + [LayoutItemInput(size: Size(width: 33, height: 44), kind: .book)])])
        let layout = try Layout(input, configuration: config, viewportSize: Size(width: 390, height: 800))
        let sizes = (0..<5).map { SpecVectorTests.cell(layout, $0).size }
        #expect(sizes == Array(repeating: Size(width: 70, height: 30), count: 4) + [Size(width: 33, height: 44)])
    }

    @Test func carouselScalesAndSnaps() throws {
        let config = LayoutConfiguration(style: .carousel, itemSize: Size(width: 200, height: 300), lineSpacing: 20, minScale: 0.6)
        var layout = try Layout(LayoutInput(itemCounts: [3, 2]), configuration: config, viewportSize: Size(width: 400, height: 500))
        // Side insets (400 − 200) / 2 = 100; items 220 apart; vertically centred.
        #expect(SpecVectorTests.cell(layout, 0) == Rect(x: 100, y: 100, width: 200, height: 300))
        #expect(SpecVectorTests.cell(layout, 0, section: 1).x == 760)
        #expect(layout.contentSize == Size(width: 100 + 5 * 200 + 4 * 20 + 100, height: 500))
        let first = layout.attributes(forItemAt: ItemPath(section: 0, item: 0))!
        let second = layout.attributes(forItemAt: ItemPath(section: 0, item: 1))!
        #expect(first.scale == 1)
        #expect(abs(second.scale - (1 - 0.5 * 220 / 400)) < 1e-12)
        #expect(layout.attributes(forItemAt: ItemPath(section: 1, item: 1))!.scale == 0.6)

        // Snapping: the nearest centre wins; a tie goes to the first.
        #expect(layout.targetContentOffset(proposed: Point(x: 100, y: 0)) == Point(x: 0, y: 0))
        #expect(layout.targetContentOffset(proposed: Point(x: 120, y: 0)) == Point(x: 220, y: 0))
        #expect(layout.targetContentOffset(proposed: Point(x: 110, y: 0)) == Point(x: 0, y: 0))
        // A fling advances at least one item even when the proposal barely moves, in either direction.
        layout.contentOffset = Point(x: 220, y: 0)
        #expect(layout.targetContentOffset(proposed: Point(x: 230, y: 0), velocity: Point(x: 2, y: 0)) == Point(x: 440, y: 0))
        #expect(layout.targetContentOffset(proposed: Point(x: 215, y: 0), velocity: Point(x: -2, y: 0)) == Point(x: 0, y: 0))
        // A slow release does not.
        #expect(layout.targetContentOffset(proposed: Point(x: 230, y: 0), velocity: Point(x: 0.1, y: 0)) == Point(x: 220, y: 0))
        // Clamped to the content: nothing past the last item.
        layout.contentOffset = Point(x: 880, y: 0)
        #expect(layout.targetContentOffset(proposed: Point(x: 5_000, y: 0), velocity: Point(x: 9, y: 0)) == Point(x: 880, y: 0))
        #expect(layout.targetContentOffset(proposed: Point(x: -300, y: 0)) == Point(x: 0, y: 0))
        // A proposal that is not a number stays on the current item; a velocity that is not one is no fling.
        layout.contentOffset = Point(x: 220, y: 0)
        #expect(layout.targetContentOffset(proposed: Point(x: .nan, y: 0), velocity: Point(x: .nan, y: 0)) == Point(x: 220, y: 0))
    }

    @Test func otherStylesClampTheProposedOffset() throws {
        let layout = try Layout(LayoutInput(itemCounts: [7]), configuration: SpecVectorTests.f1, viewportSize: Size(width: 320, height: 100))
        #expect(layout.targetContentOffset(proposed: Point(x: 30, y: 500)) == Point(x: 0, y: 160))
        #expect(layout.targetContentOffset(proposed: Point(x: -5, y: -40)) == Point(x: 0, y: 0))
        var scrolled = layout
        scrolled.contentOffset = Point(x: 0, y: 120)
        #expect(scrolled.targetContentOffset(proposed: Point(x: .nan, y: .nan)) == Point(x: 0, y: 120))
        #expect(scrolled.targetContentOffset(proposed: Point(x: .infinity, y: -.infinity)) == Point(x: 0, y: 0))
    }

    @Test func configurationFilesDecodeAndRefuseMistakes() throws {
        let json = #"{"style": "flow", "itemSize": [90, 50], "lineSpacing": 10, "interitemSpacing": 10, "sectionInset": [10, 10, 10, 10], "headerHeight": 40, "footerHeight": 30, "pinHeaders": false, "scrollDirection": "vertical"}"#
        let config = try JSONDecoder().decode(LayoutConfiguration.self, from: Data(json.utf8))
        #expect(config == SpecVectorTests.f1)
        let again = try JSONDecoder().decode(LayoutConfiguration.self, from: JSONEncoder().encode(config))
        #expect(again == config)

        let cases: [(String, String)] = [
            (#"{"style": "grid"}"#, #"layout configuration key "style": expected one of flow, waterfall, circular, shelf, carousel, found "grid""#),
            (#"{"itemSize": [1, 2]}"#, #"layout configuration key "style": expected one of flow, waterfall, circular, shelf, carousel"#),
            (#"{"style": "flow", "itemSize": [90]}"#, #"layout configuration key "itemSize": expected [width, height], found 1 numbers"#),
            (#"{"style": "flow", "itemSize": [90, -1]}"#, #"layout configuration key "itemSize": expected a positive width and height of at most 1000000"#),
            (#"{"style": "flow", "lineSpacing": 1e7}"#, #"layout configuration key "lineSpacing": expected a number from 0 to 1000000"#),
            (#"{"style": "flow", "lineSpacin": 3}"#, "layout configuration key \"lineSpacin\": expected one of the known keys: " + ["style", "itemSize", "lineSpacing", "interitemSpacing", "sectionInset", "headerHeight", "footerHeight", "pinHeaders", "pinFooters", "scrollDirection", "columns", "columnSpacing", "minScale", "flingThreshold"].joined(separator: ", ")),
            (#"{"style": "waterfall", "columns": 0}"#, #"layout configuration key "columns": expected an integer from 1 to 1000"#),
            (#"{"style": "carousel", "minScale": 1.5}"#, #"layout configuration key "minScale": expected a number in (0, 1]"#),
            (#"{"style": "flow", "pinHeaders": "yes"}"#, #"layout configuration key "pinHeaders": expected true or false"#),
            (#"{"style": "flow", "scrollDirection": "diagonal"}"#, #"layout configuration key "scrollDirection": expected "vertical" or "horizontal", found "diagonal""#),
            (#"[1, 2]"#, #"layout configuration: expected a JSON object such as {"style": "flow"}"#),
        ]
        for (json, message) in cases {
            #expect {
                try JSONDecoder().decode(LayoutConfiguration.self, from: Data(json.utf8))
            } throws: { error in
                (error as? LayoutConfigurationError)?.description == message
            }
        }
    }

    @Test func badViewportsAreRefused() {
        for size in [Size(width: 0, height: 100), Size(width: 100, height: -1), Size(width: .infinity, height: 10)] {
            #expect(throws: LayoutConfigurationError.self) {
                try Layout(LayoutInput(itemCounts: [1]), configuration: LayoutConfiguration(style: .flow), viewportSize: size)
            }
        }
    }

    @Test func itemSizesThatAreNotFiniteAndNonNegativeAreRefused() throws {
        let good = LayoutItemInput(size: Size(width: 40, height: 30))
        for (size, found) in [(Size(width: 10, height: -5), "10×-5"), (Size(width: -1, height: 5), "-1×5"),
                              (Size(width: 10, height: .infinity), "10×inf"), (Size(width: .nan, height: 5), "nan×5"),
                              (Size(width: 1e300, height: 5), "1e+300×5"), (Size(width: 5, height: 1_000_001), "5×1000001")] {
            // The bad item is the second of the second section, after an empty one.
            let input = LayoutInput(sections: [LayoutSectionInput(items: []),
                                               LayoutSectionInput(items: [good, LayoutItemInput(size: size), good])])
            for style in LayoutStyle.allCases {
                let config = LayoutConfiguration(style: style)
                let error = #expect(throws: LayoutConfigurationError.self) {
                    try Layout(input, configuration: config, viewportSize: Size(width: 300, height: 400))
                }
                #expect(error?.description == "layout input sections[1].items[1].size: expected a width and height from 0 to 1000000, found \(found)")
                // Preparing an existing layout with the bad input throws and leaves it as it was.
                var layout = try Layout(LayoutInput(sections: [LayoutSectionInput(items: [good, good])]), configuration: config,
                                        viewportSize: Size(width: 300, height: 400))
                let before = layout.allElements
                #expect(throws: LayoutConfigurationError.self) { try layout.prepare(input) }
                #expect(layout.allElements == before && layout.numberOfItems == 2)
            }
        }
        // Zero sizes are fine, and so is a catalogue's item without a size.
        _ = try Layout(LayoutInput(sections: [LayoutSectionInput(items: [LayoutItemInput(size: Size(width: 0, height: 0)), LayoutItemInput()])]),
                       configuration: LayoutConfiguration(style: .flow), viewportSize: Size(width: 300, height: 400))
    }

    @Test func lengthsWhoseSumIsNotFiniteAreRefused() throws {
        let viewport = Size(width: 300, height: 400)
        let input = LayoutInput(sections: (0..<2).map { _ in LayoutSectionInput(items: Array(repeating: LayoutItemInput(), count: 3)) })
        // Every length is bounded (``Size/maximumLength``), so only a waterfall item of a tiny
        // natural width, scaled up to the column width, can still overflow.
        let headers = #expect(throws: LayoutConfigurationError.self) {
            try Layout(input, configuration: LayoutConfiguration(style: .flow, headerHeight: 1e308, footerHeight: 1e308), viewportSize: viewport)
        }
        #expect(headers?.description == #"layout configuration key "headerHeight": expected a number from 0 to 1000000"#)
        let sliver = LayoutInput(sections: [LayoutSectionInput(items: [LayoutItemInput(size: Size(width: 1e-306, height: 1e6))])])
        let scaled = #expect(throws: LayoutConfigurationError.self) {
            try Layout(sliver, configuration: LayoutConfiguration(style: .waterfall), viewportSize: viewport)
        }
        #expect(scaled?.description
                == "layout configuration: expected sizes, spacings and insets whose sums stay finite, found a content size of 300×inf")
        #expect(throws: LayoutConfigurationError.self) {
            try Layout(input, configuration: LayoutConfiguration(style: .carousel, itemSize: Size(width: 1e308, height: 10)), viewportSize: viewport)
        }
        // Sections of one size, laid out from a line's places: two shelves of lines 1e308 points tall.
        #expect(throws: LayoutConfigurationError.self) {
            try Layout(input, configuration: LayoutConfiguration(style: .shelf, itemSize: Size(width: 10, height: 1e308)), viewportSize: viewport)
        }
        // Preparing again into an overflow leaves an empty, sound layout in the previous viewport.
        do {
            var layout = try Layout(input, configuration: LayoutConfiguration(style: .waterfall), viewportSize: viewport)
            #expect(throws: LayoutConfigurationError.self) { try layout.prepare(sliver, viewportSize: Size(width: 320, height: 400)) }
            #expect(layout.numberOfItems == 0 && layout.numberOfSections == 0 && layout.viewportSize == viewport)
            #expect(layout.invariantViolations() == [] && layout.allElements.isEmpty)
        }
    }

    @Test func moreItemsThan32BitIndicesHoldAreRefused() throws {
        // Layouts of 2³¹ items cannot be built here (tens of gigabytes), so the check that
        // `prepare` runs first is tested at its limit and with a small one.
        #expect(Layout.maximumItemCount == Int(Int32.max))
        try Layout.checkItemCount(Layout.maximumItemCount)
        let error = #expect(throws: LayoutConfigurationError.self) { try Layout.checkItemCount(Layout.maximumItemCount + 1) }
        #expect(error?.description == "layout configuration: expected at most 2147483647 items, found 2147483648")
        try Layout.checkItemCount(3, limit: 3)
        #expect(throws: LayoutConfigurationError.self) { try Layout.checkItemCount(4, limit: 3) }
    }

    @Test func aLastLineOfTinyItemsIsSpacedWithoutCountingEveryCopy() throws {
        // 3e302 copies of the last item would fit: the last line is spaced as if full, in one step.
        let config = LayoutConfiguration(style: .flow, itemSize: Size(width: 1e-300, height: 1e-300), interitemSpacing: 0,
                                         sectionInset: Insets(top: 0, left: 10, bottom: 0, right: 10))
        let layout = try Layout(LayoutInput(itemCounts: [3]), configuration: config, viewportSize: Size(width: 300, height: 400))
        layout.checkInvariants()
        #expect((0..<3).allSatisfy { layout.attributes(forItemAt: ItemPath(section: 0, item: $0))!.frame.x == 10 })
    }

    @Test func aFlowWithAsManyLinesAsItemsGrowsItsRoomForLines() throws {
        // One item a line (as wide as the line): 1,500 lines, far more than the room a new layout
        // starts with (one line per section or per eight items), so the pass grows it several times.
        let config = LayoutConfiguration(style: .flow, lineSpacing: 5, interitemSpacing: 10,
                                         sectionInset: Insets(top: 0, left: 10, bottom: 0, right: 10), headerHeight: 20)
        let wide = LayoutItemInput(size: Size(width: 280, height: 30))
        let input = LayoutInput(sections: (0..<3).map { _ in LayoutSectionInput(items: Array(repeating: wide, count: 500)) })
        var layout = try Layout(input, configuration: config, viewportSize: Size(width: 300, height: 600))
        layout.checkInvariants()
        let sectionHeight = 20 + 500 * 30 + 499 * 5.0
        for (s, i) in [(0, 0), (0, 499), (1, 0), (2, 250), (2, 499)] {
            #expect(layout.attributes(forItemAt: ItemPath(section: s, item: i))?.frame
                    == Rect(x: 10, y: Double(s) * sectionHeight + 20 + Double(i) * 35, width: 280, height: 30))
        }
        #expect(layout.contentSize.height == 3 * sectionHeight)
        // Preparing again with fewer lines, then with more, gives what a new layout gives.
        for count in [40, 900] {
            let other = LayoutInput(sections: [LayoutSectionInput(items: Array(repeating: wide, count: count))])
            try layout.prepare(other)
            let fresh = try Layout(other, configuration: config, viewportSize: Size(width: 300, height: 600))
            #expect(layout.allElements == fresh.allElements)
            layout.checkInvariants()
        }
    }

    @Test func emptyInputsLayOutToNothing() throws {
        for style in LayoutStyle.allCases {
            for counts in [[], [0], [0, 0, 3, 0]] {
                let layout = try Layout(LayoutInput(itemCounts: counts), configuration: LayoutConfiguration(style: style),
                                        viewportSize: Size(width: 320, height: 480))
                #expect(layout.invariantViolations() == [])
                #expect(layout.numberOfItems == counts.reduce(0, +))
                #expect(layout.attributes(forItemAt: ItemPath(section: 0, item: 99)) == nil)
                #expect(layout.attributes(forItemAt: ItemPath(section: -1, item: 0)) == nil)
            }
        }
    }
}
