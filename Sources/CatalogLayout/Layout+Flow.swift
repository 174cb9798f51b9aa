import CatalogModel

/// Flow and shelf geometry: `UICollectionViewFlowLayout`'s rules as docs/Layouts.md states them, written
/// once along abstract axes — *main* is the scroll direction, *cross* the line direction — so
/// horizontal scrolling is the same code with the axes swapped.
///
/// One pass over the items writes every frame straight into the layout's storage: each item's
/// size as it is read, and each line's positions as soon as the next line starts, while its items
/// are still in the cache. No per-item allocation, no copies of the input. Long sections whose
/// lines hold one or two items (cards about half the width of a phone) take a path without a
/// branch on the line breaks instead (`layOutPairs`), and sections whose items all have one size
/// copy a few lines' places (`layOutUniform`, in `Layout+UniformLines.swift`).
extension Layout {
    /// A frame from main/cross coordinates.
    @inline(__always)
    func frame(main: Double, cross: Double, mainLength: Double, crossLength: Double) -> Rect {
        isHorizontal
            ? Rect(x: main, y: cross, width: mainLength, height: crossLength)
            : Rect(x: cross, y: main, width: crossLength, height: mainLength)
    }

    mutating func prepareFlow(_ input: LayoutInput) {
        let config = configuration
        let horizontal = isHorizontal
        let inset = config.sectionInset
        let crossSize = horizontal ? viewportSize.height : viewportSize.width
        let leadCross = horizontal ? inset.top : inset.left
        let trailCross = horizontal ? inset.bottom : inset.right
        let leadMain = horizontal ? inset.left : inset.top
        let trailMain = horizontal ? inset.right : inset.bottom
        let metrics = FlowMetrics(available: crossSize - leadCross - trailCross, leadCross: leadCross,
                                  spacing: config.interitemSpacing, lineSpacing: config.lineSpacing,
                                  sectionLead: config.headerHeight + leadMain, sectionTrail: trailMain + config.footerHeight)
        let itemCount = input.itemCount
        let sectionCount = input.numberOfSections

        // Storage from an earlier prepare is reused (no allocation, no page faults) when this
        // layout is its only owner.
        var sectionBands = self.sectionBands
        var sectionExtents = self.sectionExtents
        (self.sectionBands, self.sectionExtents) = ([], [])
        // How many lines there are is known only at the end. They go into the lines of the previous
        // prepare when this layout owns them (the same data makes as many lines: nothing is
        // allocated), else into room for one line per section or per eight items. When
        // the room runs out, the pass stops at the section whose line did not fit, the room grows
        // to what the sections before suggest, and the pass starts that section again. (Room for
        // one line per item would cost up to 24 bytes an item, and a temporary buffer of that size
        // made glibc unmap and fault in memory at every prepare: 3 ms instead of 0.7 for a new
        // 100k-item layout.)
        var bands = Self.room(&self.bands, count: self.bands.isEmpty
                                ? min(itemCount, max(itemCount / 8, sectionCount) + 16) : self.bands.count)
        var progress = FlowProgress(section: 0, position: 0, lineCount: 0)
        let sizing = ContentSizes(config, crossLength: metrics.available)
        let frames = Self.withStorage(&self.frames, count: itemCount) { out in
        sectionExtents = Self.withStorage(&sectionExtents, count: sectionCount) { extentsOut in
        sectionBands = Self.withStorage(&sectionBands, count: sectionCount + 1) { sectionBandsOut in
            input.naturalSizes.withUnsafeBufferPointer { sizes in
            input.kinds.withUnsafeBufferPointer { kinds in
            input.sectionStarts.withUnsafeBufferPointer { starts in
            input.sectionSizing.withUnsafeBufferPointer { shapes in
            UniformLines.with { uniform in
                sectionBandsOut[0] = 0
                while true {
                    progress = bands.withUnsafeMutableBufferPointer { lines in
                        Self.layOutLines(metrics, sizing: sizing, uniform: uniform, horizontal: horizontal, from: progress,
                                         sizes: sizes, kinds: kinds, sectionStarts: starts, sectionSizing: shapes, frames: out,
                                         lines: lines, extents: extentsOut, sectionBands: sectionBandsOut)
                    }
                    if progress.section == sectionCount { break }
                    // Out of room in `progress.section`: as many lines an item as so far, and a
                    // little more, but at least room for that whole section.
                    let done = starts[progress.section]
                    let expected = done > 0 ? progress.lineCount * itemCount / done + progress.lineCount / 8 : 0
                    let capacity = min(itemCount, max(bands.count + bands.count / 2, expected,
                                                      progress.lineCount + starts[progress.section + 1] - done))
                    bands = Self.grown(bands, keeping: progress.lineCount, count: capacity)
                }
            }
            }
            }
            }
            }
        }
        }
        }
        bands.removeLast(bands.count - progress.lineCount)
        self.bands = bands
        let position = progress.position
        self.frames = frames
        sectionStarts = input.sectionStarts
        self.sectionBands = sectionBands
        self.sectionExtents = sectionExtents
        contentSize = horizontal
            ? Size(width: position, height: viewportSize.height)
            : Size(width: viewportSize.width, height: position)
    }

    /// What laying out a flow layout's lines needs to know, along its abstract axes.
    struct FlowMetrics {
        /// Room along a line (the cross axis) between the section insets.
        var available: Double
        var leadCross: Double
        var spacing: Double
        var lineSpacing: Double
        /// Along the scroll axis: before a section's first line (header and inset) and after its
        /// last one (inset and footer).
        var sectionLead: Double
        var sectionTrail: Double
    }

    /// Where the pass of a flow layout stands: the section it starts (or starts again) at, where
    /// that section starts along the scroll axis, and the lines before it. After the last
    /// section, `position` is the extent of the whole content.
    struct FlowProgress {
        var section: Int
        var position: Double
        var lineCount: Int
    }

    /// The pass of a flow layout from `progress` on: every item's size and position, the lines,
    /// the sections' extents and the first line of each next section (`sectionBands[0]` is the
    /// caller's). Returns the progress after the last section, or at the section whose lines did
    /// not fit in `lines`.
    ///
    /// Lines are greedy: an item joins the line when the line's length, plus the spacing and the
    /// item's length, still fits. A function of its own, with everything it uses passed in:
    /// inside the closures that lend it the output buffers, running values captured from the
    /// enclosing function are kept in memory. Inlined into that closure all the same, as the
    /// compiler would not inline a function this large on its own.
    @inline(__always)
    static func layOutLines(_ metrics: FlowMetrics, sizing: ContentSizes, uniform: UniformLines, horizontal: Bool,
                            from progress: FlowProgress,
                            sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                            sectionStarts starts: UnsafeBufferPointer<Int>, sectionSizing shapes: UnsafeBufferPointer<SectionSizing>,
                            frames out: UnsafeMutableBufferPointer<Rect>,
                            lines: UnsafeMutableBufferPointer<Band>, extents: UnsafeMutableBufferPointer<Extent>,
                            sectionBands: UnsafeMutableBufferPointer<Int32>) -> FlowProgress {
        // One copy of the loops per scroll direction, each with the axes fixed.
        horizontal
            ? layOutLines(metrics, sizing: sizing, uniform: uniform, fixedAxis: true, from: progress, sizes: sizes, kinds: kinds,
                          sectionStarts: starts, sectionSizing: shapes, frames: out, lines: lines, extents: extents,
                          sectionBands: sectionBands)
            : layOutLines(metrics, sizing: sizing, uniform: uniform, fixedAxis: false, from: progress, sizes: sizes, kinds: kinds,
                          sectionStarts: starts, sectionSizing: shapes, frames: out, lines: lines, extents: extents,
                          sectionBands: sectionBands)
    }

    @inline(__always)
    private static func layOutLines(_ metrics: FlowMetrics, sizing: ContentSizes, uniform: UniformLines, fixedAxis horizontal: Bool,
                                    from progress: FlowProgress,
                                    sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                                    sectionStarts starts: UnsafeBufferPointer<Int>, sectionSizing shapes: UnsafeBufferPointer<SectionSizing>,
                                    frames out: UnsafeMutableBufferPointer<Rect>,
                                    lines: UnsafeMutableBufferPointer<Band>, extents: UnsafeMutableBufferPointer<Extent>,
                                    sectionBands: UnsafeMutableBufferPointer<Int32>) -> FlowProgress {
        let (available, spacing, lineSpacing) = (metrics.available, metrics.spacing, metrics.lineSpacing)
        @inline(__always) func measure(_ k: Int) -> (cross: Double, main: Double) {
            Self.measure(k, sizing, sizes: sizes, kinds: kinds, into: out, horizontal: horizontal)
        }
        let room = lines.count
        var position = progress.position
        var lineCount = progress.lineCount
        for s in progress.section..<extents.count {
            let sectionStart = position
            let sectionLineCount = lineCount
            position += metrics.sectionLead
            let start = starts[s], end = starts[s + 1]
            // Sections of items of one size are copies of a few lines; sections where no three
            // items fit on a line may take a path without the line-break branch.
            var placed = false
            if start < end {
                switch layOutUniform(uniform, metrics, sizing: sizing, fixedAxis: horizontal, start, end, shape: shapes[s],
                                     sizes: sizes, kinds: kinds, frames: out, lines: lines, position: position,
                                     lineCount: lineCount) {
                case .outOfRoom: return FlowProgress(section: s, position: sectionStart, lineCount: sectionLineCount)
                case let .placed(after, lines): (position, lineCount, placed) = (after, lines, true)
                case .notTaken: break
                }
            }
            if !placed && end &- start >= minimumPairedSection {
                switch layOutPairs(metrics, sizing: sizing, horizontal: horizontal, start, end,
                                   allNatural: shapes[s].contains(.allNaturalSizes), sizes: sizes, kinds: kinds,
                                   frames: out, lines: lines, position: position, lineCount: lineCount) {
                case .outOfRoom: return FlowProgress(section: s, position: sectionStart, lineCount: sectionLineCount)
                case let .placed(after, lines): (position, lineCount, placed) = (after, lines, true)
                case .notTaken: break
                }
            }
            if start < end, !placed {
                var lineStart = start
                var (used, thickness) = measure(start)
                /// Places the line that ends before `lineEnd` and records it; false when the
                /// lines have no room left for it.
                @inline(__always) func closeLine(at lineEnd: Int, isLast: Bool) -> Bool {
                    guard lineCount < room else { return false }
                    position = placeLine(metrics, fixedAxis: horizontal, frames: out, lineStart, lineEnd, used: used,
                                         thickness: thickness, position: position, isLast: isLast, into: lines, at: lineCount)
                    lineCount &+= 1
                    return true
                }
                let restart = FlowProgress(section: s, position: sectionStart, lineCount: sectionLineCount)
                for k in start + 1..<end {
                    let (cross, main) = measure(k)
                    let next = used + (spacing + cross)
                    if next <= available {
                        used = next
                        thickness = max(thickness, main)
                        continue
                    }
                    guard closeLine(at: k, isLast: false) else { return restart }
                    position += lineSpacing
                    (lineStart, used, thickness) = (k, cross, main)
                }
                guard closeLine(at: end, isLast: true) else { return restart }
            }
            position += metrics.sectionTrail
            extents[s] = Extent(lo: sectionStart, hi: position)
            sectionBands[s + 1] = Int32(truncatingIfNeeded: lineCount)
        }
        return FlowProgress(section: extents.count, position: position, lineCount: lineCount)
    }

    /// The fewest items a section needs for ``layOutPairs`` to be tried on it: on shorter ones, it
    /// gains less than it costs (measured on 100k mixed video cards in sections of 8 to 16: the
    /// paired pass starts to pay at about 10).
    static let minimumPairedSection = 10

    /// What a path for sections of one shape (``layOutPairs``, ``layOutUniform``) did with a section.
    enum SectionLines {
        /// Every line is placed and recorded; the section's lines end at `position`.
        case placed(position: Double, lineCount: Int)
        /// The lines have no room for the section's lines; nothing is recorded.
        case outOfRoom
        /// The section is not of the path's shape (for ``layOutPairs``: three items may fit on a
        /// line): it is for the general loop.
        case notTaken
    }

    /// Lays out a section in which no three items fit on a line, so that every line holds one
    /// item or two, without a branch on where lines break; `.notTaken` if three may fit.
    ///
    /// Greedy lines then follow a rule on bits: an item that starts a line takes the next one
    /// with it when the two fit (`fits[i]`), so the line starts are the items preceded by an even
    /// number of consecutive fitting pairs. Three passes: the items' sizes and the fits bits, 64
    /// to a word; the line starts, a word at a time with carries; the lines, placed from their
    /// starts with arithmetic instead of choices. With mixed sizes the general loop's line break
    /// is a branch the CPU mispredicts about every other line (13 cycles an item on the benchmark's
    /// video cards); here the breaks are known before any line is placed. Frames, lines and
    /// positions are the general loop's to the bit: the same operations on the same values.
    @inline(__always)
    private static func layOutPairs(_ metrics: FlowMetrics, sizing: ContentSizes, horizontal: Bool, _ start: Int, _ end: Int,
                                    allNatural: Bool, sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                                    frames out: UnsafeMutableBufferPointer<Rect>, lines: UnsafeMutableBufferPointer<Band>,
                                    position: Double, lineCount: Int) -> SectionLines {
        // Out of the general loop, whose registers it would otherwise crowd; one copy per scroll
        // direction, each with the axes fixed (two copies in one function, LLVM merged back into
        // one that tests the direction on every item), and per way of sizing items.
        @inline(__always) func layOut<Axis: ScrollAxis, Sizing: ItemSizing>(_ axis: Axis.Type, _ sizingKind: Sizing.Type) -> SectionLines {
            layOutPairs(axis, sizingKind, metrics, sizing: sizing, start, end, sizes: sizes, kinds: kinds, frames: out,
                        lines: lines, position: position, lineCount: lineCount)
        }
        @inline(__always) func layOut<Axis: ScrollAxis>(_ axis: Axis.Type) -> SectionLines {
            allNatural ? layOut(axis, NaturalSizes.self) : layOut(axis, ContentSizes.self)
        }
        return horizontal ? layOut(HorizontalScroll.self) : layOut(VerticalScroll.self)
    }

    @inline(never)
    private static func layOutPairs<Axis: ScrollAxis, Sizing: ItemSizing>(_: Axis.Type, _: Sizing.Type, _ metrics: FlowMetrics,
                                                                          sizing: ContentSizes, _ start: Int, _ end: Int,
                                                                          sizes: UnsafeBufferPointer<Size>,
                                                                          kinds: UnsafeBufferPointer<ItemKind?>,
                                                                          frames out: UnsafeMutableBufferPointer<Rect>,
                                                                          lines: UnsafeMutableBufferPointer<Band>,
                                                                          position sectionPosition: Double,
                                                                          lineCount sectionLineCount: Int) -> SectionLines {
        let horizontal = Axis.isHorizontal
        let (available, spacing, lineSpacing, lead) = (metrics.available, metrics.spacing, metrics.lineSpacing, metrics.leadCross)
        @inline(__always) func cross(_ k: Int) -> Double { crossLength(of: k, in: out, horizontal: horizontal) }
        @inline(__always) func main(_ k: Int) -> Double { mainLength(of: k, in: out, horizontal: horizontal) }
        @inline(__always) func measure(_ k: Int) -> Double {
            if Sizing.allNatural {
                // Copied as it is: no test for a missing size between reading its width and its height.
                let size = sizes[k]
                out[k].width = size.width
                out[k].height = size.height
                return horizontal ? size.height : size.width
            }
            return Self.measure(k, sizing, sizes: sizes, kinds: kinds, into: out, horizontal: horizontal).cross
        }
        /// Whether three items this long fit on a line, as the general loop adds them up. Addition
        /// rounds monotonically, so if three of the shortest do not fit, no three do.
        @inline(__always) func threeFit(_ length: Double) -> Bool {
            (length + (spacing + length)) + (spacing + length) <= available
        }
        let first = measure(start)
        if threeFit(first) { return .notTaken }
        let count = end &- start
        let wordCount = (count &+ 63) &>> 6
        // The fits bits, then the line starts, in `words[0..<wordCount]`; the lines of two in the rest.
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 &* wordCount) { words in
            // Running values declared in the closure: captured from outside, they would be kept in
            // memory, and the position's chain of additions would wait on a store and a load per line.
            var (position, lineCount) = (sectionPosition, sectionLineCount)
            // 1. Sizes, and bit i of the section: items i and i + 1 fit on one line.
            var shortest = first, previous = first
            // Each bit enters the word at the top and moves down one place per item: shifts by a
            // constant, where setting bit `i & 63` would shift by a variable amount.
            var word: UInt64 = 0
            @inline(__always) func enter(_ k: Int) {
                let length = measure(k)
                // `previous + (spacing + length) <= available`, as the sign of the room left (for
                // finite lengths the same answer: a difference of two distinct doubles is never 0),
                // since LLVM made the comparison in this loop a branch, mispredicted half the time.
                let room = available - (previous + (spacing + length))
                word = (word &>> 1) | (~room.bitPattern & (1 &<< 63))
                shortest = min(shortest, length)
                previous = length
            }
            // A word's 64 items in a loop of their own, so that no item tests for a word's end.
            var (next, w) = (start &+ 1, 0)
            while end &- next >= 64 {
                for k in next..<next &+ 64 { enter(k) }
                words[w] = word
                // Checked once a word, so that a short item early in a long section costs at
                // most a word of items measured twice.
                if threeFit(shortest) { return .notTaken }
                (next, w) = (next &+ 64, w &+ 1)
            }
            for k in next..<end { enter(k) }
            let filled = end &- next   // bits in the last word, at its top
            words[w] = filled == 0 ? 0 : word &>> UInt64(64 &- filled)
            if threeFit(shortest) { return .notTaken }

            // 2. Line starts. In a run of fitting pairs that begins at a line start, the items at
            // even distances from its beginning start lines of two; the item after the run starts
            // a line unless the run's last item did. Adding a run's lowest bit clears the run, so
            // `f & ~(f + evenStarts)` marks the runs that begin at even positions.
            let even: UInt64 = 0x5555_5555_5555_5555
            var carry: UInt64 = 1   // whether the word's first item starts a line
            var total = 0
            for w in 0..<wordCount {
                let f = words[w] & ~(1 &- carry)   // a first item that does not start a line takes no partner
                let runStarts = f & ~(f &<< 1)
                let evenRuns = f & ~(f &+ (runStarts & even))
                let pairs = (evenRuns & even) | (f & ~evenRuns & ~even)
                var starts = (~(pairs &<< 1) & ~1) | carry
                let valid = count &- (w &<< 6)
                if valid < 64 { starts &= (1 &<< UInt64(valid)) &- 1 }
                words[w] = starts
                words[wordCount &+ w] = pairs
                total &+= starts.nonzeroBitCount
                carry = (~pairs &>> 63) & 1
            }
            guard lineCount &+ total <= lines.count else { return .outOfRoom }

            // 3. Every line but the last (whose spacing has rules of its own, left to
            // `placeLine`), placed as `placeLine` places a line that is not its section's last.
            let lastItem = count &- 1
            let lastStart = (words[lastItem &>> 6] &>> UInt64(lastItem & 63)) & 1 == 1 ? lastItem : lastItem &- 1
            words[lastStart &>> 6] &= ~(1 &<< UInt64(lastStart & 63))
            @inline(__always) func place(_ k: Int, along: Double, main: Double) {
                setPosition(of: k, in: out, along: along, main: main, horizontal: horizontal)
            }
            for w in 0..<wordCount {
                var starts = words[w]
                let pairs = words[wordCount &+ w]
                while starts != 0 {
                    let b = starts.trailingZeroBitCount
                    let i = start &+ (w &<< 6) &+ b
                    starts &= starts &- 1
                    let c0 = cross(i), m0 = main(i), c1 = cross(i &+ 1), m1 = main(i &+ 1)
                    let pairUsed = c0 + (spacing + c1)
                    // Both cases worked out and weighed by 0 or 1 (lengths are finite and not
                    // negative), the bit read from the pass above: LLVM compiles a choice between
                    // two values, or a comparison it can see, as a branch, which would be
                    // mispredicted as often as the general loop's line break.
                    let pair = Int(truncatingIfNeeded: (pairs &>> UInt64(b)) & 1)
                    let weight = Double(pair)
                    let partner = weight * m1
                    let thickness = m0 > partner ? m0 : partner   // `max` without its NaN rule: one instruction
                    let along = lead + (1 - weight) * ((available - c0) / 2)
                    // The partner's frame first: for a lone item `j == i`, and its own frame wins.
                    let j = i &+ pair
                    place(j, along: lead + (c0 + (spacing + (available - pairUsed))), main: position + (thickness - m1) / 2)
                    place(i, along: along, main: position + (thickness - m0) / 2)
                    lines[lineCount] = Band(lo: position, hi: position + thickness,
                                            start: Int32(truncatingIfNeeded: i), end: Int32(truncatingIfNeeded: j &+ 1))
                    lineCount &+= 1
                    position += thickness
                    position += lineSpacing
                }
            }
            let i = start &+ lastStart
            let (used, thickness) = i == end &- 1
                ? (cross(i), main(i))
                : (cross(i) + (spacing + cross(i &+ 1)), max(main(i), main(i &+ 1)))
            let after = placeLine(metrics, fixedAxis: horizontal, frames: out, i, end, used: used, thickness: thickness,
                                  position: position, isLast: true, into: lines, at: lineCount)
            return .placed(position: after, lineCount: lineCount &+ 1)
        }
    }

    /// Places the items `lineStart..<lineEnd` of a line whose items' lengths and spacings add up
    /// to `used` across the scroll axis, `thickness` along it, at `position`. The leftover room is
    /// shared by the gaps, a lone item (or one that only fits once) is centred, and the last line
    /// of a section is spaced as if it were filled with copies of its last item. Records the line
    /// at `lines[index]` and returns where it ends along the scroll axis.
    @inline(__always)
    static func placeLine(_ metrics: FlowMetrics, fixedAxis horizontal: Bool, frames out: UnsafeMutableBufferPointer<Rect>,
                          _ lineStart: Int, _ lineEnd: Int, used: Double, thickness: Double, position: Double,
                          isLast: Bool, into lines: UnsafeMutableBufferPointer<Band>, at index: Int) -> Double {
        let (available, spacing) = (metrics.available, metrics.spacing)
        @inline(__always) func cross(_ k: Int) -> Double { crossLength(of: k, in: out, horizontal: horizontal) }
        @inline(__always) func main(_ k: Int) -> Double { mainLength(of: k, in: out, horizontal: horizontal) }
        var used = used
        // Counted as a `Double`: copies of a tiny last item can outnumber any integer.
        let items = Double(lineEnd &- lineStart)
        var slots = items
        if isLast {
            let step = spacing + cross(lineEnd - 1)
            // Compared before dividing: most last lines have no room for a copy.
            if step > 0, available - used >= step {
                let copies = ((available - used) / step).rounded(.down)
                used += copies * step
                slots += copies
                // Rounding may leave room for one more or take one too many. Once each, not in a
                // loop: a step below the precision of `used` would not change it.
                if used + step <= available { used += step; slots += 1 }
                if slots > items, used > available { used -= step; slots -= 1 }
            }
        }
        var along = slots == 1 ? metrics.leadCross + (available - used) / 2 : metrics.leadCross
        let gap = slots == 1 ? 0 : spacing + (available - used) / (slots - 1)
        for k in lineStart..<lineEnd {
            let m = main(k), c = cross(k)
            setPosition(of: k, in: out, along: along, main: position + (thickness - m) / 2, horizontal: horizontal)
            along += c + gap
        }
        // Item counts fit in 32 bits (checked in `prepare`).
        lines[index] = Band(lo: position, hi: position + thickness,
                            start: Int32(truncatingIfNeeded: lineStart), end: Int32(truncatingIfNeeded: lineEnd))
        return position + thickness
    }

    /// Writes item `k`'s size into its frame (its position follows when its line is placed) and
    /// returns its lengths across and along the scroll axis.
    @inline(__always)
    private static func measure(_ k: Int, _ sizing: ContentSizes, sizes: UnsafeBufferPointer<Size>,
                                kinds: UnsafeBufferPointer<ItemKind?>, into out: UnsafeMutableBufferPointer<Rect>,
                                horizontal: Bool) -> (cross: Double, main: Double) {
        let size = sizing.size(natural: sizes[k], kind: kinds[k])
        out[k].width = size.width
        out[k].height = size.height
        return horizontal ? (size.height, size.width) : (size.width, size.height)
    }

    /// Item `k`'s length across the scroll axis (along its line), from its frame.
    @inline(__always)
    private static func crossLength(of k: Int, in out: UnsafeMutableBufferPointer<Rect>, horizontal: Bool) -> Double {
        horizontal ? out[k].height : out[k].width
    }

    /// Item `k`'s length along the scroll axis, from its frame.
    @inline(__always)
    private static func mainLength(of k: Int, in out: UnsafeMutableBufferPointer<Rect>, horizontal: Bool) -> Double {
        horizontal ? out[k].width : out[k].height
    }

    /// Sets item `k`'s position from its offsets along its line (`along`) and along the scroll
    /// axis (`main`).
    @inline(__always)
    private static func setPosition(of k: Int, in out: UnsafeMutableBufferPointer<Rect>, along: Double, main: Double,
                                    horizontal: Bool) {
        if horizontal {
            out[k].x = main
            out[k].y = along
        } else {
            out[k].x = along
            out[k].y = main
        }
    }

    /// Takes an array out of the layout, emptied but keeping its capacity, so that preparing again
    /// writes into the same memory instead of allocating (and faulting in) new pages.
    static func takeStorage<T>(_ array: inout [T], capacity: Int) -> [T] {
        var taken = array
        array = []
        taken.removeAll(keepingCapacity: true)
        taken.reserveCapacity(capacity)
        return taken
    }

    /// Runs `body` on storage for exactly `count` elements of a trivial type, all of which `body`
    /// must write: the array's own memory when this layout is its only owner and it is large
    /// enough (preparing again), else new memory left uninitialised (no zeroing pass first).
    static func withStorage<T: BitwiseCopyable>(_ array: inout [T], count: Int,
                                                _ body: (UnsafeMutableBufferPointer<T>) -> Void) -> [T] {
        var taken = array
        array = []
        guard taken.capacity >= count, count > 0, !taken.isEmpty else {
            return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                body(buffer)
                initialized = count
            }
        }
        if taken.count > count {
            taken.removeLast(taken.count - count)
        } else if taken.count < count {
            taken.append(contentsOf: repeatElement(taken[0], count: count - taken.count))
        }
        taken.withUnsafeMutableBufferPointer { body($0) }
        return taken
    }

    /// `count` elements of plain data (every bit pattern of which is a value) for a pass to write
    /// before it reads them, their contents unspecified: the array's own memory when this layout
    /// is its only owner and it is large enough, else new memory.
    static func room<T: BitwiseCopyable>(_ array: inout [T], count: Int) -> [T] {
        withStorage(&array, count: count) { _ in }
    }

    /// A copy of `array` with `count` elements, the first `kept` of them from `array` and the rest
    /// unspecified, as in ``room(_:count:)``.
    static func grown<T: BitwiseCopyable>(_ array: [T], keeping kept: Int, count: Int) -> [T] {
        [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            array.withUnsafeBufferPointer { old in
                _ = buffer.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: old[..<kept]))
            }
            initialized = count
        }
    }

    /// A shelf's board: the union of its items' frames, grown by the top and bottom insets,
    /// across the whole width; `nil` for an empty section.
    func shelfBoard(_ section: Int) -> Rect? {
        let first = Int(sectionBands[section]), end = Int(sectionBands[section + 1])
        guard first < end else { return nil }
        let inset = configuration.sectionInset
        let leadMain = isHorizontal ? inset.left : inset.top
        let trailMain = isHorizontal ? inset.right : inset.bottom
        // The tallest item of a line spans the whole line, so the lines bound the items exactly.
        let lo = bands[first].lo - leadMain, hi = bands[end - 1].hi + trailMain
        return frame(main: lo, cross: 0, mainLength: hi - lo,
                     crossLength: isHorizontal ? viewportSize.height : viewportSize.width)
    }
}

/// How a pass sizes a section's items, as a type, so that a pass specialized for it is compiled
/// without the test the other needs.
protocol ItemSizing {
    /// Whether every item has a natural size (see ``SectionSizing/allNaturalSizes``).
    static var allNatural: Bool { get }
}

/// Every item of the section has a natural size, which is its size.
enum NaturalSizes: ItemSizing {
    static var allNatural: Bool { true }
}

extension ContentSizes: ItemSizing {
    /// Items may lack a natural size: ``size(natural:kind:)`` decides.
    static var allNatural: Bool { false }
}

/// A scroll direction as a type, so that a pass specialized for it is compiled with the axes fixed.
protocol ScrollAxis {
    static var isHorizontal: Bool { get }
}

enum VerticalScroll: ScrollAxis {
    static var isHorizontal: Bool { false }
}

enum HorizontalScroll: ScrollAxis {
    static var isHorizontal: Bool { true }
}
