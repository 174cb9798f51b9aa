import CatalogModel

/// Flow and shelf sections whose items all have one size: every item without a natural size, and
/// either the configuration's `itemSize` or one kind throughout (a shelf of books, a grid of
/// icons, any flow layout with a fixed `itemSize` — the common configuration).
///
/// Every line of such a section but the last holds the same number of items at the same places
/// across the line, and the last line's places depend only on how many items it holds. So those
/// places are worked out once per prepare, by ``Layout/placeLine`` itself on a line of stand-in
/// items, and each section copies them: no item is measured, and no line shares out its leftover
/// room again (the last line's rule divides twice). Positions along the scroll axis are added up
/// line by line as the general loop adds them, so frames and lines are the general loop's to the
/// bit.
extension Layout {
    /// Where the places across a line, worked out once, are kept during one prepare: one slot per
    /// size an item without a natural size can get (``ContentSizes/slot(of:)``), each holding a
    /// full line's places and those of last lines of 1 to ``maximumPerLine`` items.
    struct UniformLines {
        /// The most items a line may hold for its section to take this path: the places of last
        /// lines of every length take `n(n + 1)/2` numbers.
        static let maximumPerLine = 64
        static let slotCount = 4
        /// Numbers a slot takes: a full line's places, then the last line of `r` items' at
        /// `maximumPerLine + r(r − 1)/2`.
        static let slotStride = maximumPerLine + maximumPerLine * (maximumPerLine + 1) / 2

        /// What a slot has worked out so far.
        struct Slot {
            /// The items a line holds: 0 while not worked out, −1 when more than ``maximumPerLine``.
            var perLine = 0
            /// Whether a full line's places are worked out.
            var hasFullLine = false
            /// Which last lines' places are worked out: bit `r − 1` for a last line of `r` items.
            var lastLines: UInt64 = 0
        }

        /// The places, `slotCount × slotStride`, written before they are read.
        let places: UnsafeMutablePointer<Double>
        let slots: UnsafeMutablePointer<Slot>

        /// Runs `body` with empty slots (in temporary memory).
        static func with<R>(_ body: (UniformLines) -> R) -> R {
            withUnsafeTemporaryAllocation(of: Double.self, capacity: slotCount * slotStride) { places in
                withUnsafeTemporaryAllocation(of: Slot.self, capacity: slotCount) { slots in
                    slots.initialize(repeating: Slot())
                    return body(UniformLines(places: places.baseAddress!, slots: slots.baseAddress!))
                }
            }
        }

        /// The places of a full line of slot `slot`'s items.
        func fullLine(ofSlot slot: Int) -> UnsafeMutablePointer<Double> { places + slot &* Self.slotStride }

        /// The places of a last line of `count` (1 to ``maximumPerLine``) of slot `slot`'s items.
        func lastLine(ofSlot slot: Int, count: Int) -> UnsafeMutablePointer<Double> {
            fullLine(ofSlot: slot) + (Self.maximumPerLine &+ count &* (count &- 1) / 2)
        }
    }

    /// Lays out the section `start..<end` from its slot's places when all its items have one size,
    /// recording its lines from `lines[lineCount]` on; `.notTaken` when they do not, or when more
    /// than ``UniformLines/maximumPerLine`` fit on a line.
    @inline(__always)
    static func layOutUniform<Axis: ScrollAxis>(_ axis: Axis.Type, _ uniform: UniformLines, _ metrics: FlowMetrics,
                                                sizing: ContentSizes, _ start: Int, _ end: Int, shape: SectionSizing,
                                                input: LayoutInput.Buffers, into output: FlowOutput,
                                                position: Double, lineCount: Int) -> SectionLines {
        let (sizes, kinds, out, lines) = (input.sizes, input.kinds, output.frames, output.lines)
        // One size: no natural sizes, and one kind unless the configuration sizes every kind alike.
        guard shape.contains(.noNaturalSizes), sizing.sameForAll || shape.contains(.oneKind) else { return .notTaken }
        let kind = kinds[start]
        let index = sizing.slot(of: kind)
        let slot = uniform.slots + index
        let size = sizing.size(natural: sizes[start], kind: kind)
        let (cross, main) = Axis.lengths(of: size)
        if slot.pointee.perLine == 0 { slot.pointee.perLine = itemsPerLine(cross, metrics) }
        let perLine = slot.pointee.perLine
        guard perLine > 0 else { return .notTaken }
        let count = end &- start
        // Most sections of this shape fill one line at most (a shelf): no division for them,
        // which took a tenth of a shelf's time.
        let lineTotal = count <= perLine ? 1 : (count &- 1) / perLine &+ 1
        guard lineCount &+ lineTotal <= lines.count else { return .outOfRoom }

        let fullLine = uniform.fullLine(ofSlot: index)
        // `placeLine` puts an item at `position + (thickness − length) / 2` along the scroll axis:
        // with every length the line's thickness, this offset.
        let lift = (main - main) / 2
        var (position, lineCount, i) = (position, lineCount, start)
        @inline(__always) func place(_ places: UnsafeMutablePointer<Double>, _ n: Int) {
            let along = position + lift
            for j in 0..<n { out[i &+ j] = Axis.frame(along: places[j], main: along, size: size) }
            // Item counts fit in 32 bits (checked in `prepare`).
            lines[lineCount] = Band(lo: position, hi: position + main,
                                   start: Int32(truncatingIfNeeded: i), end: Int32(truncatingIfNeeded: i &+ n))
            lineCount &+= 1
            position = position + main
            i &+= n
        }
        if lineTotal > 1 {
            if !slot.pointee.hasFullLine {
                workOutPlaces(into: fullLine, count: perLine, isLast: false, cross: cross, main: main, metrics, axis)
                slot.pointee.hasFullLine = true
            }
            for _ in 1..<lineTotal {
                place(fullLine, perLine)
                position += metrics.lineSpacing
            }
        }
        let last = end &- i
        let lastPlaces = uniform.lastLine(ofSlot: index, count: last)
        let bit: UInt64 = 1 &<< UInt64(last &- 1)
        if slot.pointee.lastLines & bit == 0 {
            workOutPlaces(into: lastPlaces, count: last, isLast: true, cross: cross, main: main, metrics, axis)
            slot.pointee.lastLines |= bit
        }
        place(lastPlaces, last)
        return .placed(position: position, lineCount: lineCount)
    }

    /// How many items `cross` long fit on a line, added up as the general loop adds them: at
    /// least one, or −1 when more than ``UniformLines/maximumPerLine``.
    private static func itemsPerLine(_ cross: Double, _ metrics: FlowMetrics) -> Int {
        var (used, count) = (cross, 1)
        while count <= UniformLines.maximumPerLine {
            let next = used + (metrics.spacing + cross)
            guard next <= metrics.available else { return count }
            (used, count) = (next, count &+ 1)
        }
        return -1
    }

    /// The places across a line of `count` items, `cross` by `main` (along the scroll axis), as
    /// ``placeLine`` places them: it places a line of such items, and their places are read back.
    @inline(never)
    private static func workOutPlaces<Axis: ScrollAxis>(into places: UnsafeMutablePointer<Double>, count: Int, isLast: Bool,
                                                        cross: Double, main: Double, _ metrics: FlowMetrics, _ axis: Axis.Type) {
        withUnsafeTemporaryAllocation(of: Rect.self, capacity: count) { items in
            var used = cross
            let size = Axis.isHorizontal ? Size(width: main, height: cross) : Size(width: cross, height: main)
            for k in 0..<count {
                items[k] = Rect(x: 0, y: 0, width: size.width, height: size.height)
                if k > 0 { used = used + (metrics.spacing + cross) }
            }
            withUnsafeTemporaryAllocation(of: Band.self, capacity: 1) { band in
                _ = placeLine(axis, metrics, frames: items, 0, count, used: used, thickness: main,
                              position: 0, isLast: isLast, into: band, at: 0)
            }
            for k in 0..<count { places[k] = Axis.along(of: items[k]) }
        }
    }
}
