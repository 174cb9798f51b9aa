import CatalogModel

extension LayoutConfiguration {
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

/// The size that styles sizing from content give an item: its natural size, else the
/// configuration's `itemSize`, else its kind's default for a line of `crossLength` points.
///
/// Worked out once per prepare for the four kinds, so that the per-item step is a table look-up:
/// computing it per item would put a call on the loop's path, and the loop would keep its values
/// on the stack around it.
struct ContentSizes {
    private let none: Size, video: Size, book: Size, icon: Size
    /// Whether every kind gets the same size (the configuration's `itemSize`): then the kind is
    /// not looked at. Its `switch` is an indirect jump, and the code it jumps to reloaded the
    /// loop's values from the stack (a shelf of books, whose configurations set `itemSize`).
    let sameForAll: Bool

    init(_ config: LayoutConfiguration, crossLength: Double) {
        func size(_ kind: ItemKind?) -> Size {
            config.itemSize ?? LayoutConfiguration.defaultSize(for: kind, crossLength: crossLength, spacing: config.interitemSpacing)
        }
        (none, video, book, icon) = (size(nil), size(.video), size(.book), size(.icon))
        sameForAll = config.itemSize != nil
    }

    /// Which of the four default sizes an item of `kind` without a natural size gets, 0–3: the
    /// same for every kind when ``sameForAll``.
    @inline(__always)
    func slot(of kind: ItemKind?) -> Int {
        if sameForAll { return 0 }
        switch kind {
        case nil: return 0
        case .video?: return 1
        case .book?: return 2
        case .icon?: return 3
        }
    }

    /// `natural` has a NaN width when the item has no natural size (see ``LayoutInput``).
    @inline(__always)
    func size(natural: Size, kind: ItemKind?) -> Size {
        if !natural.width.isNaN { return natural }
        if sameForAll { return none }
        switch kind {
        case nil: return none
        case .video?: return video
        case .book?: return book
        case .icon?: return icon
        }
    }
}
