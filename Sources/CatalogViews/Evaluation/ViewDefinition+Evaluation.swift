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
        let (groups, total) = try orderedGroups(of: catalog)
        var kinds: [SectionKind] = []
        for (g, group) in groups.enumerated() {
            switch grouping {
            case .storedSections: kinds.append(catalog.sections[g].kind)
            case .none, .field: kinds.append(group.members.first?.kind.sectionKind ?? (grouping == .none ? catalog.sections.first?.kind : nil) ?? .videos)
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
            let items = start == 0 && count == group.members.count ? group.members : Array(group.members[start..<(start + count)])
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

    /// The view's sections before the window: for each, the value of its field group (nil for
    /// the absent value and the other groupings) and its items in the view's order — every
    /// stored section, in order, for `group=section`; the field groups in their order; or the one
    /// section. Also the number of items the filter keeps.
    ///
    /// Sort keys are read once per item into columns, and each section's items sorted by their
    /// places in them: ties fall to the stored order, which is the order the items were read in.
    ///
    /// - Throws: ``ViewError`` when a section of the view would hold items of several kinds.
    func orderedGroups(of catalog: Catalog) throws(ViewError) -> (groups: [(value: ViewValue?, members: [Item])], total: Int) {
        let filter = self.filter?.compiled
        let order = ViewOrder(self)
        var items: [Item] = [], sectionOf: [Int32] = []
        for (s, section) in catalog.sections.enumerated() {
            for item in section.items where filter?.passes(item, section: section.id) ?? true {
                items.append(item)
                sectionOf.append(Int32(s))
            }
        }
        func sectionID(_ m: Int) -> String { catalog.sections[Int(sectionOf[m])].id }

        // Each group as the indexes of its items, in stored order.
        var groups: [(value: ViewValue?, members: [Int32])]
        switch grouping {
        case .storedSections:
            groups = catalog.sections.indices.map { _ in (nil, []) }
            for m in items.indices { groups[Int(sectionOf[m])].members.append(Int32(m)) }
        case .none:
            groups = [(nil, (0..<Int32(items.count)).map { $0 })]
        case .field:
            var index: [ViewValue?: Int] = [:]
            groups = []
            for m in items.indices {
                let value = order.groupValue(items[m], section: sectionID(m))
                if let k = index[value] {
                    groups[k].members.append(Int32(m))
                } else {
                    index[value] = groups.count
                    groups.append((value, [Int32(m)]))
                }
            }
            groups.sort { order.groupPrecedes($0.value, $1.value) }
        }
        if grouping != .storedSections {
            for group in groups {
                guard let first = group.members.first.map({ items[Int($0)].kind }),
                      let other = group.members.first(where: { items[Int($0)].kind != first }).map({ items[Int($0)].kind })
                else { continue }
                let id = grouping == .none ? ViewGroups.singleSectionID : ViewGroups.sectionID(for: group.value)
                let kinds = Set(group.members.map { items[Int($0)].kind }).union([first, other])
                throw ViewError(.group, at: nil, .mixedKinds(section: id, kinds: ItemKind.allCases.filter(kinds.contains)))
            }
        }
        if !sort.isEmpty {
            let columns = sort.map { key in SortColumn(key, items.indices.lazy.map { items[$0].value(of: key.field, section: sectionID($0)) }) }
            for g in groups.indices {
                groups[g].members.sort { a, b in
                    for column in columns {
                        if let first = column.precedes(Int(a), Int(b)) { return first }
                    }
                    return a < b
                }
            }
        }
        return (groups.map { ($0.value, $0.members.map { items[Int($0)] }) }, items.count)
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

/// One sort key's values for the items being sorted, read once and held by type, so that the
/// sort compares integers, lengths or strings in place (no value copied out per comparison).
enum SortColumn {
    case integers([Int], present: [Bool], descending: Bool)
    case numbers([Double], present: [Bool], descending: Bool)
    case texts([String], present: [Bool], descending: Bool)
    case values([ViewValue?], descending: Bool)

    init(_ key: ViewDefinition.SortKey, _ values: some Collection<ViewValue?>) {
        let present = values.map { $0 != nil }
        switch key.field.valueType {
        case .number where values.allSatisfy({ if case .number? = $0 { false } else { true } }):
            self = .integers(values.map { if case .integer(let x)? = $0 { x } else { 0 } }, present: present, descending: key.descending)
        case .number where values.allSatisfy({ if case .integer? = $0 { false } else { true } }):
            self = .numbers(values.map { if case .number(let x)? = $0 { x } else { 0 } }, present: present, descending: key.descending)
        case .text, .name:
            self = .texts(values.map { if case .text(let x)? = $0 { x } else { "" } }, present: present, descending: key.descending)
        default:
            self = .values(Array(values), descending: key.descending)
        }
    }

    /// As ``ViewOrder/precedes(_:_:descending:)`` for the values of items `a` and `b`.
    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool? {
        switch self {
        case .integers(let values, let present, let descending):
            return Self.order(values[a], values[b], present[a], present[b], descending)
        case .numbers(let values, let present, let descending):
            return Self.order(values[a], values[b], present[a], present[b], descending)
        case .texts(let values, let present, let descending):
            return Self.order(values[a], values[b], present[a], present[b], descending)
        case .values(let values, let descending):
            return ViewOrder.precedes(values[a], values[b], descending: descending)
        }
    }

    @inline(__always)
    private static func order<T: Comparable>(_ x: T, _ y: T, _ hasX: Bool, _ hasY: Bool, _ descending: Bool) -> Bool? {
        switch (hasX, hasY) {
        case (false, false): return nil
        case (false, true): return false
        case (true, false): return true
        case (true, true):
            if x == y { return nil }
            return descending ? y < x : x < y
        }
    }
}

