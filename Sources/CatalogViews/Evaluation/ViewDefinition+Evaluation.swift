import CatalogModel

/// A view evaluated on a catalogue: the view as a catalogue, and how many items matched.
public struct ViewResult: Sendable, Hashable {
    /// The view: its sections and items in the view's order, with the source's name and revision.
    public var catalog: Catalog
    /// The number of items the filter keeps, before the window.
    public var total: Int

    public init(catalog: Catalog, total: Int) {
        self.catalog = catalog
        self.total = total
    }
}

extension ViewDefinition {
    /// The view of `catalog`, evaluated from scratch. A field the catalogue's items lack is
    /// absent in every item; ``check(against:)`` tells a typo from that.
    ///
    /// - Throws: ``ViewError`` when a section of the view would hold items of several kinds.
    /// - Complexity: O(*n* + *m* log *m*) for *n* items of which *m* match.
    public func evaluate(on catalog: Catalog) throws(ViewError) -> ViewResult {
        let filter = self.filter?.compiled
        let order = ViewOrder(self)
        var matching: [(section: Int, item: Int)] = []
        for (s, section) in catalog.sections.enumerated() {
            for (i, item) in section.items.enumerated() where filter?.passes(item, section: section.id) ?? true {
                matching.append((s, i))
            }
        }
        let total = matching.count
        func item(_ m: (section: Int, item: Int)) -> Item { catalog.sections[m.section].items[m.item] }
        func sectionID(_ m: (section: Int, item: Int)) -> String { catalog.sections[m.section].id }
        func rank(_ m: (section: Int, item: Int)) -> StoredRank { StoredRank(section: UInt64(m.section), item: UInt64(m.item)) }

        // The groups, each a list of matching items in the view's order.
        var groups: [(value: ViewValue?, members: [(section: Int, item: Int)])]
        switch grouping {
        case .storedSections:
            groups = catalog.sections.indices.map { _ in (nil, []) }
            for m in matching { groups[m.section].members.append(m) }
        case .none:
            groups = [(nil, matching)]
        case .field:
            var index: [ViewValue?: Int] = [:]
            groups = []
            for m in matching {
                let value = order.groupValue(item(m), section: sectionID(m))
                if let k = index[value] {
                    groups[k].members.append(m)
                } else {
                    index[value] = groups.count
                    groups.append((value, [m]))
                }
            }
            groups.sort { order.groupPrecedes($0.value, $1.value) }
        }
        if !sort.isEmpty {
            for g in groups.indices {
                groups[g].members.sort { a, b in
                    order.precedes(item(a), sectionID(a), rank(a), item(b), sectionID(b), rank(b))
                }
            }
        }

        // The kind of each section: a stored section's own; a field group's single kind.
        var kinds: [SectionKind] = []
        for group in groups {
            switch grouping {
            case .storedSections: kinds.append(catalog.sections[kinds.count].kind)
            case .none, .field:
                let present = Set(group.members.map { item($0).kind })
                let title = grouping == .none ? ViewGroups.singleSectionID : ViewGroups.sectionID(for: group.value)
                if present.count > 1 {
                    throw ViewError(.group, at: nil, .mixedKinds(section: title, kinds: ItemKind.allCases.filter(present.contains)))
                }
                kinds.append(present.first?.sectionKind ?? catalog.sections.first?.kind ?? .videos)
            }
        }

        // The window, over the flattened order.
        var skip = offset, room = limit ?? Int.max
        var sections: [Section] = []
        for (g, group) in groups.enumerated() {
            let start = min(skip, group.members.count)
            skip -= start
            let count = min(room, group.members.count - start)
            room -= count
            let items = group.members[start..<(start + count)].map(item)
            switch grouping {
            case .storedSections:
                let stored = catalog.sections[g]
                sections.append(Section(id: stored.id, kind: stored.kind, title: stored.title, capacity: stored.capacity, items: items))
            case .none:
                sections.append(Section(id: ViewGroups.singleSectionID, kind: kinds[g], title: nil, capacity: nil, items: items))
            case .field:
                if !items.isEmpty {
                    sections.append(Section(id: ViewGroups.sectionID(for: group.value), kind: kinds[g],
                                            title: ViewGroups.title(for: group.value), capacity: nil, items: items))
                }
            }
        }
        return ViewResult(catalog: Catalog(name: catalog.name, revision: catalog.revision, sections: sections), total: total)
    }

    /// Throws unless every field the view names is one the catalogue's items may have: what a
    /// request for a view checks first, so that `playCuont` is an error, not an empty view. A
    /// live view checks it once, when it starts: a catalogue may later lose every item of the
    /// kinds that have a field without the view failing.
    public func check(against catalog: Catalog) throws(ViewError) {
        let kinds = Set(catalog.sections.map(\.kind.itemKind))
        guard !kinds.isEmpty else { return }
        let known = ViewField.fields(of: ItemKind.allCases.filter(kinds.contains))
        for field in fields where !known.contains(field) {
            let parameter: ViewError.Parameter =
                filter?.fields.contains(field) == true ? .where : sort.contains { $0.field == field } ? .sort : .group
            throw ViewError(parameter, at: nil, .unknownField(field.name, fields: known.map(\.name)))
        }
    }
}
