import CatalogModel

// The flow layout's paired pass: sections whose items fit one or two to a line, laid out without
// a branch on where lines break.
extension Layout {
    /// Lays out a section in which no three items fit on a line, so that every line holds one
    /// item or two, without a branch on where lines break; `.notTaken` if three may fit.
    ///
    /// Greedy lines then follow a rule on bits: an item that starts a line takes the next one
    /// with it when the two fit (`fits[i]`), so the line starts are the items preceded by an even
    /// number of consecutive fitting pairs. Three passes: the items' sizes and the fits bits, 64
    /// to a word; the line starts, a word at a time with carries; the lines, placed from their
    /// starts with arithmetic instead of choices. With mixed sizes the general loop's line break
    /// is a branch the CPU mispredicts about every other line; here the breaks are known before
    /// any line is placed. Frames, lines and
    /// positions are the general loop's to the bit: the same operations on the same values.
    @inline(__always)
    static func layOutPairs<Axis: ScrollAxis>(_ axis: Axis.Type, _ metrics: FlowMetrics, sizing: ContentSizes,
                                              _ start: Int, _ end: Int, allNatural: Bool,
                                              input: LayoutInput.Buffers, into output: FlowOutput,
                                              position: Double, lineCount: Int) -> SectionLines {
        // Out of the general loop, whose registers it would otherwise crowd; one copy per way of
        // sizing items (and, as the general loop, per scroll direction).
        @inline(__always) func layOut<Sizing: ItemSizing>(_ sizingKind: Sizing.Type) -> SectionLines {
            layOutPairs(axis, sizingKind, metrics, sizing: sizing, start, end, input: input, into: output,
                        position: position, lineCount: lineCount)
        }
        return allNatural ? layOut(NaturalSizes.self) : layOut(ContentSizes.self)
    }

    @inline(never)
    static func layOutPairs<Axis: ScrollAxis, Sizing: ItemSizing>(_: Axis.Type, _: Sizing.Type, _ metrics: FlowMetrics,
                                                                  sizing: ContentSizes, _ start: Int, _ end: Int,
                                                                  input: LayoutInput.Buffers, into output: FlowOutput,
                                                                  position sectionPosition: Double,
                                                                  lineCount sectionLineCount: Int) -> SectionLines {
        let (sizes, kinds, out, lines) = (input.sizes, input.kinds, output.frames, output.lines)
        let (available, spacing, lineSpacing, lead) = (metrics.available, metrics.spacing, metrics.lineSpacing, metrics.leadCross)
        @inline(__always) func cross(_ k: Int) -> Double { Axis.crossLength(of: out[k]) }
        @inline(__always) func main(_ k: Int) -> Double { Axis.mainLength(of: out[k]) }
        @inline(__always) func measure(_ k: Int) -> Double {
            if Sizing.allNatural {
                // Copied as it is: no test for a missing size between reading its width and its height.
                let size = sizes[k]
                out[k].width = size.width
                out[k].height = size.height
                return Axis.lengths(of: size).cross
            }
            return Self.measure(k, sizing, sizes: sizes, kinds: kinds, into: out, Axis.self).cross
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
                Axis.setPosition(of: &out[k], along: along, main: main)
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
            let after = placeLine(Axis.self, metrics, frames: out, i, end, used: used, thickness: thickness,
                                  position: position, isLast: true, into: lines, at: lineCount)
            return .placed(position: after, lineCount: lineCount &+ 1)
        }
    }
}
