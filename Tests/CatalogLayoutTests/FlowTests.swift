import CatalogDiff
import CatalogLayout
import CatalogModel
import Testing

/// Flow and shelf layouts against docs/Layouts.md's rule written out plainly: greedy lines, the leftover
/// room shared by the gaps, a lone item centred, the last line spaced as if filled with copies of
/// its last item, items centred along their line.
///
/// Sections of 10 items or more in which no three fit on a line take a path of their own, which
/// decides the line breaks with bit operations instead of a branch (`layOutPairs`). So most
/// sections here are such: lengths from a third of the line up, items longer than the line, pairs
/// that fill a line exactly, lengths that repeat, sections of 9, 10, 11, 63, 64 and 65 items (the
/// path works on 64-item words) and of over 4,096 (its words then live on the heap), and sections
/// where a short item appears late, so that the path must hand the section back to the general
/// loop.
@Suite struct FlowTests {
    /// Every cell's frame as the rule gives it, section after section. Items carry their size.
    static func expectedFrames(_ input: LayoutInput, _ config: LayoutConfiguration, viewport: Size) -> [[Rect]] {
        let horizontal = config.scrollDirection == .horizontal
        let inset = config.sectionInset
        let leadCross = horizontal ? inset.top : inset.left
        let available = (horizontal ? viewport.height : viewport.width) - leadCross - (horizontal ? inset.bottom : inset.right)
        let spacing = config.interitemSpacing
        var position = 0.0
        return input.sections.map { section in
            position += config.headerHeight + (horizontal ? inset.left : inset.top)
            let sizes = section.items.map { $0.size! }
            let cross = sizes.map { horizontal ? $0.height : $0.width }
            let main = sizes.map { horizontal ? $0.width : $0.height }
            // Greedy lines: an item joins the line if the line, a spacing and the item still fit.
            var lines: [Range<Int>] = []
            var lineStart = 0, used = 0.0
            for k in cross.indices {
                if k > lineStart, used + (spacing + cross[k]) <= available {
                    used += spacing + cross[k]
                } else {
                    if k > lineStart { lines.append(lineStart..<k) }
                    (lineStart, used) = (k, cross[k])
                }
            }
            if !cross.isEmpty { lines.append(lineStart..<cross.count) }
            var frames = [Rect](repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: cross.count)
            for (n, line) in lines.enumerated() {
                let thickness = line.map { main[$0] }.max()!
                var used = line.dropFirst().reduce(cross[line.lowerBound]) { $0 + (spacing + cross[$1]) }
                var slots = Double(line.count)
                if n == lines.count - 1 {
                    // As many copies of the last item as fit, counted as the library counts them
                    // (one division, then at most one step either way), so that lines filled
                    // exactly round the same way.
                    let step = spacing + cross[line.upperBound - 1]
                    if step > 0, available - used >= step {
                        let copies = ((available - used) / step).rounded(.down)
                        used += copies * step
                        slots += copies
                        if used + step <= available { used += step; slots += 1 }
                        if slots > Double(line.count), used > available { used -= step; slots -= 1 }
                    }
                }
                var along = slots == 1 ? leadCross + (available - used) / 2 : leadCross
                let gap = slots == 1 ? 0 : spacing + (available - used) / (slots - 1)
                for k in line {
                    let offset = position + (thickness - main[k]) / 2
                    frames[k] = horizontal
                        ? Rect(x: offset, y: along, width: sizes[k].width, height: sizes[k].height)
                        : Rect(x: along, y: offset, width: sizes[k].width, height: sizes[k].height)
                    along += cross[k] + gap
                }
                position += thickness
                if n < lines.count - 1 { position += config.lineSpacing }
            }
            position += (horizontal ? inset.right : inset.bottom) + config.footerHeight
            return frames
        }
    }

    /// A random flow or shelf configuration (spacings, insets, header, footer, scroll direction)
    /// and viewport, with the room along a line between the insets.
    static func randomConfiguration(_ random: inout RandomLayouts) -> (LayoutConfiguration, Size, available: Double) {
        var config = LayoutConfiguration(style: random.bool() ? .flow : .shelf)
        config.scrollDirection = random.bool() ? .vertical : .horizontal
        config.interitemSpacing = random.int(0...3) == 0 ? 0 : random.length(0...20)
        config.lineSpacing = random.length(0...20)
        config.sectionInset = Insets(top: random.length(0...20), left: random.length(0...20),
                                     bottom: random.length(0...20), right: random.length(0...20))
        if random.bool() { config.headerHeight = random.length(1...50) }
        if random.bool() { config.footerHeight = random.length(1...50) }
        let viewport = Size(width: random.length(150...600), height: random.length(150...600))
        let horizontal = config.scrollDirection == .horizontal
        let inset = config.sectionInset
        let available = horizontal ? viewport.height - inset.top - inset.bottom : viewport.width - inset.left - inset.right
        return (config, viewport, available)
    }

    /// A random flow or shelf layout whose sections mostly hold one or two items a line.
    static func randomCase(_ random: inout RandomLayouts) -> (LayoutInput, LayoutConfiguration, Size) {
        let (config, viewport, available) = randomConfiguration(&random)
        let horizontal = config.scrollDirection == .horizontal
        let spacing = config.interitemSpacing
        let half = (available - spacing) / 2   // two of these fill a line exactly
        let input = LayoutInput(sections: (0..<random.int(0...5)).map { s in
            // 4,097 items and more: the pass's bit words no longer fit on the stack.
            let count = [0, 1, 2, 9, 10, 11, 63, 64, 65, 128, random.int(10...300), random.int(4_097...5_000)][random.int(0...11)]
            let few = [available / 3 + 1, half, half, available * 0.45, available * 0.7, available, available + 30]
            let lengths = (0..<count).map { _ in
                random.bool() ? few[random.int(0...few.count - 1)] : random.length(max(1, available / 3 + 0.5)...available + 40)
            }
            var items = lengths.map { length in
                let other = random.length(0...200)
                return LayoutItemInput(size: horizontal ? Size(width: other, height: length) : Size(width: length, height: other))
            }
            // Now and then a short item: three fit, and the section goes to the general loop.
            if count > 0, random.int(0...5) == 0 {
                let short = random.length(1...max(1, available / 4))
                items[random.int(0...count - 1)].size = horizontal ? Size(width: 40, height: short) : Size(width: short, height: 40)
            }
            return LayoutSectionInput(title: "S\(s)", items: items)
        })
        return (input, config, viewport)
    }

    @Test(arguments: 0..<8)
    func framesFollowTheRule(batch: UInt64) throws {
        var random = RandomLayouts(seed: 9_000 + batch)
        for round in 0..<60 {
            let (input, config, viewport) = Self.randomCase(&random)
            let layout = try Layout(input, configuration: config, viewportSize: viewport)
            layout.checkInvariants()
            let label = "batch \(batch) round \(round) \(config.scrollDirection)"
            Self.expectFrames(of: layout, equal: Self.expectedFrames(input, config, viewport: viewport), label)
            Self.expectQueriesMatchAScan(layout, &random, label)
        }
    }

    /// Sections that mix items with natural sizes and items without (sized by their kind, or by
    /// the configuration's `itemSize`) take the paired path's other copy, which asks each item
    /// whether it has a natural size: their frames are those of the same items with the sizes
    /// they were given written in.
    @Test(arguments: 0..<4)
    func itemsWithoutNaturalSizesAmongOthers(batch: UInt64) throws {
        var random = RandomLayouts(seed: 9_200 + batch)
        for round in 0..<60 {
            var (input, config, viewport) = Self.randomCase(&random)
            if random.bool() {
                // Items of up to half a line wide (the default video card is just that): two fit.
                let horizontal = config.scrollDirection == .horizontal
                let inset = config.sectionInset
                let available = horizontal ? viewport.height - inset.top - inset.bottom : viewport.width - inset.left - inset.right
                let length = random.length(max(1, available / 3 + 0.5)...max(2, (available - config.interitemSpacing) / 2))
                config.itemSize = horizontal ? Size(width: random.length(1...200), height: length)
                    : Size(width: length, height: random.length(1...200))
            }
            var sections = input.sections
            for s in sections.indices {
                for i in sections[s].items.indices where random.int(0...3) == 0 {
                    sections[s].items[i] = LayoutItemInput(kind: random.bool() ? .video : nil)
                }
            }
            input = LayoutInput(sections: sections)
            let layout = try Layout(input, configuration: config, viewportSize: viewport)
            layout.checkInvariants()
            // The same items, each with the size the layout gave it as its natural size.
            let sized = LayoutInput(sections: sections.enumerated().map { s, section in
                LayoutSectionInput(title: section.title, items: section.items.indices.map { i in
                    LayoutItemInput(size: layout.attributes(forItemAt: ItemPath(section: s, item: i))!.frame.size)
                })
            })
            let label = "batch \(batch) round \(round) \(config.scrollDirection)"
            Self.expectFrames(of: layout, equal: Self.expectedFrames(sized, config, viewport: viewport), label)
            Self.expectQueriesMatchAScan(layout, &random, label)
        }
    }

    /// Preparing again — the lines go into the previous prepare's room, which may be too small for
    /// the new data — gives what a new layout gives.
    @Test func preparingAgainGivesANewLayoutsFrames() throws {
        try Self.expectPreparingAgainGivesANewLayout(seed: 9_100, rounds: 100) { Self.randomCase(&$0) }
    }

    /// Records where `layout`'s cell frames differ from `expected` (at most three per layout).
    /// The same operations in the same order: equal to the bit.
    static func expectFrames(of layout: Layout, equal expected: [[Rect]], _ label: String) {
        var mismatches = 0
        for (s, frames) in expected.enumerated() {
            for (i, frame) in frames.enumerated() {
                let found = layout.attributes(forItemAt: ItemPath(section: s, item: i))!.frame
                if found != frame, mismatches < 3 {
                    mismatches += 1
                    Issue.record("\(label) section \(s) item \(i): \(found), expected \(frame)")
                }
            }
        }
    }

    /// The lines the pass recorded answer rect queries and hit tests at random places as a scan does.
    static func expectQueriesMatchAScan(_ layout: Layout, _ random: inout RandomLayouts, _ label: String) {
        for _ in 0..<6 {
            let rect = random.rect(in: layout)
            #expect(layout.elements(in: rect) == BruteForce.elements(layout, in: rect), "\(label) rect \(rect)")
            let point = random.point(in: layout)
            #expect(layout.indexPath(at: point) == BruteForce.indexPath(layout, at: point), "\(label) point \(point)")
        }
    }

    /// For `rounds` pairs of random cases from `makeCase`: a layout of the first prepared again
    /// with the second's input equals a new layout of the second.
    static func expectPreparingAgainGivesANewLayout(
        seed: UInt64, rounds: Int, _ makeCase: (inout RandomLayouts) -> (LayoutInput, LayoutConfiguration, Size)
    ) throws {
        var random = RandomLayouts(seed: seed)
        for _ in 0..<rounds {
            let (input, config, viewport) = makeCase(&random)
            var layout = try Layout(input, configuration: config, viewportSize: viewport)
            let (next, _, _) = makeCase(&random)
            try layout.prepare(next)
            layout.checkInvariants()
            #expect(layout.allElements == (try Layout(next, configuration: config, viewportSize: viewport)).allElements)
        }
    }
}
