import CatalogModel

/// The state a ``LiveView`` keeps: where every item of the catalogue stands in the stored order,
/// and each section of the view as the ids of its items in the view's order.
struct ViewIndex: Sendable {
    struct Slot: Sendable {
        var item: Item
        /// The id of the stored section that holds the item.
        var section: String
        /// The item's position in that section.
        var position: UInt64
        /// The section of the view that holds the item; nil when the filter drops it.
        var group: GroupKey?
    }

    struct Group: Sendable {
        /// The value of a field group; nil for the absent value and other groupings.
        var value: ViewValue?
        /// The items, in the view's order.
        var members: [String] = []
    }

    private(set) var slots: [String: Slot] = [:]
    /// Each stored section's position.
    private(set) var sectionRanks: [String: UInt64] = [:]
    private(set) var groups: [GroupKey: Group] = [:]
    private(set) var total = 0
    private var grouping: ViewDefinition.Grouping = .storedSections

    mutating func load(_ catalog: Catalog, filter: ViewPredicate?, order: ViewOrder) {
        grouping = order.grouping
        for (s, section) in catalog.sections.enumerated() {
            sectionRanks[section.id] = UInt64(s)
            if grouping == .storedSections { groups[GroupKey(section.id)] = Group() }
            for (i, item) in section.items.enumerated() {
                slots[item.id] = Slot(item: item, section: section.id, position: UInt64(i), group: nil)
            }
        }
        if grouping == .none { groups[GroupKey(ViewGroups.singleSectionID)] = Group() }
        for section in catalog.sections {
            for item in section.items where filter?.passes(item, section: section.id) ?? true {
                let key = groupKey(item, section: section.id, order: order)
                slots[item.id]!.group = key.key
                groups[key.key, default: Group(value: key.value)].members.append(item.id)
                total += 1
            }
        }
        for key in groups.keys {
            var members = groups[key]!.members
            groups[key]!.members = []
            members.sort { precedes($0, $1, order) }
            groups[key]!.members = members
        }
    }

    private func groupKey(_ item: Item, section: String, order: ViewOrder) -> (key: GroupKey, value: ViewValue?) {
        switch grouping {
        case .storedSections: return (GroupKey(section), nil)
        case .none: return (GroupKey(ViewGroups.singleSectionID), nil)
        case .field:
            let value = order.groupValue(item, section: section)
            return (GroupKey(ViewGroups.sectionID(for: value)), value)
        }
    }

    private func rank(_ slot: Slot) -> StoredRank {
        StoredRank(section: sectionRanks[slot.section] ?? 0, item: slot.position)
    }

    private func precedes(_ a: String, _ b: String, _ order: ViewOrder) -> Bool {
        let x = slots[a]!, y = slots[b]!
        return order.precedes(x.item, x.section, rank(x), y.item, y.section, rank(y))
    }

    /// The index in `members` where `id` goes (or is), by binary search.
    private func insertionIndex(of id: String, in members: [String], _ order: ViewOrder) -> Int {
        var low = 0, high = members.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(members[middle], id, order) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Re-places the touched items for the catalogue `b` that follows `a`; returns the sections
    /// of the view whose items changed (or that appeared or went).
    mutating func apply(_ touched: LiveView.Touched, from a: Catalog, to b: Catalog,
                        filter: ViewPredicate?, order: ViewOrder) throws(ViewError) -> Set<GroupKey> {
        // Where each touched item goes, from b (nil when b no longer holds it or the filter drops
        // it). An item is in b where the changeset put it or, if it did not move, in the stored
        // section that held it: the touched sections of b hold every touched item b holds.
        var destinations: [String: (item: Item, section: String, key: GroupKey, value: ViewValue?)?] = [:]
        destinations.reserveCapacity(touched.items.count)
        var sectionsToRelabel = touched.sections
        for id in touched.items {
            destinations[id] = .some(nil)
            if let slot = slots[id] { sectionsToRelabel.insert(slot.section) }
        }
        var sectionsOfB: [String: Int] = [:]
        for (s, section) in b.sections.enumerated() { sectionsOfB[section.id] = s }
        var locations: [String: (section: Int, item: Int)] = [:]
        for id in sectionsToRelabel {
            guard let s = sectionsOfB[id] else { continue }
            for (i, item) in b.sections[s].items.enumerated() where touched.items.contains(item.id) {
                locations[item.id] = (s, i)
            }
        }
        for (id, location) in locations {
            let section = b.sections[location.section], item = section.items[location.item]
            guard filter?.passes(item, section: section.id) ?? true else { continue }
            let key = groupKey(item, section: section.id, order: order)
            destinations[id] = (item, section.id, key.key, key.value)
        }
        try checkKinds(destinations, touched: touched.items)

        // 1. Out with the touched items, by their places before the write.
        var changed: Set<GroupKey> = []
        for id in touched.items {
            guard let slot = slots[id], let key = slot.group else { continue }
            let k = insertionIndex(of: id, in: groups[key]!.members, order)
            precondition(groups[key]!.members[k] == id, "a live view lost the place of \(id)")
            groups[key]!.members.remove(at: k)
            total -= 1
            changed.insert(key)
        }
        // 2. The stored order of b: the sections' ranks, and the positions in every stored
        // section that lost or gained an item.
        if touched.sectionsChanged {
            sectionRanks = [:]
            for (s, section) in b.sections.enumerated() { sectionRanks[section.id] = UInt64(s) }
            if grouping == .storedSections {
                for key in groups.keys where sectionRanks[key.id] == nil {
                    groups[key] = nil
                    changed.insert(key)
                }
                for section in b.sections where groups[GroupKey(section.id)] == nil {
                    groups[GroupKey(section.id)] = Group()
                    changed.insert(GroupKey(section.id))
                }
            }
        }
        for id in touched.items where locations[id] == nil { slots[id] = nil }
        for id in sectionsToRelabel {
            guard let s = sectionsOfB[id] else { continue }
            for (i, item) in b.sections[s].items.enumerated() {
                if slots[item.id] == nil || touched.items.contains(item.id) {
                    slots[item.id] = Slot(item: item, section: id, position: UInt64(i), group: nil)
                } else {
                    slots[item.id]!.position = UInt64(i)
                }
            }
        }
        // 3. In with the touched items the filter keeps, at their places after the write.
        for (id, destination) in destinations {
            guard let destination else { continue }
            slots[id]!.group = destination.key
            let members = groups[destination.key]?.members ?? []
            let k = insertionIndex(of: id, in: members, order)
            groups[destination.key, default: Group(value: destination.value)].members.insert(id, at: k)
            total += 1
            changed.insert(destination.key)
        }
        if case .field = grouping {
            for key in changed where groups[key]?.members.isEmpty == true { groups[key] = nil }
        }
        for id in touched.reloadedSections { changed.insert(GroupKey(id)) }
        return changed
    }

    /// Throws when a touched item would join a section of the view holding another kind.
    private func checkKinds(_ destinations: [String: (item: Item, section: String, key: GroupKey, value: ViewValue?)?],
                            touched: Set<String>) throws(ViewError) {
        guard grouping != .storedSections else { return }
        var leaving: [GroupKey: Int] = [:]
        for id in touched { if let key = slots[id]?.group { leaving[key, default: 0] += 1 } }
        var kinds: [GroupKey: Set<ItemKind>] = [:]
        for case let destination? in destinations.values {
            kinds[destination.key, default: []].insert(destination.item.kind)
        }
        for (key, var present) in kinds {
            if let group = groups[key], group.members.count > leaving[key, default: 0],
               let staying = group.members.first(where: { slots[$0]?.group == key && !touched.contains($0) }) ?? group.members.first {
                present.insert(slots[staying]!.item.kind)
            }
            if present.count > 1 {
                throw ViewError(.group, at: nil, .mixedKinds(section: key.id, kinds: ItemKind.allCases.filter(present.contains)))
            }
        }
    }

    /// The view of `b` as the index stands: the sections of the view in order, windowed; a
    /// section outside `touched` is `previous`'s (with `b`'s title and capacity for a stored one).
    func view(of b: Catalog, definition: ViewDefinition, previous: Catalog, touched: Set<GroupKey>) -> ViewResult {
        let keys: [GroupKey]
        switch grouping {
        case .storedSections: keys = b.sections.map { GroupKey($0.id) }
        case .none: keys = [GroupKey(ViewGroups.singleSectionID)]
        case .field:
            let order = ViewOrder(definition)
            keys = groups.sorted { order.groupPrecedes($0.value.value, $1.value.value) }.map(\.key)
        }
        let windowed = definition.limit != nil || definition.offset != 0
        var old: [String: Section] = [:]
        if !windowed { for section in previous.sections { old[section.id] = section } }
        var skip = definition.offset, room = definition.limit ?? Int.max
        var sections: [Section] = []
        sections.reserveCapacity(keys.count)
        for (g, key) in keys.enumerated() {
            let group = groups[key] ?? Group()
            var section: Section
            switch grouping {
            case .storedSections:
                let stored = b.sections[g]
                section = Section(id: stored.id, kind: stored.kind, title: stored.title, capacity: stored.capacity)
            case .none:
                let kind = group.members.first.map { slots[$0]!.item.kind.sectionKind } ?? b.sections.first?.kind ?? .videos
                section = Section(id: key.id, kind: kind, title: nil, capacity: nil)
            case .field:
                let kind = group.members.first.map { slots[$0]!.item.kind.sectionKind } ?? .videos
                section = Section(id: key.id, kind: kind, title: ViewGroups.title(for: group.value), capacity: nil)
            }
            if !windowed, !touched.contains(key), let kept = old[key.id] {
                section.items = kept.items
            } else {
                let start = min(skip, group.members.count)
                skip -= start
                let count = min(room, group.members.count - start)
                room -= count
                section.items = group.members[start..<(start + count)].map { slots[$0]!.item }
            }
            if case .field = grouping, section.items.isEmpty { continue }
            sections.append(section)
        }
        return ViewResult(catalog: Catalog(name: b.name, revision: b.revision, sections: sections), total: total)
    }
}
