import CatalogDiff
@testable import CatalogLayout
import CatalogModel
import Testing

/// The waterfall against docs/Layouts.md's rule written out plainly: every item in the shortest column,
/// ties to the lowest index, its height scaled to the column width and rounded down. The
/// two-column layout takes a branch-free path of its own, so the inputs include what that path
/// must get right: ties, items of zero height, sections of zero, one or two items.
@Suite struct WaterfallTests {
    /// Every cell's frame as the rule gives it, section after section.
    static func expectedFrames(_ input: LayoutInput, _ config: LayoutConfiguration, width: Double) -> [[Rect]] {
        let inset = config.sectionInset
        let available = width - inset.left - inset.right
        let n = config.columns
        let columnWidth = max(0, ((available - Double(n - 1) * config.columnSpacing) / Double(n)).rounded(.down))
        var top = 0.0
        return input.sections.map { section in
            top += config.headerHeight + inset.top
            var bottoms = [Double](repeating: top, count: n)
            var used = [Bool](repeating: false, count: n)
            let frames = section.items.map { item in
                let natural = item.size ?? config.itemSize ?? Size(width: 50, height: 50)
                let height = natural.width > 0 ? (natural.height * columnWidth / natural.width).rounded(.down) : natural.height
                let column = bottoms.indices.min { bottoms[$0] < bottoms[$1] }!   // the first of the lowest
                let y = used[column] ? bottoms[column] + config.interitemSpacing : bottoms[column]
                used[column] = true
                bottoms[column] = y + height
                return Rect(x: inset.left + Double(column) * (columnWidth + config.columnSpacing), y: y,
                            width: columnWidth, height: height)
            }
            top = bottoms.max()! + inset.bottom + config.footerHeight
            return frames
        }
    }

    /// The conversion `roundedDown` takes below 2⁵², and the standard library's rounding above
    /// it and for negative numbers, zeros of either sign, infinities and NaN.
    @Test func roundingDownMatchesTheStandardLibrary() {
        let twoToThe52 = 4_503_599_627_370_496.0
        var values: [Double] = [0, -0.0, 0.5, 1, 1.5, 2.999_999_999, .leastNonzeroMagnitude, .ulpOfOne, 1e15 + 0.5,
                                twoToThe52, twoToThe52.nextDown, twoToThe52.nextUp, twoToThe52 - 0.5, 2 * twoToThe52 + 2,
                                -0.5, -1, -twoToThe52, .greatestFiniteMagnitude, .infinity, -.infinity]
        var random = RandomLayouts(seed: 52)
        for _ in 0..<10_000 { values.append(random.length(0...1e6) * (random.bool() ? 1 : 1e-6)) }
        for value in values {
            #expect(roundedDown(value).bitPattern == value.rounded(.down).bitPattern, "\(value)")
        }
        #expect(roundedDown(.nan).isNaN)
    }

    @Test(arguments: 0..<12)
    func framesFollowTheRule(seed: UInt64) throws {
        var random = RandomLayouts(seed: 7_000 + seed)
        for _ in 0..<40 {
            var config = LayoutConfiguration(style: .waterfall)
            config.columns = random.int(1...4) == 1 ? 1 : (random.bool() ? 2 : random.int(3...4))
            config.interitemSpacing = random.bool() ? 0 : random.length(0...20)
            config.columnSpacing = random.length(0...20)
            if random.bool() { config.itemSize = Size(width: random.length(1...200), height: random.length(0...160)) }
            config.sectionInset = Insets(top: random.length(0...20), left: random.length(0...20),
                                         bottom: random.length(0...20), right: random.length(0...20))
            if random.bool() { config.headerHeight = random.length(1...50) }
            if random.bool() { config.footerHeight = random.length(1...50) }
            // Few heights, often zero or equal, so ties and flat columns are common.
            let heights: [Double] = [0, 0.5, 40, 40, 100, random.length(1...300)]
            let input = LayoutInput(sections: (0..<random.int(0...5)).map { s in
                LayoutSectionInput(title: "S\(s)", items: (0..<[0, 1, 2, 3, random.int(4...60)][random.int(0...4)]).map { _ in
                    LayoutItemInput(size: random.int(0...5) == 0 ? nil : Size(width: 100, height: heights[random.int(0...5)]))
                })
            })
            let width = random.length(60...500)
            let layout = try Layout(input, configuration: config, viewportSize: Size(width: width, height: 800))
            layout.checkInvariants()
            let expected = Self.expectedFrames(input, config, width: width)
            for (s, frames) in expected.enumerated() {
                for (i, frame) in frames.enumerated() {
                    let found = layout.attributes(forItemAt: ItemPath(section: s, item: i))?.frame
                    #expect(found == frame, "\(config.columns) columns, section \(s) item \(i)")
                }
            }
        }
    }
}
