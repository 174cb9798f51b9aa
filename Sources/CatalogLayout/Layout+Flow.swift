import CatalogModel

/// Flow and shelf geometry: `UICollectionViewFlowLayout`'s rules as SPEC §7 states them, written
/// once along abstract axes — *main* is the scroll direction, *cross* the line direction — so
/// horizontal scrolling is the same code with the axes swapped.
///
/// One pass over the items writes every frame straight into the layout's storage: each item's
/// size as it is read, and each line's positions as soon as the next line starts, while its items
/// are still in the cache. No per-item allocation, no copies of the input.
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
                sectionBandsOut[0] = 0
                while true {
                    progress = bands.withUnsafeMutableBufferPointer { lines in
                        Self.layOutLines(metrics, sizing: sizing, horizontal: horizontal, from: progress, sizes: sizes,
                                         kinds: kinds, sectionStarts: starts, frames: out, lines: lines,
                                         extents: extentsOut, sectionBands: sectionBandsOut)
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
    /// enclosing function were kept in memory (about 80 instructions an item).
    static func layOutLines(_ metrics: FlowMetrics, sizing: ContentSizes, horizontal: Bool, from progress: FlowProgress,
                            sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                            sectionStarts starts: UnsafeBufferPointer<Int>, frames out: UnsafeMutableBufferPointer<Rect>,
                            lines: UnsafeMutableBufferPointer<Band>, extents: UnsafeMutableBufferPointer<Extent>,
                            sectionBands: UnsafeMutableBufferPointer<Int32>) -> FlowProgress {
        // One copy of the loops per scroll direction, each with the axes fixed.
        horizontal
            ? layOutLines(metrics, sizing: sizing, fixedAxis: true, from: progress, sizes: sizes, kinds: kinds,
                          sectionStarts: starts, frames: out, lines: lines, extents: extents, sectionBands: sectionBands)
            : layOutLines(metrics, sizing: sizing, fixedAxis: false, from: progress, sizes: sizes, kinds: kinds,
                          sectionStarts: starts, frames: out, lines: lines, extents: extents, sectionBands: sectionBands)
    }

    @inline(__always)
    private static func layOutLines(_ metrics: FlowMetrics, sizing: ContentSizes, fixedAxis horizontal: Bool,
                                    from progress: FlowProgress,
                                    sizes: UnsafeBufferPointer<Size>, kinds: UnsafeBufferPointer<ItemKind?>,
                                    sectionStarts starts: UnsafeBufferPointer<Int>, frames out: UnsafeMutableBufferPointer<Rect>,
                                    lines: UnsafeMutableBufferPointer<Band>, extents: UnsafeMutableBufferPointer<Extent>,
                                    sectionBands: UnsafeMutableBufferPointer<Int32>) -> FlowProgress {
        let (available, spacing, lineSpacing) = (metrics.available, metrics.spacing, metrics.lineSpacing)
        /// Writes item `k`'s size (its position follows when its line is placed) and returns its
        /// lengths across and along the scroll axis.
        @inline(__always) func measure(_ k: Int) -> (cross: Double, main: Double) {
            let size = sizing.size(natural: sizes[k], kind: kinds[k])
            out[k].width = size.width
            out[k].height = size.height
            return horizontal ? (size.height, size.width) : (size.width, size.height)
        }
        let room = lines.count
        var position = progress.position
        var lineCount = progress.lineCount
        for s in progress.section..<extents.count {
            let sectionStart = position
            let sectionLineCount = lineCount
            position += metrics.sectionLead
            let start = starts[s], end = starts[s + 1]
            if start < end {
                var lineStart = start
                var (used, thickness) = measure(start)
                /// Places the line that ends before `lineEnd` and records it; false when the
                /// lines have no room left for it.
                @inline(__always) func closeLine(at lineEnd: Int, isLast: Bool) -> Bool {
                    guard lineCount < room else { return false }
                    placeLine(metrics, fixedAxis: horizontal, frames: out, lineStart, lineEnd, used: used, thickness: thickness,
                              position: position, isLast: isLast)
                    // Item counts fit in 32 bits (checked in `prepare`).
                    lines[lineCount] = Band(lo: position, hi: position + thickness,
                                            start: Int32(truncatingIfNeeded: lineStart), end: Int32(truncatingIfNeeded: lineEnd))
                    lineCount &+= 1
                    position += thickness
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

    /// Places the items `lineStart..<lineEnd` of a line whose items' lengths and spacings add up
    /// to `used` across the scroll axis, `thickness` along it, at `position`. The leftover room is
    /// shared by the gaps, a lone item (or one that only fits once) is centred, and the last line
    /// of a section is spaced as if it were filled with copies of its last item.
    @inline(__always)
    private static func placeLine(_ metrics: FlowMetrics, fixedAxis horizontal: Bool, frames out: UnsafeMutableBufferPointer<Rect>,
                                  _ lineStart: Int, _ lineEnd: Int, used: Double, thickness: Double, position: Double,
                                  isLast: Bool) {
        let (available, spacing) = (metrics.available, metrics.spacing)
        @inline(__always) func cross(_ k: Int) -> Double { horizontal ? out[k].height : out[k].width }
        @inline(__always) func main(_ k: Int) -> Double { horizontal ? out[k].width : out[k].height }
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
