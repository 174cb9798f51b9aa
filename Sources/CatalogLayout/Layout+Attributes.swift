import CatalogDiff
import CatalogModel

/// Attributes of single elements at the current ``Layout/contentOffset``.
extension Layout {
    var hasHeaders: Bool { configuration.headerHeight > 0 && style.stacksSections }
    var hasFooters: Bool { configuration.footerHeight > 0 && style.stacksSections }
    /// Headers, footers and pinned views sit above cells; decorations below.
    static let supplementaryZIndex = 10
    static let decorationZIndex = -1

    /// A cell's attributes; `nil` for an index path out of range.
    public func attributes(forItemAt path: ItemPath) -> LayoutAttributes? {
        guard path.section >= 0, path.section < numberOfSections, path.item >= 0,
              path.item < numberOfItems(inSection: path.section) else { return nil }
        return cellAttributes(sectionStarts[path.section] + path.item, path)
    }

    @inline(__always)
    func cellAttributes(_ index: Int, _ path: ItemPath) -> LayoutAttributes {
        let frame = frames[index]
        let scale = configuration.style == .carousel ? carouselScale(of: frame) : 1
        return LayoutAttributes(kind: .cell, indexPath: path, frame: frame, scale: scale)
    }

    /// A header's, footer's or decoration's attributes; `nil` when the section has none.
    /// Pinned headers and footers are where the current offset puts them.
    public func attributes(forSupplementary kind: ElementKind, inSection section: Int) -> LayoutAttributes? {
        guard section >= 0, section < numberOfSections else { return nil }
        let path = ItemPath(section: section, item: 0)
        switch kind {
        case .cell:
            return nil
        case .header:
            guard hasHeaders else { return nil }
            return LayoutAttributes(kind: .header, indexPath: path, frame: pinnedHeader(section),
                                    zIndex: configuration.pinHeaders ? Self.supplementaryZIndex : 0)
        case .footer:
            guard hasFooters else { return nil }
            return LayoutAttributes(kind: .footer, indexPath: path, frame: pinnedFooter(section),
                                    zIndex: configuration.pinFooters ? Self.supplementaryZIndex : 0)
        case .decoration:
            guard style == .shelf, let frame = shelfBoard(section) else { return nil }
            return LayoutAttributes(kind: .decoration, indexPath: path, frame: frame, zIndex: Self.decorationZIndex)
        }
    }

    /// Every element, section by section (decoration, header, cells, footer).
    public var allElements: [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        result.reserveCapacity(frames.count + 3 * numberOfSections)
        for section in 0..<numberOfSections {
            appendSection(section, cells: .all, rect: nil, into: &result)
        }
        return result
    }

    // MARK: Headers, footers and pinning

    /// The viewport's length across the scroll axis: headers and footers span it.
    var crossViewport: Double { isHorizontal ? viewportSize.height : viewportSize.width }

    /// A header where the layout puts it before pinning: at the start of its section.
    func naturalHeader(_ section: Int) -> Rect {
        frame(main: sectionExtents[section].lo, cross: 0, mainLength: configuration.headerHeight, crossLength: crossViewport)
    }

    /// A footer where the layout puts it before pinning: at the end of its section.
    func naturalFooter(_ section: Int) -> Rect {
        let height = configuration.footerHeight
        return frame(main: sectionExtents[section].hi - height, cross: 0, mainLength: height, crossLength: crossViewport)
    }

    /// Where pinned headers and footers may go: from the end of the header to the last item's
    /// far edge plus the bottom inset (an empty section: to the start of its footer).
    func itemArea(_ section: Int) -> Extent {
        let extent = sectionExtents[section]
        let lo = extent.lo + configuration.headerHeight
        let end = sectionStarts[section + 1]
        guard style != .waterfall, end > sectionStarts[section] else {
            return Extent(lo: lo, hi: extent.hi - configuration.footerHeight)
        }
        let last = frames[end - 1]
        let inset = configuration.sectionInset
        return Extent(lo: lo, hi: isHorizontal ? last.maxX + inset.right : last.maxY + inset.bottom)
    }

    /// The position along the scroll axis of the offset's leading edge.
    var mainOffset: Double { isHorizontal ? contentOffset.x : contentOffset.y }
    var mainViewport: Double { isHorizontal ? viewportSize.width : viewportSize.height }

    /// A header where pinning puts it: `min(max(offset, natural), lastItem.maxY + inset.bottom − height)`,
    /// and at its natural place while the offset is negative (a bounce at the top).
    func pinnedHeader(_ section: Int) -> Rect {
        var frame = naturalHeader(section)
        guard configuration.pinHeaders, mainOffset >= 0 else { return frame }
        let natural = isHorizontal ? frame.x : frame.y
        let limit = max(natural, itemArea(section).hi - configuration.headerHeight)
        let main = min(max(mainOffset, natural), limit)
        if isHorizontal { frame.x = main } else { frame.y = main }
        return frame
    }

    /// A footer where pinning puts it: at the viewport's bottom edge while its section is on
    /// screen, never above the section's items, never below its natural place.
    func pinnedFooter(_ section: Int) -> Rect {
        var frame = naturalFooter(section)
        guard configuration.pinFooters else { return frame }
        let natural = isHorizontal ? frame.x : frame.y
        let bottom = mainOffset + mainViewport - configuration.footerHeight
        let main = max(min(bottom, natural), min(natural, itemArea(section).lo))
        if isHorizontal { frame.x = main } else { frame.y = main }
        return frame
    }
}
