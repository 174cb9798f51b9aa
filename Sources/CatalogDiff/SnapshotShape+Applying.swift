extension SnapshotShape {
    /// The shape after `changeset`, stage by stage, as a collection view applies it: deletes and
    /// move sources at the indices before each stage, inserts and move destinations at those
    /// after. For changesets that only delete, reload and move items (those of moves): nil when
    /// the changeset changes sections or inserts items (whose ids it does not carry), or names an
    /// index out of range.
    package func applyingItemMoves(_ changeset: Changeset) -> SnapshotShape? {
        var items = self.items
        for stage in changeset.stages {
            guard stage.sections.isEmpty, stage.items.inserted.isEmpty, stage.applyItemMoves(to: &items, \.self) else { return nil }
        }
        return SnapshotShape(sections: sections, items: items)
    }
}

extension Stage {
    /// Applies this stage's item deletions and moves to `sections` (each holding its items at
    /// `items`), as a collection view does: deletions and move sources at the indices before
    /// the stage, destinations at those after; the items not moved keep their order. Its section
    /// changes, insertions and reloads are not applied (the caller checks there are none it
    /// needs). False, with `sections` part-changed, when an index is out of range or named twice.
    package func applyItemMoves<Sections: MutableCollection & RandomAccessCollection, Element>(
        to sections: inout Sections, _ items: WritableKeyPath<Sections.Element, [Element]>
    ) -> Bool where Sections.Index == Int {
        let moves = self.items.moved
        let removed = self.items.deleted + moves.map(\.from)
        guard Set(removed).count == removed.count, Set(moves.map(\.to)).count == moves.count,
              moves.allSatisfy({ sections.indices.contains($0.to.section) }) else { return false }
        var taken: [ItemPath: Element] = [:]
        for path in removed.sorted(by: >) {
            guard sections.indices.contains(path.section), sections[path.section][keyPath: items].indices.contains(path.item) else { return false }
            taken[path] = sections[path.section][keyPath: items].remove(at: path.item)
        }
        for move in moves.sorted(by: { $0.to < $1.to }) {
            guard move.to.item <= sections[move.to.section][keyPath: items].count, let item = taken[move.from] else { return false }
            sections[move.to.section][keyPath: items].insert(item, at: move.to.item)
        }
        return true
    }
}
