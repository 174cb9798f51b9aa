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
        // makes glibc unmap and fault in memory at every prepare.)
        var bands = Self.room(&self.bands, count: self.bands.isEmpty
                                ? min(itemCount, max(itemCount / 8, sectionCount) + 16) : self.bands.count)
        var progress = FlowProgress(section: 0, position: 0, lineCount: 0)
        let sizing = ContentSizes(config, crossLength: metrics.available)
        // Into the storage of the frames, the sections' extents and their first lines: each
        // written whole by the pass.
        let frames = Self.withStorage(&self.frames, count: itemCount) { out in
            sectionExtents = Self.withStorage(&sectionExtents, count: sectionCount) { extentsOut in
                sectionBands = Self.withStorage(&sectionBands, count: sectionCount + 1) { sectionBandsOut in
                    sectionBandsOut[0] = 0
                    input.withBuffers { buffers in
                        UniformLines.with { uniform in
                            while true {
                                progress = bands.withUnsafeMutableBufferPointer { lines in
                                    Self.layOutLines(metrics, sizing: sizing, uniform: uniform, horizontal: horizontal, from: progress,
                                                     input: buffers, into: FlowOutput(frames: out, lines: lines, extents: extentsOut,
                                                                                      sectionBands: sectionBandsOut))
                                }
                                if progress.section == sectionCount { break }
                                // Out of room in `progress.section`: as many lines an item as so
                                // far, and a little more, but at least room for that whole section.
                                let done = buffers.sectionStarts[progress.section]
                                let expected = done > 0 ? progress.lineCount * itemCount / done + progress.lineCount / 8 : 0
                                let capacity = min(itemCount, max(bands.count + bands.count / 2, expected,
                                                                  progress.lineCount + buffers.sectionStarts[progress.section + 1] - done))
                                bands = Self.grown(bands, keeping: progress.lineCount, count: capacity)
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
                            from progress: FlowProgress, input: LayoutInput.Buffers, into output: FlowOutput) -> FlowProgress {
        // One copy of the loops per scroll direction, each with the axes fixed.
        horizontal
            ? layOutLines(HorizontalScroll.self, metrics, sizing: sizing, uniform: uniform, from: progress, input: input, into: output)
            : layOutLines(VerticalScroll.self, metrics, sizing: sizing, uniform: uniform, from: progress, input: input, into: output)
    }

    /// Where the flow pass writes: every item's frame, the lines, the sections' extents and the
    /// first line of each section.
    struct FlowOutput {
        let frames: UnsafeMutableBufferPointer<Rect>
        let lines: UnsafeMutableBufferPointer<Band>
        let extents: UnsafeMutableBufferPointer<Extent>
        let sectionBands: UnsafeMutableBufferPointer<Int32>
    }

    @inline(__always)
    private static func layOutLines<Axis: ScrollAxis>(_ axis: Axis.Type, _ metrics: FlowMetrics, sizing: ContentSizes,
                                                      uniform: UniformLines, from progress: FlowProgress,
                                                      input: LayoutInput.Buffers, into output: FlowOutput) -> FlowProgress {
        let (sizes, kinds, starts, shapes) = (input.sizes, input.kinds, input.sectionStarts, input.sectionSizing)
        let (out, lines, extents, sectionBands) = (output.frames, output.lines, output.extents, output.sectionBands)
        let (available, spacing, lineSpacing) = (metrics.available, metrics.spacing, metrics.lineSpacing)
        @inline(__always) func measure(_ k: Int) -> (cross: Double, main: Double) {
            Self.measure(k, sizing, sizes: sizes, kinds: kinds, into: out, axis)
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
                switch layOutUniform(axis, uniform, metrics, sizing: sizing, start, end, shape: shapes[s],
                                     input: input, into: output, position: position, lineCount: lineCount) {
                case .outOfRoom: return FlowProgress(section: s, position: sectionStart, lineCount: sectionLineCount)
                case let .placed(after, lines): (position, lineCount, placed) = (after, lines, true)
                case .notTaken: break
                }
            }
            if !placed && end &- start >= minimumPairedSection {
                switch layOutPairs(axis, metrics, sizing: sizing, start, end, allNatural: shapes[s].contains(.allNaturalSizes),
                                   input: input, into: output, position: position, lineCount: lineCount) {
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
                    position = placeLine(axis, metrics, frames: out, lineStart, lineEnd, used: used,
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

    /// Places the items `lineStart..<lineEnd` of a line whose items' lengths and spacings add up
    /// to `used` across the scroll axis, `thickness` along it, at `position`. The leftover room is
    /// shared by the gaps, a lone item (or one that only fits once) is centred, and the last line
    /// of a section is spaced as if it were filled with copies of its last item. Records the line
    /// at `lines[index]` and returns where it ends along the scroll axis.
    @inline(__always)
    static func placeLine<Axis: ScrollAxis>(_: Axis.Type, _ metrics: FlowMetrics, frames out: UnsafeMutableBufferPointer<Rect>,
                                            _ lineStart: Int, _ lineEnd: Int, used: Double, thickness: Double, position: Double,
                                            isLast: Bool, into lines: UnsafeMutableBufferPointer<Band>, at index: Int) -> Double {
        let (available, spacing) = (metrics.available, metrics.spacing)
        @inline(__always) func cross(_ k: Int) -> Double { Axis.crossLength(of: out[k]) }
        @inline(__always) func main(_ k: Int) -> Double { Axis.mainLength(of: out[k]) }
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
            Axis.setPosition(of: &out[k], along: along, main: position + (thickness - m) / 2)
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
    static func measure<Axis: ScrollAxis>(_ k: Int, _ sizing: ContentSizes, sizes: UnsafeBufferPointer<Size>,
                                          kinds: UnsafeBufferPointer<ItemKind?>, into out: UnsafeMutableBufferPointer<Rect>,
                                          _: Axis.Type) -> (cross: Double, main: Double) {
        let size = sizing.size(natural: sizes[k], kind: kinds[k])
        out[k].width = size.width
        out[k].height = size.height
        return Axis.lengths(of: size)
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

/// A scroll direction as a type: the flow passes are generic over it, so that each is compiled
/// once per direction with the axes fixed (`main` is the scroll direction, `cross` the line's).
protocol ScrollAxis {
    static var isHorizontal: Bool { get }
}

extension ScrollAxis {
    /// A size's lengths across the scroll axis (along a line) and along it.
    @inline(__always)
    static func lengths(of size: Size) -> (cross: Double, main: Double) {
        isHorizontal ? (size.height, size.width) : (size.width, size.height)
    }

    /// A frame's length across the scroll axis.
    @inline(__always)
    static func crossLength(of frame: Rect) -> Double { isHorizontal ? frame.height : frame.width }

    /// A frame's length along the scroll axis.
    @inline(__always)
    static func mainLength(of frame: Rect) -> Double { isHorizontal ? frame.width : frame.height }

    /// A frame's offset across the scroll axis (along its line).
    @inline(__always)
    static func along(of frame: Rect) -> Double { isHorizontal ? frame.y : frame.x }

    /// Moves a frame to `along` across the scroll axis and `main` along it.
    @inline(__always)
    static func setPosition(of frame: inout Rect, along: Double, main: Double) {
        if isHorizontal {
            frame.x = main
            frame.y = along
        } else {
            frame.x = along
            frame.y = main
        }
    }

    /// A frame of `size` at `along` across the scroll axis and `main` along it.
    @inline(__always)
    static func frame(along: Double, main: Double, size: Size) -> Rect {
        isHorizontal
            ? Rect(x: main, y: along, width: size.width, height: size.height)
            : Rect(x: along, y: main, width: size.width, height: size.height)
    }
}

enum VerticalScroll: ScrollAxis {
    static var isHorizontal: Bool { false }
}

enum HorizontalScroll: ScrollAxis {
    static var isHorizontal: Bool { true }
}
