import CatalogModel

/// Flow and shelf geometry: `UICollectionViewFlowLayout`'s rules as SPEC §7 states them, written
/// once along abstract axes — *main* is the scroll direction, *cross* the line direction — so
/// horizontal scrolling is the same code with the axes swapped.
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
        let itemCount = input.itemCount

        frames = []
        frames.reserveCapacity(itemCount)
        bands = []
        bands.reserveCapacity(itemCount / 2 + input.sections.count)
        sectionStarts = [0]
        sectionStarts.reserveCapacity(input.sections.count + 1)
        let sectionCount = input.sections.count
        sectionExtents.reserveCapacity(sectionCount)
        itemAreas.reserveCapacity(sectionCount)
        headers.reserveCapacity(sectionCount)
        footers.reserveCapacity(sectionCount)
        if config.style == .shelf { decorations.reserveCapacity(sectionCount) }

        // Main/cross lengths of each item of the current section, computed once.
        var mains: [Double] = []
        var crosses: [Double] = []
        var position = 0.0
        for section in input.sections {
            let sectionStart = position
            headers.append(frame(main: position, cross: 0, mainLength: config.headerHeight, crossLength: crossSize))
            position += config.headerHeight + leadMain
            let itemsTop = position

            mains.removeAll(keepingCapacity: true)
            crosses.removeAll(keepingCapacity: true)
            for item in section.items {
                let size = config.contentSize(of: item, crossLength: available)
                mains.append(horizontal ? size.width : size.height)
                crosses.append(horizontal ? size.height : size.width)
            }

            let base = frames.count
            let count = section.items.count
            var lineStart = 0
            var lastItemEnd = position
            while lineStart < count {
                // Greedy: the first item costs its length, each next one its length plus the spacing.
                var used = crosses[lineStart]
                var lineEnd = lineStart + 1
                while lineEnd < count, used + spacing + crosses[lineEnd] <= available {
                    used += spacing + crosses[lineEnd]
                    lineEnd += 1
                }
                let isLast = lineEnd == count
                // The last line is spaced as if it were filled with copies of its last item.
                var slots = lineEnd - lineStart
                if isLast {
                    let copy = crosses[lineEnd - 1]
                    while used + spacing + copy <= available {
                        used += spacing + copy
                        slots += 1
                    }
                }
                var thickness = 0.0
                for k in lineStart..<lineEnd { thickness = max(thickness, mains[k]) }

                if slots == 1 {
                    // A lone item (or one that only fits once) is centred.
                    let k = lineStart
                    frames.append(frame(main: position + (thickness - mains[k]) / 2,
                                        cross: leadCross + (available - crosses[k]) / 2,
                                        mainLength: mains[k], crossLength: crosses[k]))
                } else {
                    let gap = spacing + (available - used) / Double(slots - 1)
                    var cross = leadCross
                    for k in lineStart..<lineEnd {
                        frames.append(frame(main: position + (thickness - mains[k]) / 2, cross: cross,
                                            mainLength: mains[k], crossLength: crosses[k]))
                        cross += crosses[k] + gap
                    }
                }
                bands.append(Band(lo: position, hi: position + thickness,
                                  start: Int32(base + lineStart), end: Int32(base + lineEnd)))
                let last = frames[frames.count - 1]
                lastItemEnd = horizontal ? last.maxX : last.maxY
                position += thickness
                if !isLast { position += config.lineSpacing }
                lineStart = lineEnd
            }
            position += trailMain
            itemAreas.append(Extent(lo: itemsTop - leadMain, hi: count == 0 ? position : lastItemEnd + trailMain))
            footers.append(frame(main: position, cross: 0, mainLength: config.footerHeight, crossLength: crossSize))
            position += config.footerHeight
            sectionExtents.append(Extent(lo: sectionStart, hi: position))
            sectionStarts.append(frames.count)

            if config.style == .shelf {
                // The board behind a shelf: the union of its items, grown by the top and bottom insets.
                if count == 0 {
                    decorations.append(nil)
                } else {
                    var lo = Double.infinity, hi = -Double.infinity
                    for k in base..<frames.count {
                        let f = frames[k]
                        lo = min(lo, horizontal ? f.minX : f.minY)
                        hi = max(hi, horizontal ? f.maxX : f.maxY)
                    }
                    decorations.append(frame(main: lo - leadMain, cross: 0,
                                             mainLength: hi - lo + leadMain + trailMain, crossLength: crossSize))
                }
            }
        }
        contentSize = horizontal
            ? Size(width: position, height: viewportSize.height)
            : Size(width: viewportSize.width, height: position)
    }
}
