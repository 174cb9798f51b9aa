extension SnapshotShape {
    /// The shape after `changeset`, stage by stage, as a collection view applies it: deletes and
    /// move sources at the indices before each stage, inserts and move destinations at those
    /// after. For changesets that only delete, reload and move items (those of moves): nil when
    /// the changeset changes sections or inserts items (whose ids it does not carry), or names an
    /// index out of range.
    package func applyingItemMoves(_ changeset: Changeset) -> SnapshotShape? {
        var items = self.items
        for stage in changeset.stages {
            guard stage.sections.isEmpty, stage.items.inserted.isEmpty else { return nil }
            var removed = stage.items.deleted
            var placed: [(ItemPath, ItemID)] = []
            for move in stage.items.moved {
                guard move.from.section < items.count, move.from.item < items[move.from.section].count else { return nil }
                removed.append(move.from)
                placed.append((move.to, items[move.from.section][move.from.item]))
            }
            for path in removed.sorted(by: >) {
                guard path.section < items.count, path.item < items[path.section].count else { return nil }
                items[path.section].remove(at: path.item)
            }
            for (path, id) in placed.sorted(by: { $0.0 < $1.0 }) {
                guard path.section < items.count, path.item <= items[path.section].count else { return nil }
                items[path.section].insert(id, at: path.item)
            }
        }
        return SnapshotShape(sections: sections, items: items)
    }
}
