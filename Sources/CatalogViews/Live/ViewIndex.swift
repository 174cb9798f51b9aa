import CatalogModel

/// The state a ``LiveView`` keeps: where every item of the catalogue stands in the stored order
/// (a label, gapped, so that an insert elsewhere changes no other item's), and each section of the
/// view as its items in the view's order — the very array the view's section shows.
struct ViewIndex: Sendable {
    struct Entry: Sendable {
        var item: Item
        /// The item's place in the stored order: increasing through the sections in their order
        /// and the items in theirs.
        var label: UInt64
        /// The stored section that holds the item (``sectionIDs``).
        var section: UInt32
        /// Whether the filter keeps the item.
        var inView: Bool
    }

    struct Group: Sendable {
        /// The value of a field group; nil for the absent value and other groupings.
        var value: ViewValue?
        /// The items, in the view's order.
        var members: [Item] = []
    }

    /// Where a touched item was in the view before the write, or is after it.
    struct Place: Sendable {
        var id: String
        var group: GroupKey
        var index: Int
    }

    /// What a write did to the view: the places of the touched items before and after, the
    /// items before (to tell a content change), and the sections of the view that changed.
    struct Change: Sendable {
        var before: [Place] = []
        var after: [Place] = []
        var oldItems: [String: Item] = [:]
        var groups: Set<GroupKey> = []
        /// Sections of the view appeared, went or were reloaded: the changeset is the views' diff.
        var sectionsChanged = false
    }

    private(set) var entries: [String: Entry] = [:]
    /// Stored sections by number (numbers are never reused), and the number of each id.
    private var sectionIDs: [String] = []
    private var sectionNumbers: [String: UInt32] = [:]
    private(set) var groups: [GroupKey: Group] = [:]
    private(set) var total = 0
    private var grouping: ViewDefinition.Grouping = .storedSections

    /// The gap between neighbouring labels when labels are given afresh.
    static let spacing: UInt64 = 1 << 24

    private mutating func number(of section: String) -> UInt32 {
        if let number = sectionNumbers[section] { return number }
        let number = UInt32(sectionIDs.count)
        sectionIDs.append(section)
        sectionNumbers[section] = number
        return number
    }

    mutating func load(_ catalog: Catalog, definition: ViewDefinition) throws(ViewError) {
        grouping = definition.grouping
        let (ordered, total) = try definition.orderedGroups(of: catalog)
        self.total = total
        entries.reserveCapacity(catalog.itemCount)
        var label: UInt64 = 0
        for section in catalog.sections {
            let s = number(of: section.id)
            for item in section.items {
                label += Self.spacing
                entries[item.id] = Entry(item: item, label: label, section: s, inView: false)
            }
        }
        for (g, group) in ordered.enumerated() {
            let key: GroupKey = switch grouping {
            case .storedSections: GroupKey(catalog.sections[g].id)
            case .none: GroupKey(ViewGroups.singleSectionID)
            case .field: GroupKey(ViewGroups.sectionID(for: group.value))
            }
            for item in group.members { entries[item.id]!.inView = true }
            groups[key] = Group(value: group.value, members: group.members)
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

    private func precedes(_ a: Item, _ b: Item, _ order: ViewOrder) -> Bool {
        let x = entries[a.id]!, y = entries[b.id]!
        return order.precedes(a, sectionIDs[Int(x.section)], StoredRank(section: 0, item: x.label),
                              b, sectionIDs[Int(y.section)], StoredRank(section: 0, item: y.label))
    }

    /// The index in `members` where an item held as `entry` goes (or is), by binary search.
    private func index(of entry: Entry, in members: [Item], _ order: ViewOrder) -> Int {
        let section = sectionIDs[Int(entry.section)], rank = StoredRank(section: 0, item: entry.label)
        var low = 0, high = members.count
        while low < high {
            let middle = (low + high) / 2
            let other = entries[members[middle].id]!
            if order.precedes(members[middle], sectionIDs[Int(other.section)], StoredRank(section: 0, item: other.label),
                              entry.item, section, rank) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// Re-places the touched items for the catalogue `b` that follows the index's catalogue.
    mutating func apply(_ touched: LiveView.Touched, to b: Catalog, filter: ViewPredicate?, order: ViewOrder) throws(ViewError) -> Change {
        var change = Change()
        // Where each touched item is in b: from the changeset's paths when it has them, else
        // by looking through the stored sections it touched.
        let located = touched.positions ?? locate(touched, in: b)
        // Where each goes, and the refusal of several kinds in one section before anything moves.
        var destinations: [String: (key: GroupKey, value: ViewValue?)] = [:]
        for (id, position) in located {
            let section = b.sections[position.section], item = section.items[position.item]
            guard filter?.passes(item, section: section.id) ?? true else { continue }
            destinations[id] = groupKey(item, section: section.id, order: order)
        }
        try checkKinds(destinations, located: located, in: b, touched: touched.items)

        // 1. The touched items' places before the write, then out with them.
        var leaving: [GroupKey: [Int]] = [:]
        for id in touched.items {
            guard let entry = entries[id], entry.inView else { continue }
            let key = groupKey(entry.item, section: sectionIDs[Int(entry.section)], order: order).key
            var k = index(of: entry, in: groups[key]!.members, order)
            if k >= groups[key]!.members.count || groups[key]!.members[k].id != id {
                assertionFailure("a live view lost the place of \(id)")
                guard let found = groups[key]!.members.firstIndex(where: { $0.id == id }) else { continue }
                k = found
            }
            change.before.append(Place(id: id, group: key, index: k))
            change.oldItems[id] = entry.item
            leaving[key, default: []].append(k)
        }
        for (key, indices) in leaving {
            groups[key]!.members.remove(atSorted: indices.sorted())
            total -= indices.count
            change.groups.insert(key)
        }
        // 2. The stored order of b for the touched items: new labels between their neighbours'.
        if touched.sectionsChanged, grouping == .storedSections {
            // The view's sections are the stored ones: inserted, deleted or moved with them.
            change.sectionsChanged = true
            let sectionsOfB = Set(b.sections.map(\.id))
            for key in groups.keys where !sectionsOfB.contains(key.id) {
                groups[key] = nil
                change.groups.insert(key)
            }
            for section in b.sections where groups[GroupKey(section.id)] == nil {
                groups[GroupKey(section.id)] = Group()
                change.groups.insert(GroupKey(section.id))
            }
        }
        for id in touched.items where located[id] == nil { entries[id] = nil }
        relabel(located, in: b)
        // 3. In with the touched items the filter keeps, at their places after the write.
        var arriving: [GroupKey: [(index: Int, item: Item)]] = [:]
        for (id, destination) in destinations {
            if groups[destination.key] == nil {
                groups[destination.key] = Group(value: destination.value)
                change.sectionsChanged = true
            }
            let entry = entries[id]!
            arriving[destination.key, default: []].append((index(of: entry, in: groups[destination.key]!.members, order), entry.item))
            entries[id]!.inView = true
            total += 1
            change.groups.insert(destination.key)
        }
        for (key, var items) in arriving {
            // Items arriving at the same index keep the view's order among themselves.
            items.sort { $0.index != $1.index ? $0.index < $1.index : precedes($0.item, $1.item, order) }
            groups[key]!.members.insert(sorted: items)
        }
        for (id, destination) in destinations {
            let k = index(of: entries[id]!, in: groups[destination.key]!.members, order)
            change.after.append(Place(id: id, group: destination.key, index: k))
        }
        if case .field = grouping {
            for key in change.groups where groups[key]?.members.isEmpty == true {
                groups[key] = nil
                change.sectionsChanged = true
            }
        }
        if !touched.reloadedSections.isEmpty {
            change.sectionsChanged = true
            for id in touched.reloadedSections { change.groups.insert(GroupKey(id)) }
        }
        return change
    }

    /// The positions in `b` of the touched items it holds, found in the stored sections that
    /// held them or that the changeset touched.
    private func locate(_ touched: LiveView.Touched, in b: Catalog) -> [String: (section: Int, item: Int)] {
        var sections = touched.sections
        for id in touched.items {
            if let entry = entries[id] { sections.insert(sectionIDs[Int(entry.section)]) }
        }
        var located: [String: (section: Int, item: Int)] = [:]
        for (s, section) in b.sections.enumerated() where sections.contains(section.id) {
            for (i, item) in section.items.enumerated() where touched.items.contains(item.id) {
                located[item.id] = (s, i)
            }
        }
        return located
    }

    /// Gives each located item of `b` its new entry, labelled between its neighbours in the
    /// stored order (which keep theirs); relabels everything when a gap is used up.
    private mutating func relabel(_ located: [String: (section: Int, item: Int)], in b: Catalog) {
        let placed = located.sorted { ($0.value.section, $0.value.item) < ($1.value.section, $1.value.item) }
        // The label of the item before (s, i) in b's stored order, and of the one after, among
        // those not being placed (or placed already, before).
        func neighbour(before s: Int, _ i: Int) -> UInt64 {
            var (s, i) = (s, i - 1)
            while true {
                if i >= 0 { return entries[b.sections[s].items[i].id]?.label ?? 0 }
                s -= 1
                if s < 0 { return 0 }
                i = b.sections[s].items.count - 1
            }
        }
        var k = 0
        var exhausted = false
        while k < placed.count {
            // A run of placed items consecutive in b's stored order.
            var end = k + 1
            func next(_ p: (section: Int, item: Int)) -> (section: Int, item: Int)? {
                var (s, i) = (p.section, p.item + 1)
                while s < b.sections.count {
                    if i < b.sections[s].items.count { return (s, i) }
                    (s, i) = (s + 1, 0)
                }
                return nil
            }
            var after = next(placed[k].value)
            while end < placed.count, let a = after, a == placed[end].value {
                after = next(placed[end].value)
                end += 1
            }
            let lower = neighbour(before: placed[k].value.section, placed[k].value.item)
            let upper = after.flatMap { entries[b.sections[$0.section].items[$0.item].id]?.label } ?? (lower + Self.spacing * UInt64(end - k + 1))
            let count = UInt64(end - k)
            guard upper > lower, upper - lower > count else {
                exhausted = true
                break
            }
            let step = (upper - lower) / (count + 1)
            for j in k..<end {
                let (id, position) = placed[j]
                let section = b.sections[position.section]
                let item = section.items[position.item]
                entries[id] = Entry(item: item, label: lower + step * UInt64(j - k + 1), section: number(of: section.id),
                                    inView: false)
            }
            k = end
        }
        if exhausted {
            // Labels afresh for the whole catalogue, in b's order: the others keep their order.
            var label: UInt64 = 0
            for section in b.sections {
                let s = number(of: section.id)
                for item in section.items {
                    label += Self.spacing
                    if located[item.id] != nil {
                        entries[item.id] = Entry(item: item, label: label, section: s, inView: false)
                    } else {
                        entries[item.id]!.label = label
                    }
                }
            }
        }
    }

    /// Traps unless the index holds together: every section of the view strictly in the view's
    /// order, each member's entry its own and in the view, `total` their count, labels
    /// increasing through `catalog`'s stored order. Tests call it after every write.
    func checkInvariants(_ catalog: Catalog, order: ViewOrder) {
        var count = 0
        for group in groups.values {
            for (k, item) in group.members.enumerated() {
                precondition(entries[item.id]?.inView == true && entries[item.id]?.item == item, "a member without its entry")
                if k > 0 { precondition(precedes(group.members[k - 1], item, order), "a section out of the view's order") }
            }
            count += group.members.count
        }
        precondition(count == total, "total is not the members' count")
        precondition(entries.count == catalog.itemCount, "an entry for an item the catalogue lacks")
        var last: UInt64 = 0
        for section in catalog.sections {
            for item in section.items {
                let label = entries[item.id]!.label
                precondition(label > last, "labels out of the stored order")
                last = label
            }
        }
    }

    /// Throws when a touched item would join a section of the view holding another kind.
    private func checkKinds(_ destinations: [String: (key: GroupKey, value: ViewValue?)],
                            located: [String: (section: Int, item: Int)], in b: Catalog, touched: Set<String>) throws(ViewError) {
        guard grouping != .storedSections else { return }
        var kinds: [GroupKey: Set<ItemKind>] = [:]
        for (id, destination) in destinations {
            let position = located[id]!
            kinds[destination.key, default: []].insert(b.sections[position.section].items[position.item].kind)
        }
        for (key, var present) in kinds {
            if let staying = groups[key]?.members.first(where: { !touched.contains($0.id) }) {
                present.insert(staying.kind)
            }
            if present.count > 1 {
                throw ViewError(.group, at: nil, .mixedKinds(section: key.id, kinds: ItemKind.allCases.filter(present.contains)))
            }
        }
    }

    /// The view of `b` as the index stands: the sections of the view in order, windowed. A
    /// section's items are its group's members themselves, shared.
    func view(of b: Catalog, definition: ViewDefinition) -> ViewResult {
        let keys: [GroupKey]
        switch grouping {
        case .storedSections: keys = b.sections.map { GroupKey($0.id) }
        case .none: keys = [GroupKey(ViewGroups.singleSectionID)]
        case .field:
            let order = ViewOrder(definition)
            keys = groups.sorted { order.groupPrecedes($0.value.value, $1.value.value) }.map(\.key)
        }
        let windowed = definition.limit != nil || definition.offset != 0
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
                let kind = group.members.first?.kind.sectionKind ?? b.sections.first?.kind ?? .videos
                section = Section(id: key.id, kind: kind, title: nil, capacity: nil)
            case .field:
                let kind = group.members.first?.kind.sectionKind ?? .videos
                section = Section(id: key.id, kind: kind, title: ViewGroups.title(for: group.value), capacity: nil)
            }
            if !windowed {
                section.items = group.members
            } else {
                let start = min(skip, group.members.count)
                skip -= start
                let count = min(room, group.members.count - start)
                room -= count
                section.items = Array(group.members[start..<(start + count)])
            }
            if case .field = grouping, section.items.isEmpty { continue }
            sections.append(section)
        }
        return ViewResult(catalog: Catalog(name: b.name, revision: b.revision, sections: sections), total: total)
    }
}

extension Array {
    /// Removes the elements at `indices` (sorted, distinct) in one pass.
    ///
    /// - Complexity: O(*n*) for all of them, where removing each in turn is O(*n*) apiece.
    mutating func remove(atSorted indices: [Int]) {
        guard let first = indices.first else { return }
        if indices.count <= 4 {
            for k in indices.reversed() { remove(at: k) }
            return
        }
        var write = first, next = 0
        for read in first..<count {
            if next < indices.count, indices[next] == read {
                next += 1
                continue
            }
            if write != read { swapAt(write, read) }
            write += 1
        }
        removeLast(count - write)
    }

    /// Inserts each element before the element now at its index (indexes into the array as it
    /// stands, sorted), in one pass.
    ///
    /// - Complexity: O(*n* + *k*).
    mutating func insert(sorted insertions: [(index: Int, item: Element)]) {
        if insertions.count <= 4 {
            for insertion in insertions.reversed() { insert(insertion.item, at: insertion.index) }
            return
        }
        var merged: [Element] = []
        merged.reserveCapacity(count + insertions.count)
        var read = 0
        for insertion in insertions {
            merged.append(contentsOf: self[read..<insertion.index])
            merged.append(insertion.item)
            read = insertion.index
        }
        merged.append(contentsOf: self[read...])
        self = merged
    }
}
