import CatalogDiff
import CatalogModel

/// A catalogue taken back through the journal, one ``RevisionPatch`` after another, in place.
///
/// `changes(since:)` rebuilds an old revision from the current snapshot by undoing every write
/// since, newest first: a client a few hundred moves behind means a few hundred patches. Undoing
/// each into a fresh catalogue — a dictionary of every section by id, a search of every shelf for
/// each moved book, the catalogue rebuilt — cost half of a change feed's time. Here the sections
/// and an index of them by id are built once and kept up to date, and so is the section each
/// item was last seen in, so a patch costs what it touches.
package struct JournalRewinder {
    let name: String
    private(set) var revision: Int
    private var sections: [Section]
    private var sectionIndex: [String: Int]
    /// Where each item was last put: a hint, checked before use (a section a patch replaced
    /// whole may no longer hold it), with a search of every section behind it. Filled for the
    /// whole catalogue only when a lookup first needs it (``locate(_:)``): rewinding the usual
    /// patches — the previous orders of the sections a write changed — finds every item in those
    /// sections, so an update costs what the writes touched, not the catalogue's size.
    private var itemSection: [String: String] = [:]
    private var everyItemIndexed = false
    /// Whether a patch so far brought back a whole section or an item's previous version. Until
    /// one does, every section and item the two revisions share has the same content (moves and
    /// orders only rearrange), so the changeset between them reloads nothing.
    package private(set) var restoredContent = false
    /// With `keepsEach`, every revision rewound from, newest first, and whether the patch that
    /// undid it brought back content (see ``history``).
    package var keepsEach = false
    private var passed: [(catalog: Catalog, restoredContent: Bool)] = []

    package init(_ catalog: Catalog) {
        name = catalog.name
        revision = catalog.revision
        sections = catalog.sections
        sectionIndex = Self.index(catalog.sections)
    }

    /// The catalogue as the patches applied so far have left it.
    package var catalog: Catalog { Catalog(name: name, revision: revision, sections: sections) }

    /// Undoes one write: afterwards this is the revision before.
    package mutating func rewind(_ patch: RevisionPatch) throws {
        let restores = !patch.sections.isEmpty || !(patch.items ?? []).isEmpty
        if keepsEach { passed.append((catalog, restores)) }
        if restores { restoredContent = true }
        for move in (patch.itemMoves ?? []).reversed() { try undo(move) }
        if let orders = patch.itemOrders { try restore(orders, items: patch.items ?? []) }
        var restored: [String: Section] = [:]
        for stored in patch.sections {
            let section = try stored.section()
            if let s = sectionIndex[section.id] { sections[s] = section } else { restored[section.id] = section }
            for item in section.items { itemSection[item.id] = section.id }
        }
        if let order = patch.sectionOrder {
            sections = try order.map { id in
                if let s = sectionIndex[id] { return sections[s] }
                guard let section = restored[id] else { throw StoreError.database("the journal of \(name) lacks section \(id)") }
                return section
            }
            sectionIndex = Self.index(sections)
        }
        revision -= 1
    }

    /// One changeset per revision rewound (with `keepsEach`), newest first: from the revision
    /// before each to it, as `CatalogStore.changes(in:since:)` would answer for that one write.
    package func history() throws(StoreError) -> [Changeset] {
        var result: [Changeset] = []
        result.reserveCapacity(passed.count)
        for (index, step) in passed.enumerated() {
            let older = index + 1 < passed.count ? passed[index + 1].catalog : catalog
            result.append(try StoreRules.changeset(from: older, to: step.catalog, restoredContent: step.restoredContent))
        }
        return result
    }

    /// Puts a moved item back where it was.
    private mutating func undo(_ move: RevisionPatch.ItemMove) throws {
        guard let (s, i) = locate(move.item), let target = sectionIndex[move.section] else {
            throw StoreError.database("the journal of \(name) moves item \(move.item) it cannot find")
        }
        let item = sections[s].items.remove(at: i)
        guard move.index >= 0, move.index <= sections[target].items.count else {
            throw StoreError.database("the journal of \(name) puts item \(move.item) at index \(move.index) of \(move.section)")
        }
        sections[target].items.insert(item, at: move.index)
        itemSection[move.item] = move.section
    }

    /// Gives sections their previous items in their previous order; `items` are the previous
    /// versions of items the write deleted or changed, the others are where the write left them.
    private mutating func restore(_ orders: [RevisionPatch.ItemOrder], items: [StoredItem]) throws {
        var previous: [String: Item] = [:]
        for stored in items { previous[stored.id] = try stored.item() }
        // The items the sections hold now: those the write moved between them are among these.
        for order in orders {
            guard let s = sectionIndex[order.section] else { continue }
            for item in sections[s].items where previous[item.id] == nil { previous[item.id] = item }
        }
        // Every item first, then the sections: an item may come from a section restored before it.
        let lists = try orders.map { order in
            try order.items.map { id in
                if let item = previous[id] { return item }
                guard let (s, i) = locate(id) else { throw StoreError.database("the journal of \(name) lacks item \(id)") }
                return sections[s].items[i]
            }
        }
        for (order, list) in zip(orders, lists) {
            guard let s = sectionIndex[order.section] else { throw StoreError.database("the journal of \(name) lacks section \(order.section)") }
            sections[s].items = list
            for item in list { itemSection[item.id] = order.section }
        }
    }

    /// Each section's index by id (the first, should a damaged journal repeat one).
    private static func index(_ sections: [Section]) -> [String: Int] {
        Dictionary(sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The section index and item index of the item `id`, or nil.
    private mutating func locate(_ id: String) -> (Int, Int)? {
        if !everyItemIndexed && itemSection[id] == nil {
            itemSection.reserveCapacity(sections.reduce(0) { $0 + $1.items.count })
            for section in sections {
                for item in section.items { itemSection[item.id] = section.id }
            }
            everyItemIndexed = true
        }
        if let hint = itemSection[id], let s = sectionIndex[hint], let i = sections[s].items.firstIndex(where: { $0.id == id }) {
            return (s, i)
        }
        for s in sections.indices {
            if let i = sections[s].items.firstIndex(where: { $0.id == id }) { return (s, i) }
        }
        return nil
    }
}
