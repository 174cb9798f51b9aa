import CatalogModel

/// What a diffable data source holds of a catalogue: the section ids in order and each section's
/// item ids — the content of an `NSDiffableDataSourceSnapshot<String, String>` — with what the
/// diffable side needs from CatalogKit: the items whose content changed (to reconfigure, as a
/// snapshot compares ids only) and the one move a person's drag made (to write to the store).
///
/// The UIKit side (`CatalogDiffableDataSource` in CatalogUIKit) only copies these into UIKit's
/// types; every decision is here, tested on every platform.
public struct IdentifierSnapshot: Sendable, Hashable {
    public struct Section: Sendable, Hashable {
        public var id: String
        public var items: [String]

        public init(id: String, items: [String]) {
            self.id = id
            self.items = items
        }
    }

    public var sections: [Section]

    public init(sections: [Section]) {
        self.sections = sections
    }

    /// The ids of `catalog`, in its order.
    ///
    /// - Complexity: O(n) in the items.
    public init(_ catalog: Catalog) {
        sections = catalog.sections.map { Section(id: $0.id, items: $0.items.map(\.id)) }
    }

    /// The one move that turns this snapshot into `final` — what a drag did to a diffable data
    /// source's snapshot (its reordering transaction's `finalSnapshot`) — as the operation that
    /// makes the same move in the store; `nil` when `final` is this snapshot, or is not this
    /// snapshot with exactly one item moved (the data source is then given the store's order
    /// again).
    ///
    /// The operation's index is the item's index in its destination section after the move, what
    /// ``CatalogModel/BatchOperation/moveItem(id:toSection:index:policy:)`` takes (within the
    /// section without the item when it stays in its own).
    ///
    /// - Complexity: O(n) in the items.
    public func move(to final: IdentifierSnapshot) -> BatchOperation? {
        guard final.sections.map(\.id) == sections.map(\.id) else { return nil }
        let before = flattened, after = final.flattened
        guard before.count == after.count else { return nil }
        // The run where the two differ: one item left its start and went to its end, or the other way.
        guard let first = before.indices.first(where: { before[$0] != after[$0] }) else { return nil }
        var last = before.count - 1
        while last > first, before[last] == after[last] { last -= 1 }
        // Two readings of the run (an item that left its start for its end, or its end for its
        // start; adjacent items read both ways); the one whose move gives `final`, each item in
        // its section, is the move.
        var candidates: [(item: String, position: Int)] = []
        if before[first].item == after[last].item,
           before[(first + 1)..<(last + 1)].map(\.item) == after[first..<last].map(\.item) {
            candidates.append((before[first].item, last))
        }
        if after[first].item == before[last].item,
           before[first..<last].map(\.item) == after[(first + 1)..<(last + 1)].map(\.item) {
            candidates.append((after[first].item, first))
        }
        for (item, position) in candidates {
            let section = after[position].section
            let index = position - (after.firstIndex { $0.section == section } ?? position)
            if applying(item, toSection: section, index: index) == final {
                return .moveItem(id: item, toSection: final.sections[section].id, index: index)
            }
        }
        return nil
    }

    /// Every item with its section's index, in order.
    private var flattened: [(section: Int, item: String)] {
        sections.indices.flatMap { s in sections[s].items.map { (section: s, item: $0) } }
    }

    /// This snapshot with `item` moved to `index` of section `section` (the index in the section
    /// after the move).
    private func applying(_ item: String, toSection section: Int, index: Int) -> IdentifierSnapshot {
        var result = self
        for s in result.sections.indices {
            result.sections[s].items.removeAll { $0 == item }
        }
        guard index <= result.sections[section].items.count else { return self }
        result.sections[section].items.insert(item, at: index)
        return result
    }
}

extension Catalog {
    /// The ids of the items of this catalogue that `old` holds too with other content: what a
    /// diffable data source must be told to reconfigure, since its snapshot compares ids only.
    /// In this catalogue's order.
    ///
    /// - Complexity: O(n) in the items of both.
    public func itemsWithNewContent(since old: Catalog) -> [String] {
        var before: [String: Item] = [:]
        before.reserveCapacity(old.sections.reduce(0) { $0 + $1.items.count })
        for section in old.sections {
            for item in section.items { before[item.id] = item }
        }
        var changed: [String] = []
        for section in sections {
            for item in section.items {
                if let previous = before[item.id], !previous.hasSameContent(as: item) { changed.append(item.id) }
            }
        }
        return changed
    }

    /// Where a drag of the item at `source` may propose to drop it when the person is over
    /// `proposed`: `proposed` if the item may go there without displacing anything — its own
    /// section, or another of its kind with room — and otherwise `current`, the last proposal,
    /// so that a full shelf is never proposed (`collectionView(_:targetIndexPathForMoveOfItemFromOriginalIndexPath:atCurrentIndexPath:toProposedIndexPath:)`,
    /// ``MoveSession``). The store's own rule for a move decides (a move with `.reject`).
    public func moveTarget(from source: ItemPath, current: ItemPath, proposed: ItemPath) -> ItemPath {
        guard sections.indices.contains(source.section), sections[source.section].items.indices.contains(source.item),
              sections.indices.contains(proposed.section) else { return current }
        let item = sections[source.section].items[source.item]
        let target = sections[proposed.section]
        let sameSection = proposed.section == source.section
        let allowed = (try? MoveDecision.decide(
            item: item.id, kind: item.kind, to: target.id, of: target.kind, count: target.items.count,
            capacity: target.capacity, sameSection: sameSection,
            at: min(proposed.item, target.items.count), policy: .reject)) != nil
        return allowed ? proposed : current
    }
}
