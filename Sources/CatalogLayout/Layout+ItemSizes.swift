import CatalogModel

extension LayoutConfiguration {
    /// The size of an item that styles sizing from content give it: its natural size, else the
    /// configuration's `itemSize`, else the kind's default for a line of `crossLength` points.
    ///
    /// `natural` has a NaN width when the item has no natural size (see ``LayoutInput``).
    @inline(__always)
    func contentSize(natural: Size, kind: ItemKind?, crossLength: Double) -> Size {
        if !natural.width.isNaN { return natural }
        if let itemSize { return itemSize }
        return Self.defaultSize(for: kind, crossLength: crossLength, spacing: interitemSpacing)
    }

    /// Per-kind defaults: video cards two per line with the 180:256 cover ratio, books 80×120,
    /// icons 60×70, anything else 50×50 (`UICollectionViewFlowLayout`'s default).
    static func defaultSize(for kind: ItemKind?, crossLength: Double, spacing: Double) -> Size {
        switch kind {
        case .video?:
            let width = max(1, ((crossLength - spacing) / 2).rounded(.down))
            return Size(width: width, height: (width * 256 / 180).rounded(.down))
        case .book?: return Size(width: 80, height: 120)
        case .icon?: return Size(width: 60, height: 70)
        case nil: return Size(width: 50, height: 50)
        }
    }
}
