import CatalogModel

/// What a layout needs from a snapshot: per section a title and per item a natural size, a kind
/// (for default sizes) and a label (for pictures). Built from a ``Catalog`` or by hand.
public struct LayoutInput: Sendable, Hashable {
    public var sections: [LayoutSectionInput]

    public init(sections: [LayoutSectionInput]) {
        self.sections = sections
    }

    /// The layout input of a catalogue: item sizes from `size`, labels from titles and icon names.
    public init(_ catalog: Catalog) {
        sections = catalog.sections.map { section in
            LayoutSectionInput(
                title: section.title ?? section.id,
                items: section.items.map { LayoutItemInput(size: $0.size, kind: $0.kind, label: $0.content.displayText) }
            )
        }
    }

    /// Sections of `counts[s]` items each, all without a natural size or kind: for tests and benchmarks.
    public init(itemCounts counts: [Int], kind: ItemKind? = nil) {
        sections = counts.enumerated().map { index, count in
            LayoutSectionInput(title: "Section \(index)",
                               items: Array(repeating: LayoutItemInput(kind: kind), count: count))
        }
    }

    public var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }
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
