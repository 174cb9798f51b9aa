import CatalogDiff
import CatalogModel

/// What a layout needs from a snapshot: per section a title and per item a natural size, a kind
/// (for default sizes) and a label (for pictures). Built from a ``Catalog`` or by hand.
///
/// Stored flat — one array per field for all items, section after section — so that preparing a
/// layout streams through the sizes instead of chasing one small array per section.
public struct LayoutInput: Sendable, Hashable {
    /// Natural sizes, all items in order; a NaN width marks an item without one.
    private(set) var naturalSizes: [Size] = []
    private(set) var kinds: [ItemKind?] = []
    private(set) var labels: [String] = []
    /// `sectionStarts[s]` is the index of section `s`'s first item; one extra entry at the end.
    private(set) var sectionStarts: [Int] = [0]
    private(set) var titles: [String] = []
    /// The flat index of the first item whose natural size is not a finite width and height of 0
    /// or more: such an input is refused when laid out (checked here, as items are added, so that
    /// preparing a layout does not pass over the sizes once more).
    private(set) var firstInvalidSize: Int?
    /// Per section, what its items share (worked out as they are added, like `firstInvalidSize`):
    /// flow and shelf layouts lay out sections of items of one size from a few lines' places.
    private(set) var sectionSizing: [SectionSizing] = []

    public init() {}

    public init(sections: [LayoutSectionInput]) {
        let count = sections.reduce(0) { $0 + $1.items.count }
        reserveCapacity(sections: sections.count, items: count)
        for section in sections { append(section) }
    }

    /// The layout input of a catalogue: item sizes from `size`, labels from titles and icon names.
    public init(_ catalog: Catalog) {
        reserveCapacity(sections: catalog.sections.count, items: catalog.itemCount)
        for section in catalog.sections {
            titles.append(section.displayTitle)
            for item in section.items {
                appendSize(item.size)
                kinds.append(item.kind)
                labels.append(item.content.displayText)
            }
            closeSection()
        }
    }

    /// Sections of `counts[s]` items each, without natural sizes: for tests and benchmarks.
    package init(itemCounts counts: [Int], kind: ItemKind? = nil) {
        reserveCapacity(sections: counts.count, items: counts.reduce(0, +))
        for (index, count) in counts.enumerated() {
            titles.append("Section \(index)")
            naturalSizes.append(contentsOf: repeatElement(Self.noSize, count: count))
            kinds.append(contentsOf: repeatElement(kind, count: count))
            labels.append(contentsOf: repeatElement("", count: count))
            sectionStarts.append(naturalSizes.count)
            sectionSizing.append(count == 0 ? [.noNaturalSizes, .allNaturalSizes, .oneKind] : [.noNaturalSizes, .oneKind])
        }
    }

    static let noSize = Size(width: .nan, height: .nan)

    public mutating func reserveCapacity(sections: Int, items: Int) {
        naturalSizes.reserveCapacity(items)
        kinds.reserveCapacity(items)
        labels.reserveCapacity(items)
        sectionStarts.reserveCapacity(sections + 1)
        sectionSizing.reserveCapacity(sections)
        titles.reserveCapacity(sections)
    }

    /// Adds a section after the others.
    public mutating func append(_ section: LayoutSectionInput) {
        titles.append(section.title)
        for item in section.items {
            appendSize(item.size)
            kinds.append(item.kind)
            labels.append(item.label)
        }
        closeSection()
    }

    /// Ends the section whose items were appended last.
    private mutating func closeSection() {
        let start = sectionStarts[sectionStarts.count - 1], end = naturalSizes.count
        sectionStarts.append(end)
        var sizing: SectionSizing = []
        if naturalSizes[start..<end].allSatisfy({ $0.width.isNaN }) { sizing.insert(.noNaturalSizes) }
        if naturalSizes[start..<end].allSatisfy({ !$0.width.isNaN }) { sizing.insert(.allNaturalSizes) }
        if kinds[start..<end].allSatisfy({ $0 == kinds[start] }) { sizing.insert(.oneKind) }
        sectionSizing.append(sizing)
    }

    private mutating func appendSize(_ size: Size?) {
        if let size, firstInvalidSize == nil, !size.isValidNaturalSize {
            firstInvalidSize = naturalSizes.count
        }
        naturalSizes.append(size ?? Self.noSize)
    }

    /// The section and item of the item at flat index `index`.
    func path(ofItemAt index: Int) -> ItemPath {
        let section = Layout.section(ofItem: index, sectionStarts: sectionStarts)
        return ItemPath(section: section, item: index - sectionStarts[section])
    }

    public var numberOfSections: Int { titles.count }
    public var itemCount: Int { naturalSizes.count }
    public func numberOfItems(inSection section: Int) -> Int { sectionStarts[section + 1] - sectionStarts[section] }
    public func title(ofSection section: Int) -> String { titles[section] }

    /// The item at `path`, or `nil` out of range.
    public func item(at path: ItemPath) -> LayoutItemInput? {
        guard path.section >= 0, path.section < numberOfSections, path.item >= 0,
              path.item < numberOfItems(inSection: path.section) else { return nil }
        let index = sectionStarts[path.section] + path.item
        let size = naturalSizes[index]
        return LayoutItemInput(size: size.width.isNaN ? nil : size, kind: kinds[index], label: labels[index])
    }

    /// The sections, rebuilt from the flat storage.
    public var sections: [LayoutSectionInput] {
        (0..<numberOfSections).map { s in
            LayoutSectionInput(title: titles[s], items: (0..<numberOfItems(inSection: s)).map {
                item(at: ItemPath(section: s, item: $0))!
            })
        }
    }
}

/// What the items of a section share, for the layouts' paths for sections of one shape.
struct SectionSizing: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    /// No item has a natural size: each gets the configuration's `itemSize` or its kind's default.
    static let noNaturalSizes = SectionSizing(rawValue: 1)
    /// Every item has the same kind (or none).
    static let oneKind = SectionSizing(rawValue: 2)
    /// Every item has a natural size: its size is that, whatever the configuration and its kind.
    static let allNaturalSizes = SectionSizing(rawValue: 4)
}

public struct LayoutSectionInput: Sendable, Hashable {
    /// Shown in the header of a picture.
    public var title: String
    public var items: [LayoutItemInput]

    public init(title: String = "", items: [LayoutItemInput]) {
        self.title = title
        self.items = items
    }
}

public struct LayoutItemInput: Sendable, Hashable {
    /// Natural content size in points; styles that size items from content (flow, shelf,
    /// waterfall) use it before the configuration's `itemSize`.
    public var size: Size?
    public var kind: ItemKind?
    /// Shown on the cell in a picture: a title or an icon name.
    public var label: String

    public init(size: Size? = nil, kind: ItemKind? = nil, label: String = "") {
        self.size = size
        self.kind = kind
        self.label = label
    }
}

extension LayoutInput {
    /// The input's arrays as buffers, for the layout passes' loops.
    struct Buffers {
        let sizes: UnsafeBufferPointer<Size>
        let kinds: UnsafeBufferPointer<ItemKind?>
        let sectionStarts: UnsafeBufferPointer<Int>
        let sectionSizing: UnsafeBufferPointer<SectionSizing>
    }

    /// Calls `body` with every array of the input as a buffer, valid inside `body` only.
    @inline(__always)
    func withBuffers<R>(_ body: (Buffers) throws -> R) rethrows -> R {
        try naturalSizes.withUnsafeBufferPointer { sizes in
            try kinds.withUnsafeBufferPointer { kinds in
                try sectionStarts.withUnsafeBufferPointer { starts in
                    try sectionSizing.withUnsafeBufferPointer { shapes in
                        try body(Buffers(sizes: sizes, kinds: kinds, sectionStarts: starts, sectionSizing: shapes))
                    }
                }
            }
        }
    }
}
