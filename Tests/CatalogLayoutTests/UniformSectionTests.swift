import CatalogDiff
import CatalogLayout
import CatalogModel
import Testing

/// Flow and shelf sections whose items all have one size — no natural sizes, and the
/// configuration's `itemSize` or one kind's default — are laid out from a few lines' places worked
/// out once per prepare (`layOutUniform`). Their frames must be docs/Layouts.md's rule to the bit, like
/// every other section's: here against `FlowTests.expectedFrames` on the same items with their
/// sizes written out.
///
/// The cases aim at that path's edges: one line, several, a last line of one item or a full one,
/// lines of one item (items longer than the line, or more than half of it), lines of up to 64
/// items and of more (which the path hands back to the general loop), sections that fall just
/// short of one size (a natural size, a second kind), sizes and spacings with fractions, both
/// scroll directions, and kinds that take turns section by section.
@Suite struct UniformSectionTests {
    static let kinds: [ItemKind?] = [nil, .video, .book, .icon]

    /// The size an item without a natural size gets (docs/Layouts.md's per-kind defaults).
    static func size(of kind: ItemKind?, _ config: LayoutConfiguration, crossLength: Double) -> Size {
        if let itemSize = config.itemSize { return itemSize }
        switch kind {
        case .video?:
            let width = max(1, ((crossLength - config.interitemSpacing) / 2).rounded(.down))
            return Size(width: width, height: (width * 256 / 180).rounded(.down))
        case .book?: return Size(width: 80, height: 120)
        case .icon?: return Size(width: 60, height: 70)
        case nil: return Size(width: 50, height: 50)
        }
    }

    /// A random case: the input, the same items with their sizes written out, the configuration
    /// and the viewport.
    static func randomCase(_ random: inout RandomLayouts) -> (LayoutInput, LayoutInput, LayoutConfiguration, Size) {
        var (config, viewport, available) = FlowTests.randomConfiguration(&random)
        let horizontal = config.scrollDirection == .horizontal
        if random.int(0...2) > 0 {
            // Across the line: from tiny (more than 64 a line when nothing spaces them) to longer
            // than the line; a length that fills a line exactly with k items now and then.
            let k = Double(random.int(1...8))
            let exact = (available - (k - 1) * config.interitemSpacing) / k
            let cross = [random.length(1...available + 30), max(1, exact), random.length(1...8), available / 2 + 1][random.int(0...3)]
            let main = random.length(1...160)
            config.itemSize = horizontal ? Size(width: main, height: cross) : Size(width: cross, height: main)
        }
        var sections: [LayoutSectionInput] = []
        var sized: [LayoutSectionInput] = []
        for s in 0..<random.int(0...6) {
            let count = [0, 1, 2, 3, 4, 7, 8, 63, 64, 65, 200, random.int(1...120)][random.int(0...11)]
            let kind = kinds[random.int(0...3)]
            var items = (0..<count).map { _ in LayoutItemInput(kind: kind) }
            // Now and then a section just short of one size.
            if count > 0, random.int(0...5) == 0 {
                let i = random.int(0...count - 1)
                if random.bool() {
                    items[i].size = Size(width: random.length(1...200), height: random.length(1...200))
                } else {
                    items[i].kind = kinds[(kinds.firstIndex(of: kind)! + 1) % kinds.count]
                }
            }
            sections.append(LayoutSectionInput(title: "S\(s)", items: items))
            sized.append(LayoutSectionInput(title: "S\(s)", items: items.map {
                LayoutItemInput(size: $0.size ?? size(of: $0.kind, config, crossLength: available), kind: $0.kind)
            }))
        }
        return (LayoutInput(sections: sections), LayoutInput(sections: sized), config, viewport)
    }

    @Test(arguments: 0..<6)
    func framesFollowTheRule(batch: UInt64) throws {
        var random = RandomLayouts(seed: 12_000 + batch)
        for round in 0..<80 {
            let (input, sized, config, viewport) = Self.randomCase(&random)
            let layout = try Layout(input, configuration: config, viewportSize: viewport)
            layout.checkInvariants()
            let label = "batch \(batch) round \(round) \(config.scrollDirection)"
            FlowTests.expectFrames(of: layout, equal: FlowTests.expectedFrames(sized, config, viewport: viewport), label)
            // The same as the layout of the sized items (the general loop and the pairs' path),
            // every element: headers, footers and shelf boards follow from the recorded lines.
            let general = try Layout(sized, configuration: config, viewportSize: viewport)
            #expect(layout.allElements == general.allElements, "\(label)")
            #expect(layout.contentSize == general.contentSize, "\(label)")
            FlowTests.expectQueriesMatchAScan(layout, &random, label)
        }
    }

    /// Preparing again into the room of a smaller layout (a section of one-item lines runs out of
    /// it, and the pass starts that section again) gives what a new layout gives.
    @Test func preparingAgainGivesANewLayoutsFrames() throws {
        try FlowTests.expectPreparingAgainGivesANewLayout(seed: 12_100, rounds: 150) { random in
            let (input, _, config, viewport) = Self.randomCase(&random)
            return (input, config, viewport)
        }
    }

    /// Last lines of every length, up and down again, in sections of every kind taking turns:
    /// each length's places are worked out once per kind and kept apart from the others'.
    @Test(arguments: [ScrollDirection.vertical, .horizontal], [nil, Size(width: 61.5, height: 33.25)])
    func everyLastLineLengthInTurn(direction: ScrollDirection, itemSize: Size?) throws {
        let config = LayoutConfiguration(style: .flow, itemSize: itemSize, lineSpacing: 3.5, interitemSpacing: 4.3,
                                         sectionInset: Insets(top: 2, left: 9.5, bottom: 4, right: 1.25), headerHeight: 12,
                                         scrollDirection: direction)
        let viewport = Size(width: 410.5, height: 397)
        let counts = Array(1...14) + Array((1...14).reversed()) + [3, 9, 1, 12, 2]
        var sections: [LayoutSectionInput] = []
        for (s, count) in counts.enumerated() {
            let kind = Self.kinds[s % Self.kinds.count]
            sections.append(LayoutSectionInput(items: (0..<count).map { _ in LayoutItemInput(kind: kind) }))
        }
        let input = LayoutInput(sections: sections)
        let layout = try Layout(input, configuration: config, viewportSize: viewport)
        layout.checkInvariants()
        let horizontal = direction == .horizontal
        let available = horizontal ? viewport.height - 2 - 4 : viewport.width - 9.5 - 1.25
        let sized = LayoutInput(sections: sections.map { section in
            LayoutSectionInput(items: section.items.map {
                LayoutItemInput(size: Self.size(of: $0.kind, config, crossLength: available), kind: $0.kind)
            })
        })
        let expected = FlowTests.expectedFrames(sized, config, viewport: viewport)
        for (s, frames) in expected.enumerated() {
            for (i, frame) in frames.enumerated() {
                #expect(layout.attributes(forItemAt: ItemPath(section: s, item: i))!.frame == frame, "section \(s) item \(i)")
            }
        }
    }

    /// A long section of one-item lines: more lines than a new layout first makes room for.
    @Test func aSectionOfOneItemLinesOutgrowsTheFirstRoom() throws {
        let config = LayoutConfiguration(style: .shelf, itemSize: Size(width: 300, height: 40), lineSpacing: 2.5,
                                         sectionInset: Insets(top: 3, left: 7, bottom: 5, right: 11))
        let input = LayoutInput(itemCounts: [3, 1_000, 2], kind: .book)
        let layout = try Layout(input, configuration: config, viewportSize: Size(width: 390, height: 844))
        layout.checkInvariants()
        let frames = (0..<1_000).map { layout.attributes(forItemAt: ItemPath(section: 1, item: $0))!.frame }
        // One item a line, each centred across the 372 points between the insets.
        #expect(frames.allSatisfy { $0.x == 7 + (372 - 300) / 2 && $0.width == 300 && $0.height == 40 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.y == $0.y + 42.5 })
        let sized = LayoutInput(sections: input.sections.map { section in
            LayoutSectionInput(items: section.items.map { LayoutItemInput(size: Size(width: 300, height: 40), kind: $0.kind) })
        })
        #expect(layout.allElements == (try Layout(sized, configuration: config, viewportSize: Size(width: 390, height: 844))).allElements)
    }
}
