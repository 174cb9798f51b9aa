import CatalogModel

/// Flow and shelf geometry: `UICollectionViewFlowLayout`'s rules as SPEC §7 states them, written
/// once along abstract axes — *main* is the scroll direction, *cross* the line direction — so
/// horizontal scrolling is the same code with the axes swapped.
///
/// Two passes over the items write every frame straight into the layout's storage: first each
/// item's size, then, line by line, its position. No per-item allocation, no copies of the input.
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
        let available = crossSize - leadCross - trailCross
        let spacing = config.interitemSpacing
        let lineSpacing = config.lineSpacing
        let headerHeight = config.headerHeight, footerHeight = config.footerHeight
        let itemCount = input.itemCount
        let sectionCount = input.numberOfSections

        // Storage from an earlier prepare is reused (no allocation, no page faults) when this
        // layout is its only owner.
        var sectionBands = self.sectionBands
        var sectionExtents = self.sectionExtents
        var bands = self.bands
        (self.sectionBands, self.sectionExtents, self.bands) = ([], [], [])
        var position = 0.0
        var lineCount = 0

        // Pass 1: every item's size, and where lines break (marked with x = 1), so the lines can
        // be stored in an array of exactly the right size.
        var frames = Self.withStorage(&self.frames, count: itemCount) { out in
            input.naturalSizes.withUnsafeBufferPointer { sizes in
            input.kinds.withUnsafeBufferPointer { kinds in
            input.sectionStarts.withUnsafeBufferPointer { starts in
                lineCount = Self.measureItems(config, horizontal: horizontal, available: available, sizes: sizes, kinds: kinds,
                                              sectionStarts: starts, frames: out)
            }
            }
            }
        }

        // Pass 2: line by line, the positions; the lines and the sections' extents are written
        // straight into arrays of their final sizes (an append per line and per section checked
        // the array's uniqueness and capacity each time: shelves are sections of a line or two).
        bands = Self.withStorage(&bands, count: lineCount) { bandsOut in
        sectionExtents = Self.withStorage(&sectionExtents, count: sectionCount) { extentsOut in
        sectionBands = Self.withStorage(&sectionBands, count: sectionCount + 1) { sectionBandsOut in
            frames.withUnsafeMutableBufferPointer { out in
            input.sectionStarts.withUnsafeBufferPointer { starts in
                position = Self.placeLines(
                    FlowMetrics(available: available, leadCross: leadCross, spacing: spacing,
                                lineSpacing: lineSpacing, sectionLead: headerHeight + leadMain, sectionTrail: trailMain + footerHeight),
                    horizontal: horizontal, frames: out, sectionStarts: starts, bands: bandsOut, extents: extentsOut,
                    sectionBands: sectionBandsOut)
            }
            }
        }
        }
        }
        self.frames = frames
        self.bands = bands
        sectionStarts = input.sectionStarts
        self.sectionBands = sectionBands
        self.sectionExtents = sectionExtents
        contentSize = horizontal
            ? Size(width: position, height: viewportSize.height)
            : Size(width: viewportSize.width, height: position)
    }

    /// Pass 1 of a flow layout: writes every item's size into `frames`, with x = 1 where a line
    /// starts (greedy: the first item of a line costs its length, each next one its length plus
    /// the spacing), and returns the number of lines. A function of its own for the same reason
    /// as ``placeLines(_:horizontal:frames:sectionStarts:bands:extents:sectionBands:)``.
    static func measureItems(_ config: LayoutConfiguration, horizontal: Bool, available: Double,
                             sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                             sectionStarts starts: UnsafeBufferPointer<Int>, frames out: UnsafeMutableBufferPointer<Rect>) -> Int {
        let spacing = config.interitemSpacing
        var lineCount = 0
        for s in 0..<starts.count - 1 {
            var used = Double.infinity
            for k in starts[s]..<starts[s + 1] {
                let size = config.contentSize(natural: sizes[k], kind: kinds[k], crossLength: available)
                let length = horizontal ? size.height : size.width
                let next = used + spacing + length
                let breaks = k == starts[s] || next > available
                used = breaks ? length : next
                lineCount += breaks ? 1 : 0
                out[k] = Rect(x: breaks ? 1 : 0, y: 0, width: size.width, height: size.height)
            }
        }
        return lineCount
    }

    /// What placing a flow layout's lines needs to know, along its abstract axes.
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

    /// Pass 2 of a flow layout: `frames` hold each item's size, with x = 1 where a line starts;
    /// gives every item its position, writes the lines, the sections' extents and the first line
    /// of each section, and returns the extent of the whole content along the scroll axis.
    ///
    /// A function of its own, with everything it uses passed in: inside the closures that lend
    /// it the output buffers, the running position and line count were variables captured from
    /// the enclosing function, which the compiler kept in memory (about 80 instructions an item).
    static func placeLines(_ metrics: FlowMetrics, horizontal: Bool, frames out: UnsafeMutableBufferPointer<Rect>,
                           sectionStarts starts: UnsafeBufferPointer<Int>, bands: UnsafeMutableBufferPointer<Band>,
                           extents: UnsafeMutableBufferPointer<Extent>, sectionBands: UnsafeMutableBufferPointer<Int32>) -> Double {
        // One copy of the loops per scroll direction, each with the axes fixed.
        horizontal
            ? placeLines(metrics, fixedAxis: true, frames: out, sectionStarts: starts, bands: bands, extents: extents, sectionBands: sectionBands)
            : placeLines(metrics, fixedAxis: false, frames: out, sectionStarts: starts, bands: bands, extents: extents, sectionBands: sectionBands)
    }

    @inline(__always)
    private static func placeLines(_ metrics: FlowMetrics, fixedAxis horizontal: Bool, frames out: UnsafeMutableBufferPointer<Rect>,
                                   sectionStarts starts: UnsafeBufferPointer<Int>, bands: UnsafeMutableBufferPointer<Band>,
                                   extents: UnsafeMutableBufferPointer<Extent>, sectionBands: UnsafeMutableBufferPointer<Int32>) -> Double {
        let (available, leadCross) = (metrics.available, metrics.leadCross)
        let (spacing, lineSpacing) = (metrics.spacing, metrics.lineSpacing)
        @inline(__always) func cross(_ k: Int) -> Double { horizontal ? out[k].height : out[k].width }
        @inline(__always) func main(_ k: Int) -> Double { horizontal ? out[k].width : out[k].height }
        var position = 0.0
        var lineIndex = 0
        sectionBands[0] = 0
        for s in 0..<extents.count {
            let sectionStart = position
            position += metrics.sectionLead
            let end = starts[s + 1]
            var lineStart = starts[s]
            while lineStart < end {
                var used = cross(lineStart)
                var thickness = main(lineStart)
                var lineEnd = lineStart + 1
                while lineEnd < end, out[lineEnd].x != 1 {
                    used += spacing + cross(lineEnd)
                    thickness = max(thickness, main(lineEnd))
                    lineEnd &+= 1
                }
                let isLast = lineEnd == end
                // The last line is spaced as if it were filled with copies of its last item.
                var slots = lineEnd &- lineStart
                if isLast {
                    let step = spacing + cross(lineEnd - 1)
                    // Compared before dividing: most last lines have no room for a copy.
                    if step > 0, available - used >= step {
                        let room = (available - used) / step
                        let copies = room < 1e9 ? Int(room) : 1_000_000_000
                        used += Double(copies) * step
                        slots += copies
                        // Rounding may leave room for one more or take one too many.
                        while used + step <= available { used += step; slots += 1 }
                        while slots > lineEnd - lineStart, used > available { used -= step; slots -= 1 }
                    }
                }
                // A lone item (or one that only fits once) is centred; otherwise the leftover
                // space is shared by the gaps.
                var along = slots == 1 ? leadCross + (available - used) / 2 : leadCross
                let gap = slots == 1 ? 0 : spacing + (available - used) / Double(slots &- 1)
                for k in lineStart..<lineEnd {
                    let m = main(k), c = cross(k)
                    let offset = position + (thickness - m) / 2
                    if horizontal {
                        out[k].x = offset
                        out[k].y = along
                    } else {
                        out[k].x = along
                        out[k].y = offset
                    }
                    along += c + gap
                }
                // Item counts fit in 32 bits (checked in `prepare`).
                bands[lineIndex] = Band(lo: position, hi: position + thickness,
                                        start: Int32(truncatingIfNeeded: lineStart), end: Int32(truncatingIfNeeded: lineEnd))
                lineIndex &+= 1
                position += thickness
                if !isLast { position += lineSpacing }
                lineStart = lineEnd
            }
            position += metrics.sectionTrail
            extents[s] = Extent(lo: sectionStart, hi: position)
            sectionBands[s + 1] = Int32(truncatingIfNeeded: lineIndex)
        }
        return position
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
