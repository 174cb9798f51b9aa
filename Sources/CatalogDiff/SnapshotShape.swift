/// What the diff and the simulator need of a snapshot: section ids in order and each section's
/// item ids in order. Content is not part of the shape; callers say which ids changed content.
public struct SnapshotShape<SectionID: Hashable & Sendable, ItemID: Hashable & Sendable>: Sendable, Hashable {
    public var sections: [SectionID]
    /// `items[s]` are the item ids of `sections[s]`.
    public var items: [[ItemID]]

    public init(sections: [SectionID], items: [[ItemID]]) {
        precondition(sections.count == items.count, "one item list per section")
        self.sections = sections
        self.items = items
    }

    /// Sections given as (id, item ids) pairs.
    public init(_ sections: [(SectionID, [ItemID])]) {
        self.init(sections: sections.map(\.0), items: sections.map(\.1))
    }

    public var itemCount: Int { items.reduce(0) { $0 + $1.count } }

    /// Throws ``DuplicateIDError`` listing every section id and item id used more than once.
    public func checkUniqueIDs() throws(DuplicateIDError) {
        var seenSections = Set<SectionID>(minimumCapacity: sections.count)
        var duplicateSections: [String] = []
        for id in sections where !seenSections.insert(id).inserted {
            duplicateSections.append(String(describing: id))
        }
        var seenItems = Set<ItemID>(minimumCapacity: itemCount)
        var duplicateItems: [String] = []
        for section in items {
            for id in section where !seenItems.insert(id).inserted {
                duplicateItems.append(String(describing: id))
            }
        }
        if !duplicateSections.isEmpty || !duplicateItems.isEmpty {
            throw DuplicateIDError(sections: duplicateSections, items: duplicateItems)
        }
    }
}

/// A snapshot used a section or item id twice, so no changeset can describe it (UIKit's diffable
/// data source crashes on this; CatalogKit refuses it and says which ids).
public struct DuplicateIDError: Error, Sendable, Hashable, CustomStringConvertible {
    public var sections: [String]
    public var items: [String]

    public var description: String {
        var parts: [String] = []
        if !sections.isEmpty { parts.append("duplicate section ids: " + sections.joined(separator: ", ")) }
        if !items.isEmpty { parts.append("duplicate item ids: " + items.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
